#include "support/logging.hpp"
#include "setup/setup_steps.hpp"

#include <hookbus/log.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <string_view>

namespace hookbus {

namespace fs = std::filesystem;

namespace detail {

std::vector<Config> read_always_applying_layers(const Locations& locations, SetupReport& report) {
  std::vector<Config> applied;
  for (const Layer layer : {Layer::managed, Layer::user}) {
    const fs::path file = locations.config_file(layer);
    ConfigFileState state{layer, file, ConfigFileState::State::absent, ""};
    if (!file.empty()) {
      if (auto config = load_layer_config(file, layer)) {
        applied.push_back(std::move(*config));
        state.state = ConfigFileState::State::applied;
      }
    }
    report.config_files.push_back(std::move(state));
  }
  return applied;
}

std::shared_ptr<const TrustedFiles> trusted_files(const TrustReport& trust, const ProjectFiles& files) {
  if (trust.state != TrustState::trusted && trust.state != TrustState::nothing_to_trust) return nullptr;
  return std::make_shared<const TrustedFiles>(files, trust.now);
}

std::function<std::optional<std::string>(Layer, const fs::path&)> why_file_not_run(const TrustedFiles* trusted) {
  return [trusted](Layer layer, const fs::path& file) -> std::optional<std::string> {
    if (trusted == nullptr || !is_project_layer(layer)) return std::nullopt;
    return trusted->why_not_run(file);
  };
}

namespace {

// Why a plugin may not have `name`: another plugin has it. Its labels would
// be that plugin's, so the one loaded first keeps it: the more trusted layer's
// (setup() loads them most trusted first, a workspace after setup()), and in
// one directory the first by file name. The plugins of `replacing` are on
// their way out: their labels do not count.
std::optional<std::string> name_taken(const Hooks& hooks, const Installation& installation,
                                      const std::vector<LoadedPlugin>& replacing, std::string_view name) {
  constexpr std::string_view fix = "rename one (HOOKBUS_PLUGIN(\"...\")) or remove it";
  for (const auto& loaded : installation.plugins)
    if (loaded.name() == name)
      return fmt::format("has the name '{}' of the plugin {}, loaded before it, which keeps the name and its labels; {}",
                         name, loaded.file().string(), fix);
  if (std::any_of(replacing.begin(), replacing.end(), [&](const LoadedPlugin& old) { return old.name() == name; }))
    return std::nullopt;
  const std::string prefix = std::string(name) + "/";
  for (const auto& event : hooks.registered_events())
    for (const auto& label : hooks.handlers(event))
      if (label.starts_with(prefix))
        return fmt::format("has the name '{}', and the bus has its labels already ('{}' on {}: a plugin of that "
                           "name loaded by setup() or by the engine), which keeps them; {}",
                           name, label, event, fix);
  return std::nullopt;
}

}  // namespace

// A plugin that cannot load is a warning, never the engine's end.
void load_layer_plugins(Hooks& hooks, Layer layer, const fs::path& directory, const std::optional<std::string>& why_not,
                        const TrustedFiles* trusted, Installation& installation,
                        const std::vector<LoadedPlugin>& replacing) {
  for (const auto& file : plugin_files(directory)) {
    const std::optional<std::string> why_not_this = why_not ? why_not : trusted ? trusted->why_not_run(file) : std::nullopt;
    PluginReport plugin{layer, file, "", false, why_not_this.value_or("")};
    if (!why_not_this) {
      try {
        LoadedPlugin loaded = load_plugin(hooks, file, layer, [&](std::string_view name) {
          return name_taken(hooks, installation, replacing, name);
        });
        plugin.name = loaded.name();
        plugin.loaded = true;
        installation.plugins.push_back(std::move(loaded));
      } catch (const PluginError& error) {
        plugin.reason = error.what();
        detail::log(spdlog::level::warn, "{}", plugin.reason);
        installation.report.warnings.push_back(plugin.reason);
      }
    }
    installation.report.plugins.push_back(std::move(plugin));
  }
}

}  // namespace detail

}  // namespace hookbus
