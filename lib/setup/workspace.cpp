// Workspaces (include/hookbus/workspace.hpp): one directory of hooks, plugins
// and config loaded as a project layer, and switched as a unit.
#include <hookbus/log.hpp>
#include <hookbus/workspace.hpp>

#include "support/logging.hpp"
#include "setup/setup_steps.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <system_error>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

// Whether `path` lies inside `directory` (both made absolute and normal, links resolved where they exist).
bool inside(const fs::path& path, const fs::path& directory) {
  if (directory.empty()) return false;
  std::error_code ec;
  const fs::path canonical_path = fs::weakly_canonical(path, ec);
  if (ec) return false;
  const fs::path canonical_dir = fs::weakly_canonical(directory, ec);
  if (ec) return false;
  const fs::path relative = canonical_path.lexically_relative(canonical_dir);
  return !relative.empty() && *relative.begin() != "..";
}

}  // namespace

std::string workspace_name(const fs::path& directory) {
  const fs::path normal = fs::absolute(directory).lexically_normal();
  return (normal.has_filename() ? normal : normal.parent_path()).filename().string();
}

ProjectFiles workspace_files(const fs::path& directory) {
  ProjectFiles files{fs::absolute(directory), {directory / "config.json"}, {directory / "hooks", directory / "plugins"}};
  files.kind = "workspace";
  // The directories its config names, read as data: a broken config is fingerprinted as it is.
  try {
    if (const auto config = load_layer_config(directory / "config.json", Layer::project))
      for (const auto& extra : config->hook_directories) files.directories.push_back(extra);
  } catch (const ConfigError&) {
  }
  return files;
}

namespace {

// load_workspace, for a switch away from the workspace whose plugins are `replacing`.
Installation install_workspace(Hooks& hooks, const fs::path& directory, const WorkspaceOptions& options,
                               std::string name, const std::vector<LoadedPlugin>& replacing) {
  Installation result;
  SetupReport& report = result.report;
  const fs::path workspace = fs::absolute(directory).lexically_normal();
  std::error_code ec;
  if (!fs::is_directory(workspace, ec)) {
    if (ec && ec != std::errc::no_such_file_or_directory)
      throw ConfigError({.file = workspace}, fmt::format("cannot be read as a workspace directory: {}", ec.message()));
    throw ConfigError({.file = workspace}, fs::exists(fs::symlink_status(workspace, ec))
                                               ? "is not a directory; a workspace is a directory (config.json, "
                                                 "hooks/, plugins/)"
                                               : "no such workspace directory; create it, or name an existing one");
  }
  if (name.empty()) name = workspace_name(workspace);
  report.locations = options.locations.value_or(Locations::from_environment(fs::current_path()));
  const Locations& locations = report.locations;

  std::vector<Config> applied = detail::read_always_applying_layers(locations, report);
  const ProjectTrustPolicy policy = LayeredConfig(applied).project_trust(options.trust);

  // The workspace's config, read as data until trust is decided.
  std::vector<detail::ProjectLayerConfig> own_config{
      detail::read_project_layer(Layer::project, workspace / "config.json")};
  // The user's and the administrator's own directories hold their files already.
  const bool owned = inside(workspace, locations.user) || inside(workspace, locations.managed);
  const std::shared_ptr<const TrustedFiles> trusted =
      detail::decide_trust(locations, workspace_files(workspace), policy, owned, own_config, applied, report);
  const std::optional<Config>& config = own_config.front().config;
  const bool may_run = report.trust.project_may_run();
  report.config = LayeredConfig(std::move(applied));
  const LayeredConfig& layered = report.config;
  if (const Config* own = layered.layer(Layer::project))
    for (const auto& warning : own->warnings) detail::warn(report, warning);

  const std::optional<std::string> why_not = [&]() -> std::optional<std::string> {
    if (!may_run)
      return fmt::format("the workspace is {}: run `hookctl trust --workspace` after reviewing its hooks",
                         trust_state_name(report.trust.state));
    return layered.hooks_forbidden(Layer::project);
  }();

  // Its hook directories only: the other layers' hooks are setup()'s.
  if (const Config* own = layered.layer(Layer::project))
    for (const auto& extra : own->hook_directories) report.directories.add(extra, "workspace config", "", Layer::project);
  report.directories.add_with_plugins(workspace / "hooks", "workspace", Layer::project);
  report.discovery = discover_hooks(
      report.directories,
      {.query_timeout = options.query_timeout,
       .query_cache = options.query_cache && !locations.cache.empty() ? locations.cache / "queries.json" : fs::path(),
       .why_not_run = [&](Layer) { return why_not; },
       .declared = [&](Layer layer, std::string_view name) -> std::optional<HookDeclaration> {
         const ResolvedHookSettings settings = layered.hook_settings(layer, name);
         if (settings.events.value.empty()) return std::nullopt;
         return HookDeclaration{settings.protocol.value, settings.events.value};
       },
       .why_file_not_run = detail::why_file_not_run(trusted.get())});

  if (const Config* own = layered.layer(Layer::project)) {
    const BuiltinRegistry registry = options.builtins != nullptr ? *options.builtins : default_builtins();
    detail::install_layer_builtins(hooks, *own, why_not, registry, options.trace, layered.network_allowance(),
                                   result.connections, report);
  } else if (config && why_not) {
    detail::report_builtins_not_run(*config, *why_not, report);  // what trusting it would install
  }
  detail::load_layer_plugins(hooks, Layer::project, workspace / "plugins", workspace, why_not, trusted.get(), result,
                             replacing);
  InstalledHooks external =
      install_external_hooks(hooks, report.discovery, layered,
                             {.project_dir = locations.project, .claude_code = {}, .claude_code_options = {},
                              .claude_code_tool_names = {}, .trusted_project = trusted, .workspace = std::move(name),
                              .detached_processes = options.detached_processes});
  report.hooks = std::move(external.report);
  for (const auto& warning : report.hooks.warnings) report.warnings.push_back(warning);
  result.connections.add(std::move(external.connections));
  result.background = external.background;
  return result;
}

}  // namespace

Installation load_workspace(Hooks& hooks, const fs::path& directory, const WorkspaceOptions& options,
                            std::string name) {
  return install_workspace(hooks, directory, options, std::move(name), {});
}

// ------------------------------------------------------------------ Workspaces

Workspaces::Workspaces(Hooks& hooks, WorkspaceOptions options) : hooks_(hooks), options_(std::move(options)) {}

// The previous workspace is uninstalled after the switch lock is released:
// that waits for its plugins' running handlers, and one of them may be
// switching workspaces itself, on another thread.
SetupReport Workspaces::activate(std::string name, const fs::path& directory) {
  std::unique_ptr<Installation> previous;
  SetupReport report;
  {
    std::lock_guard switching(switch_mutex_);
    static const std::vector<LoadedPlugin> no_plugins;
    auto next = std::make_unique<Installation>(
        install_workspace(hooks_, directory, options_, name, active_ ? active_->plugins : no_plugins));
    report = next->report;
    {
      std::lock_guard naming(name_mutex_);
      name_ = std::move(name);
      directory_ = fs::absolute(directory).lexically_normal();
    }
    previous = std::exchange(active_, std::move(next));
  }
  previous.reset();
  return report;
}

void Workspaces::deactivate() {
  std::unique_ptr<Installation> previous;
  {
    std::lock_guard switching(switch_mutex_);
    {
      std::lock_guard naming(name_mutex_);
      name_.clear();
      directory_.clear();
    }
    previous = std::move(active_);
  }
  previous.reset();
}

std::string Workspaces::active_name() const {
  std::lock_guard naming(name_mutex_);
  return name_;
}

fs::path Workspaces::active_directory() const {
  std::lock_guard naming(name_mutex_);
  return directory_;
}

}  // namespace hookbus
