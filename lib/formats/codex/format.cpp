// OpenAI Codex's hook format (formats/hook_format.hpp; developers.openai.com/codex/hooks):
// Claude Code's shape in .codex/hooks.json and the [hooks] tables of
// config.toml, its twelve events (those with a hookbus counterpart mapped),
// identical commands each run, Windows' command ignored, its answer read as
// Codex reads it (codex/answer.cpp).
#include "formats/codex/format.hpp"

#include <chrono>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

// Codex's events; Interrupt has no counterpart on the bus. PostToolUse fires
// after every run, a failed one too (Codex has no PostToolUseFailure).
// SessionEnd's handlers get 1 s when they give no timeout and 3 s at most,
// and run in the foreground, "async" or not, as in Codex.
constexpr FormatEvent kCodexEvents[] = {
    {"SessionStart", {"session_start", ""}},
    {"SubagentStart", {"subagent_start", ""}},
    {"UserPromptSubmit", {"input", ""}, false},
    {"PreToolUse", {"tool_call", ""}},
    {"PermissionRequest", {"permission_request", ""}},
    {"PostToolUse", {"tool_result", ""}},
    {"PreCompact", {"session_before_compact", ""}},
    {"PostCompact", {"session_compact", ""}},
    {"Stop", {"agent_end", ""}, false},
    {"SubagentStop", {"subagent_end", ""}},
    {.name = "SessionEnd",
     .targets = {"session_shutdown", ""},
     .default_timeout = std::chrono::seconds(1),
     .max_timeout = std::chrono::seconds(3),
     .runs_async = false},
};

// Codex's one edit tool, apply_patch, is matched by Claude Code's names of its edits too, and
// spawn_agent by Claude Code's name of a subagent's start.
constexpr std::pair<std::string_view, std::string_view> kCodexToolAliases[] = {
    {"apply_patch", "Edit"}, {"apply_patch", "Write"}, {"spawn_agent", "Agent"}};

// Codex gives a plugin's directory to its commands under both names.
constexpr std::string_view kCodexPluginRootAliases[] = {"CLAUDE_PLUGIN_ROOT"};

constexpr std::string_view kCodexTools[] = {"Bash", "apply_patch", "update_plan", "spawn_agent"};

constexpr std::pair<std::string_view, std::string_view> kInertKeys[] = {
    {"commandWindows", "Codex runs it instead of \"command\" on Windows only; ignored here"},
    {"command_windows", "Codex runs it instead of \"command\" on Windows only; ignored here"},
    {"additionalContextLimit", "Codex's limit on the context a hook adds; hookbus passes the context whole"},
};

fs::path hooks_json(const Locations& locations, Layer scope) {
  switch (scope) {
    case Layer::user: return locations.codex.empty() ? fs::path() : locations.codex / "hooks.json";
    case Layer::project: return locations.project / ".codex" / "hooks.json";
    case Layer::local:
    case Layer::managed: break;
  }
  return {};
}

fs::path config_toml(const Locations& locations, Layer scope) {
  const fs::path hooks = hooks_json(locations, scope);
  return hooks.empty() ? hooks : hooks.parent_path() / "config.toml";
}

}  // namespace

const HookFormat& codex_format() {
  static const HookFormat format{.protocol = HookProtocol::codex,
                                 .agent = "Codex",
                                 .documentation = "docs/agent-formats.md",
                                 .settings_file = &hooks_json,
                                 .plugin_hooks_file = "hooks/hooks.json",
                                 .events = kCodexEvents,
                                 .tool_names = kCodexTools,
                                 .timeout_unit = std::chrono::seconds(1),
                                 .timeout_unit_name = "seconds",
                                 .default_timeout = std::chrono::seconds(600),
                                 .project_dir_variable = "CLAUDE_PROJECT_DIR",
                                 .plugin_root_variable = "PLUGIN_ROOT",
                                 .runs = &codex_runs(),
                                 .second_settings_file = &config_toml,
                                 .claude_tool_names = {},
                                 .runs_identical_commands_once = false,
                                 .inert_handler_keys = kInertKeys,
                                 .tool_aliases = kCodexToolAliases,
                                 .plugin_root_aliases = kCodexPluginRootAliases};
  return format;
}

}  // namespace hookbus::detail
