#pragma once
// Layers: where hooks, plugins and configuration come from, and how far each
// source is trusted. docs/security.md explains the model; config.hpp merges the
// layers' configuration, trust.hpp decides whether a project's layer may run.
//
//   managed  a system directory (/etc/hookbus/), written by an administrator
//   user     $XDG_CONFIG_HOME/hookbus/ (~/.config/hookbus/), the user's own
//   project  <project>/.hookbus/ (and <project>/.claude/settings.json when the
//            Claude Code import is on): comes with a repository, so it runs
//            only once the user trusted the project
//   local    <project>/.hookbus/config.local.json (and .claude/settings.local.json):
//            the user's own uncommitted settings for one project
//
// A less trusted layer never shadows, disables, weakens or reorders a more
// trusted layer's hooks or built-ins: hooks of the same name in two layers are
// two hooks, and both run, the more trusted first.

#include <boost/describe/enum.hpp>

#include <filesystem>
#include <optional>
#include <string_view>

namespace hookbus {

// Most trusted first; the order hooks run in.
enum class Layer { managed, user, project, local };
BOOST_DESCRIBE_ENUM(Layer, managed, user, project, local)

inline constexpr Layer all_layers[] = {Layer::managed, Layer::user, Layer::project, Layer::local};

// The layers ranked for security, most trusted first: the local layer holds
// the user's own settings for one project, so it outranks the project's.
inline constexpr Layer layers_by_trust[] = {Layer::managed, Layer::user, Layer::local, Layer::project};

// Whether `a` ranks above `b` in layers_by_trust.
constexpr bool more_trusted(Layer a, Layer b) noexcept {
  for (const Layer layer : layers_by_trust) {
    if (layer == b) return false;
    if (layer == a) return true;
  }
  return false;
}

// "managed", "user", "project", "local": its wire name (enum_names.hpp).
std::string_view layer_name(Layer layer) noexcept;
std::optional<Layer> layer_from_name(std::string_view name) noexcept;

// True for the layers a project brings: they run only in a trusted project.
constexpr bool is_project_layer(Layer layer) noexcept { return layer == Layer::project || layer == Layer::local; }

// Whether settings written in layer `writer` may change hooks and built-ins of
// layer `owner`: a layer governs itself and every less trusted layer. The
// local layer holds the user's own settings for one project, so it also
// governs the project layer, but never the user or managed ones.
constexpr bool governs(Layer writer, Layer owner) noexcept {
  if (writer == Layer::local) return owner == Layer::project || owner == Layer::local;
  return static_cast<int>(writer) <= static_cast<int>(owner);
}

// Where the administrator's managed layer lives.
inline constexpr std::string_view system_managed_directory = "/etc/hookbus";

// The managed layer's directory: `system_directory`, or $HOOKBUS_MANAGED_DIR
// (an absolute path) when nothing is at `system_directory`. The variable is
// for tests and machines without an administrator's settings: anyone can set
// it (a shell profile, a repository's .envrc), so it must never replace
// settings an administrator installed; when it is ignored, that is logged.
std::filesystem::path managed_directory(const std::filesystem::path& system_directory = system_managed_directory);

// Where each layer and hookbus's own state live on this machine.
struct Locations {
  std::filesystem::path managed{};  // managed_directory(): /etc/hookbus, or $HOOKBUS_MANAGED_DIR where that is absent
  std::filesystem::path user{};     // $XDG_CONFIG_HOME/hookbus or ~/.config/hookbus; empty: no user layer
  std::filesystem::path project{};  // the project directory (absolute); its layers live in .hookbus/
  std::filesystem::path state{};    // $XDG_STATE_HOME/hookbus or ~/.local/state/hookbus: trust.json
  std::filesystem::path cache{};    // $XDG_CACHE_HOME/hookbus or ~/.cache/hookbus: the hook query cache
  std::filesystem::path claude{};   // Claude Code's user directory, $CLAUDE_CONFIG_DIR or ~/.claude: its settings.json is the user's
  std::filesystem::path codex{};    // OpenAI Codex's, $CODEX_HOME or ~/.codex: its hooks.json and config.toml are the user's
  std::filesystem::path qwen{};     // Qwen Code's, ~/.qwen: its settings.json is the user's
  std::filesystem::path copilot{};  // GitHub Copilot's, $COPILOT_HOME or ~/.copilot: VS Code's user hooks are its hooks/*.json

  // From the environment, for `project_dir` (made absolute). XDG variables that
  // are not absolute paths are ignored, as the XDG spec says.
  static Locations from_environment(const std::filesystem::path& project_dir);

  // The layer's config.json (config.local.json for the local layer).
  [[nodiscard]] std::filesystem::path config_file(Layer layer) const;
  // The layer's hook directory; empty for the local layer, which has none of its own.
  [[nodiscard]] std::filesystem::path hook_directory(Layer layer) const;
  // The layer's plugin directory (`plugins/` next to its hook directory); empty for local.
  [[nodiscard]] std::filesystem::path plugin_directory(Layer layer) const;
};

}  // namespace hookbus
