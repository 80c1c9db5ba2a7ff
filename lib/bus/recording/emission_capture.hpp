#pragma once
// Internal: what the bus records of one emit while emission observers are
// registered (Hooks::on_emission). The emitting thread only copies the event,
// reads the trace clock (trace_clock.hpp) when the emit starts and as each
// handler returns, and keeps a reference to each handler's registration; the
// EmissionRecord, with its labels and wall-clock time, is made from that when
// an observer asks (on its own thread when it is queued), where the clock's
// ticks are converted.
//
// The bus's part is two calls: an EmissionCapture taken from the bus's
// CapturePool when the emit starts (carried by the Emission, null when nobody
// observes) and finish() when it ends; each slot reports through a
// HandlerTrace, which does nothing when the capture is null.

#include <hookbus/trace.hpp>

#include "bus/recording/copy_over.hpp"
#include "bus/recording/handler_report.hpp"
#include "bus/recording/trace_clock.hpp"
#include "bus/reducers.hpp"
#include "bus/registration.hpp"

#include <boost/container/small_vector.hpp>
#include <boost/smart_ptr/intrusive_ptr.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookbus::detail {

// hookbus's number of the calling thread: 1 for the first thread that asked.
std::uint32_t this_thread_number() noexcept;

class CapturePool;

// Counted by boost::intrusive_ptr (no control block to allocate); the last
// reference dropped gives it back to its pool, which reuses it.
class EmissionCapture {
 public:
  explicit EmissionCapture(std::weak_ptr<CapturePool> pool) : pool_(std::move(pool)) {}
  EmissionCapture(const EmissionCapture&) = delete;
  EmissionCapture& operator=(const EmissionCapture&) = delete;

  // Starts the record of an emit of `event`, over what an earlier emit left:
  // an event of the same type is copied over the one before, writing only
  // what differs (copy_over.hpp).
  template <Event E>
  void begin(std::uint64_t seq, const E& event) {
    seq_ = seq;
    thread_ = this_thread_number();
    if (E* same = std::get_if<E>(&payload_)) copy_over(*same, event);
    else payload_.template emplace<E>(event);
    handler_report_ = {};
    runs_stopped_.clear();
    step_ = false;
    start_ = trace_ticks();
    boundary_ = start_;
  }

  // ------------------------------------------- a run of a wrapped step
  // Hooks::run_step through wrappers, recorded in place of an emit: begin()
  // with the step's event, then start_step(); each level (a wrapper's call,
  // a run of the step) reports its start and end; finish_step() when the
  // run ends. Each level's index is its place in the record.
  void start_step() {
    step_ = true;
    levels_.clear();
  }
  // Starts a level: `registration` is the wrapper's, null for the engine's
  // step; `parent` the level whose next ran it.
  std::uint32_t level_started(std::shared_ptr<const Registration> registration, std::optional<std::uint32_t> parent) {
    levels_.push_back({std::move(registration), parent, trace_ticks()});
    return static_cast<std::uint32_t>(levels_.size() - 1);
  }
  void next_called(std::uint32_t level) noexcept { ++levels_[level].next_calls; }
  // A wrapper's failure (failed or refused), which stands whatever its run ends with.
  void level_failed(std::uint32_t level, StepOutcome outcome, std::string error) {
    levels_[level].outcome = outcome;
    levels_[level].error = std::move(error);
    levels_[level].failed = true;
  }
  void level_ended(std::uint32_t level, StepOutcome outcome, std::string error = {}) {
    Level& ended = levels_[level];
    ended.end = trace_ticks();
    if (ended.failed) return;
    ended.outcome = outcome;
    ended.error = std::move(error);
  }
  void finish_step(std::optional<Decider> refused_by) {
    end_ = trace_ticks();
    result_.emplace<std::monostate>();
    decided_by_ = std::move(refused_by);
  }

  // The clock is read once per handler, when it returns: a handler's time
  // runs from the end of the one before it (the emit's start for the first),
  // and the emit ends with its last handler. The bus's own few nanoseconds
  // between two handlers count to the second; each read saved is about 10 ns
  // of the emit's cost while it is recorded (25 ns on the steady clock).
  struct Span {
    TraceTicks start;
    TraceTicks end;
  };
  Span handler_ended() noexcept {
    const TraceTicks start = std::exchange(boundary_, trace_ticks());
    return {start, boundary_};
  }

  // One handler reached, as its slot saw it.
  struct Run {
    std::shared_ptr<const Registration> registration;
    bool subscriber = false;
    TraceTicks start{};
    TraceTicks end{};
    HandlerAction action = HandlerAction::no_change;
    std::string reason{};
    std::string error{};
    RanAhead ran_ahead = RanAhead::no;
  };
  void add(Run run) { runs_.push_back(std::move(run)); }
  // The handlers whose runs started ahead were stopped: the chain ended before their turn (bus/run_ahead.hpp).
  void runs_stopped(std::vector<std::string> labels) { runs_stopped_ = std::move(labels); }

  // What the handler being called reports (handler_report.hpp): one at a
  // time, since an emit calls its handlers one after another.
  HandlerReport& handler_report() noexcept { return handler_report_; }

  // The emit ended with `result` (monostate for an observe-only event).
  template <class Result>
  void finish(const Result& result) {
    end_ = runs_.empty() ? trace_ticks() : boundary_;
    if (Result* same = std::get_if<Result>(&result_)) copy_over(*same, result);
    else result_.template emplace<Result>(result);
    if constexpr (requires { result.decided_by; }) copy_over(decided_by_, result.decided_by);
    else decided_by_.reset();
  }

  // The record, made anew for each call.
  [[nodiscard]] EmissionRecord record() const;

  friend void intrusive_ptr_add_ref(const EmissionCapture* capture) noexcept {
    capture->references_.fetch_add(1, std::memory_order_relaxed);
  }
  friend void intrusive_ptr_release(const EmissionCapture* capture) noexcept {
    if (capture->references_.fetch_sub(1, std::memory_order_acq_rel) == 1) const_cast<EmissionCapture*>(capture)->done();
  }

 private:
  void done() noexcept;  // back to the pool, or deleted when the pool is gone

  // What every emit writes comes first, together: the lines a queued
  // observer's thread read since the last emit, which the emitting core must
  // take back to write, are as few as they can be. The event and the result
  // (copy_over: mostly only read) come after.
  mutable std::atomic<std::uint32_t> references_{0};
  std::uint32_t thread_ = 0;
  std::uint64_t seq_ = 0;
  TraceTicks start_{};
  TraceTicks boundary_{};  // the last handler's end, or the start
  TraceTicks end_{};
  HandlerReport handler_report_{};
  bool step_ = false;  // a run of a wrapped step, not an emit
  boost::container::small_vector<Run, 4> runs_;
  struct Level {
    std::shared_ptr<const Registration> registration;  // null: the engine's step
    std::optional<std::uint32_t> parent;
    TraceTicks start{};
    TraceTicks end{};
    std::uint32_t next_calls = 0;
    StepOutcome outcome = StepOutcome::output;
    std::string error{};
    bool failed = false;
  };
  std::vector<Level> levels_;
  std::vector<std::string> runs_stopped_;
  std::optional<Decider> decided_by_{};
  HookOutcome result_{};
  HookEvent payload_{};
  std::weak_ptr<CapturePool> pool_;
};

// The captures of one bus, reused. A capture is given back by whichever
// thread drops its last reference (a queued observer's thread, usually),
// which lets go of its handlers' registrations, and taken again by an
// emitting thread, which copies the next event over the last one. So a
// capture and its event's memory are not freed on the observer's thread and
// allocated anew on the emitting one, the slow path of glibc's allocator
// (docs/performance.md, "Tracing"). Every capture given back is kept, so
// the pool holds as many as were ever in flight at once: an engine that
// emits faster than a queued observer delivers (its queue full, up to twice
// its capacity in flight with the batch being delivered) reuses them too.
// A queued observer's thread trims the pool to `kept_when_idle` each time
// its queue goes idle, so a flood's memory is not held after it.
class CapturePool : public std::enable_shared_from_this<CapturePool> {
 public:
  static constexpr std::size_t kept_when_idle = 256;

  CapturePool() = default;
  CapturePool(const CapturePool&) = delete;
  CapturePool& operator=(const CapturePool&) = delete;
  ~CapturePool();

  template <Event E>
  boost::intrusive_ptr<EmissionCapture> take(std::uint64_t seq, const E& event) {
    EmissionCapture* capture = reusable();
    if (capture == nullptr) capture = new EmissionCapture(weak_from_this());
    boost::intrusive_ptr<EmissionCapture> taken(capture);
    capture->begin(seq, event);
    return taken;
  }

  void give_back(EmissionCapture* capture) noexcept;
  void trim() noexcept;  // to kept_when_idle
  [[nodiscard]] std::size_t kept() const noexcept;

 private:
  EmissionCapture* reusable() noexcept;

  mutable std::mutex mutex_;
  std::vector<EmissionCapture*> free_;  // owned
};

// What a handler's result means for the trace, and the reason it gave.
template <EventWithResult E>
std::pair<HandlerAction, std::string_view> action_of(const result_t<E>& result) {
  using R = result_t<E>;
  constexpr Reduction kind = E::reduction;
  if (const std::optional<RefusalKind> refusal = result_rules<R>::refusal(result)) {
    std::string_view reason;
    if constexpr (requires { result.reason; }) reason = result.reason;
    switch (*refusal) {
      case RefusalKind::deny: return {HandlerAction::deny, reason};
      case RefusalKind::cancel: return {HandlerAction::cancel, reason};
      case RefusalKind::reject: return {HandlerAction::reject, reason};
      case RefusalKind::handled: return {HandlerAction::handled, reason};
    }
  }
  if constexpr (Decisive<R>) {
    if (result.decision == Decision::defer) return {HandlerAction::defer, result.reason};
    if (result.decision == Decision::ask) return {HandlerAction::ask, result.reason};
    if (result.decision == Decision::allow) return {HandlerAction::allow, result.reason};
  }
  if constexpr (requires { result.stop; }) {
    if (result.stop) return {HandlerAction::stop, result.stop->reason};
  }
  if constexpr (kind == Reduction::transform) {
    if (result_rules<R>::transforms(result)) return {HandlerAction::transform, {}};
  }
  if (result == R{}) return {HandlerAction::no_change, {}};
  return {kind == Reduction::replace || kind == Reduction::last_wins ? HandlerAction::replace : HandlerAction::patch,
          {}};
}

// One handler's call, reported to the emit's capture; inert (one null check
// on making and ending it) when the emit is not recorded. Made just before
// the handler runs or is skipped. While it lives, a recorded handler may tell
// more through handler_report() (handler_report.hpp): that its own matcher
// skipped the event, or when its work really ran. (An unrecorded emit has
// handler_report() null for all its handlers: EmitReportScope.)
class HandlerTrace {
 public:
  HandlerTrace(EmissionCapture* capture, const std::shared_ptr<Registration>& registration,
               bool subscriber = false) noexcept
      : capture_(capture), registration_(&registration), subscriber_(subscriber) {
    if (capture_ != nullptr) {
      capture_->handler_report() = {};
      previous_report_ = std::exchange(current_handler_report, &capture_->handler_report());
    }
  }
  ~HandlerTrace() {
    if (capture_ != nullptr) current_handler_report = previous_report_;
  }
  HandlerTrace(const HandlerTrace&) = delete;
  HandlerTrace& operator=(const HandlerTrace&) = delete;

  // Each checks inline that the emit is recorded: they run on every handler call.
  void skipped() {
    if (capture_ != nullptr) end(HandlerAction::skipped);
  }
  void no_change() {
    if (capture_ != nullptr)
      end(capture_->handler_report().skipped ? HandlerAction::skipped : HandlerAction::no_change);
  }
  // Called before the result is folded (which moves from it).
  template <Event E>
  void returned(const result_t<E>& result) {
    if (capture_ == nullptr) return;
    const auto [action, reason] = action_of<E>(result);
    end(action, reason);
  }
  void failed(const std::string& message) {
    if (capture_ != nullptr) end(HandlerAction::failed, {}, message);
  }

 private:
  void end(HandlerAction action, std::string_view reason = {}, std::string_view error = {});

  EmissionCapture* capture_;
  const std::shared_ptr<Registration>* registration_;
  bool subscriber_;
  HandlerReport* previous_report_ = nullptr;  // restored when the call ends: calls nest
};

}  // namespace hookbus::detail
