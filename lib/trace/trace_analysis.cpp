// Using a recording (trace_analysis.hpp): refusals, the session summary and
// the replay comparison.

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/trace_analysis.hpp>

#include <algorithm>
#include <map>
#include <utility>

namespace hookbus {
namespace {

using std::chrono::nanoseconds;

// The nearest-rank percentile of sorted durations.
nanoseconds percentile(const std::vector<nanoseconds>& sorted, int percent) {
  if (sorted.empty()) return nanoseconds{};
  const std::size_t rank = (sorted.size() * static_cast<std::size_t>(percent) + 99) / 100;
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

// Durations gathered for one line of the summary.
struct Gathered {
  TraceStats stats{};
  std::vector<nanoseconds> durations{};
};

TraceStats finished(Gathered& gathered) {
  std::ranges::sort(gathered.durations);
  gathered.stats.count = gathered.durations.size();
  gathered.stats.p50 = percentile(gathered.durations, 50);
  gathered.stats.p99 = percentile(gathered.durations, 99);
  return gathered.stats;
}

// The handlers a replay outside the engine runs again.
bool replayable(const HandlerRecord& handler) {
  return handler.kind != RecordedKind::in_process && handler.kind != RecordedKind::subscriber;
}

bool changed_something(const HandlerRecord& handler) {
  return handler.action != HandlerAction::no_change && handler.action != HandlerAction::skipped;
}

// The replayable handlers of an emit, each with how many times the same
// label and source answered before it.
using Answer = std::pair<std::pair<std::string, std::string>, std::size_t>;
std::vector<std::pair<Answer, const HandlerRecord*>> answers(const EmissionRecord& record) {
  std::vector<std::pair<Answer, const HandlerRecord*>> listed;
  std::map<std::pair<std::string, std::string>, std::size_t> seen;
  for (const HandlerRecord& handler : record.handlers) {
    if (!replayable(handler)) continue;
    auto key = std::pair(handler.label, handler.source);
    const std::size_t nth = seen[key]++;
    listed.push_back({Answer{std::move(key), nth}, &handler});
  }
  return listed;
}

}  // namespace

std::optional<Refusal> refusal_of(const HookOutcome& outcome) {
  return std::visit(
      []<class R>(const R& result) -> std::optional<Refusal> {
        // Handled input is answered, not refused; user_bash is only ever handled.
        if constexpr (requires { result_rules<R>::refusal(result); result.reason; }) {
          const std::optional<RefusalKind> kind = result_rules<R>::refusal(result);
          if (kind == RefusalKind::deny) return Refusal{"denied", result.reason};
          if (kind == RefusalKind::cancel) return Refusal{"cancelled", result.reason};
          if (kind == RefusalKind::reject) return Refusal{"rejected", result.reason};
        }
        return std::nullopt;
      },
      outcome);
}

bool refuses(HandlerAction action) noexcept {
  return action == HandlerAction::deny || action == HandlerAction::cancel || action == HandlerAction::reject;
}

TraceSummary summarize_trace(std::span<const EmissionRecord> records) {
  std::map<std::string, Gathered> events;
  std::map<std::string, std::vector<Gathered>> handlers;  // per event, in first-run order
  for (const EmissionRecord& record : records) {
    if (record.step) continue;  // a run of a wrapped step, not an emit
    const std::string event(event_name(record.payload));
    Gathered& line = events[event];
    line.stats.event = event;
    line.durations.push_back(record.duration);
    if (refusal_of(record.result)) ++line.stats.blocks;
    if (std::ranges::any_of(record.handlers, [](const HandlerRecord& h) { return h.action == HandlerAction::failed; }))
      ++line.stats.failures;
    auto& of_event = handlers[event];
    for (const HandlerRecord& handler : record.handlers) {
      if (handler.action == HandlerAction::skipped) continue;
      auto found = std::ranges::find(of_event, handler.label, [](const Gathered& g) { return g.stats.handler; });
      if (found == of_event.end()) {
        of_event.push_back({TraceStats{.event = event, .handler = handler.label}, {}});
        found = std::prev(of_event.end());
      }
      found->durations.push_back(handler.duration);
      if (refuses(handler.action)) ++found->stats.blocks;
      if (handler.action == HandlerAction::failed) ++found->stats.failures;
    }
  }
  TraceSummary summary;
  for (auto& [name, gathered] : events) summary.events.push_back(finished(gathered));
  for (auto& [name, of_event] : handlers)
    for (Gathered& gathered : of_event) summary.handlers.push_back(finished(gathered));
  return summary;
}

ReplayDifference compare_replay(const EmissionRecord& recorded, const EmissionRecord& now) {
  ReplayDifference difference;
  difference.result_compared = std::ranges::none_of(recorded.handlers, [](const HandlerRecord& h) {
    return h.kind == RecordedKind::in_process && changed_something(h);
  });
  difference.result_changed = difference.result_compared && to_json(recorded.result) != to_json(now.result);

  const auto before = answers(recorded);
  const auto after = answers(now);
  const auto find = [](const auto& list, const Answer& answer) -> const HandlerRecord* {
    const auto found = std::ranges::find(list, answer, [](const auto& entry) { return entry.first; });
    return found == list.end() ? nullptr : found->second;
  };
  const auto add = [&](const Answer& answer, const HandlerRecord* was, const HandlerRecord* is) {
    if (was && is && was->action == is->action && was->reason == is->reason) return;
    difference.handlers.push_back({answer.first.first, answer.first.second,
                                   was ? std::optional(*was) : std::nullopt, is ? std::optional(*is) : std::nullopt});
  };
  for (const auto& [answer, handler] : before) add(answer, handler, find(after, answer));
  for (const auto& [answer, handler] : after)
    if (find(before, answer) == nullptr) add(answer, nullptr, handler);
  return difference;
}

}  // namespace hookbus
