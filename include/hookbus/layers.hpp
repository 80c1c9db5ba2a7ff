#pragma once
// Where each layer lives on this machine, and the layers' wire names. The
// layers themselves and their trust order: layer.hpp.

#include <hookbus/layer.hpp>

#include <filesystem>
#include <optional>
#include <string_view>

namespace hookbus {

// "managed", "user", "project", "local": its wire name (enum_names.hpp).
std::string_view layer_name(Layer layer) noexcept;
std::optional<Layer> layer_from_name(std::string_view name) noexcept;

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
  std::filesystem::path qwen{};     // Qwen Code's, $QWEN_HOME or ~/.qwen: its settings.json is the user's
  std::filesystem::path gemini{};   // Gemini CLI's, $GEMINI_CLI_HOME/.gemini or ~/.gemini: its settings.json is the user's
  std::filesystem::path cursor{};   // Cursor's, ~/.cursor: its hooks.json is the user's
  std::filesystem::path copilot{};  // GitHub Copilot's, $COPILOT_HOME or ~/.copilot: VS Code's user hooks are its hooks/*.json
  std::filesystem::path cline{};    // Cline's user hooks directory, $XDG_DOCUMENTS_DIR/Cline/Hooks or ~/Documents/Cline/Hooks
  // The administrator's files of agents, read for the managed layer:
  std::filesystem::path cursor_enterprise{};  // Cursor's enterprise directory, /etc/cursor: its hooks.json
  // Gemini CLI's system settings, /etc/gemini-cli/settings.json, or
  // $GEMINI_CLI_SYSTEM_SETTINGS_PATH where nothing is there (as managed_directory reads its variable)
  std::filesystem::path gemini_system_settings{};

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
