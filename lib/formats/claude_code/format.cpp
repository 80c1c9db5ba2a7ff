// Claude Code's hook format (formats/hook_format.hpp): its events and what
// each stands for on the bus, its tool names, where its files are, and the
// public API's names for them (include/hookbus/claude_code.hpp).
#include "formats/hook_format.hpp"

#include <hookbus/claude_code.hpp>

#include "support/text.hpp"

#include <chrono>
#include <utility>

namespace hookbus {
namespace {

using detail::FormatEvent;
using detail::ToolResults;

// Claude Code's events, the hookbus events they stand for, and whether
// Claude Code filters them by a matcher (it ignores the matcher of the others).
constexpr FormatEvent kClaudeCodeEvents[] = {
    {"PreToolUse", {"tool_call", ""}},
    {"PermissionRequest", {"permission_request", ""}},
    {"PostToolUse", {"tool_result", ""}, true, ToolResults::succeeded},
    {"PostToolUseFailure", {"tool_result", "tool_execution_failure"}, true, ToolResults::failed},
    {"UserPromptSubmit", {"input", ""}, false},
    {"Notification", {"notification", ""}},
    {.name = "Stop", .targets = {"agent_end", ""}, .has_matcher = false, .run_status = RunStatus::completed},
    {"SubagentStart", {"subagent_start", ""}},
    {"SubagentStop", {"subagent_end", ""}},
    {"PreCompact", {"session_before_compact", ""}},
    {"SessionStart", {"session_start", ""}},
    {"SessionEnd", {"session_shutdown", ""}},
    {"PostCompact", {"session_compact", ""}},
    {"PermissionDenied", {"permission_denied", ""}},
    {"StopFailure", {"agent_error", ""}},
    {"PostModelSwitch", {"model_select", ""}},
    {"MessageDisplay", {"message_update", ""}, false},
};

constexpr std::string_view kClaudeCodeTools[] = {
    "Bash",  "Read",     "Write",        "Edit",        "MultiEdit",    "Glob",      "Grep",
    "LS",    "WebFetch", "WebSearch",    "NotebookEdit", "NotebookRead", "Task",      "TodoWrite",
    "ExitPlanMode", "KillShell", "BashOutput", "SlashCommand", "Skill", "AskUserQuestion"};

}  // namespace

const detail::HookFormat& detail::claude_code_format() {
  static const HookFormat format{.protocol = HookProtocol::claude_code,
                                 .agent = "Claude Code",
                                 .documentation = "docs/claude-code.md",
                                 .settings_file = &claude_code_settings_file,
                                 .plugin_hooks_file = "hooks/hooks.json",
                                 .events = kClaudeCodeEvents,
                                 .tool_names = kClaudeCodeTools,
                                 .timeout_unit = std::chrono::seconds(1),
                                 .timeout_unit_name = "seconds",
                                 .default_timeout = claude_code_default_timeout,
                                 .project_dir_variable = "CLAUDE_PROJECT_DIR",
                                 .plugin_root_variable = "CLAUDE_PLUGIN_ROOT",
                                 .runs = &claude_code_runs(),
                                 .env_file_variable = "CLAUDE_ENV_FILE",
                                 .http_handlers = true};
  return format;
}

const detail::FormatRuns& detail::claude_code_runs() {
  static const FormatRuns runs =
      format_runs([]<class E>(std::type_identity<E>) { return &claude_code_payload_of<E>; },
                  []<class E>(std::type_identity<E>) { return &claude_code_answer<E>; });
  return runs;
}

// ------------------------------------------------------------ tool names

ClaudeCodeToolNames::ClaudeCodeToolNames(std::map<std::string, std::string> engine_to_claude) {
  for (auto& [engine, claude] : engine_to_claude) {
    to_engine_.emplace(claude, engine);
    to_claude_.emplace(std::move(engine), std::move(claude));
  }
}

ClaudeCodeToolNames::ClaudeCodeToolNames(std::map<std::string, std::string> engine_to_agent,
                                         std::map<std::string, std::string> claude_to_agent)
    : ClaudeCodeToolNames(std::move(engine_to_agent)) {
  claude_to_agent_.insert(claude_to_agent.begin(), claude_to_agent.end());
}

std::string ClaudeCodeToolNames::to_claude(std::string_view engine_name) const {
  if (const auto found = to_claude_.find(engine_name); found != to_claude_.end()) return found->second;
  for (const auto builtin : detail::claude_code_format().tool_names) {
    if (!detail::equal_ignoring_case(builtin, engine_name)) continue;
    const auto agents = claude_to_agent_.find(builtin);
    return agents == claude_to_agent_.end() ? std::string(builtin) : agents->second;
  }
  return std::string(engine_name);
}

std::string ClaudeCodeToolNames::to_engine(std::string_view claude_name) const {
  if (const auto found = to_engine_.find(claude_name); found != to_engine_.end()) return found->second;
  return std::string(claude_name);
}

std::span<const std::string_view> claude_code_tool_names() noexcept {
  return detail::claude_code_format().tool_names;
}

// ------------------------------------------------------------ the events

std::vector<std::size_t> claude_code_event_targets(std::string_view claude_event) {
  return detail::event_targets(detail::claude_code_format(), claude_event);
}

void check_claude_code_event(std::string_view name, const ConfigLocation& where) {
  detail::check_event(detail::claude_code_format(), name, where);
}

bool claude_code_event_has_matcher(std::string_view claude_event) {
  return detail::event_has_matcher(detail::claude_code_format(), claude_event);
}

bool claude_code_event_applies(std::string_view claude_event, const HookEvent& event) {
  return std::visit([&](const auto& e) { return detail::event_applies(detail::claude_code_format(), claude_event, e); },
                    event);
}

}  // namespace hookbus
