#pragma once
// Using a recording (trace.hpp's EmissionRecords): how an emit's result
// refuses it, the statistics of a session per event and per handler (hookctl
// trace summary), and what differs between a recorded emit and the same
// event emitted again (hookctl replay).

#include <hookbus/events.hpp>
#include <hookbus/trace.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus {

// How a result refuses its event: "denied" (tool_call, permission_request,
// channel:connect), "cancelled" (session_before_*), "rejected" (input,
// message:receive); with the reason it gives.
struct Refusal {
  std::string_view verb{};
  std::string reason{};
};
std::optional<Refusal> refusal_of(const HookOutcome& outcome);

// A handler's action that refuses the event: deny, cancel or reject.
bool refuses(HandlerAction action) noexcept;

// ------------------------------------------------------------------ summary

// One event, or one handler on one event, over a session. Durations are the
// nearest-rank percentiles of the handler runs (skipped ones are not runs) or
// of the emits.
struct TraceStats {
  std::string event{};    // wire name
  std::string handler{};  // label; empty for an event's own line
  std::size_t count = 0;
  std::chrono::nanoseconds p50{};
  std::chrono::nanoseconds p99{};
  std::size_t blocks = 0;    // an event: emits its result refused; a handler: its deny, cancel, reject
  std::size_t failures = 0;  // an event: emits with a failed handler; a handler: times it failed
};

struct TraceSummary {
  std::vector<TraceStats> events{};    // by event name
  std::vector<TraceStats> handlers{};  // by event name, then in the order each handler first ran
};
// Of the emits among `records`: the runs of wrapped steps are left out.
TraceSummary summarize_trace(std::span<const EmissionRecord> records);

// ------------------------------------------------------------------ replay

// A handler whose decision differs between a recording and a replay: its
// entry in each, nullopt where it did not run.
struct HandlerChange {
  std::string label{};
  std::string source{};
  std::optional<HandlerRecord> recorded{};
  std::optional<HandlerRecord> now{};
};

// What differs between a recorded emit and the same event emitted again.
// Handlers are compared by label and source, each answer in turn, on their
// action and reason; catch-all subscribers and the engine's in-process
// handlers are left out (a replay outside the engine cannot run them). The
// results are compared only when no in-process handler changed the recorded
// one: otherwise part of it came from code the replay does not have.
struct ReplayDifference {
  bool result_compared = false;
  bool result_changed = false;
  std::vector<HandlerChange> handlers{};
  [[nodiscard]] bool empty() const noexcept { return !result_changed && handlers.empty(); }
};
ReplayDifference compare_replay(const EmissionRecord& recorded, const EmissionRecord& now);

}  // namespace hookbus
