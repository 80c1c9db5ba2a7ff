// Gemini CLI's answer (gemini_cli/format.hpp), as its hookRunner and
// hookAggregator read it (google-gemini/gemini-cli docs/hooks, "Exit codes"
// and "Output"; packages/core/src/hooks): the text a hook printed becomes
// Gemini's answer object, which is then said in Claude Code's words and read
// by Claude Code's reader, so each field means here what it means there.
#include "formats/gemini_cli/format.hpp"

#include <hookbus/json.hpp>
#include <hookbus/log.hpp>

#include "catalogue/instantiations.hpp"
#include "process/run_end.hpp"
#include "support/logging.hpp"
#include "support/text.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace hookbus::detail {
namespace {

namespace json = boost::json;

std::string gemini_who(const ClaudeCodeCommand& hook) { return fmt::format("{} ({})", hook.label, hook.source); }

// A text that parses as JSON, and a JSON string that holds JSON once more; else nothing.
std::optional<json::value> gemini_json(std::string_view text) {
  try {
    json::value value = parse_json(text, "");
    if (value.is_string()) {
      const std::string inner(value.get_string());
      if (auto again = gemini_json(trim(inner)); again && !again->is_string()) return again;
    }
    return value;
  } catch (const JsonError&) {
    return std::nullopt;
  }
}

// Gemini's answer object from what a run that ended by itself printed:
// stdout, else stderr, whatever the exit code. Plain text is a systemMessage
// on exit 0, a warning on exit 1, a deny with the text as the reason on any
// other code. Nothing printed: no answer.
std::optional<json::object> gemini_answer_object(const ClaudeCodeCommand& hook, const ProcessResult& run) {
  std::string_view text = trim(run.stdout_text);
  if (text.empty()) text = trim(run.stderr_text);
  if (text.empty()) return std::nullopt;
  if (auto value = gemini_json(text)) {
    if (value->is_object()) return std::move(value->as_object());
    run_failed(gemini_who(hook), run, fmt::format("its answer is JSON but no object: {}", write_json(*value)));
  }
  const std::string said = valid_utf8(text);
  if (run.exit_code == 0) return json::object{{"systemMessage", said}};
  if (run.exit_code == 1) return json::object{{"systemMessage", "Warning: " + said}};
  return json::object{{"decision", "deny"}, {"reason", said}};
}

// Gemini's decision in Claude Code's words: "deny" and "block" block,
// "allow" and "approve" change nothing (Gemini goes on as without a hook),
// "ask" asks the user (BeforeTool).
void gemini_decision(const ClaudeCodeCommand& hook, const ProcessResult& run, json::object& answer) {
  const json::value* decision = answer.if_contains("decision");
  if (decision == nullptr || decision->is_null()) return;
  const std::string_view value = decision->is_string() ? std::string_view(decision->get_string()) : "";
  if (value == "deny" || value == "block") answer["decision"] = "block";
  else if (value == "allow" || value == "approve" || value.empty()) answer.erase("decision");
  else if (value != "ask")
    run_failed(gemini_who(hook), run,
               fmt::format("its answer's decision must be \"allow\", \"deny\", \"block\" or \"ask\", got {}",
                           write_json(*decision)));
}

json::object* gemini_specific(json::object& answer) {
  json::value* specific = answer.if_contains("hookSpecificOutput");
  return specific != nullptr && specific->is_object() ? &specific->as_object() : nullptr;
}

// What the event makes of Gemini's fields, said as Claude Code's.
template <class E>
void gemini_event_fields(const E& event, json::object& answer) {
  json::object* specific = gemini_specific(answer);
  if constexpr (std::is_same_v<E, ToolCallEvent>) {
    // BeforeTool's tool_input is merged into the arguments: the keys it does not name keep their values.
    if (const json::value* input = specific ? specific->if_contains("tool_input") : nullptr; input && input->is_object()) {
      json::object merged = event.input;
      for (const auto& [key, value] : input->get_object()) merged[key] = value;
      (*specific)["updatedInput"] = std::move(merged);
      specific->erase("tool_input");
    }
  } else if constexpr (std::is_same_v<E, ToolResultEvent>) {
    // AfterTool's deny: the model gets "Tool result blocked: <reason>" instead of the result.
    if (const json::value* decision = answer.if_contains("decision");
        decision != nullptr && decision->is_string() && decision->get_string() == "block") {
      const json::value* reason = answer.if_contains("reason");
      const std::string why = reason != nullptr && reason->is_string() ? std::string(reason->get_string()) : "";
      if (specific == nullptr) specific = &answer["hookSpecificOutput"].emplace_object();
      (*specific)["updatedToolOutput"] = "Tool result blocked: " + why;
      answer.erase("decision");
    }
  } else if constexpr (std::is_same_v<E, SessionBeforeCompactEvent>) {
    answer.erase("continue");  // PreCompress is advisory in Gemini: its flow fields are ignored
  }
}

}  // namespace

template <class E>
HookAnswer<E> gemini_cli_answer(const ClaudeCodeCommand& hook, const E& event, const ProcessResult& run,
                                const ClaudeCodeToolNames& tool_names) {
  // A timeout, a signal, cut output: a failed run, under the hook's failure policy.
  if (!run.exit_code || run.timed_out || run.cancelled || run.supervision_lost || run.stdout_truncated)
    return claude_code_answer(hook, event, run, tool_names);
  std::optional<json::object> answer = gemini_answer_object(hook, run);
  if (*run.exit_code != 0)
    log(spdlog::level::warn, "Gemini CLI hook {} on {} failed ({}){}", gemini_who(hook), hook.event, run.status(),
        answer ? "; its answer counts, as in Gemini CLI" : "");
  if (!answer) return HookAnswer<E>();
  if constexpr (std::is_same_v<E, PermissionRequestEvent>) {
    // Notification is advisory in Gemini: only what it shows the user is kept, in the log.
    if (const json::value* message = answer->if_contains("systemMessage"); message && message->is_string())
      log(spdlog::level::warn, "Gemini CLI hook {} on {}: {}", gemini_who(hook), hook.event,
          std::string_view(message->get_string()));
    return HookAnswer<E>();
  } else {
    gemini_decision(hook, run, *answer);
    gemini_event_fields(event, *answer);
    ProcessResult read = run;
    read.exit_code = 0;
    read.stdout_text = write_json(*answer);
    return claude_code_answer(hook, event, read, tool_names);
  }
}

namespace {
[[gnu::used]] constexpr auto gemini_cli_answers_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &gemini_cli_answer<E>; });
}  // namespace

}  // namespace hookbus::detail
