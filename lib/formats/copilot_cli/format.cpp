// GitHub Copilot CLI's hooks (formats/copilot_cli/format.hpp): its files, its
// events and their PascalCase aliases, its tool names.
#include "formats/copilot_cli/format.hpp"

#include <algorithm>
#include <chrono>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

// Copilot's events with a counterpart on the bus, camelCase and the
// PascalCase aliases it documents; a matcher filters only those it names.
// A preToolUse hook that fails refuses, as Copilot's does. userPromptTransformed
// has none: the reader notes it.
constexpr FormatEvent kCopilotEvents[] = {
    {.name = "sessionStart", .targets = {"session_start", ""}, .has_matcher = false},
    {.name = "SessionStart", .targets = {"session_start", ""}, .has_matcher = false},
    {.name = "sessionEnd", .targets = {"session_shutdown", ""}, .has_matcher = false},
    {.name = "SessionEnd", .targets = {"session_shutdown", ""}, .has_matcher = false},
    {.name = "userPromptSubmitted", .targets = {"input", ""}, .has_matcher = false},
    {.name = "UserPromptSubmit", .targets = {"input", ""}, .has_matcher = false},
    {.name = "preToolUse", .targets = {"tool_call", ""}, .fails_closed = true},
    {.name = "PreToolUse", .targets = {"tool_call", ""}, .fails_closed = true},
    {.name = "postToolUse", .targets = {"tool_result", ""}, .tool_results = ToolResults::succeeded},
    {.name = "PostToolUse", .targets = {"tool_result", ""}, .tool_results = ToolResults::succeeded},
    {.name = "postToolUseFailure",
     .targets = {"tool_result", "tool_execution_failure"},
     .has_matcher = false,
     .tool_results = ToolResults::failed},
    {.name = "PostToolUseFailure",
     .targets = {"tool_result", "tool_execution_failure"},
     .has_matcher = false,
     .tool_results = ToolResults::failed},
    {.name = "permissionRequest", .targets = {"permission_request", ""}},
    {.name = "PermissionRequest", .targets = {"permission_request", ""}},
    {.name = "preCompact", .targets = {"session_before_compact", ""}},
    {.name = "PreCompact", .targets = {"session_before_compact", ""}},
    {.name = "agentStop", .targets = {"agent_end", ""}, .has_matcher = false},
    {.name = "Stop", .targets = {"agent_end", ""}, .has_matcher = false},
    {.name = "subagentStart", .targets = {"subagent_start", ""}},
    {.name = "subagentStop", .targets = {"subagent_end", ""}, .has_matcher = false},
    {.name = "SubagentStop", .targets = {"subagent_end", ""}, .has_matcher = false},
    {.name = "errorOccurred", .targets = {"agent_error", ""}, .has_matcher = false},
    {.name = "ErrorOccurred", .targets = {"agent_error", ""}, .has_matcher = false},
    {.name = "notification", .targets = {"notification", ""}},
};

constexpr std::string_view kCopilotTools[] = {"bash",        "view",     "create",     "edit",
                                              "str_replace_editor", "apply_patch", "glob", "grep",
                                              "rg",          "web_fetch", "web_search", "ask_user",
                                              "update_todo", "task"};

// Copilot's names of Claude Code's built-in tools (its hooks reference's
// Claude table); the first of a Copilot name is the one its PascalCase events give.
constexpr std::pair<std::string_view, std::string_view> kCopilotClaudeToolNames[] = {
    {"Bash", "bash"},           {"Read", "view"},           {"Write", "create"},
    {"Edit", "edit"},           {"MultiEdit", "edit"},      {"Glob", "glob"},
    {"Grep", "grep"},           {"WebFetch", "web_fetch"},  {"WebSearch", "web_search"},
    {"AskUserQuestion", "ask_user"}, {"TodoWrite", "update_todo"}, {"Agent", "task"},
    {"Task", "task"},
};

// The Claude Code names a matcher also tests (Copilot's Claude-format
// matchers), and the other tools Copilot names as Claude Code's Edit and Grep.
constexpr std::pair<std::string_view, std::string_view> kCopilotToolAliases[] = {
    {"bash", "Bash"},     {"view", "Read"},           {"create", "Write"},       {"edit", "Edit"},
    {"glob", "Glob"},     {"grep", "Grep"},           {"web_fetch", "WebFetch"}, {"web_search", "WebSearch"},
    {"ask_user", "AskUserQuestion"}, {"update_todo", "TodoWrite"}, {"task", "Agent"}, {"task", "Task"},
    {"str_replace_editor", "Edit"},  {"apply_patch", "Edit"},      {"rg", "Grep"},
};

// Windows' command, which Copilot runs there instead of "bash".
constexpr std::pair<std::string_view, std::string_view> kCopilotOtherOsCommands[] = {{"powershell", "Windows"}};

constexpr std::pair<std::string_view, std::string_view> kCopilotInertKeys[] = {
    {"comment", "a comment: Copilot CLI ignores it, and so does hookbus"},
};

fs::path copilot_hooks_directory(const Locations& locations, Layer scope) {
  switch (scope) {
    case Layer::user: return locations.copilot.empty() ? fs::path() : locations.copilot / "hooks";
    case Layer::project: return locations.project / ".github" / "hooks";
    case Layer::local:
    case Layer::managed: break;
  }
  return {};
}

fs::path copilot_no_single_file(const Locations&, Layer) { return {}; }

}  // namespace

bool copilot_pascal_case(std::string_view format_event) {
  return !format_event.empty() && format_event.front() >= 'A' && format_event.front() <= 'Z';
}

std::string copilot_claude_tool_name(std::string_view copilot_name) {
  const auto* found = std::find_if(std::begin(kCopilotClaudeToolNames), std::end(kCopilotClaudeToolNames),
                                   [&](const auto& names) { return names.second == copilot_name; });
  return std::string(found == std::end(kCopilotClaudeToolNames) ? copilot_name : found->first);
}

const HookFormat& copilot_cli_format() {
  static const HookFormat format{.protocol = HookProtocol::copilot,
                                 .agent = "Copilot CLI",
                                 .documentation = "docs/agent-formats.md",
                                 .settings_file = &copilot_no_single_file,
                                 .plugin_hooks_file = "hooks.json",
                                 .events = kCopilotEvents,
                                 .tool_names = kCopilotTools,
                                 .timeout_unit = std::chrono::seconds(1),
                                 .timeout_unit_name = "seconds",
                                 .default_timeout = std::chrono::seconds(30),
                                 .project_dir_variable = "CLAUDE_PROJECT_DIR",
                                 .plugin_root_variable = "COPILOT_PLUGIN_ROOT",
                                 .runs = &copilot_cli_runs(),
                                 .second_settings_file = nullptr,
                                 .claude_tool_names = kCopilotClaudeToolNames,
                                 .runs_identical_commands_once = false,
                                 .inert_handler_keys = kCopilotInertKeys,
                                 .tool_aliases = kCopilotToolAliases,
                                 .required_version = 1,
                                 .handler_lists = HandlerLists::handlers,
                                 .matchers = MatcherSyntax::whole,
                                 .settings_directory = &copilot_hooks_directory,
                                 .os_command_key = "bash",
                                 .other_os_command_keys = kCopilotOtherOsCommands,
                                 .exec_key = "exec",
                                 .exec_arguments_key = "args",
                                 .shares_settings_directory_with = HookProtocol::vscode,
                                 .timeout_key = "timeoutSec",
                                 .handlers_run_in_order = true,
                                 .working_directory_key = "cwd",
                                 .environment_key = "env",
                                 .http_handlers = true};
  return format;
}

}  // namespace hookbus::detail
