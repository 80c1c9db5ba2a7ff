// What setup() imports of Claude Code (formats/claude_code/imports.hpp).
#include "formats/claude_code/imports.hpp"

#include <hookbus/discovery.hpp>
#include <hookbus/log.hpp>
#include <hookbus/tool_matcher.hpp>

#include "formats/claude_code/command_files.hpp"
#include "formats/claude_code/settings.hpp"
#include "support/directory_tree.hpp"
#include "support/logging.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>
#include <system_error>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

void add_once(std::vector<fs::path>& paths, fs::path path) {
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(std::move(path));
}

// What trust covers of one project-layer command: the project's files it
// runs or names, and the directory trees of those it runs or loads (the
// project's top directory only its own files); and what it does not cover:
// the files outside the project it reaches (but those of its own plugin,
// whose tree is covered), the constructs it cannot resolve.
void cover_command(const HookFormat& format, const ClaudeCodeCommand& command, const ProjectDirectory& project,
                   ProjectFiles& files) {
  const ShellCommandFiles found = resolve_command(format, command, project);
  for (auto& file : files_inside(found, project)) add_once(files.files, std::move(file));
  const std::optional<ProjectDirectory> plugin =
      command.plugin_root.empty() ? std::nullopt : std::optional(ProjectDirectory(command.plugin_root));
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
    files.unresolved.push_back({command.source, command_line(command), construct.construct, construct.why});
}

// The settings files of a format's settings directory: its `*.json` entries
// that are no directory, in name order. One that cannot be listed is itself
// the one entry, which the read refuses naming what it is.
std::vector<fs::path> settings_in(const fs::path& directory) {
  std::vector<fs::path> files;
  if (directory.empty()) return files;
  std::error_code ec;
  for (auto& entry : directory_entries(directory, ec))
    if (entry.path.extension() == ".json" && entry.kind != EntryKind::directory) files.push_back(std::move(entry.path));
  if (ec) files.push_back(directory);
  return files;
}

// A plugin that "plugins" names: a directory with its hooks file.
void check_plugin(const HookFormat& format, const fs::path& plugin, const ConfigLocation& where) {
  std::error_code ec;
  if (!fs::is_directory(plugin, ec))
    throw ConfigError(where, fmt::format("the {} plugin directory {} {}; fix the path, or remove it from "
                                         "\"plugins\" to run without its hooks",
                                         format.agent, plugin.string(),
                                         fs::exists(plugin, ec) ? "is not a directory" : "does not exist"));
  if (!fs::exists(plugin / format.plugin_hooks_file, ec))
    throw ConfigError(where, fmt::format("the {} plugin {} has no {}, where hookbus reads a plugin's hooks; fix the "
                                         "path, or remove it from \"plugins\"",
                                         format.agent, plugin.string(), format.plugin_hooks_file));
}

// The most trusted layer with a command of a Claude-Code-like format: the transcript names
// tools as its commands see them, so that no command reads in it the names
// of a layer less trusted than its own. nullopt: no command of the format.
std::optional<Layer> transcript_layer(const std::vector<ClaudeCodeCommand>& commands, const DiscoveryReport& discovery) {
  std::optional<Layer> most_trusted;
  const auto consider = [&](Layer layer) {
    if (!most_trusted || more_trusted(layer, *most_trusted)) most_trusted = layer;
  };
  for (const auto& command : commands) consider(command.layer);
  for (const auto& hook : discovery.hooks)
    if (declared_like_claude_code(hook.protocol)) consider(hook.layer);
  return most_trusted;
}

// Whether an installed hook matches on a tool name (PreToolUse, PostToolUse, PermissionRequest, ...).
bool matches_tool_names(const HookFormat& format, const InstallReport::Installed& hook) {
  return std::any_of(hook.events.begin(), hook.events.end(), [&](const std::string& event) {
    const std::vector<std::size_t> targets = event_targets(format, event);
    return event_has_matcher(format, event) && std::any_of(targets.begin(), targets.end(), has_tool_name);
  });
}

}  // namespace

std::map<Layer, ClaudeCodeToolNames> tool_names_by_layer(const HookFormat& format, const LayeredConfig& config,
                                                         const std::map<std::string, std::string>& engine) {
  std::map<Layer, ClaudeCodeToolNames> names;
  for (const Layer layer : all_layers) {
    std::map<std::string, std::string> seen = engine;
    for (const auto& [ours, theirs] : config.agent_tool_names(format.protocol, layer)) seen.emplace(ours, theirs.value);
    names.emplace(layer, format_tool_names(format, std::move(seen)));
  }
  return names;
}

ClaudeCodeImports::ClaudeCodeImports(const HookFormat& format, Locations locations,
                                     const std::optional<ClaudeCodeSetup>& engine)
    : format_(format), locations_(std::move(locations)) {
  if (!engine) return;
  Config config;
  config.layer = Layer::user;
  config.claude_code = engine->import;
  if (config.claude_code->location.file.empty() && config.claude_code->location.path.empty())
    config.claude_code->location.path = "SetupOptions::claude_code.import";  // where its errors point
  engine_ = std::move(config);
  transcript_dir_ = engine->transcript_dir;
}

// What one config imports: each settings file in the less trusted of its
// own layer and the importer's (a project importing the user's
// ~/.claude/settings.json or ~/.codex/hooks.json gets its commands as
// project-layer handlers), each plugin in the importer's layer.
std::vector<ClaudeCodeImports::Source> ClaudeCodeImports::sources(const Config& importer) const {
  std::vector<Source> sources;
  const ClaudeCodeImport* import = agent_hooks_import(importer, format_.protocol);
  if (import == nullptr) return sources;
  for (const Layer scope : import->settings) {
    const Layer layer = more_trusted(scope, importer.layer) ? importer.layer : scope;
    sources.push_back({format_.settings_file(locations_, scope), layer, {}, is_project_layer(scope)});
    if (format_.second_settings_file != nullptr)
      sources.push_back({format_.second_settings_file(locations_, scope), layer, {}, is_project_layer(scope)});
    if (format_.settings_directory != nullptr)
      for (fs::path& file : settings_in(format_.settings_directory(locations_, scope)))
        sources.push_back({std::move(file), layer, {}, is_project_layer(scope)});
  }
  for (const fs::path& plugin : import->plugins)
    sources.push_back({plugin / format_.plugin_hooks_file, importer.layer, plugin, is_project_layer(importer.layer)});
  return sources;
}

std::vector<const Config*> ClaudeCodeImports::importers(const std::vector<const Config*>& configs) const {
  std::vector<const Config*> all;
  if (engine_) all.push_back(&*engine_);
  all.insert(all.end(), configs.begin(), configs.end());
  return all;
}

// The project layers' commands, whoever imports them: their settings files
// and plugins (each plugin whole), the hook scripts beside the project's
// settings, and what each command reaches. A file counts once, in the layer
// of its first import, as read() reads it.
void ClaudeCodeImports::add_to_fingerprint(const std::vector<const Config*>& configs, ProjectFiles& files) const {
  const ProjectDirectory project(locations_.project);
  std::vector<fs::path> seen;
  for (const Config* config : importers(configs)) {
    if (config == nullptr) continue;
    for (const Source& source : sources(*config)) {
      if (source.file.empty() || std::find(seen.begin(), seen.end(), source.file) != seen.end()) continue;
      seen.push_back(source.file);
      if (!is_project_layer(source.layer)) continue;
      if (source.projects_own) files.files.push_back(source.file);
      if (!source.plugin_root.empty()) add_once(files.directories, source.plugin_root);
      else if (source.projects_own && format_.settings_directory != nullptr)
        add_once(files.directories, format_.settings_directory(locations_, Layer::project));
      else if (source.projects_own) add_once(files.directories, source.file.parent_path() / "hooks");
      try {
        const ClaudeCodeSettings read =
            read_format_settings(format_, source.file, source.layer, source.plugin_root, locations_.project);
        for (const auto& command : read.commands) cover_command(format_, command, project, files);
      } catch (const ConfigError&) {
        // A broken settings file is fingerprinted as it is; it is an error once it applies.
      }
    }
  }
}

// The commands the engine and every applying layer's config import (each
// in the less trusted of its file's layer and the importer's; the first
// import of a file wins, the most trusted importer's). Those of the project
// layers of a project that may not run (imported by any config, the
// project's own as written too) are kept in `not_run_` instead.
void ClaudeCodeImports::read(const LayeredConfig& config, const std::vector<const Config*>& as_data,
                             bool project_may_run, const TrustedFiles* trusted, std::vector<std::string>& warnings) {
  std::vector<Source> found;
  const auto add_imports = [&](const Config& importer, bool applied) {
    // An administrator's file asked for must not silently be none.
    if (const ClaudeCodeImport* import = agent_hooks_import(importer, format_.protocol);
        applied && import != nullptr && format_.settings_file(locations_, Layer::managed).empty() &&
        std::find(import->settings.begin(), import->settings.end(), Layer::managed) != import->settings.end())
      throw ConfigError(import->location.key("settings"),
                        fmt::format("\"managed\": no administrator's hooks file of {} is known here (the "
                                    "engine's Locations names none; {})",
                                    format_.agent, format_.documentation));
    std::size_t plugin = 0;
    for (Source& source : sources(importer)) {
      // A plugin asked for is a guard asked for: one that is not there must not silently vanish.
      if (applied && !source.plugin_root.empty())
        check_plugin(format_, source.plugin_root,
                     agent_hooks_import(importer, format_.protocol)->location.key("plugins").element(plugin++));
      std::vector<Source>& list = is_project_layer(source.layer) && !project_may_run ? not_run_ : found;
      if (source.file.empty() || (!applied && &list == &found)) continue;  // a config not applied runs nothing
      if (std::none_of(list.begin(), list.end(), [&](const Source& known) { return known.file == source.file; }))
        list.push_back(std::move(source));
    }
  };
  if (engine_) add_imports(*engine_, true);
  for (const Config& layer : config.layers()) add_imports(layer, true);
  if (!project_may_run)
    for (const Config* layer : as_data)
      if (layer != nullptr) add_imports(*layer, false);
  std::vector<SwitchedOff> switched_off;
  for (const Source& source : found) {
    const fs::path& file = source.file;
    // Settings decide what runs as the user: they get the hook files' checks, as
    // config files do. What is no regular file is refused by the read below,
    // naming what it is (never with advice to change a device's mode).
    std::error_code ec;
    if (fs::is_regular_file(file, ec))
      if (auto why = unsafe_hook_file(file))
        throw ConfigError({.file = file, .project_dir = {}, .path = {}}, "not safe: " + *why);
    detail::log(spdlog::level::debug, "reading the {} hooks of {} ({} layer)", format_.agent, file.string(),
                layer_name(source.layer));
    ClaudeCodeSettings settings =
        read_format_settings(format_, file, source.layer, source.plugin_root, locations_.project);
    // A trusted project's own settings apply only as they were fingerprinted.
    if (source.projects_own && trusted != nullptr && !settings.sha256.empty())
      if (auto why = trusted->why_not_apply(file, settings.sha256)) {
        warn(warnings, std::move(*why));
        continue;
      }
    for (auto& note : settings.skipped) warn(warnings, std::move(note));
    if (settings.other_format) {
      // The other format's file: its own room reads it, if config asks for it; else none does, and that is said.
      const HookFormat& other = *find_hook_format(*settings.other_format);
      const auto& layers = config.layers();
      if (std::none_of(layers.begin(), layers.end(),
                       [&](const Config& layer) { return agent_hooks_import(layer, other.protocol) != nullptr; }))
        warn(warnings, fmt::format("{}: it declares {} top-level \"version\", so it is a {} hooks file, which {} "
                                   "reads otherwise; not imported: config's \"agent_hooks\": {{\"{}\": ...}} runs "
                                   "it ({})",
                                   file.string(), other.required_version != 0 ? "a" : "no", other.agent,
                                   format_.agent, hook_protocol_name(other.protocol), format_.documentation));
      continue;
    }
    if (settings.disable_all_hooks) {
      warn(warnings, fmt::format("{}: disableAllHooks is set: none of its {} hook(s) is imported", file.string(),
                                 settings.commands.size()));
      continue;
    }
    if (settings.hooks_config_disables_all || !settings.hooks_config_disabled.empty())
      switched_off.push_back({source.layer, file, settings.hooks_config_disables_all,
                              std::move(settings.hooks_config_disabled)});
    for (auto& command : settings.commands) commands_.push_back(std::move(command));
  }
  switch_off(switched_off, warnings);
  // The files each layer's commands run (as their program, or an
  // interpreter's script; by their physical path), with the settings entry
  // that runs each.
  const ProjectDirectory project(locations_.project);
  for (const auto& command : commands_)
    for (const auto& file : resolve_command(format_, command, project).files)
      if (detail::runs(file.role)) run_by_.emplace(std::pair{command.layer, file.resolved}, command.source);
}

// A file's hooksConfig takes out the commands it names (all of them with
// "enabled": false) of its own layer and the less trusted ones; one of a
// more trusted layer runs, with a warning: a project never stops the user's guard.
void ClaudeCodeImports::switch_off(const std::vector<SwitchedOff>& switched_off, std::vector<std::string>& warnings) {
  std::erase_if(commands_, [&](const ClaudeCodeCommand& command) {
    const std::string& name = command.name.empty() ? command.command : command.name;
    bool off = false;
    for (const SwitchedOff& by : switched_off) {
      if (!by.all && std::find(by.names.begin(), by.names.end(), name) == by.names.end()) continue;
      const std::string_view what = by.all ? "\"enabled\": false" : "\"disabled\"";
      if (more_trusted(command.layer, by.layer)) {
        warn(warnings, fmt::format("{}: hooksConfig {} switches off only its {} layer's hooks and less trusted "
                                   "ones; {} of the {} layer runs",
                                   by.file.string(), what, layer_name(by.layer), command.source,
                                   layer_name(command.layer)));
        continue;
      }
      warn(warnings, fmt::format("{}: not run: switched off by hooksConfig {} of {}", command.source, what,
                                 by.file.string()));
      off = true;
    }
    return off;
  });
}

// Discovery leaves to a command the hook files of its own layer that it
// runs. A file a command merely names, or one of another layer, stays
// discovery's: a less trusted layer never takes a more trusted layer's hook away.
std::optional<std::string> ClaudeCodeImports::runs(Layer layer, const fs::path& file) const {
  std::error_code ec;
  const auto found = run_by_.find({layer, fs::weakly_canonical(file, ec)});
  if (found == run_by_.end()) return std::nullopt;
  return fmt::format("run by the {} hook {}, not by discovery", format_.agent, found->second);
}

void ClaudeCodeImports::prepare(Hooks& hooks, const LayeredConfig& config, const DiscoveryReport& discovery,
                                ExternalInstallOptions& install, ConnectionGroup& kept) {
  tool_names_ = tool_names_by_layer(format_, config, engine_ ? engine_->claude_code->tool_names
                                                             : std::map<std::string, std::string>{});
  std::move(commands_.begin(), commands_.end(), std::back_inserter(install.claude_code));
  commands_.clear();
  if (format_.protocol != HookProtocol::claude_code) {
    install.agent_tool_names[format_.protocol] = tool_names_;
    return;
  }
  // Claude Code's imports come last (format_imports): the one transcript
  // serves every format's commands, named as Claude Code's see tools.
  install.claude_code_tool_names = tool_names_;
  if (transcript_dir_) install.claude_code_options.transcript_dir = *transcript_dir_;
  else if (!locations_.state.empty()) install.claude_code_options.transcript_dir = locations_.state / "transcripts";
  if (const auto layer = transcript_layer(install.claude_code, discovery);
      layer && !install.claude_code_options.transcript_dir.empty())
    kept.add(record_claude_code_transcript(hooks, install.claude_code_options.transcript_dir, tool_names_.at(*layer)));
}

// The commands of a project that may not run, read as data, as not installed
// with why: what trusting the project would run. And a config's tool name
// that a more trusted layer's command depends on: the command's matcher
// matches the name the command sees for that tool, not this one. The name
// does not reach the command (a less trusted layer's names never do); a
// warning names the file and key.
void ClaudeCodeImports::report(const LayeredConfig& config, const std::string& why, InstallReport& report,
                               std::vector<std::string>& warnings) const {
  for (const Source& source : not_run_) {
    try {
      for (auto& command :
           read_format_settings(format_, source.file, source.layer, source.plugin_root, locations_.project).commands)
        report.not_installed.push_back({command.label, command.layer, {}, why, format_.protocol, {command.event},
                                        command_line(command), command.source});
    } catch (const ConfigError&) {
      // An untrusted project's broken settings stop nothing and list nothing.
    }
  }
  for (const Config& writer : config.layers()) {
    const ClaudeCodeImport* import = agent_hooks_import(writer, format_.protocol);
    if (import == nullptr) continue;
    for (const auto& [ours, theirs] : import->tool_names) {
      // The engine's own name wins for every layer.
      if (engine_ && engine_->claude_code->tool_names.contains(ours)) continue;
      for (const auto& hook : report.installed) {
        if (hook.protocol != format_.protocol || !more_trusted(hook.layer, writer.layer) ||
            !matches_tool_names(format_, hook))
          continue;
        const std::string seen = tool_names_.at(hook.layer).to_claude(ours);
        const ClaudeCodeMatcher matcher(hook.matcher);
        if (!format_matcher_matches(format_, matcher, seen) || format_matcher_matches(format_, matcher, theirs))
          continue;
        const ConfigLocation key = import->location.key("tool_names").key(ours);
        warn(warnings, fmt::format("{}: {}: the {} layer's name '{}' for the tool '{}' does not reach the {} layer's "
                                   "{} hook {}: it still sees '{}', which its matcher '{}' matches; a layer's tool "
                                   "names reach only its own and less trusted layers' {} commands",
                                   key.file.string(), key.path, layer_name(writer.layer), theirs, ours,
                                   layer_name(hook.layer), format_.agent, hook.source, seen, hook.matcher,
                                   format_.agent));
        break;
      }
    }
  }
}

}  // namespace hookbus::detail
