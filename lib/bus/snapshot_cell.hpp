#pragma once
// Internal: a pointer to an immutable value that readers follow without
// taking a lock or touching a reference count, and that writers replace.
// What a writer replaced is freed once no reader can still be using it.
//
// The emit path reads a channel's dispatch snapshot through it: entering and
// leaving a read costs two atomic increments on a counter of the cell, where
// a mutex and a shared_ptr copy cost four atomic operations (or more under
// contention), which is most of what an emit with one handler costs.
//
// How it stays safe (epoch-based reclamation with two reader counters):
// - A reader reads the epoch E, counts itself in readers_[E % 2], and checks
//   that the epoch is still E; if it moved on, it uncounts itself and tries
//   again. A counted reader whose check passed is "of epoch E".
// - The epoch moves from C to C+1 only while no reader of epoch C-1 is left
//   (readers_[(C+1) % 2] is zero), so readers in flight are always of the
//   current epoch or the one before it.
// - A value a writer replaced while the epoch was R is freed once the epoch
//   is past R and no reader of the epoch before the current one is left: every
//   reader in flight then began after the value was replaced, and read the
//   new one.
// - Whoever could make that progress tries: a writer after replacing, and a
//   reader that leaves last from its counter while something waits to be
//   freed. So a replaced value is freed as soon as the reads that began
//   before its replacement have ended, however many reads began since.
// Every atomic operation here is sequentially consistent: the argument above
// relies on one total order of the counters, the epoch and the pointer.
//
// What is freed is destroyed outside the cell's lock, on the thread that made
// the progress, so its destructor may use the cell again.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace hookbus::detail {

template <class T>
class SnapshotCell {
 public:
  SnapshotCell() = default;
  SnapshotCell(const SnapshotCell&) = delete;
  SnapshotCell& operator=(const SnapshotCell&) = delete;
  // No reader may be in flight (the owner is being destroyed).
  ~SnapshotCell() { delete current_.load(); }

  // A read: while it lives, what get() returned stays valid.
  class Read {
   public:
    explicit Read(SnapshotCell& cell) noexcept : cell_(cell), counter_(cell.enter()) {}
    ~Read() { cell_.leave(counter_); }
    Read(const Read&) = delete;
    Read& operator=(const Read&) = delete;

    // The current value, or null when there is none (never published, or
    // cleared since).
    [[nodiscard]] const T* get() const noexcept { return cell_.current_.load(); }

   private:
    SnapshotCell& cell_;
    unsigned counter_;
  };

  // Publishes `next` unless the cell changed since `version` was read (then
  // `next` stays with the caller). Returns whether it was published.
  bool publish_if_unchanged(std::unique_ptr<T>& next, std::uint64_t version) {
    std::unique_ptr<const T> replaced;
    Freed freed;
    {
      std::lock_guard lock(mutex_);
      if (version_ != version) return false;
      replaced.reset(current_.exchange(next.release()));
      freed = retire(std::move(replaced));
    }
    return true;
  }

  // Clears the value: readers get null until the next publish. Changes the version.
  void clear() {
    Freed freed;
    std::lock_guard lock(mutex_);
    ++version_;
    std::unique_ptr<const T> replaced(current_.exchange(nullptr));
    // Already clear, nothing waiting: a connect or disconnect between emits.
    if (!replaced && retired_.empty()) return;
    freed = retire(std::move(replaced));
  }

  // Changes counted so far; publish_if_unchanged compares against it.
  [[nodiscard]] std::uint64_t version() const {
    std::lock_guard lock(mutex_);
    return version_;
  }

 private:
  // Values to destroy once the lock is released (declared before the lock
  // guard, so destroyed after it).
  using Freed = std::vector<std::unique_ptr<const T>>;

  struct Retired {
    std::unique_ptr<const T> value;
    std::uint64_t epoch;  // the epoch when it was replaced
  };

  // Inlined into every emit: a call here is a measurable part of an emit.
  [[gnu::always_inline]] unsigned enter() noexcept {
    for (;;) {
      const std::uint64_t epoch = epoch_.load();
      const auto counter = static_cast<unsigned>(epoch & 1);
      readers_[counter].fetch_add(1);
      if (epoch_.load() == epoch) return counter;
      leave(counter);
    }
  }

  [[gnu::always_inline]] void leave(unsigned counter) noexcept {
    if (readers_[counter].fetch_sub(1) == 1 && waiting_.load()) reclaim_after_read();
  }

  // The last reader of a counter left while something waits to be freed.
  [[gnu::noinline]] void reclaim_after_read() noexcept {
    Freed freed;
    std::lock_guard lock(mutex_);
    freed = reclaim();
  }

  // Called with the lock held: `value` (if any) waits for the reads that may
  // still see it, and whatever can be freed now is returned.
  Freed retire(std::unique_ptr<const T> value) {
    if (value) {
      retired_.push_back({std::move(value), epoch_.load()});
      waiting_.store(true);
    }
    return reclaim();
  }

  // Called with the lock held.
  Freed reclaim() {
    Freed freed;
    for (;;) {
      const std::uint64_t epoch = epoch_.load();
      // Readers of the epoch before this one are still in flight: nothing
      // can be freed yet, and the epoch cannot move on.
      if (readers_[(epoch + 1) & 1].load() != 0) break;
      // Every reader in flight is of `epoch`: what was replaced before it is unseen.
      std::erase_if(retired_, [&](Retired& r) {
        if (r.epoch >= epoch) return false;
        freed.push_back(std::move(r.value));
        return true;
      });
      if (retired_.empty()) break;
      epoch_.store(epoch + 1);  // what remains was replaced in `epoch`: wait for its readers
    }
    waiting_.store(!retired_.empty());
    return freed;
  }

  std::atomic<const T*> current_{nullptr};
  std::atomic<std::uint64_t> epoch_{2};  // starts above 1 so that epoch - 1 never wraps
  std::atomic<std::uint32_t> readers_[2] = {};
  std::atomic<bool> waiting_{false};  // retired_ is not empty
  mutable std::mutex mutex_;          // writers: version_, retired_, epoch moves
  std::uint64_t version_ = 0;
  std::vector<Retired> retired_;
};

}  // namespace hookbus::detail
