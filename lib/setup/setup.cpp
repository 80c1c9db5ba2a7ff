// The one-call engine setup (include/hookbus/setup.hpp): layers, trust,
// built-ins, plugins, external hooks and the hooks of other agents' formats
// (lib/formats/), step by step.
#include <hookbus/setup.hpp>

#include "formats/hook_format.hpp"
#include "setup/setup_steps.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <optional>
#include <set>
#include <string_view>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

using detail::FormatImports;
using detail::ProjectLayerConfig;
using detail::warn;
using Formats = std::vector<std::unique_ptr<FormatImports>>;

std::vector<ProjectLayerConfig> read_project_layers(const Locations& locations) {
  return {detail::read_project_layer(Layer::project, locations.config_file(Layer::project)),
          detail::read_project_layer(Layer::local, locations.config_file(Layer::local))};
}

// The project layers' configs as read, as data (null: a file that could not be read).
std::vector<const Config*> as_data(const std::vector<ProjectLayerConfig>& project_layers) {
  std::vector<const Config*> configs;
  for (const auto& read : project_layers) configs.push_back(read.config ? &*read.config : nullptr);
  return configs;
}

// Everything the project layers would read or run (trust.hpp's fingerprint
// inputs), given the configs of the layers that always apply and the
// project's as data: their config files and hook directories, and what
// they import of the formats (`formats`, with the engine's own import).
ProjectFiles fingerprint_inputs(const Locations& locations, const std::vector<Config>& applied,
                                const std::vector<ProjectLayerConfig>& project_layers, const Formats& formats) {
  ProjectFiles files{locations.project, {}, {}};
  for (const auto& read : project_layers) {
    files.files.push_back(read.file);
    if (read.config)
      for (const auto& dir : read.config->hook_directories) files.directories.push_back(dir);
  }
  files.directories.push_back(locations.hook_directory(Layer::project));
  files.directories.push_back(locations.plugin_directory(Layer::project));
  std::vector<const Config*> importers;
  for (const Config& config : applied) importers.push_back(&config);
  for (const Config* config : as_data(project_layers)) importers.push_back(config);
  for (const auto& format : formats) format->add_to_fingerprint(importers, files);
  return files;
}

// A layer's `project_trust` looser than the policy in force changes nothing: it is said.
void warn_about_overruled_trust_policies(const LayeredConfig& config, ProjectTrustPolicy engine_default,
                                         SetupReport& report) {
  const ProjectTrustPolicy policy = config.project_trust(engine_default);
  const ConfigLocation origin = config.project_trust_origin(engine_default);
  for (const auto& overruled : config.project_trust_overruled(engine_default))
    warn(report, fmt::format("{}: {}: \"{}\" is looser than the policy in force (\"{}\", from {}), so it is ignored: "
                             "config may make the trust policy stricter, never looser",
                             overruled.origin.file.string(), overruled.origin.path, project_trust_name(overruled.value),
                             project_trust_name(policy),
                             origin.file.empty() ? "the engine" : origin.file.string()));
}

// `disable_all_hooks` of a layer that may not stop a more trusted one, while
// such a layer still runs hooks: what it tried and may not do.
void warn_about_partial_disables(const LayeredConfig& config, SetupReport& report) {
  std::set<Layer> running;
  for (const auto& hook : report.hooks.installed) running.insert(hook.layer);
  for (const auto& plugin : report.plugins)
    if (plugin.loaded) running.insert(plugin.layer);
  for (const Config& layer : config.layers())
    if (!layer.builtins.empty() && !config.hooks_forbidden(layer.layer)) running.insert(layer.layer);
  for (const Config& writer : config.layers()) {
    if (!writer.disable_all_hooks.value_or(false)) continue;
    std::vector<std::string_view> unstopped;
    for (const Layer layer : running)
      if (!governs(writer.layer, layer)) unstopped.push_back(layer_name(layer));
    if (unstopped.empty()) continue;
    warn(report, fmt::format("{}: disable_all_hooks: a {} config stops its own layer's hooks and those of less trusted "
                             "layers only; the {} layer's hooks still run",
                             writer.file.string(), layer_name(writer.layer), fmt::join(unstopped, " and ")));
  }
}

// The trust policy in force: the engine's, made stricter by the layers that
// always apply; a looser one changes nothing, and is said.
ProjectTrustPolicy trust_policy(const std::vector<Config>& applied, ProjectTrustPolicy engine_default,
                                SetupReport& report) {
  const LayeredConfig always(applied);
  warn_about_overruled_trust_policies(always, engine_default, report);
  return always.project_trust(engine_default);
}

// The config of every layer as written, the project layers' too when they
// do not apply: how discovery lists an untrusted project's hooks (their
// protocols, their events), what trusting it would run.
LayeredConfig as_written(const LayeredConfig& config, const std::vector<ProjectLayerConfig>& project_layers) {
  std::vector<Config> written = config.layers();
  for (const auto& read : project_layers)
    if (read.config) written.push_back(*read.config);
  return LayeredConfig(std::move(written));
}

}  // namespace

ProjectFiles project_files(const Locations& locations) {
  SetupReport unused;
  const std::vector<Config> applied = detail::read_always_applying_layers(locations, unused);
  return fingerprint_inputs(locations, applied, read_project_layers(locations),
                            detail::format_imports(locations, std::nullopt));
}

Installation setup(Hooks& hooks, const SetupOptions& options) {
  Installation result;
  SetupReport& report = result.report;
  const fs::path project_dir = options.project_dir.empty() ? fs::current_path() : options.project_dir;
  report.locations = options.locations.value_or(Locations::from_environment(project_dir));
  const Locations& locations = report.locations;
  // What the engine and every layer import of other agents' hook files (Claude Code's).
  const Formats formats = detail::format_imports(locations, options.claude_code);

  // The managed and user layers always apply: their errors stop setup. The
  // project layers, read as data, apply only in a trusted project.
  std::vector<Config> applied = detail::read_always_applying_layers(locations, report);
  const ProjectTrustPolicy policy = trust_policy(applied, options.project_trust, report);
  std::vector<ProjectLayerConfig> project_layers = read_project_layers(locations);
  const std::shared_ptr<const TrustedFiles> trusted =
      detail::decide_trust(locations, fingerprint_inputs(locations, applied, project_layers, formats), policy,
                           false, project_layers, applied, report);
  const bool project_may_run = report.trust.project_may_run();
  report.config = LayeredConfig(std::move(applied));
  const LayeredConfig& config = report.config;
  for (const Config& layer : config.layers())
    for (const auto& warning : layer.warnings) warn(report, warning);
  const std::string untrusted = fmt::format("the project is {}: {}", trust_state_name(report.trust.state),
                                            "run `hookctl trust` after reviewing its hooks");
  const auto why_not_run = [&](Layer layer) -> std::optional<std::string> {
    if (is_project_layer(layer) && !project_may_run) return untrusted;
    return config.hooks_forbidden(layer);
  };

  // The formats' commands come from their agents' files, never from
  // discovery, which must not query or run a script they run a second time.
  for (const auto& format : formats)
    format->read(config, as_data(project_layers), project_may_run, trusted.get(), report.warnings);

  // Discovery: a layer runs nothing when it may not run at all. Every
  // layer's own directory is listed, an untrusted project's too, so its
  // hooks show as not run, as its config describes them.
  const LayeredConfig written = project_may_run ? LayeredConfig() : as_written(config, project_layers);
  report.directories = layer_hook_directories(locations, config);
  DiscoveryOptions discovery{
      .query_timeout = options.query_timeout,
      .query_cache = options.query_cache && !locations.cache.empty() ? locations.cache / "queries.json" : fs::path(),
      .why_not_run = why_not_run,
      .declared = [&](Layer layer, std::string_view name) -> std::optional<HookDeclaration> {
        const ResolvedHookSettings settings =
            (is_project_layer(layer) && !project_may_run ? written : config).hook_settings(layer, name);
        if (settings.events.value.empty()) return std::nullopt;
        return HookDeclaration{settings.protocol.value, settings.events.value};
      },
      .run_elsewhere = [&](Layer layer, const fs::path& file) -> std::optional<std::string> {
        for (const auto& format : formats)
          if (auto why = format->runs(layer, file)) return why;
        return std::nullopt;
      },
      .why_file_not_run = detail::why_file_not_run(trusted.get())};
  report.discovery = discover_hooks(report.directories, discovery);

  // Built-ins of every layer that may run, most trusted first: all are built
  // before any is installed, so a bad one leaves nothing installed.
  const BuiltinRegistry registry = options.builtins != nullptr ? *options.builtins : default_builtins();
  ConnectionGroup builtins;
  for (const Config& layer : config.layers())
    detail::install_layer_builtins(hooks, layer, config.hooks_forbidden(layer.layer), registry, options.trace,
                                   config.network_allowance(), builtins, report);
  // An untrusted project's, as its config writes them: what trusting it would install.
  if (!project_may_run)
    for (const auto& read : project_layers)
      if (read.config) detail::report_builtins_not_run(*read.config, untrusted, report);
  // Plugins of every layer that may run, most trusted first.
  for (const Layer layer : {Layer::managed, Layer::user, Layer::project})
    detail::load_layer_plugins(hooks, layer, locations.plugin_directory(layer), locations.project, why_not_run(layer),
                               is_project_layer(layer) ? trusted.get() : nullptr, result);

  // External hooks, each layer's with the formats' commands of that layer.
  ExternalInstallOptions install{.project_dir = locations.project,
                                 .claude_code = {},
                                 .claude_code_options = {},
                                 .claude_code_tool_names = {},
                                 .trusted_project = trusted,
                                 .detached_processes = options.detached_processes};
  for (const auto& format : formats) format->prepare(hooks, config, report.discovery, install, result.connections);
  InstalledHooks external = install_external_hooks(hooks, report.discovery, config, install);
  report.hooks = std::move(external.report);
  for (const auto& warning : report.hooks.warnings) report.warnings.push_back(warning);
  for (const auto& format : formats) format->report(config, untrusted, report.hooks, report.warnings);
  warn_about_partial_disables(config, report);
  result.connections.add(std::move(builtins));
  result.connections.add(std::move(external.connections));
  result.background = external.background;
  return result;
}

}  // namespace hookbus
