// Cline's hook format (formats/cline/format.hpp): its events, as the 3.x
// extension names its hook files (src/core/hooks/hook-factory.ts), its tool
// names (src/shared/tools.ts), 30 s per run (HOOK_EXECUTION_TIMEOUT_MS).
#include "formats/cline/format.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

// Cline's events that have a counterpart on the bus. A hook sees every
// occurrence (Cline has no matcher): PostToolUse a failed run too (its
// "success"), TaskStart a new task, TaskResume a resumed one, TaskComplete a
// task that completed (attempt_completion), TaskCancel one the user stopped.
constexpr FormatEvent kClineEvents[] = {
    {.name = "TaskStart", .targets = {"session_start", ""}, .has_matcher = false,
     .session_starts = SessionStarts::fresh},
    {.name = "TaskResume", .targets = {"session_start", ""}, .has_matcher = false,
     .session_starts = SessionStarts::resumed},
    {.name = "UserPromptSubmit", .targets = {"input", ""}, .has_matcher = false},
    {.name = "PreToolUse", .targets = {"tool_call", ""}, .has_matcher = false},
    {.name = "PostToolUse", .targets = {"tool_result", "tool_execution_failure"}, .has_matcher = false},
    {.name = "TaskComplete", .targets = {"agent_end", ""}, .has_matcher = false,
     .run_status = RunStatus::completed},
    {.name = "TaskCancel", .targets = {"agent_end", ""}, .has_matcher = false,
     .run_status = RunStatus::cancelled},
    {.name = "PreCompact", .targets = {"session_before_compact", ""}, .has_matcher = false},
};

// Cline's names of Claude Code's built-in tools (ClineDefaultTool).
constexpr std::pair<std::string_view, std::string_view> kClineClaudeToolNames[] = {
    {"Bash", "execute_command"},    {"Read", "read_file"},         {"Write", "write_to_file"},
    {"Edit", "replace_in_file"},    {"MultiEdit", "replace_in_file"}, {"Glob", "list_files"},
    {"LS", "list_files"},           {"Grep", "search_files"},      {"WebFetch", "web_fetch"},
    {"WebSearch", "web_search"},    {"AskUserQuestion", "ask_followup_question"}, {"Task", "new_task"},
};

constexpr std::string_view kClineTools[] = {
    "execute_command", "read_file",   "write_to_file", "replace_in_file",       "apply_patch",
    "search_files",    "list_files",  "list_code_definition_names", "browser_action", "use_mcp_tool",
    "access_mcp_resource", "web_fetch", "web_search", "ask_followup_question", "attempt_completion",
    "new_task",        "plan_mode_respond", "summarize_task", "new_rule"};

// Cline has no settings file: its hooks are the files of its directories (cline_imports).
fs::path cline_no_settings_file(const Locations&, Layer) { return {}; }

const FormatRuns& cline_runs() {
  static const FormatRuns runs = format_runs([]<class E>(std::type_identity<E>) { return &cline_payload<E>; },
                                             []<class E>(std::type_identity<E>) { return &cline_answer<E>; });
  return runs;
}

}  // namespace

fs::path cline_hooks_directory(const Locations& locations, Layer scope) {
  switch (scope) {
    case Layer::user: return locations.cline;
    case Layer::project: return locations.project / ".clinerules" / "hooks";
    case Layer::local:
    case Layer::managed: break;
  }
  return {};
}

std::optional<std::string> cline_file_not_run(std::string_view name) {
  if (find_format_event(cline_format(), name) != nullptr) return std::nullopt;
  std::vector<std::string_view> events;
  for (const FormatEvent& event : kClineEvents) events.push_back(event.name);
  return fmt::format("not a Cline hook: Cline runs a file named exactly as one of its events ({}), with no extension",
                     fmt::join(events, ", "));
}

const HookFormat& cline_format() {
  static const HookFormat format{.protocol = HookProtocol::cline,
                                 .agent = "Cline",
                                 .documentation = "docs/agent-formats.md",
                                 .settings_file = &cline_no_settings_file,
                                 .plugin_hooks_file = {},
                                 .events = kClineEvents,
                                 .tool_names = kClineTools,
                                 .timeout_unit = std::chrono::seconds(1),
                                 .timeout_unit_name = "seconds",
                                 .default_timeout = std::chrono::seconds(30),
                                 .project_dir_variable = {},
                                 .plugin_root_variable = {},
                                 .runs = &cline_runs(),
                                 .second_settings_file = nullptr,
                                 .claude_tool_names = kClineClaudeToolNames,
                                 .runs_identical_commands_once = false,
                                 .imports = &cline_imports,
                                 .script_shell = "/bin/sh"};
  return format;
}

}  // namespace hookbus::detail
