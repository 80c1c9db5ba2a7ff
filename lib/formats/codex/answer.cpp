// Codex's answer (formats/codex/format.hpp): Claude Code's fields, read as
// strictly as Codex reads them (codex-rs/hooks: every output struct denies
// unknown fields), so that a hook decides here as it does in Codex. What
// Codex counts as a failed run is one here: under the hook's failure policy
// (fail-open, as Codex's), the action goes on.
#include "formats/codex/format.hpp"

#include <hookbus/external_hook_error.hpp>
#include <hookbus/json.hpp>

#include "support/text.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <type_traits>

namespace hookbus::detail {
namespace {

namespace json = boost::json;

[[noreturn]] void fail(const ClaudeCodeCommand& hook, std::string_view what) {
  throw ExternalHookError(valid_utf8(fmt::format("{} ({}): {}; Codex counts this a failed run, so the action goes on "
                                                 "(docs/agent-formats.md)",
                                                 hook.label, hook.source, what)));
}

void allow_only(const ClaudeCodeCommand& hook, const json::object& object, std::string_view where,
                std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : object)
    if (std::find(known.begin(), known.end(), key) == known.end())
      fail(hook, fmt::format("its answer has \"{}\"{}, which Codex does not know", std::string_view(key), where));
}

std::string_view string_at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string_view(value->get_string()) : std::string_view();
}

// PreToolUse's decision as Codex takes it: no "ask", "allow" only to rewrite
// the input, "deny" only with a reason, and updatedInput only with "allow".
void check_tool_decision(const ClaudeCodeCommand& hook, json::object& specific) {
  const std::string_view decision = string_at(specific, "permissionDecision");
  if (decision == "ask")
    fail(hook, "it answers \"permissionDecision\": \"ask\", which Codex does not support (to have hookbus ask, "
               "declare the hook for Claude Code)");
  if (decision == "allow" && !specific.contains("updatedInput"))
    fail(hook, "it answers \"allow\" without \"updatedInput\"; Codex takes \"allow\" only to rewrite the input");
  if (decision == "deny" && trim(string_at(specific, "permissionDecisionReason")).empty())
    fail(hook, "it denies without a \"permissionDecisionReason\", which Codex requires");
  if (decision != "allow") specific.erase("updatedInput");
}

}  // namespace

template <class E>
HookAnswer<E> codex_answer(const ClaudeCodeCommand& hook, const E& event, const ProcessResult& run,
                           const ClaudeCodeToolNames& tool_names) {
  if (run.exit_code == 2 && trim(run.stderr_text).empty())
    fail(hook, "it exited with code 2 and no reason on stderr");
  const std::string_view out = trim(run.stdout_text);
  if (run.exit_code != 0 || out.empty() || (out.front() != '{' && out.front() != '['))
    return claude_code_answer(hook, event, run, tool_names);
  json::value value;
  try {
    value = parse_json(out, "stdout");
  } catch (const JsonError& error) {
    fail(hook, fmt::format("its answer is not valid JSON ({})", error.what()));
  }
  if (!value.is_object()) fail(hook, "its answer is JSON but no object");
  json::object& answer = value.as_object();
  allow_only(hook, answer, "",
             {"continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason", "hookSpecificOutput"});
  const std::string_view decision = string_at(answer, "decision");
  if (decision == "approve") fail(hook, "it answers the legacy \"decision\": \"approve\", which Codex rejects");
  if (decision == "block" && trim(string_at(answer, "reason")).empty())
    fail(hook, "it blocks without a \"reason\", which Codex requires");
  if (json::value* specific = answer.if_contains("hookSpecificOutput"); specific != nullptr && specific->is_object()) {
    allow_only(hook, specific->as_object(), " in hookSpecificOutput",
               {"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext",
                "decision"});
    if (hook.event == "PreToolUse") check_tool_decision(hook, specific->as_object());
  }
  ProcessResult read = run;
  read.stdout_text = write_json(value);
  return claude_code_answer(hook, event, read, tool_names);
}

namespace {

// Claude Code's payload with Codex's additions: the model on every event, and
// the turn on every event but the session's and a subagent's start.
template <class E>
json::object codex_payload_of(const E& event, std::string_view format_event, const ClaudeCodeToolNames& tool_names,
                              std::string_view transcript_path, const std::filesystem::path& project_dir) {
  json::object payload = claude_code_payload_of(event, format_event, tool_names, transcript_path, project_dir);
  payload["model"] = event.context.model;
  if constexpr (!std::is_same_v<E, SessionStartEvent> && !std::is_same_v<E, SubagentStartEvent> &&
                !std::is_same_v<E, SessionShutdownEvent>)
    payload["turn_id"] = event.context.turn_id;
  return payload;
}

}  // namespace

const FormatRuns& codex_runs() {
  static const FormatRuns runs =
      format_runs([]<class E>(std::type_identity<E>) { return &codex_payload_of<E>; },
                  []<class E>(std::type_identity<E>) { return &codex_answer<E>; });
  return runs;
}

}  // namespace hookbus::detail
