#pragma once
// Internal: what a handler tells the trace about its own call, where the bus
// cannot see it. The bus times each call and reads what it returned
// (emission_capture.hpp); a handler says more through this report:
//   - that its own matcher left the event out, which HandlerOptions::tools
//     cannot express (a Claude Code hook's matcher, a regular expression
//     over tool names, or over a session's source): recorded as `skipped`;
//   - when its work really ran, where that was not during its call (the
//     Claude Code hooks of a group run at once, each in a process of its own,
//     in the call of the group's first member): recorded as its start and
//     duration;
//   - whether its work started ahead of its turn, and whether that run's
//     answer was taken or discarded (bus/run_ahead.hpp).
//
// The bus points handler_report() at the emit's capture around each handler
// call of a recorded emit (HandlerTrace, emission_capture.hpp) and reads the
// report once the call ended; the handler writes through handler_report(),
// null whenever nobody records the call.

#include <hookbus/trace.hpp>

#include "bus/recording/trace_clock.hpp"

#include <optional>

namespace hookbus::detail {

struct HandlerReport {
  struct Run {  // on the trace clock (trace_clock.hpp)
    TraceTicks start{};
    TraceTicks end{};
  };
  bool skipped = false;    // the handler's matcher excluded the event (it returned nothing)
  std::optional<Run> ran{};  // its own run, in place of its call's start and end
  RanAhead ran_ahead = RanAhead::no;  // its work started ahead of its turn (bus/run_ahead.hpp)
};

// The report of the handler call this thread is in; null when none is
// recorded. Inline: every emit reads it once (EmitReportScope).
inline constinit thread_local HandlerReport* current_handler_report = nullptr;
[[nodiscard]] inline HandlerReport* handler_report() noexcept { return current_handler_report; }

// One emit's part: while an unrecorded emit runs, handler_report() is null,
// also when the emit is nested in a recorded handler's call (whose report its
// handlers must not write); a recorded emit leaves it to its HandlerTraces.
// The report before is restored at the end, so emits nest. In the common
// case, no recorded call around the emit, that is one thread-local load: a
// recorded emit's HandlerTraces restore what they changed themselves.
class EmitReportScope {
 public:
  explicit EmitReportScope(bool recorded) noexcept : previous_(current_handler_report) {
    if (!recorded && previous_ != nullptr) [[unlikely]] current_handler_report = nullptr;
  }
  ~EmitReportScope() {
    if (previous_ != nullptr) [[unlikely]] current_handler_report = previous_;
  }
  EmitReportScope(const EmitReportScope&) = delete;
  EmitReportScope& operator=(const EmitReportScope&) = delete;

 private:
  HandlerReport* previous_;
};

}  // namespace hookbus::detail
