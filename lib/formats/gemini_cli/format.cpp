// Gemini CLI's hook format (formats/hook_format.hpp; google-gemini/gemini-cli
// docs/hooks): matcher groups of command handlers under "hooks" in its
// settings.json files and its extensions' hooks/hooks.json, its own event
// and tool names, timeouts in milliseconds (60 s when none is given), and
// its payload and answer (gemini_cli/payload.cpp, answer.cpp).
#include "formats/gemini_cli/format.hpp"

#include <chrono>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

// Gemini CLI's events that have a counterpart on the bus. AfterTool fires
// after every run, a failed one too (its tool_response.error says so);
// Notification fires only when a tool needs the user's confirmation (its
// ToolPermission). Gemini ignores the matcher of BeforeAgent, AfterAgent and
// Notification, and searches a tool matcher as a regular expression even when
// it is a plain name (RegExp.test: "read_file" matches mcp_fs_read_file too).
// BeforeModel and BeforeToolSelection run on before_model_call (the
// first answers or changes the request, the second the tools offered),
// AfterModel on after_model_call; Gemini ignores their matchers.
constexpr FormatEvent kGeminiEvents[] = {
    {"SessionStart", {"session_start", ""}},
    {"SessionEnd", {"session_shutdown", ""}},
    {"BeforeAgent", {"input", ""}, false},
    {"AfterAgent", {"agent_end", ""}, false},
    {.name = "BeforeTool", .targets = {"tool_call", ""}, .matchers = MatcherSyntax::searched},
    {.name = "AfterTool", .targets = {"tool_result", "tool_execution_failure"}, .matchers = MatcherSyntax::searched},
    {"PreCompress", {"session_before_compact", ""}},
    {"BeforeModel", {"before_model_call", ""}, false},
    {"BeforeToolSelection", {"before_model_call", ""}, false},
    {"AfterModel", {"after_model_call", ""}, false},
    {"Notification", {"permission_request", ""}, false},
};

// Gemini's names of Claude Code's built-in tools (packages/core/src/tools/tool-names.ts).
constexpr std::pair<std::string_view, std::string_view> kGeminiClaudeToolNames[] = {
    {"Bash", "run_shell_command"},   {"Read", "read_file"},       {"Write", "write_file"},
    {"Edit", "replace"},             {"MultiEdit", "replace"},    {"Glob", "glob"},
    {"Grep", "grep_search"},         {"LS", "list_directory"},    {"WebFetch", "web_fetch"},
    {"WebSearch", "google_web_search"}, {"TodoWrite", "write_todos"}, {"AskUserQuestion", "ask_user"},
    {"ExitPlanMode", "exit_plan_mode"}, {"EnterPlanMode", "enter_plan_mode"}, {"Skill", "activate_skill"},
    {"Task", "invoke_agent"},
};

constexpr std::string_view kGeminiTools[] = {
    "run_shell_command", "read_file",       "write_file",     "replace",         "glob",
    "grep_search",       "list_directory",  "read_many_files", "google_web_search", "web_fetch",
    "write_todos",       "ask_user",        "activate_skill", "get_internal_docs", "enter_plan_mode",
    "exit_plan_mode",    "invoke_agent",    "complete_task",  "read_mcp_resource", "list_mcp_resources"};

constexpr std::pair<std::string_view, std::string_view> kGeminiInertKeys[] = {
    {"description", "shown in Gemini CLI's /hooks panel only"},
    {"env", "Gemini CLI adds these variables to the command's environment; hookbus does not: set them in the command "
            "(VARIABLE=value command)"},
};

fs::path gemini_settings_json(const Locations& locations, Layer scope) {
  switch (scope) {
    case Layer::managed: return locations.gemini_system_settings;
    case Layer::user: return locations.gemini.empty() ? fs::path() : locations.gemini / "settings.json";
    case Layer::project: return locations.project / ".gemini" / "settings.json";
    case Layer::local: break;
  }
  return {};
}

}  // namespace

const HookFormat& gemini_cli_format() {
  static const HookFormat format{.protocol = HookProtocol::gemini_cli,
                                 .agent = "Gemini CLI",
                                 .documentation = "docs/agent-formats.md",
                                 .settings_file = &gemini_settings_json,
                                 .plugin_hooks_file = "hooks/hooks.json",
                                 .events = kGeminiEvents,
                                 .tool_names = kGeminiTools,
                                 .timeout_unit = std::chrono::milliseconds(1),
                                 .timeout_unit_name = "milliseconds",
                                 .default_timeout = std::chrono::seconds(60),
                                 .project_dir_variable = "GEMINI_PROJECT_DIR",
                                 .plugin_root_variable = "extensionPath",
                                 .runs = &gemini_cli_runs(),
                                 .second_settings_file = nullptr,
                                 .claude_tool_names = kGeminiClaudeToolNames,
                                 .runs_identical_commands_once = true,
                                 .inert_handler_keys = kGeminiInertKeys,
                                 .tool_aliases = {},
                                 .fail_mode_key = {},
                                 .sequential_key = "sequential",
                                 .hooks_config_key = "hooksConfig",
                                 .hook_name_key = "name"};
  return format;
}

const FormatRuns& gemini_cli_runs() {
  static const FormatRuns runs =
      format_runs([]<class E>(std::type_identity<E>) { return &gemini_cli_payload<E>; },
                  []<class E>(std::type_identity<E>) { return &gemini_cli_answer<E>; });
  return runs;
}

}  // namespace hookbus::detail
