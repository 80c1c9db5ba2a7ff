// VS Code's agent hooks (formats/hook_format.hpp; code.visualstudio.com/docs/
// agent-customization/hooks, the Local harness): every *.json file of the
// project's .github/hooks and of Copilot's user hooks directory, each event a
// flat list of Claude Code's command handlers whose matchers VS Code ignores,
// a per-OS command ("linux" here), timeouts in seconds (30 by default), VS
// Code's tool names, and a payload and answer that differ from Claude Code's
// in a few names: sessionId and hookEventName, Stop's block nested in
// hookSpecificOutput.
#include "formats/vscode/format.hpp"
#include "support/utc_time.hpp"

#include <hookbus/json.hpp>

#include <fmt/format.h>

#include <chrono>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// VS Code's eight events; it runs every hook of one on every occurrence, whatever its matcher.
constexpr FormatEvent kVsCodeEvents[] = {
    {"SessionStart", {"session_start", ""}, false},
    {"UserPromptSubmit", {"input", ""}, false},
    {"PreToolUse", {"tool_call", ""}, false},
    {"PostToolUse", {"tool_result", ""}, false},
    {"PreCompact", {"session_before_compact", ""}, false},
    {"SubagentStart", {"subagent_start", ""}, false},
    {"SubagentStop", {"subagent_end", ""}, false},
    {"Stop", {"agent_end", ""}, false},
};

// VS Code's tool ids for Claude Code's built-in tools (its agent tools, as
// the docs' FAQ and the agent debug log name them).
constexpr std::pair<std::string_view, std::string_view> kVsCodeClaudeToolNames[] = {
    {"Bash", "run_in_terminal"},  {"Read", "read_file"},         {"Write", "create_file"},
    {"Edit", "replace_string_in_file"}, {"MultiEdit", "multi_replace_string_in_file"},
    {"Glob", "file_search"},      {"Grep", "grep_search"},       {"LS", "list_dir"},
    {"WebFetch", "fetch_webpage"}, {"TodoWrite", "manage_todo_list"}, {"Task", "runSubagent"},
};

constexpr std::string_view kVsCodeTools[] = {"run_in_terminal", "read_file",      "create_file",
                                             "replace_string_in_file", "multi_replace_string_in_file",
                                             "file_search",     "grep_search",    "list_dir",
                                             "fetch_webpage",   "manage_todo_list", "runSubagent"};

// The commands of other systems than Linux, which VS Code runs there instead of "command".
constexpr std::pair<std::string_view, std::string_view> kVsCodeOtherOsCommands[] = {{"osx", "macOS"},
                                                                                    {"windows", "Windows"}};

fs::path vscode_hooks_directory(const Locations& locations, Layer scope) {
  switch (scope) {
    case Layer::user: return locations.copilot.empty() ? fs::path() : locations.copilot / "hooks";
    case Layer::project: return locations.project / ".github" / "hooks";
    case Layer::local:
    case Layer::managed: break;
  }
  return {};
}

fs::path vscode_no_single_file(const Locations&, Layer) { return {}; }

// Claude Code's payload, with the common fields VS Code names otherwise and its timestamp.
template <class E>
json::object vscode_payload_of(const E& event, std::string_view format_event, const ClaudeCodeToolNames& tool_names,
                               std::string_view transcript_path, const fs::path& project_dir) {
  json::object payload = claude_code_payload_of(event, format_event, tool_names, transcript_path, project_dir);
  constexpr std::pair<std::string_view, std::string_view> kVsCodeNames[] = {{"session_id", "sessionId"},
                                                                            {"hook_event_name", "hookEventName"}};
  for (const auto& [claude, vscode] : kVsCodeNames) {
    json::value value = std::move(payload.at(claude));
    payload.erase(claude);
    payload[vscode] = std::move(value);
  }
  payload.erase("permission_mode");
  payload["timestamp"] = utc_now_text(TimePrecision::milliseconds);
  return payload;
}

// Claude Code's answer, but a Stop hook blocks as VS Code reads it: its
// "decision" and "reason" in hookSpecificOutput; at the top they do nothing.
template <class E>
HookAnswer<E> vscode_answer(const ClaudeCodeCommand& hook, const E& event, const ProcessResult& run,
                            const ClaudeCodeToolNames& tool_names) {
  if constexpr (std::is_same_v<E, AgentEndEvent>) {
    if (run.exit_code == 0) {
      json::value value;
      try {
        value = parse_json(run.stdout_text, "stdout");
      } catch (const JsonError&) {
        return claude_code_answer(hook, event, run, tool_names);  // read as Claude Code reads what is no JSON
      }
      if (value.is_object()) {
        json::object& answer = value.as_object();
        answer.erase("decision");
        answer.erase("reason");
        const json::value* specific = answer.if_contains("hookSpecificOutput");
        if (specific != nullptr && specific->is_object()) {
          const json::object nested = specific->as_object();
          answer.erase("hookSpecificOutput");
          for (const std::string_view key : {"decision", "reason"})
            if (const json::value* value = nested.if_contains(key)) answer[key] = *value;
        }
        ProcessResult read = run;
        read.stdout_text = write_json(value);
        return claude_code_answer(hook, event, read, tool_names);
      }
    }
  }
  return claude_code_answer(hook, event, run, tool_names);
}

const FormatRuns& vscode_runs() {
  static const FormatRuns runs =
      format_runs([]<class E>(std::type_identity<E>) { return &vscode_payload_of<E>; },
                  []<class E>(std::type_identity<E>) { return &vscode_answer<E>; });
  return runs;
}

}  // namespace

const HookFormat& vscode_format() {
  static const HookFormat format{.protocol = HookProtocol::vscode,
                                 .agent = "VS Code",
                                 .documentation = "docs/agent-formats.md",
                                 .settings_file = &vscode_no_single_file,
                                 .plugin_hooks_file = "hooks/hooks.json",
                                 .events = kVsCodeEvents,
                                 .tool_names = kVsCodeTools,
                                 .timeout_unit = std::chrono::seconds(1),
                                 .timeout_unit_name = "seconds",
                                 .default_timeout = std::chrono::seconds(30),
                                 .project_dir_variable = "CLAUDE_PROJECT_DIR",
                                 .plugin_root_variable = "CLAUDE_PLUGIN_ROOT",
                                 .runs = &vscode_runs(),
                                 .second_settings_file = nullptr,
                                 .claude_tool_names = kVsCodeClaudeToolNames,
                                 .runs_identical_commands_once = false,
                                 .inert_handler_keys = {},
                                 .tool_aliases = {},
                                 .fail_mode_key = {},
                                 .env_file_variable = {},
                                 .handler_lists = HandlerLists::matchers_ignored,
                                 .settings_directory = &vscode_hooks_directory,
                                 .os_command_key = "linux",
                                 .other_os_command_keys = kVsCodeOtherOsCommands,
                                 .shares_settings_directory_with = HookProtocol::copilot,
                                 .handlers_run_in_order = true,
                                 .working_directory_key = "cwd",
                                 .environment_key = "env"};
  return format;
}

}  // namespace hookbus::detail
