#pragma once
// The background pool that runs an installation's async hooks (external.hpp
// installs them: hookbus's "async": true, Claude Code's "async"), and how
// its runs went. docs/external-hooks.md, "Background hooks".

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace hookbus {

namespace detail {
struct BackgroundCounters;
}

// The background pool of one installation, which runs its async hooks
// (`"async": true` in config, Claude Code's `"async"`): the emit hands the run
// over and goes on.
struct BackgroundOptions {
  std::size_t workers = 2;        // threads, started with the first background run
  std::size_t queue_limit = 64;   // runs waiting for a worker; a run beyond is dropped, with a warning
};

// How the background runs of an installation went so far.
struct BackgroundCounts {
  std::uint64_t queued = 0;     // handed to the pool
  std::uint64_t finished = 0;   // run (to their end, or stopped when the installation went away)
  std::uint64_t dropped = 0;    // not run: the queue was full
  std::uint64_t cancelled = 0;  // queued, not yet run when the installation went away
};

// A view of an installation's background pool; copies share it, and it stays
// readable after the installation is gone. Default-constructed: all zero.
class BackgroundRuns {
 public:
  BackgroundRuns() = default;
  explicit BackgroundRuns(std::shared_ptr<const detail::BackgroundCounters> counters) noexcept
      : counters_(std::move(counters)) {}
  [[nodiscard]] BackgroundCounts counts() const;
  // Returns once every run queued before the call has ended: run to its end,
  // stopped, or cancelled with the installation. Each run ends within its
  // hook's timeout. A program that emits once and exits (hookctl emit) waits
  // here, so its async hooks are not stopped by its exit.
  void wait() const;

 private:
  std::shared_ptr<const detail::BackgroundCounters> counters_{};
};

}  // namespace hookbus
