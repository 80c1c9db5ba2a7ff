#pragma once
// Internal: the bounded queue and thread behind a queued catch-all subscriber
// or emission observer (HandlerOptions::queued; docs/semantics.md, "Queued
// delivery").
//
// Emitting threads push; one thread of the queue's own delivers, in push
// order, in batches: it takes everything queued at once, so a push contends
// with it only for that moment. A push never wakes the thread while it is
// lingering (waiting a short while for more after a batch); it is woken only
// from an idle wait, when the queue is half full, or by flush and close. So an
// emit under a steady stream costs a lock and a push, no system call.
//
// The queue and the batch being delivered are two vectors that trade places,
// each keeping its memory: a push allocates nothing once the queue has held
// as many items before (a deque allocated a block every few pushes, which the
// delivering thread then freed, glibc's slow path for another thread's
// memory). A vector of more than kept_bytes is let go after its batch, so a
// rare flood does not stay reserved.

#include "bus/registration.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <string>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace hookbus::detail {

std::string describe_exception(std::exception_ptr error);

template <class Item>
class DeliveryQueueOf final : public QueueControl, public std::enable_shared_from_this<DeliveryQueueOf<Item>> {
 public:
  using Deliver = std::function<void(Item&)>;
  using Report = std::function<void(const std::string& message)>;
  using Idle = std::function<void()>;

  // How long the delivering thread waits for more items after a batch before
  // it goes idle (and a push must wake it).
  static constexpr std::chrono::milliseconds linger{1};
  static constexpr std::size_t kept_bytes = 256 * 1024;

  // Starts the delivering thread. `deliver` may throw: `report` is told, and
  // delivery goes on with the next item. `idle`, when given, is called on the
  // delivering thread each time it goes idle, outside the lock; it must not
  // throw.
  static std::shared_ptr<DeliveryQueueOf> start(const DeliveryQueue& options, std::string label, Deliver deliver,
                                                Report report, Idle idle = {}) {
    if (options.capacity == 0) throw std::invalid_argument("hookbus: a delivery queue needs a capacity of at least 1");
    auto queue = std::shared_ptr<DeliveryQueueOf>(
        new DeliveryQueueOf(options, std::move(label), std::move(deliver), std::move(report), std::move(idle)));
    std::lock_guard lock(queue->mutex_);
    std::thread thread([queue] {
      // Named for debuggers, top and profiles: the name's limit is 15 bytes.
      pthread_setname_np(pthread_self(), "hookbus-queue");
      queue->run();
    });
    queue->worker_ = thread.get_id();
    thread.detach();  // close() waits for it to finish; it may close itself (a subscriber disconnecting itself)
    return queue;
  }

  void push(Item item) {
    std::unique_lock lock(mutex_);
    if (closing_) return;  // disconnected meanwhile: no emit reaches it afterwards
    if (queued() >= options_.capacity) {
      const bool on_worker = std::this_thread::get_id() == worker_;
      if (options_.overflow == Overflow::block && !on_worker) {
        wake_worker(lock);
        room_.wait(lock, [&] { return queued() < options_.capacity || closing_; });
        if (closing_) return;
      } else if (options_.overflow == Overflow::drop_oldest) {
        items_[head_++] = Item{};
        // The dropped items' places are reclaimed once they are as many as
        // the queue holds: memory stays bounded while the delivering thread
        // is busy, and each push moves at most one item on average.
        if (head_ >= options_.capacity) {
          items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
          head_ = 0;
        }
        ++dropped_;
        ++done_;
      } else {
        ++dropped_;
        return;
      }
    }
    items_.push_back(std::move(item));
    ++accepted_;
    if (idle_ || queued() * 2 >= options_.capacity) wake_worker(lock);
  }

  void flush() override {
    std::unique_lock lock(mutex_);
    if (std::this_thread::get_id() == worker_) return;  // it cannot wait for itself
    const std::uint64_t target = accepted_;
    if (done_ >= target) return;
    wake_worker(lock);
    progress_.wait(lock, [&] { return done_ >= target || finished_; });
  }

  void close() noexcept override {
    std::unique_lock lock(mutex_);
    closing_ = true;
    work_.notify_one();
    room_.notify_all();
    if (std::this_thread::get_id() == worker_) return;  // it finishes after the delivery it is in
    progress_.wait(lock, [&] { return finished_; });
  }

  bool finished() const override {
    std::lock_guard lock(mutex_);
    return finished_;
  }

  DeliveryQueueState state() const override {
    std::lock_guard lock(mutex_);
    return DeliveryQueueState{label_, options_.capacity, options_.overflow, queued(), delivered_, dropped_};
  }

 private:
  DeliveryQueueOf(const DeliveryQueue& options, std::string label, Deliver deliver, Report report, Idle idle)
      : options_(options),
        label_(std::move(label)),
        deliver_(std::move(deliver)),
        report_(std::move(report)),
        on_idle_(std::move(idle)) {}

  std::size_t queued() const noexcept { return items_.size() - head_; }

  void wake_worker(std::unique_lock<std::mutex>&) {
    idle_ = false;
    work_.notify_one();
  }

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (queued() == 0) {
        if (closing_) break;
        work_.wait_for(lock, linger, [&] { return queued() != 0 || closing_; });
        if (queued() == 0 && !closing_) {
          idle_ = true;
          if (on_idle_) {
            lock.unlock();
            on_idle_();
            lock.lock();
          }
          work_.wait(lock, [&] { return queued() != 0 || closing_; });
          idle_ = false;
        }
        continue;
      }
      batch_.swap(items_);
      const std::size_t first = std::exchange(head_, 0);
      const std::size_t count = batch_.size() - first;
      room_.notify_all();
      lock.unlock();
      for (std::size_t i = first; i < batch_.size(); ++i) {
        try {
          deliver_(batch_[i]);
        } catch (...) {
          report_(describe_exception(std::current_exception()));
        }
      }
      // Items are released here, not under the lock.
      if (batch_.capacity() * sizeof(Item) > kept_bytes) batch_ = std::vector<Item>();
      else batch_.clear();
      lock.lock();
      delivered_ += count;
      done_ += count;
      progress_.notify_all();
    }
    lock.unlock();
    // What the subscriber's code owns is released before close() returns, so
    // before the registration lets go of what keeps that code loaded.
    deliver_ = nullptr;
    report_ = nullptr;
    on_idle_ = nullptr;
    lock.lock();
    finished_ = true;
    progress_.notify_all();
  }

  const DeliveryQueue options_;
  const std::string label_;
  Deliver deliver_;
  Report report_;
  Idle on_idle_;

  mutable std::mutex mutex_;
  std::condition_variable work_;      // the delivering thread waits here
  std::condition_variable room_;      // pushes blocked on a full queue
  std::condition_variable progress_;  // flush and close
  std::vector<Item> items_;  // queued from head_ on; those before it were dropped (drop_oldest)
  std::size_t head_ = 0;
  std::vector<Item> batch_;  // the delivering thread's, outside the lock
  std::thread::id worker_;
  std::uint64_t accepted_ = 0;   // items ever queued
  std::uint64_t done_ = 0;       // of those, delivered or dropped to make room (always a prefix)
  std::uint64_t delivered_ = 0;
  std::uint64_t dropped_ = 0;
  bool idle_ = false;
  bool closing_ = false;
  bool finished_ = false;
};

}  // namespace hookbus::detail
