// EmissionCapture's record (lib/bus/recording/emission_capture.hpp): labels,
// kinds and wall-clock times, made off the emit's hot path.

#include "bus/recording/emission_capture.hpp"

#include <atomic>

namespace hookbus::detail {
namespace {

using namespace std::chrono;

// The wall clock at a steady time: the steady clock plus the offset between
// the two clocks measured once per process, so that every record of the
// process is on one timeline (a nested emit lies within its handler).
sys_time<nanoseconds> wall_clock_at(SteadyTime time) {
  static const auto offset = [] {
    const auto wall = system_clock::now();
    const auto steady = steady_clock::now();
    return duration_cast<nanoseconds>(wall.time_since_epoch()) - duration_cast<nanoseconds>(steady.time_since_epoch());
  }();
  return sys_time<nanoseconds>(duration_cast<nanoseconds>(time.time_since_epoch()) + offset);
}

RecordedKind recorded_kind(HandlerKind kind) noexcept {
  switch (kind) {
    case HandlerKind::builtin: return RecordedKind::builtin;
    case HandlerKind::external: return RecordedKind::external;
    case HandlerKind::plugin: return RecordedKind::plugin;
    case HandlerKind::in_process: break;
  }
  return RecordedKind::in_process;
}

}  // namespace

std::uint32_t this_thread_number() noexcept {
  static std::atomic<std::uint32_t> threads_seen{0};
  thread_local const std::uint32_t number = threads_seen.fetch_add(1, std::memory_order_relaxed) + 1;
  return number;
}

void HandlerTrace::end(HandlerAction action, std::string_view reason, std::string_view error) {
  // A handler that reported its own run (handler_report.hpp) is recorded with it.
  const HandlerReport& report = capture_->handler_report();
  const EmissionCapture::Span call = capture_->handler_ended();
  const TraceTicks start = report.ran ? report.ran->start : call.start;
  const TraceTicks finish = report.ran ? report.ran->end : call.end;
  capture_->add({*registration_, subscriber_, start, finish, action, std::string(reason), std::string(error),
                 report.ran_ahead});
}

void EmissionCapture::done() noexcept {
  // A waiting capture holds no registration: those hold the bus, which holds the pool.
  runs_.clear();
  levels_.clear();
  if (const std::shared_ptr<CapturePool> pool = pool_.lock()) pool->give_back(this);
  else delete this;
}

CapturePool::~CapturePool() {
  for (EmissionCapture* capture : free_) delete capture;
}

EmissionCapture* CapturePool::reusable() noexcept {
  const std::lock_guard lock(mutex_);
  if (free_.empty()) return nullptr;
  EmissionCapture* capture = free_.back();
  free_.pop_back();
  return capture;
}

void CapturePool::give_back(EmissionCapture* capture) noexcept {
  {
    const std::lock_guard lock(mutex_);
    try {
      free_.push_back(capture);
      return;
    } catch (...) {  // no memory to keep it: it is deleted
    }
  }
  delete capture;
}

void CapturePool::trim() noexcept {
  std::vector<EmissionCapture*> surplus;
  {
    const std::lock_guard lock(mutex_);
    if (free_.size() <= kept_when_idle) return;
    // The most recently given back stay: their memory is the warmest.
    const auto kept_from = free_.end() - kept_when_idle;
    try {
      surplus.assign(free_.begin(), kept_from);
    } catch (...) {  // no memory for the list: trimmed when it next goes idle
      return;
    }
    free_.erase(free_.begin(), kept_from);
  }
  for (EmissionCapture* capture : surplus) delete capture;  // outside the lock: emits may take meanwhile
}

std::size_t CapturePool::kept() const noexcept {
  const std::lock_guard lock(mutex_);
  return free_.size();
}

EmissionRecord EmissionCapture::record() const {
  EmissionRecord record;
  record.seq = seq_;
  record.thread = thread_;
  const SteadyTime start = steady_time_at(start_);
  record.start = wall_clock_at(start);
  record.duration = duration_cast<nanoseconds>(steady_time_at(end_) - start);
  record.payload = payload_;
  record.handlers.reserve(runs_.size());
  for (const Run& run : runs_) {
    const Registration& registration = *run.registration;
    const SteadyTime run_start = steady_time_at(run.start);
    record.handlers.push_back(HandlerRecord{
        .label = registration.label(),
        .kind = run.subscriber ? RecordedKind::subscriber : recorded_kind(registration.kind()),
        .source = registration.source(),
        .protocol = registration.protocol(),
        .layer = registration.layer(),
        .start_offset = duration_cast<nanoseconds>(run_start - start),
        .duration = duration_cast<nanoseconds>(steady_time_at(run.end) - run_start),
        .action = run.action,
        .reason = run.reason,
        .error = run.error,
        .ran_ahead = run.ran_ahead,
    });
  }
  record.runs_stopped = runs_stopped_;
  record.result = result_;
  record.decided_by = decided_by_;
  if (step_) {
    StepRecord& step = record.step.emplace();
    step.levels.reserve(levels_.size());
    for (const Level& level : levels_) {
      const SteadyTime level_start = steady_time_at(level.start);
      step.levels.push_back(StepLevelRecord{
          .step = level.registration == nullptr,
          .label = level.registration ? level.registration->label() : std::string(),
          .source = level.registration ? level.registration->source() : std::string(),
          .parent = level.parent,
          .start_offset = duration_cast<nanoseconds>(level_start - start),
          .duration = duration_cast<nanoseconds>(steady_time_at(level.end) - level_start),
          .next_calls = level.next_calls,
          .outcome = level.outcome,
          .error = level.error,
      });
    }
  }
  return record;
}

}  // namespace hookbus::detail
