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

}  // namespace

std::string_view layer_name(Layer layer) noexcept { return reflect::enum_wire_name(layer).value_or("unknown"); }

std::optional<Layer> layer_from_name(std::string_view name) noexcept { return reflect::enum_from_wire_name<Layer>(name); }

std::filesystem::path managed_directory(const std::filesystem::path& system_directory) {
  const char* given = std::getenv("HOOKBUS_MANAGED_DIR");
  if (given == nullptr || given[0] != '/') return system_directory;
  struct stat st {};
  if (::lstat(system_directory.c_str(), &st) == 0) {
    detail::log(spdlog::level::warn, "HOOKBUS_MANAGED_DIR ({}) is ignored: {} exists, and the administrator's managed "
                                     "settings there are never replaced",
                given, system_directory.string());
    return system_directory;
  }
  return fs::path(given);
}

Locations Locations::from_environment(const std::filesystem::path& project_dir) {
  Locations where;
  where.managed = managed_directory();
  where.user = under(xdg_directory("XDG_CONFIG_HOME", ".config"), "hookbus");
  where.project = fs::absolute(project_dir).lexically_normal();
  where.state = under(xdg_directory("XDG_STATE_HOME", ".local/state"), "hookbus");
  where.cache = under(xdg_directory("XDG_CACHE_HOME", ".cache"), "hookbus");
  // Claude Code's own override of its directory (its environment variables reference), else ~/.claude.
  if (const char* claude = std::getenv("CLAUDE_CONFIG_DIR"); claude != nullptr && claude[0] != '\0')
    where.claude = fs::absolute(claude).lexically_normal();
  else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    where.claude = fs::path(home) / ".claude";
  // Codex's home (developers.openai.com/codex/config-advanced), else ~/.codex.
  if (const char* codex = std::getenv("CODEX_HOME"); codex != nullptr && codex[0] != '\0')
    where.codex = fs::absolute(codex).lexically_normal();
  else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    where.codex = fs::path(home) / ".codex";
  // Qwen Code's home (its Storage.getGlobalQwenDir), else ~/.qwen.
  if (const char* qwen = std::getenv("QWEN_HOME"); qwen != nullptr && qwen[0] != '\0')
    where.qwen = fs::absolute(qwen).lexically_normal();
  else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    where.qwen = fs::path(home) / ".qwen";
  // Gemini CLI's home, which holds its .gemini (its utils/paths: GEMINI_CLI_HOME), else ~.
  if (const char* gemini = std::getenv("GEMINI_CLI_HOME"); gemini != nullptr && gemini[0] != '\0')
    where.gemini = fs::absolute(gemini).lexically_normal() / ".gemini";
  else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    where.gemini = fs::path(home) / ".gemini";
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') where.cursor = fs::path(home) / ".cursor";
  // Copilot's home (docs.github.com/copilot/reference/hooks-reference), else ~/.copilot.
  if (const char* copilot = std::getenv("COPILOT_HOME"); copilot != nullptr && copilot[0] != '\0')
    where.copilot = fs::absolute(copilot).lexically_normal();
  else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    where.copilot = fs::path(home) / ".copilot";
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
