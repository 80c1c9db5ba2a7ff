// Layer names and the directories each layer lives in.
#include <hookbus/enum_names.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/log.hpp>

#include "support/logging.hpp"

#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <cstdlib>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

// An XDG base directory: the variable when it is an absolute path (the spec
// says to ignore anything else), else `$HOME/<fallback>`; empty without either.
fs::path xdg_directory(const char* variable, const char* fallback) {
  if (const char* value = std::getenv(variable); value != nullptr && value[0] == '/') return fs::path(value);
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') return fs::path(home) / fallback;
  return {};
}

fs::path under(const fs::path& base, const char* name) { return base.empty() ? fs::path() : base / name; }

// An agent's own directory, whose settings are the user's: `variable`'s
// value (then `inside` it) when the agent reads one and it is set, else
// `$HOME/<home_name>`; empty without either. A relative value is ignored,
// with a warning: it would name another directory from each working
// directory, and from a project's, files the project brings, read as the
// user's own.
fs::path agent_directory(const char* variable, const char* inside, const char* home_name) {
  if (const char* value = variable == nullptr ? nullptr : std::getenv(variable); value != nullptr && value[0] != '\0') {
    if (value[0] == '/') return *inside == '\0' ? fs::path(value).lexically_normal() : fs::path(value) / inside;
    detail::log(spdlog::level::warn,
                "{}={} is ignored: it is no absolute path, so it would name a different directory from each working "
                "directory; hookbus reads $HOME/{} instead (set {} to an absolute path)",
                variable, value, home_name, variable);
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') return fs::path(home) / home_name;
  return {};
}

// An administrator's file or directory: `system_path`, or `variable`'s value
// (an absolute path) when nothing is at `system_path`. Anyone can set the
// variable (a shell profile, a repository's .envrc), so it never replaces
// what an administrator installed; when it is ignored, that is logged.
fs::path administrators_path(const char* variable, const fs::path& system_path) {
  const char* given = std::getenv(variable);
  if (given == nullptr || given[0] != '/') return system_path;
  struct stat st {};
  if (::lstat(system_path.c_str(), &st) == 0) {
    detail::log(spdlog::level::warn, "{} ({}) is ignored: {} exists, and the administrator's managed settings there "
                                     "are never replaced",
                variable, given, system_path.string());
    return system_path;
  }
  return fs::path(given);
}

}  // namespace

std::string_view layer_name(Layer layer) noexcept { return reflect::enum_wire_name(layer).value_or("unknown"); }

std::optional<Layer> layer_from_name(std::string_view name) noexcept { return reflect::enum_from_wire_name<Layer>(name); }

std::filesystem::path managed_directory(const std::filesystem::path& system_directory) {
  return administrators_path("HOOKBUS_MANAGED_DIR", system_directory);
}

Locations Locations::from_environment(const std::filesystem::path& project_dir) {
  Locations where;
  where.managed = managed_directory();
  where.user = under(xdg_directory("XDG_CONFIG_HOME", ".config"), "hookbus");
  where.project = fs::absolute(project_dir).lexically_normal();
  where.state = under(xdg_directory("XDG_STATE_HOME", ".local/state"), "hookbus");
  where.cache = under(xdg_directory("XDG_CACHE_HOME", ".cache"), "hookbus");
  // Each agent's directory as the agent itself finds it: Claude Code's
  // CLAUDE_CONFIG_DIR (its environment variables reference), Codex's
  // CODEX_HOME (developers.openai.com/codex/config-advanced), Qwen Code's
  // QWEN_HOME (its Storage.getGlobalQwenDir), Gemini CLI's GEMINI_CLI_HOME,
  // which holds its .gemini (its utils/paths), Copilot's COPILOT_HOME
  // (docs.github.com/copilot/reference/hooks-reference), Cline's Documents
  // folder (xdg-user-dir DOCUMENTS, else ~/Documents: its getDocumentsPath);
  // Cursor reads none.
  where.claude = agent_directory("CLAUDE_CONFIG_DIR", "", ".claude");
  where.codex = agent_directory("CODEX_HOME", "", ".codex");
  where.qwen = agent_directory("QWEN_HOME", "", ".qwen");
  where.gemini = agent_directory("GEMINI_CLI_HOME", ".gemini", ".gemini");
  where.cursor = agent_directory(nullptr, "", ".cursor");
  where.copilot = agent_directory("COPILOT_HOME", "", ".copilot");
  where.cline = agent_directory("XDG_DOCUMENTS_DIR", "Cline/Hooks", "Documents/Cline/Hooks");
  // The administrators' files of the agents that have them: Cursor's
  // enterprise hooks (cursor.com/docs/hooks, Linux), Gemini CLI's system
  // settings (its getSystemSettingsPath, GEMINI_CLI_SYSTEM_SETTINGS_PATH).
  where.cursor_enterprise = "/etc/cursor";
  where.gemini_system_settings =
      administrators_path("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "/etc/gemini-cli/settings.json");
  return where;
}

std::filesystem::path Locations::config_file(Layer layer) const {
  switch (layer) {
    case Layer::managed: return under(managed, "config.json");
    case Layer::user: return under(user, "config.json");
    case Layer::project: return project / ".hookbus" / "config.json";
    case Layer::local: return project / ".hookbus" / "config.local.json";
  }
  return {};
}

std::filesystem::path Locations::hook_directory(Layer layer) const {
  switch (layer) {
    case Layer::managed: return under(managed, "hooks");
    case Layer::user: return under(user, "hooks");
    case Layer::project: return project / ".hookbus" / "hooks";
    case Layer::local: return {};
  }
  return {};
}

std::filesystem::path Locations::plugin_directory(Layer layer) const {
  const fs::path hooks = hook_directory(layer);
  return hooks.empty() ? fs::path() : hooks.parent_path() / "plugins";
}

}  // namespace hookbus
