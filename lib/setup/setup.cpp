// The one-call engine setup (include/hookbus/setup.hpp): layers, trust,
// built-ins, plugins, external hooks.
#include <hookbus/claude_code.hpp>
#include <hookbus/log.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/tool_matcher.hpp>

#include "formats/claude_code/command_files.hpp"
#include "setup/setup_steps.hpp"
#include "support/logging.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <system_error>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

using detail::ProjectLayerConfig;

std::vector<ProjectLayerConfig> read_project_layers(const Locations& locations) {
  return {detail::read_project_layer(Layer::project, locations.config_file(Layer::project)),
          detail::read_project_layer(Layer::local, locations.config_file(Layer::local))};
}

// A Claude Code settings file or plugin that a layer's config imports.
struct ClaudeCodeSource {
  fs::path file;          // the settings file, or the plugin's hooks/hooks.json
  Layer layer;            // its commands' layer
  fs::path plugin_root;   // a plugin's directory; empty for a settings file
  bool projects_own;      // the project's settings, or a plugin a project layer names: fingerprinted
};

// What one layer's config imports: each settings file in the less trusted of
// its own layer and the importer's (a project importing the user's
// ~/.claude/settings.json gets its commands as project-layer handlers), each
// plugin in the importer's layer.
std::vector<ClaudeCodeSource> claude_code_imports(const Locations& locations, const Config& importer) {
  std::vector<ClaudeCodeSource> sources;
  if (!importer.claude_code) return sources;
  for (const Layer scope : importer.claude_code->settings) {
    const Layer layer = more_trusted(scope, importer.layer) ? importer.layer : scope;
    sources.push_back({claude_code_settings_file(locations, scope), layer, {}, is_project_layer(scope)});
  }
  for (const fs::path& plugin : importer.claude_code->plugins)
    sources.push_back({plugin / "hooks" / "hooks.json", importer.layer, plugin, is_project_layer(importer.layer)});
  return sources;
}

void add_once(std::vector<fs::path>& paths, fs::path path) {
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(std::move(path));
}

// What trust covers of one project-layer command: the project's files it
// runs or names, and the directory trees of those it runs or loads (the
// project's top directory only its own files); and what it does not cover:
// the files outside the project it reaches (but those of its own plugin,
// whose tree is covered), the constructs it cannot resolve.
void cover_command(const ClaudeCodeCommand& command, const detail::ProjectDirectory& project, ProjectFiles& files) {
  const detail::ShellCommandFiles found = detail::resolve_command(detail::claude_code_format(), command, project);
  for (auto& file : detail::files_inside(found, project)) add_once(files.files, std::move(file));
  const std::optional<detail::ProjectDirectory> plugin =
      command.plugin_root.empty() ? std::nullopt : std::optional(detail::ProjectDirectory(command.plugin_root));
  for (const auto& file : found.files) {
    const bool covered = project.inside(file.path) || project.inside(file.resolved) ||
                         (plugin && plugin->inside(file.path) && plugin->inside(file.resolved));
    if (!covered) files.outside.push_back({file.path, command.source});
  }
  for (const auto& directory : found.directories) {
    std::optional<fs::path> inside = project.inside(directory);
    if (!inside) continue;
    std::vector<fs::path>& trees = *inside == project.given() ? files.top_level_directories : files.directories;
    add_once(trees, std::move(*inside));
  }
  for (const auto& construct : found.unresolved)
    files.unresolved.push_back({command.source, command.command, construct.construct, construct.why});
}

// Everything the project layers would read or run (trust.hpp's fingerprint
// inputs), given the configs of the layers that always apply (with the
// engine's own Claude Code import, when it has one) and the project's as data.
ProjectFiles fingerprint_inputs(const Locations& locations, const std::vector<const Config*>& applied,
                                const std::vector<ProjectLayerConfig>& project_layers) {
  std::vector<const Config*> all_configs = applied;
  for (const auto& read : project_layers) all_configs.push_back(read.config ? &*read.config : nullptr);
  ProjectFiles files{locations.project, {}, {}};
  for (const auto& read : project_layers) {
    files.files.push_back(read.file);
    if (read.config)
      for (const auto& dir : read.config->hook_directories) files.directories.push_back(dir);
  }
  files.directories.push_back(locations.hook_directory(Layer::project));
  files.directories.push_back(locations.plugin_directory(Layer::project));
  // The project layers' Claude Code commands, whoever imports them: their
  // settings files and plugins (each plugin whole), the hook scripts beside
  // the project's settings, and what each command reaches.
  const detail::ProjectDirectory project(locations.project);
  std::vector<fs::path> seen;  // as setup() reads them: a file once, in the layer of its first import
  for (const Config* config : all_configs) {
    if (config == nullptr) continue;
    for (const ClaudeCodeSource& source : claude_code_imports(locations, *config)) {
      if (source.file.empty() || std::find(seen.begin(), seen.end(), source.file) != seen.end()) continue;
      seen.push_back(source.file);
      if (!is_project_layer(source.layer)) continue;
      if (source.projects_own) files.files.push_back(source.file);
      if (!source.plugin_root.empty()) add_once(files.directories, source.plugin_root);
      else if (source.projects_own) add_once(files.directories, locations.project / ".claude" / "hooks");
      try {
        for (const auto& command : read_claude_code_settings(source.file, source.layer, source.plugin_root).commands)
          cover_command(command, project, files);
      } catch (const ConfigError&) {
        // A broken settings file is fingerprinted as it is; it is an error once it applies.
      }
    }
  }
  return files;
}

// What the engine asks of the Claude Code import in code, as a user-layer
// config that says only that: it joins the trust fingerprint and the import
// like any layer's "claude_code".
std::optional<Config> engine_claude_code(const SetupOptions& options) {
  if (!options.claude_code) return std::nullopt;
  Config config;
  config.layer = Layer::user;
  config.claude_code = options.claude_code->import;
  if (config.claude_code->location.file.empty() && config.claude_code->location.path.empty())
    config.claude_code->location.path = "SetupOptions::claude_code.import";  // where its errors point
  return config;
}

// The Claude Code commands of a project that may not run, read as data, as
// not installed with why: what trusting the project would run.
void report_not_run(const std::vector<ClaudeCodeSource>& sources, const std::string& why, SetupReport& report) {
  for (const ClaudeCodeSource& source : sources) {
    try {
      for (auto& command : read_claude_code_settings(source.file, source.layer, source.plugin_root).commands)
        report.hooks.not_installed.push_back({command.label, command.layer, {}, why, HookProtocol::claude_code,
                                              {command.event}, command.command, command.source});
    } catch (const ConfigError&) {
      // An untrusted project's broken settings stop nothing and list nothing.
    }
  }
}

// A Claude Code plugin that "plugins" names: a directory with hooks/hooks.json.
void check_plugin(const fs::path& plugin, const ConfigLocation& where) {
  std::error_code ec;
  if (!fs::is_directory(plugin, ec))
    throw ConfigError(where, fmt::format("the Claude Code plugin directory {} {}; fix the path, or remove it from "
                                         "\"plugins\" to run without its hooks",
                                         plugin.string(), fs::exists(plugin, ec) ? "is not a directory" : "does not exist"));
  if (!fs::exists(plugin / "hooks" / "hooks.json", ec))
    throw ConfigError(where, fmt::format("the Claude Code plugin {} has no hooks/hooks.json, where hookbus reads a "
                                         "plugin's hooks; fix the path, or remove it from \"plugins\"",
                                         plugin.string()));
}

// The Claude Code commands the engine and every applying layer's config
// import (claude_code_imports: each in the less trusted of its file's layer
// and the importer's; the first import of a file wins, the most trusted
// importer's). What is skipped is a warning, logged. Those of the project
// layers of a project that may not run (imported by any config, the
// project's own as written too) go to `not_run` instead.
// A trusted project's own settings apply only as they were fingerprinted
// (`trusted`), whenever they are read again.
std::vector<ClaudeCodeCommand> claude_code_commands(const Locations& locations, const std::vector<const Config*>& importers,
                                                    const std::vector<ProjectLayerConfig>& project_layers,
                                                    bool project_may_run, const TrustedFiles* trusted,
                                                    SetupReport& report, std::vector<ClaudeCodeSource>& not_run) {
  std::vector<ClaudeCodeSource> sources;
  const auto add_imports = [&](const Config& importer, bool applied) {
    std::size_t plugin = 0;
    for (ClaudeCodeSource& source : claude_code_imports(locations, importer)) {
      // A plugin asked for is a guard asked for: one that is not there must not silently vanish.
      if (applied && !source.plugin_root.empty())
        check_plugin(source.plugin_root, importer.claude_code->location.key("plugins").element(plugin++));
      std::vector<ClaudeCodeSource>& list = is_project_layer(source.layer) && !project_may_run ? not_run : sources;
      if (source.file.empty() || (!applied && &list == &sources)) continue;  // a config not applied runs nothing
      if (std::none_of(list.begin(), list.end(), [&](const ClaudeCodeSource& known) { return known.file == source.file; }))
        list.push_back(std::move(source));
    }
  };
  for (const Config* layer : importers) add_imports(*layer, true);
  if (!project_may_run)
    for (const auto& read : project_layers)
      if (read.config) add_imports(*read.config, false);
  const auto warn = [&](std::string message) { detail::warn(report, std::move(message)); };
  std::vector<ClaudeCodeCommand> commands;
  for (const ClaudeCodeSource& source : sources) {
    const fs::path& file = source.file;
    // Settings decide what runs as the user: they get the hook files' checks, as
    // config files do. What is no regular file is refused by the read below,
    // naming what it is (never with advice to change a device's mode).
    std::error_code ec;
    if (fs::is_regular_file(file, ec))
      if (auto why = unsafe_hook_file(file))
        throw ConfigError({.file = file, .project_dir = {}, .path = {}}, "not safe: " + *why);
    detail::log(spdlog::level::debug, "reading the Claude Code hooks of {} ({} layer)", file.string(),
                layer_name(source.layer));
    ClaudeCodeSettings settings = read_claude_code_settings(file, source.layer, source.plugin_root);
    if (source.projects_own && trusted != nullptr && !settings.sha256.empty())
      if (auto why = trusted->why_not_apply(file, settings.sha256)) {
        warn(std::move(*why));
        continue;
      }
    for (auto& note : settings.skipped) warn(std::move(note));
    if (settings.disable_all_hooks) {
      warn(fmt::format("{}: disableAllHooks is set: none of its {} hook(s) is imported", file.string(),
                       settings.commands.size()));
      continue;
    }
    for (auto& command : settings.commands) commands.push_back(std::move(command));
  }
  return commands;
}

// The files each layer's Claude Code commands run (as their program, or an
// interpreter's script; by their physical path), with the settings entry
// that runs each: discovery leaves to a command the hook files of its own
// layer that it runs. A file a command merely names, or one of another
// layer, stays discovery's: a less trusted layer never takes a more trusted
// layer's hook away.
std::map<std::pair<Layer, fs::path>, std::string> files_run_by(const std::vector<ClaudeCodeCommand>& commands,
                                                               const fs::path& project_dir) {
  const detail::ProjectDirectory project(project_dir);
  std::map<std::pair<Layer, fs::path>, std::string> files;
  for (const auto& command : commands)
    for (const auto& file : detail::resolve_command(detail::claude_code_format(), command, project).files)
      if (detail::runs(file.role)) files.emplace(std::pair{command.layer, file.resolved}, command.source);
  return files;
}

// The tool names each layer's Claude Code commands see: the engine's, which
// win, then those config maps in the layers at least as trusted as that layer.
std::map<Layer, ClaudeCodeToolNames> tool_names_by_layer(const LayeredConfig& config,
                                                         const std::map<std::string, std::string>& engine) {
  std::map<Layer, ClaudeCodeToolNames> names;
  for (const Layer layer : all_layers) {
    std::map<std::string, std::string> seen = engine;
    for (const auto& [ours, theirs] : config.claude_code_tool_names(layer)) seen.emplace(ours, theirs.value);
    names.emplace(layer, ClaudeCodeToolNames(std::move(seen)));
  }
  return names;
}

// The most trusted layer with a Claude Code command: the transcript names
// tools as its commands see them, so that no command reads in it the names
// of a layer less trusted than its own. nullopt: no Claude Code command.
std::optional<Layer> transcript_layer(const std::vector<ClaudeCodeCommand>& commands, const DiscoveryReport& discovery) {
  std::optional<Layer> most_trusted;
  const auto consider = [&](Layer layer) {
    if (!most_trusted || more_trusted(layer, *most_trusted)) most_trusted = layer;
  };
  for (const auto& command : commands) consider(command.layer);
  for (const auto& hook : discovery.hooks)
    if (hook.protocol == HookProtocol::claude_code) consider(hook.layer);
  return most_trusted;
}

// Whether an installed Claude Code hook matches on a tool name (PreToolUse, PostToolUse, PermissionRequest, ...).
bool matches_tool_names(const InstallReport::Installed& hook) {
  return std::any_of(hook.events.begin(), hook.events.end(), [](const std::string& event) {
    const std::vector<std::size_t> targets = claude_code_event_targets(event);
    return claude_code_event_has_matcher(event) && std::any_of(targets.begin(), targets.end(), has_tool_name);
  });
}

using detail::warn;

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

// A config's tool name that a more trusted layer's Claude Code command
// depends on: the command's matcher matches the name the command sees for
// that tool, not this one. The name does not reach the command (a less
// trusted layer's names never do); a warning names the file and key.
void warn_about_tool_names_kept_from_more_trusted_commands(const LayeredConfig& config,
                                                           const std::map<std::string, std::string>& engine,
                                                           const std::map<Layer, ClaudeCodeToolNames>& names,
                                                           SetupReport& report) {
  for (const Config& writer : config.layers()) {
    if (!writer.claude_code) continue;
    for (const auto& [ours, theirs] : writer.claude_code->tool_names) {
      if (engine.contains(ours)) continue;  // the engine's own name wins for every layer
      for (const auto& hook : report.hooks.installed) {
        if (hook.protocol != HookProtocol::claude_code || !more_trusted(hook.layer, writer.layer) ||
            !matches_tool_names(hook))
          continue;
        const std::string seen = names.at(hook.layer).to_claude(ours);
        const ClaudeCodeMatcher matcher(hook.matcher);
        if (!matcher.matches(seen) || matcher.matches(theirs)) continue;
        const ConfigLocation key = writer.claude_code->location.key("tool_names").key(ours);
        warn(report, fmt::format("{}: {}: the {} layer's name '{}' for the tool '{}' does not reach the {} layer's "
                                 "Claude Code hook {}: it still sees '{}', which its matcher '{}' matches; a layer's "
                                 "tool names reach only its own and less trusted layers' Claude Code commands",
                                 key.file.string(), key.path, layer_name(writer.layer), theirs, ours,
                                 layer_name(hook.layer), hook.source, seen, hook.matcher));
        break;
      }
    }
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

}  // namespace

ProjectFiles project_files(const Locations& locations) {
  SetupReport unused;
  const std::vector<Config> applied = detail::read_always_applying_layers(locations, unused);
  std::vector<const Config*> always_applying;
  for (const auto& config : applied) always_applying.push_back(&config);
  return fingerprint_inputs(locations, always_applying, read_project_layers(locations));
}

Installation setup(Hooks& hooks, const SetupOptions& options) {
  Installation result;
  SetupReport& report = result.report;
  const fs::path project_dir = options.project_dir.empty() ? fs::current_path() : options.project_dir;
  report.locations = options.locations.value_or(Locations::from_environment(project_dir));
  const Locations& locations = report.locations;

  // The managed and user layers always apply: their errors stop setup.
  std::vector<Config> applied = detail::read_always_applying_layers(locations, report);
  const ProjectTrustPolicy policy = trust_policy(applied, options.project_trust, report);

  // The project layers apply only in a trusted project.
  std::vector<ProjectLayerConfig> project_layers = read_project_layers(locations);
  const std::optional<Config> engine_claude = engine_claude_code(options);
  std::vector<const Config*> always_applying;
  if (engine_claude) always_applying.push_back(&*engine_claude);
  for (const auto& config : applied) always_applying.push_back(&config);
  const std::shared_ptr<const TrustedFiles> trusted =
      detail::decide_trust(locations, fingerprint_inputs(locations, always_applying, project_layers), policy, false,
                           project_layers, applied, report);
  const bool project_may_run = report.trust.project_may_run();
  report.config = LayeredConfig(std::move(applied));
  const LayeredConfig& config = report.config;
  for (const Config& layer : config.layers())
    for (const auto& warning : layer.warnings) warn(report, warning);

  // Discovery: a layer runs nothing when it may not run at all.
  const std::string untrusted = fmt::format("the project is {}: {}", trust_state_name(report.trust.state),
                                            "run `hookctl trust` after reviewing its hooks");
  const auto why_not_run = [&](Layer layer) -> std::optional<std::string> {
    if (is_project_layer(layer) && !project_may_run) return untrusted;
    return config.hooks_forbidden(layer);
  };
  // A project that may not run is still listed as its config describes it (protocols, Claude Code commands).
  LayeredConfig as_written;
  if (!project_may_run) {
    std::vector<Config> written = config.layers();
    for (const auto& read : project_layers)
      if (read.config) written.push_back(*read.config);
    as_written = LayeredConfig(std::move(written));
  }
  // Claude Code's commands come from settings, never from discovery, which
  // must not query or run a script they name a second time.
  std::vector<const Config*> claude_importers;
  if (engine_claude) claude_importers.push_back(&*engine_claude);
  for (const Config& layer : config.layers()) claude_importers.push_back(&layer);
  std::vector<ClaudeCodeSource> claude_not_run;
  std::vector<ClaudeCodeCommand> claude_commands =
      claude_code_commands(locations, claude_importers, project_layers, project_may_run, trusted.get(), report,
                           claude_not_run);
  const std::map<std::pair<Layer, fs::path>, std::string> run_by_claude = files_run_by(claude_commands, locations.project);
  // Every layer's own directory is listed, an untrusted project's too, so its hooks show as not run.
  report.directories = layer_hook_directories(locations, config);
  DiscoveryOptions discovery{
      .query_timeout = options.query_timeout,
      .query_cache = options.query_cache && !locations.cache.empty() ? locations.cache / "queries.json" : fs::path(),
      .why_not_run = why_not_run,
      .declared = [&](Layer layer, std::string_view name) -> std::optional<HookDeclaration> {
        const ResolvedHookSettings settings =
            (is_project_layer(layer) && !project_may_run ? as_written : config).hook_settings(layer, name);
        if (settings.events.value.empty()) return std::nullopt;
        return HookDeclaration{settings.protocol.value, settings.events.value};
      },
      .run_elsewhere = [&](Layer layer, const fs::path& file) -> std::optional<std::string> {
        std::error_code ec;
        const auto found = run_by_claude.find({layer, fs::weakly_canonical(file, ec)});
        if (found == run_by_claude.end()) return std::nullopt;
        return "run by the Claude Code hook " + found->second + ", not by discovery";
      },
      .why_file_not_run = detail::why_file_not_run(trusted.get())};
  report.discovery = discover_hooks(report.directories, discovery);

  // Built-ins of every layer that may run, most trusted first: all are built
  // before any is installed, so a bad one leaves nothing installed.
  const BuiltinRegistry registry = options.builtins != nullptr ? *options.builtins : default_builtins();
  ConnectionGroup builtins;
  for (const Config& layer : config.layers())
    detail::install_layer_builtins(hooks, layer, config.hooks_forbidden(layer.layer), registry, options.trace, builtins,
                                   report);
  // An untrusted project's, as its config writes them: what trusting it would install.
  if (!project_may_run)
    for (const auto& read : project_layers)
      if (read.config) detail::report_builtins_not_run(*read.config, untrusted, report);
  // Plugins of every layer that may run, most trusted first.
  for (const Layer layer : {Layer::managed, Layer::user, Layer::project})
    detail::load_layer_plugins(hooks, layer, locations.plugin_directory(layer), locations.project, why_not_run(layer),
                               is_project_layer(layer) ? trusted.get() : nullptr, result);
  const std::map<std::string, std::string> engine_tool_names =
      engine_claude ? engine_claude->claude_code->tool_names : std::map<std::string, std::string>{};
  ExternalInstallOptions install{.project_dir = locations.project,
                                 .claude_code = std::move(claude_commands),
                                 .claude_code_options = {},
                                 .claude_code_tool_names = tool_names_by_layer(config, engine_tool_names),
                                 .trusted_project = trusted,
                                 .detached_processes = options.detached_processes};
  if (options.claude_code && options.claude_code->transcript_dir)
    install.claude_code_options.transcript_dir = *options.claude_code->transcript_dir;
  else if (!locations.state.empty())
    install.claude_code_options.transcript_dir = locations.state / "transcripts";
  if (const auto layer = transcript_layer(install.claude_code, report.discovery);
      layer && !install.claude_code_options.transcript_dir.empty())
    result.connections.add(record_claude_code_transcript(hooks, install.claude_code_options.transcript_dir,
                                                         install.claude_code_tool_names.at(*layer)));
  InstalledHooks external = install_external_hooks(hooks, report.discovery, config, install);
  report.hooks = std::move(external.report);
  report_not_run(claude_not_run, untrusted, report);
  for (const auto& warning : report.hooks.warnings) report.warnings.push_back(warning);
  warn_about_tool_names_kept_from_more_trusted_commands(config, engine_tool_names, install.claude_code_tool_names, report);
  warn_about_partial_disables(config, report);
  result.connections.add(std::move(builtins));
  result.connections.add(std::move(external.connections));
  result.background = external.background;
  return result;
}

}  // namespace hookbus
