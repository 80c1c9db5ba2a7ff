// Copilot CLI's answer (formats/copilot_cli/format.hpp): what a run printed
// made into Copilot's answer of its event, said in Claude Code's words, then
// read by Claude Code's reader.
#include <hookbus/json.hpp>

#include "catalogue/instantiations.hpp"
#include "formats/copilot_cli/format.hpp"
#include "process/run_end.hpp"
#include "support/logging.hpp"
#include "support/text.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <type_traits>

namespace hookbus::detail {
namespace {

namespace json = boost::json;

std::string copilot_who(const ClaudeCodeCommand& hook) { return fmt::format("{} ({})", hook.label, hook.source); }

// stdout without its progress lines (a JSON object of "type": "progress" on
// a line of its own, which Copilot shows and removes), trimmed.
std::string copilot_answer_text(std::string_view out) {
  std::string kept;
  while (!out.empty()) {
    const std::size_t end = std::min(out.find('\n'), out.size());
    const std::string_view line = out.substr(0, end);
    out.remove_prefix(std::min(end + 1, out.size()));
    bool progress = false;
    try {
      const json::value value = parse_json(line, "stdout");
      const json::value* type = value.is_object() ? value.get_object().if_contains("type") : nullptr;
      progress = type != nullptr && type->is_string() && type->get_string() == "progress";
    } catch (const JsonError&) {
    }
    if (!progress) kept.append(line).push_back('\n');
  }
  return std::string(trim(kept));
}

void copilot_move(const json::object& from, std::string_view key, json::object& to, std::string_view as) {
  if (const json::value* value = from.if_contains(key)) to[as] = *value;
}

// Copilot's flat answer of an event in Claude Code's words; null for an
// event whose answer Copilot does not read from a command hook.
std::optional<json::object> copilot_as_claude_code(std::string_view format_event, const json::object& answer) {
  json::object claude;
  json::object specific;
  if (format_event == "preToolUse" || format_event == "PreToolUse") {
    copilot_move(answer, "permissionDecision", specific, "permissionDecision");
    copilot_move(answer, "permissionDecisionReason", specific, "permissionDecisionReason");
    copilot_move(answer, "modifiedArgs", specific, "updatedInput");
  } else if (format_event == "permissionRequest" || format_event == "PermissionRequest") {
    json::object decision;
    for (const std::string_view key : {"behavior", "message", "interrupt"}) copilot_move(answer, key, decision, key);
    if (!decision.empty()) specific["decision"] = std::move(decision);
  } else if (format_event == "agentStop" || format_event == "Stop" || format_event == "subagentStop" ||
             format_event == "SubagentStop") {
    // "allow" is Copilot's word for what Claude Code's answer says by saying nothing.
    if (const json::value* decision = answer.if_contains("decision");
        decision != nullptr && !(decision->is_string() && decision->get_string() == "allow"))
      claude["decision"] = *decision;
    copilot_move(answer, "reason", claude, "reason");
  } else if (format_event == "postToolUse" || format_event == "PostToolUse" || format_event == "postToolUseFailure" ||
             format_event == "PostToolUseFailure" || format_event == "sessionStart" || format_event == "SessionStart") {
    copilot_move(answer, "additionalContext", specific, "additionalContext");
  } else {
    return std::nullopt;
  }
  if (const json::value* context = specific.if_contains("additionalContext"); context != nullptr && context->is_null())
    specific.erase("additionalContext");  // a null additionalContext is none, as in Copilot
  if (!specific.empty()) claude["hookSpecificOutput"] = std::move(specific);
  return claude;
}

}  // namespace

template <class E>
HookAnswer<E> copilot_cli_answer(const ClaudeCodeCommand& hook, const E& event, const ProcessResult& run,
                                 const ClaudeCodeToolNames& tool_names) {
  const std::string_view format_event = hook.event;
  if (triage_run(copilot_who(hook), run, hook.timeout) == RunEnd::exit_code_2) {
    // Exit 2 denies a tool call or a permission, is context on a failed tool
    // (Claude Code's reading of each), and elsewhere is a warning.
    constexpr bool kExitTwoAnswers = std::is_same_v<E, ToolCallEvent> || std::is_same_v<E, PermissionRequestEvent> ||
                                     std::is_same_v<E, ToolExecutionFailureEvent>;
    if (kExitTwoAnswers || (std::is_same_v<E, ToolResultEvent> && (format_event == "postToolUseFailure" ||
                                                                   format_event == "PostToolUseFailure")))
      return claude_code_answer(hook, event, run, tool_names);
    log(spdlog::level::warn, "Copilot CLI hook {} on {} exited with 2, a warning there: {}", copilot_who(hook),
        format_event, trim(run.stderr_text));
    if constexpr (!std::is_void_v<HookAnswer<E>>) return std::nullopt;
    else return;
  }
  ProcessResult read = run;
  read.stdout_text.clear();
  const std::string text = copilot_answer_text(run.stdout_text);
  if (!text.empty()) {
    try {
      const json::value value = parse_json(text, "stdout");
      if (!value.is_object()) throw JsonError("", "not a JSON object");
      if (auto claude = copilot_as_claude_code(format_event, value.get_object())) read.stdout_text = write_json(*claude);
    } catch (const JsonError&) {
      // Copilot reads what is no single JSON object as no output: the event goes on as without the hook.
      log(spdlog::level::debug, "Copilot CLI hook {} printed what is no JSON object, which Copilot ignores: {}",
          copilot_who(hook), text);
    }
  }
  return claude_code_answer(hook, event, read, tool_names);
}

namespace {
[[gnu::used]] constexpr auto copilot_cli_answers_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &copilot_cli_answer<E>; });
}  // namespace

const FormatRuns& copilot_cli_runs() {
  static const FormatRuns runs =
      format_runs([]<class E>(std::type_identity<E>) { return &copilot_cli_payload<E>; },
                  []<class E>(std::type_identity<E>) { return &copilot_cli_answer<E>; });
  return runs;
}

}  // namespace hookbus::detail
