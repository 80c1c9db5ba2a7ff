// Cursor's hook format (formats/cursor/format.hpp): its files, its events and
// which tool calls each fires for, its tool names.
#include "formats/cursor/format.hpp"

#include <chrono>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

// Cursor's agent events that have a counterpart on the bus. A tool call is
// preToolUse, and for the shell, MCP tools and reads also its own event
// (kCursorToolEvents); a finished one postToolUse or postToolUseFailure, and
// afterShellExecution, afterMCPExecution or afterFileEdit. Tab hooks,
// afterAgentThought and workspaceOpen have none: the reader notes them.
constexpr FormatEvent kCursorEvents[] = {
    {"preToolUse", {"tool_call", ""}},
    {"beforeShellExecution", {"tool_call", ""}},
    {"beforeMCPExecution", {"tool_call", ""}},
    {"beforeReadFile", {"tool_call", ""}},
    {"postToolUse", {"tool_result", ""}, true, ToolResults::succeeded},
    {"postToolUseFailure", {"tool_result", "tool_execution_failure"}, true, ToolResults::failed},
    {"afterShellExecution", {"tool_result", ""}, true, ToolResults::succeeded},
    {"afterMCPExecution", {"tool_result", ""}, true, ToolResults::succeeded},
    {"afterFileEdit", {"tool_result", ""}, true, ToolResults::succeeded},
    {"beforeSubmitPrompt", {"input", ""}, false},
    {"sessionStart", {"session_start", ""}, false},
    {"sessionEnd", {"session_shutdown", ""}, false},
    {"preCompact", {"session_before_compact", ""}, false},
    {"stop", {"agent_end", ""}, false},
    {"subagentStart", {"subagent_start", ""}},
    {"subagentStop", {"subagent_end", ""}},
    {"afterAgentResponse", {"turn_end", ""}, false},
};

// The events that fire for one kind of tool only, and that kind: a tool
// name, or a prefix ending in ':'.
constexpr std::pair<std::string_view, std::string_view> kCursorToolEvents[] = {
    {"beforeShellExecution", "Shell"}, {"afterShellExecution", "Shell"}, {"beforeMCPExecution", "MCP:"},
    {"afterMCPExecution", "MCP:"},     {"beforeReadFile", "Read"},       {"afterFileEdit", "Write"},
};

constexpr std::string_view kCursorTools[] = {"Shell", "Read", "Write", "Grep", "Delete", "Task", "WebFetch", "WebSearch"};

// Cursor's names of Claude Code's built-in tools (cursor.com/docs/reference/third-party-hooks).
constexpr std::pair<std::string_view, std::string_view> kCursorClaudeToolNames[] = {
    {"Bash", "Shell"}, {"Edit", "Write"}, {"MultiEdit", "Write"}, {"NotebookEdit", "Write"}, {"Agent", "Task"}};

// Project hooks are .cursor/hooks.json, the user's ~/.cursor/hooks.json, the
// managed layer's the enterprise hooks.json an administrator installs.
fs::path cursor_hooks_json(const Locations& locations, Layer scope) {
  switch (scope) {
    case Layer::managed:
      return locations.cursor_enterprise.empty() ? fs::path() : locations.cursor_enterprise / "hooks.json";
    case Layer::user: return locations.cursor.empty() ? fs::path() : locations.cursor / "hooks.json";
    case Layer::project: return locations.project / ".cursor" / "hooks.json";
    case Layer::local: break;
  }
  return {};
}

// What a handler of `event` matches for a call of `tool` (Claude Code's name
// as the tool-name map gave it), or nullopt where the event does not fire.
std::optional<std::string> cursor_tool_event_subject(std::string_view event, std::string_view tool,
                                                     const boost::json::object& input) {
  const std::string name = cursor_tool_name(tool);
  for (const auto& [tool_event, kind] : kCursorToolEvents) {
    if (tool_event != event) continue;
    if (kind.ends_with(':') ? !name.starts_with(kind) : name != kind) return std::nullopt;
    if (kind == "Shell") {  // the shell events match the command line
      const boost::json::value* command = input.if_contains("command");
      return command != nullptr && command->is_string() ? std::string(command->get_string()) : std::string();
    }
    if (kind == "MCP:") return name.substr(kind.size());
  }
  return name;
}

}  // namespace

std::string cursor_tool_name(std::string_view claude_name) {
  constexpr std::string_view mcp = "mcp__";
  if (!claude_name.starts_with(mcp)) return std::string(claude_name);
  const std::string_view rest = claude_name.substr(mcp.size());
  const std::size_t server_end = rest.find("__");
  return "MCP:" + std::string(server_end == std::string_view::npos ? rest : rest.substr(server_end + 2));
}

const HookFormat& cursor_format() {
  static const HookFormat format{.protocol = HookProtocol::cursor,
                                 .agent = "Cursor",
                                 .documentation = "docs/agent-formats.md",
                                 .settings_file = &cursor_hooks_json,
                                 .plugin_hooks_file = "hooks/hooks.json",
                                 .events = kCursorEvents,
                                 .tool_names = kCursorTools,
                                 .timeout_unit = std::chrono::seconds(1),
                                 .timeout_unit_name = "seconds",
                                 .default_timeout = claude_code_default_timeout,
                                 .project_dir_variable = "CURSOR_PROJECT_DIR",
                                 .plugin_root_variable = "CURSOR_PLUGIN_ROOT",
                                 .runs = &cursor_runs(),
                                 .second_settings_file = nullptr,
                                 .claude_tool_names = kCursorClaudeToolNames,
                                 .runs_identical_commands_once = false,
                                 .inert_handler_keys = {},
                                 .tool_aliases = {},
                                 .fail_mode_key = {},
                                 .env_file_variable = {},
                                 .required_version = 1,
                                 .handler_lists = HandlerLists::handlers,
                                 .matchers = MatcherSyntax::searched,
                                 .fail_closed_key = "failClosed",
                                 .tool_event_subject = &cursor_tool_event_subject,
                                 .loop_limit_key = "loop_limit",
                                 .default_loop_limit = 5};
  return format;
}

const FormatRuns& cursor_runs() {
  static const FormatRuns runs = format_runs([]<class E>(std::type_identity<E>) { return &cursor_payload<E>; },
                                             []<class E>(std::type_identity<E>) { return &cursor_answer<E>; });
  return runs;
}

}  // namespace hookbus::detail
