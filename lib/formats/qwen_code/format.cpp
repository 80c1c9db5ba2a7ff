// Qwen Code's hook format (formats/hook_format.hpp; QwenLM/qwen-code
// docs/users/features/hooks.md): Claude Code's, in .qwen/settings.json, with
// timeouts in milliseconds (60 s when none is given), Qwen's names of
// Claude Code's built-in tools, a handler's failMode and a group's
// sequential, and text on stdout read as a message for the user.
#include "formats/qwen_code/format.hpp"

#include <hookbus/json.hpp>

#include "support/text.hpp"
#include "support/utf8.hpp"

#include <chrono>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

// Qwen Code's events that have a counterpart on the bus.
constexpr FormatEvent kQwenEvents[] = {
    {"PreToolUse", {"tool_call", ""}},
    {"PermissionRequest", {"permission_request", ""}},
    {"PostToolUse", {"tool_result", ""}, true, ToolResults::succeeded},
    {"PostToolUseFailure", {"tool_result", "tool_execution_failure"}, true, ToolResults::failed},
    {"PermissionDenied", {"permission_denied", ""}},
    {"UserPromptSubmit", {"input", ""}, false},
    {"Notification", {"notification", ""}},
    {"Stop", {"agent_end", ""}, false},
    {"SubagentStart", {"subagent_start", ""}},
    {"SubagentStop", {"subagent_end", ""}},
    {"PreCompact", {"session_before_compact", ""}},
    {"PostCompact", {"session_compact", ""}},
    {"SessionStart", {"session_start", ""}},
    {"SessionEnd", {"session_shutdown", ""}},
};

// Qwen's tool ids for Claude Code's built-in tools (packages/core/src/tools/tool-names.ts).
constexpr std::pair<std::string_view, std::string_view> kClaudeToolNames[] = {
    {"Bash", "run_shell_command"}, {"Read", "read_file"},       {"Write", "write_file"},
    {"Edit", "edit"},              {"MultiEdit", "edit"},       {"Glob", "glob"},
    {"Grep", "grep_search"},       {"LS", "list_directory"},    {"WebFetch", "web_fetch"},
    {"WebSearch", "web_search"},   {"Task", "agent"},           {"TodoWrite", "todo_write"},
    {"Skill", "skill"},            {"ExitPlanMode", "exit_plan_mode"}, {"AskUserQuestion", "ask_user_question"},
    {"NotebookEdit", "notebook_edit"},
};

constexpr std::string_view kQwenTools[] = {
    "run_shell_command", "read_file", "write_file", "edit",  "glob",           "grep_search",       "list_directory",
    "web_fetch",         "web_search", "agent",     "skill", "exit_plan_mode", "ask_user_question", "todo_write",
    "notebook_edit",     "save_memory"};

// Qwen Code's answer: Claude Code's, but text on stdout on exit 0 that is
// no JSON object is a message for the user (its hookRunner makes it
// {"systemMessage": text}), never context for the model.
template <class E>
HookAnswer<E> qwen_code_answer(const ClaudeCodeCommand& hook, const E& event, const ProcessResult& run,
                               const ClaudeCodeToolNames& tool_names) {
  const std::string_view out = trim(run.stdout_text);
  if (!run.succeeded() || out.empty()) return claude_code_answer(hook, event, run, tool_names);
  try {
    if (parse_json(out, "stdout").is_object()) return claude_code_answer(hook, event, run, tool_names);
  } catch (const JsonError&) {
    // text: a message for the user
  }
  ProcessResult read = run;
  read.stdout_text = write_json(boost::json::object{{"systemMessage", valid_utf8(out)}});
  return claude_code_answer(hook, event, read, tool_names);
}

const FormatRuns& qwen_code_runs() {
  static const FormatRuns runs =
      format_runs([]<class E>(std::type_identity<E>) { return &claude_code_payload_of<E>; },
                  []<class E>(std::type_identity<E>) { return &qwen_code_answer<E>; });
  return runs;
}

fs::path settings_json(const Locations& locations, Layer scope) {
  switch (scope) {
    case Layer::user: return locations.qwen.empty() ? fs::path() : locations.qwen / "settings.json";
    case Layer::project: return locations.project / ".qwen" / "settings.json";
    case Layer::local:
    case Layer::managed: break;
  }
  return {};
}

}  // namespace

const HookFormat& qwen_code_format() {
  static const HookFormat format{.protocol = HookProtocol::qwen_code,
                                 .agent = "Qwen Code",
                                 .documentation = "docs/agent-formats.md",
                                 .settings_file = &settings_json,
                                 .plugin_hooks_file = "hooks/hooks.json",
                                 .events = kQwenEvents,
                                 .tool_names = kQwenTools,
                                 .timeout_unit = std::chrono::milliseconds(1),
                                 .timeout_unit_name = "milliseconds",
                                 .default_timeout = std::chrono::seconds(60),
                                 .project_dir_variable = "CLAUDE_PROJECT_DIR",
                                 .plugin_root_variable = "CLAUDE_PLUGIN_ROOT",
                                 .runs = &qwen_code_runs(),
                                 .second_settings_file = nullptr,
                                 .claude_tool_names = kClaudeToolNames,
                                 .runs_identical_commands_once = true,
                                 .inert_handler_keys = {},
                                 .tool_aliases = {},
                                 .fail_mode_key = "failMode",
                                 .sequential_key = "sequential",
                                 // Its HTTP hooks count seconds, 600 by default (its hooks reference).
                                 .http_handlers = true,
                                 .http_timeout_unit = std::chrono::seconds(1),
                                 .http_timeout_unit_name = "seconds",
                                 .http_default_timeout = std::chrono::seconds(600)};
  return format;
}

}  // namespace hookbus::detail
