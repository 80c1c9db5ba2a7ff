#include "support/logging.hpp"
#include "setup/setup_steps.hpp"
#include "plugins/plugin_libraries.hpp"

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

ProjectLayerConfig read_project_layer(Layer layer, const fs::path& file) {
  ProjectLayerConfig read{layer, file, std::nullopt, nullptr};
  try {
    read.config = load_layer_config(read.file, layer);
  } catch (const ConfigError&) {
    read.error = std::current_exception();
  }
  if (read.config)
    detail::log(spdlog::level::debug, "read the {} config {} (SHA-256 {})", layer_name(layer), read.file.string(),
                read.config->sha256);
  return read;
}

namespace {

// The project layers' config files once trust is decided (report.trust): when
// the project may run they apply (a read error is then thrown) and are
// appended to `applied`; otherwise none applies and the trust check's
// message is a warning (logged too). Each is recorded in report.config_files.
void apply_project_layers(std::vector<ProjectLayerConfig>& layers, SetupReport& report, std::vector<Config>& applied) {
  const bool may_run = report.trust.project_may_run();
  if (!may_run && !report.trust.message.empty()) warn(report, report.trust.message);
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
        // Shown before the project is trusted, as the error it will be once it is.
        if (read.error) {
          try {
            std::rethrow_exception(read.error);
          } catch (const ConfigError& error) {
            state.note += fmt::format("; it has an error: {}", error.what());
          }
        }
      }
    }
    report.config_files.push_back(std::move(state));
  }
}

// The trusted files, for checking them again before they run.
std::shared_ptr<const TrustedFiles> trusted_files(const TrustReport& trust, const ProjectFiles& files) {
  // Exactly what the store recorded; nothing for a project that brought nothing.
  if (trust.state == TrustState::trusted) return std::make_shared<const TrustedFiles>(files, trust.trusted);
  if (trust.state == TrustState::nothing_to_trust) return std::make_shared<const TrustedFiles>(files, ProjectFingerprint{});
  return nullptr;
}

// The project's config files as read, against the fingerprint just taken
// (`trusted`: its files, null when nothing needs checking): one whose bytes
// read are not the bytes hashed, because it changed in between, makes the
// project `changed`, so nothing of it applies.
void check_read_as_trusted(const std::vector<const Config*>& read, const TrustedFiles* trusted, TrustReport& trust) {
  if (trusted == nullptr) return;
  for (const Config* config : read) {
    if (config == nullptr) continue;
    auto why = trusted->why_not_apply(config->file, config->sha256);
    if (!why) continue;
    const fs::path relative = config->file.lexically_relative(trust.project);
    trust.state = TrustState::changed;
    trust.changes.push_back({FileChange::Kind::modified,
                             relative.empty() || *relative.begin() == ".." ? config->file.generic_string()
                                                                             : relative.generic_string(),
                             "content changed while it was read"});
    trust.message = std::move(*why);
  }
}

}  // namespace

std::shared_ptr<const TrustedFiles> decide_trust(const Locations& locations, const ProjectFiles& files,
                                                 ProjectTrustPolicy policy, bool owned,
                                                 std::vector<ProjectLayerConfig>& layers, std::vector<Config>& applied,
                                                 SetupReport& report) {
  report.trust = check_trust(TrustStore(locations.state.empty() ? fs::path() : locations.state / "trust.json"), files,
                             owned ? ProjectTrustPolicy::trust_all : policy);
  if (owned) report.trust.message.clear();
  // The configs were read before they were hashed: they apply only if they are what was hashed.
  std::vector<const Config*> read;
  for (const auto& layer : layers) read.push_back(layer.config ? &*layer.config : nullptr);
  check_read_as_trusted(read, trusted_files(report.trust, files).get(), report.trust);
  apply_project_layers(layers, report, applied);
  // What the project runs is checked against what was trusted right before
  // it runs, for as long as the installation lasts.
  return trusted_files(report.trust, files);
}

std::function<std::optional<std::string>(Layer, const fs::path&)> why_file_not_run(const TrustedFiles* trusted) {
  return [trusted](Layer layer, const fs::path& file) -> std::optional<std::string> {
    if (trusted == nullptr || !is_project_layer(layer)) return std::nullopt;
    return trusted->why_not_run(file);
  };
}

namespace {
// Each built-in of the layer (and its tracer) in report.builtins, installed or not.
void report_builtins(const Config& layer, const std::string& why_not, bool trace, SetupReport& report) {
  for (const auto& builtin : layer.builtins)
    report.builtins.push_back({layer.layer, layer.file, builtin.name, why_not.empty(), why_not});
  if (!layer.trace) return;
  const std::string why_no_trace = !why_not.empty() ? why_not : trace ? "" : "tracing is off for this run";
  report.builtins.push_back({layer.layer, layer.file, "trace", why_no_trace.empty(), why_no_trace});
}
}  // namespace

void install_layer_builtins(Hooks& hooks, const Config& layer, const std::optional<std::string>& why_not,
                            const BuiltinRegistry& registry, bool trace, const NetworkAllowance& network,
                            ConnectionGroup& installed, SetupReport& report) {
  if (layer.builtins.empty() && !layer.trace) return;
  if (why_not) {
    warn(report, fmt::format("built-ins of {} config {} not installed: {}", layer_name(layer.layer), layer.file.string(),
                             *why_not));
  } else {
    Config to_install = layer;
    if (!trace) to_install.trace.reset();
    // Config never sets where spans may go: the managed and user config's allowance does.
    if (to_install.trace && to_install.trace->options.otlp_http) to_install.trace->options.otlp_http->network = network;
    installed.add(install_builtins(hooks, to_install, registry));
  }
  report_builtins(layer, why_not.value_or(""), trace, report);
}

void report_builtins_not_run(const Config& layer, const std::string& why, SetupReport& report) {
  report_builtins(layer, why, true, report);
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
void load_layer_plugins(Hooks& hooks, Layer layer, const fs::path& directory, const fs::path& project,
                        const std::optional<std::string>& why_not, const TrustedFiles* trusted,
                        Installation& installation, const std::vector<LoadedPlugin>& replacing) {
  const std::vector<fs::path> files = plugin_files(directory);
  std::optional<PluginLibraries> libraries;
  if (is_project_layer(layer) && !why_not && !files.empty()) libraries.emplace(project, directory, trusted);
  for (const auto& file : files) {
    std::optional<std::string> why_not_this = why_not ? why_not : trusted ? trusted->why_not_run(file) : std::nullopt;
    if (!why_not_this && libraries) {
      why_not_this = libraries->why_not_load(file);
      if (why_not_this) warn(installation.report, *why_not_this);
    }
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
        warn(installation.report, plugin.reason);
      }
    }
    installation.report.plugins.push_back(std::move(plugin));
  }
}

}  // namespace detail

}  // namespace hookbus
