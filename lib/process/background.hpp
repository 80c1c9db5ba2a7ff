#pragma once
// Internal: the background pool of one installation, which runs its async
// hooks (hookbus's `"async": true`, Claude Code's `"async"`) so that the emit
// does not wait for them: a fixed number of worker threads, started with the
// first run, and a bounded queue; a run that finds the queue full is dropped,
// counted and warned about (at most one warning a second). The handlers hold
// the pool; when the last is gone (the installation's group dropped, or the
// bus destroyed) the runs still queued are dropped (counted as cancelled),
// the running ones are stopped through their stop token, and the workers are
// joined: nothing outlives it. docs/external-hooks.md ("Background hooks").
// Below external hooks and the hook formats, whose installers both use it.

#include <hookbus/background.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace hookbus::detail {

struct BackgroundCounters {
  std::atomic<std::uint64_t> queued{0};
  std::atomic<std::uint64_t> finished{0};
  std::atomic<std::uint64_t> dropped{0};
  std::atomic<std::uint64_t> cancelled{0};

  // Each queued run holds a ticket, its place in queueing order, until it
  // ends (finished or cancelled). Runs end out of order (several workers),
  // so a count of ends cannot tell whether the runs queued before a moment
  // have all ended; the tickets still held can.
  std::uint64_t take_ticket();  // counts the run as queued
  void end(std::uint64_t ticket);
  // BackgroundRuns::wait(): until no run queued before the call holds a ticket.
  void wait_for_runs_queued_so_far() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable ended_;
  std::uint64_t issued_ = 0;
  std::set<std::uint64_t> held_;  // at most the queue's runs and the workers'
};

class BackgroundPool {
 public:
  using Run = std::function<void(std::stop_token)>;

  explicit BackgroundPool(BackgroundOptions options);
  ~BackgroundPool();
  BackgroundPool(const BackgroundPool&) = delete;
  BackgroundPool& operator=(const BackgroundPool&) = delete;

  // Queues `run`, which must not throw; false when the queue is full (the run
  // is dropped). `what` names the run in the warning: "hook 'audit' on 'tool_call'".
  bool submit(std::string_view what, Run run);

  [[nodiscard]] BackgroundRuns runs() const { return BackgroundRuns(counters_); }

 private:
  void work();

  const BackgroundOptions options_;
  const std::shared_ptr<BackgroundCounters> counters_ = std::make_shared<BackgroundCounters>();
  std::stop_source stop_;  // requested when the pool goes away: waiting workers and running runs see it
  std::mutex mutex_;
  std::condition_variable_any queued_;
  struct Queued {
    std::uint64_t ticket;
    Run run;
  };
  std::deque<Queued> queue_;
  std::chrono::steady_clock::time_point last_warning_{};
  std::vector<std::thread> workers_;  // started with the first run
};

}  // namespace hookbus::detail
