#include "support/logging.hpp"
#include "setup/setup_steps.hpp"

#include <hookbus/log.hpp>

#include <spdlog/spdlog.h>

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

ProjectLayerConfig read_project_layer(Layer layer, const fs::path& file) {
  ProjectLayerConfig read{layer, file, std::nullopt, nullptr};
  try {
    read.config = load_layer_config(read.file, layer);
  } catch (const ConfigError&) {
    read.error = std::current_exception();
  }
  return read;
}

void apply_project_layers(std::vector<ProjectLayerConfig>& layers, SetupReport& report, std::vector<Config>& applied) {
  const bool may_run = report.trust.project_may_run();
  if (!may_run && !report.trust.message.empty()) {
    detail::log(spdlog::level::warn, "{}", report.trust.message);
    report.warnings.push_back(report.trust.message);
  }
  for (auto& read : layers) {
    ConfigFileState state{read.layer, read.file, ConfigFileState::State::absent, ""};
    if (read.config || read.error) {
      if (may_run) {
        if (read.error) std::rethrow_exception(read.error);
        applied.push_back(std::move(*read.config));
        state.state = ConfigFileState::State::applied;
      } else {
        state.state = ConfigFileState::State::not_applied;
        state.note = std::string(trust_state_name(report.trust.state));
      }
    }
    report.config_files.push_back(std::move(state));
  }
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

// A plugin that cannot load is a warning, never the engine's end.
void load_layer_plugins(Hooks& hooks, Layer layer, const fs::path& directory, const std::optional<std::string>& why_not,
                        const TrustedFiles* trusted, Installation& installation) {
  for (const auto& file : plugin_files(directory)) {
    const std::optional<std::string> why_not_this = why_not ? why_not : trusted ? trusted->why_not_run(file) : std::nullopt;
    PluginReport plugin{layer, file, "", false, why_not_this.value_or("")};
    if (!why_not_this) {
      try {
        LoadedPlugin loaded = load_plugin(hooks, file, layer);
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
