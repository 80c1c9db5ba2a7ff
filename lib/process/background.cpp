// The background pool of async hooks (lib/process/background.hpp).
#include "process/background.hpp"

#include "support/logging.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
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
  if (counters_) counters_->wait_for_runs_queued_so_far();
}

namespace detail {

std::uint64_t BackgroundCounters::take_ticket() {
  const std::lock_guard lock(mutex_);
  held_.insert(issued_);  // first: when it throws, nothing has changed
  ++queued;
  return issued_++;
}

void BackgroundCounters::end(std::uint64_t ticket) {
  {
    const std::lock_guard lock(mutex_);
    held_.erase(ticket);
  }
  ended_.notify_all();
}

void BackgroundCounters::wait_for_runs_queued_so_far() const {
  std::unique_lock lock(mutex_);
  const std::uint64_t before = issued_;
  const auto ended = [&] { return held_.empty() || *held_.begin() >= before; };
  if (ended()) return;
  log(spdlog::level::debug, "waiting for {} background run{} to end", held_.size(), held_.size() == 1 ? "" : "s");
  ended_.wait(lock, ended);
}

BackgroundPool::BackgroundPool(BackgroundOptions options) : options_(options) {}

BackgroundPool::~BackgroundPool() {
  stop_.request_stop();  // wakes the idle workers; running runs stop their processes
  for (auto& worker : workers_) worker.join();
  for (const Queued& queued : queue_) {
    ++counters_->cancelled;
    counters_->end(queued.ticket);
  }
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
  queue_.push_back({0, std::move(run)});
  try {
    queue_.back().ticket = counters_->take_ticket();  // once queued: a ticket held by no run would hold wait() up
  } catch (...) {
    queue_.pop_back();
    throw;
  }
  queued_.notify_one();
  return true;
}

void BackgroundPool::work() {
  const std::stop_token stop = stop_.get_token();
  for (;;) {
    std::optional<Queued> next;
    {
      std::unique_lock lock(mutex_);
      queued_.wait(lock, stop, [&] { return !queue_.empty(); });
      if (stop.stop_requested()) return;  // the pool goes away: what is queued stays unrun
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    next->run(stop);
    ++counters_->finished;
    counters_->end(next->ticket);
  }
}

}  // namespace detail
}  // namespace hookbus
