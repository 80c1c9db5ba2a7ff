// Layer names and the directories each layer lives in.
#include <hookbus/layers.hpp>

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

std::string_view layer_name(Layer layer) noexcept {
  switch (layer) {
    case Layer::managed: return "managed";
    case Layer::user: return "user";
    case Layer::project: return "project";
    case Layer::local: return "local";
  }
  return "unknown";
}

std::optional<Layer> layer_from_name(std::string_view name) noexcept {
  for (const Layer layer : all_layers)
    if (layer_name(layer) == name) return layer;
  return std::nullopt;
}

Locations Locations::from_environment(const std::filesystem::path& project_dir) {
  Locations where;
  const char* managed = std::getenv("HOOKBUS_MANAGED_DIR");
  where.managed = managed != nullptr && managed[0] == '/' ? fs::path(managed) : fs::path("/etc/hookbus");
  where.user = under(xdg_directory("XDG_CONFIG_HOME", ".config"), "hookbus");
  where.project = fs::absolute(project_dir).lexically_normal();
  where.state = under(xdg_directory("XDG_STATE_HOME", ".local/state"), "hookbus");
  where.cache = under(xdg_directory("XDG_CACHE_HOME", ".cache"), "hookbus");
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') where.claude = fs::path(home) / ".claude";
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
