// The background pool of async hooks (lib/external/background.hpp).
#include "external/background.hpp"

#include "support/logging.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <system_error>

namespace hookbus {

BackgroundCounts BackgroundRuns::counts() const {
  if (!counters_) return {};
  return {.queued = counters_->queued.load(),
          .finished = counters_->finished.load(),
          .dropped = counters_->dropped.load(),
          .cancelled = counters_->cancelled.load()};
}

void BackgroundRuns::wait() const {
  if (!counters_) return;
  const std::uint64_t queued = counters_->queued.load();
  for (std::uint64_t ended = counters_->ended.load(); ended < queued; ended = counters_->ended.load())
    counters_->ended.wait(ended);
}

namespace detail {

BackgroundPool::BackgroundPool(BackgroundOptions options) : options_(options) {}

BackgroundPool::~BackgroundPool() {
  stop_.request_stop();  // wakes the idle workers; running runs stop their processes
  for (auto& worker : workers_) worker.join();
  counters_->cancelled += queue_.size();
  counters_->end(queue_.size());
}

bool BackgroundPool::submit(std::string_view what, Run run) {
  const std::lock_guard lock(mutex_);
  if (workers_.empty()) {
    try {
      while (workers_.size() < std::max<std::size_t>(options_.workers, 1)) workers_.emplace_back([this] { work(); });
    } catch (const std::system_error& error) {
      if (workers_.empty()) {
        ++counters_->dropped;
        log(spdlog::level::warn, "background run of {} dropped: no thread to run it on ({})", what, error.what());
        return false;
      }
    }
  }
  if (queue_.size() >= options_.queue_limit) {
    const auto dropped = ++counters_->dropped;
    const auto now = std::chrono::steady_clock::now();
    if (dropped == 1 || now - last_warning_ >= std::chrono::seconds(1)) {
      last_warning_ = now;
      log(spdlog::level::warn,
          "background run of {} dropped: {} run{} already wait{} for the {} background worker{} ({} dropped so far)",
          what, queue_.size(), queue_.size() == 1 ? "" : "s", queue_.size() == 1 ? "s" : "", workers_.size(),
          workers_.size() == 1 ? "" : "s", dropped);
    }
    return false;
  }
  queue_.push_back(std::move(run));
  ++counters_->queued;
  queued_.notify_one();
  return true;
}

void BackgroundPool::work() {
  const std::stop_token stop = stop_.get_token();
  for (;;) {
    Run run;
    {
      std::unique_lock lock(mutex_);
      queued_.wait(lock, stop, [&] { return !queue_.empty(); });
      if (stop.stop_requested()) return;  // the pool goes away: what is queued stays unrun
      run = std::move(queue_.front());
      queue_.pop_front();
    }
    run(stop);
    ++counters_->finished;
    counters_->end(1);
  }
}

}  // namespace detail
}  // namespace hookbus
