#pragma once
// Workspaces: a directory of hooks, plugins and config that an engine loads
// into its bus as one unit while the workspace is active, and unloads, exactly
// that, when it switches away (morphix's `workspaces/<name>/hooks/`). The
// engine's own handlers and the layers setup() installed stay in place.
//
//   hookbus::Workspaces workspaces(hooks);
//   const hookbus::SetupReport loaded = workspaces.activate("research", "/srv/agent/workspaces/research");
//   context.workspace = workspaces.active_name();       // for every hook, as morphix passes it
//   ...
//   workspaces.activate("coding", "/srv/agent/workspaces/coding");   // research's hooks are gone
//
// A workspace directory looks like a project's `.hookbus/`:
//   config.json   built-ins, hook settings and `hook_directories`, read as a project layer's
//   hooks/        external hooks (hookbus's protocol, or config-declared ones)
//   plugins/      plugins (*.so)
// The workspace's own external hooks find its name in their payload's
// context.workspace whenever the engine's event leaves it empty; the engine
// sets EventContext::workspace for every other hook.
//
// It has a project layer's rights: its hooks run after the user's and the
// administrator's, cannot shadow or weaken them, and the managed config's
// `disable_all_hooks` / `allow_managed_hooks_only` stop them. And as a
// project's, its files run only once the user trusted them
// (`hookctl trust --workspace DIR`: the same store and fingerprint rules,
// docs/security.md), unless the workspace lies inside the user's or the
// administrator's own hookbus directory, whose files are theirs already.

#include <hookbus/hooks.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trust.hpp>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace hookbus {

struct WorkspaceOptions {
  std::optional<Locations> locations{};  // the managed and user layers, the trust store; unset: from the environment
  ProjectTrustPolicy trust = ProjectTrustPolicy::require;
  const BuiltinRegistry* builtins = nullptr;  // unset: default_builtins()
  Duration query_timeout = default_query_timeout;
  bool query_cache = true;
  // false: the workspace config's "trace" is read, but no tracer is installed
  // (hookctl replay emits a recorded session again without recording it).
  bool trace = true;
  // As SetupOptions::detached_processes, for the workspace's hooks.
  DetachedProcesses detached_processes = DetachedProcesses::allow;
};

// A workspace's name when none is given: its directory's (morphix's workspaces/<name>/).
std::string workspace_name(const std::filesystem::path& directory);

// The files of a workspace, as trust fingerprints them: its config.json,
// hooks/ and plugins/, and the directories its config names.
ProjectFiles workspace_files(const std::filesystem::path& directory);

// Loads one workspace: its built-ins, plugins and external hooks, labelled
// and reported like setup()'s (the report's project is the workspace, its
// config_files the workspace's config.json). `name` is what its external
// hooks see as context.workspace; empty: workspace_name(directory). Throws
// ConfigError naming the directory when it is missing or not a directory, and
// for a broken config.json of a workspace that may run; nothing stays
// installed then. A plugin whose name another plugin on the bus has already
// (the user's, say) is refused with a warning (docs/plugins.md).
[[nodiscard]] Installation load_workspace(Hooks& hooks, const std::filesystem::path& directory,
                                          const WorkspaceOptions& options = {}, std::string name = {});

// The active workspace of a bus. Thread-safe; emits may run during a switch.
class Workspaces {
 public:
  explicit Workspaces(Hooks& hooks, WorkspaceOptions options = {});

  // Loads the workspace, then unloads the previous one (so a guard of either
  // is installed at every moment), and returns the new one's report. On an
  // error (a missing directory, a broken config) the previous workspace stays
  // active. A handler of the previous workspace running on another thread
  // finishes; plugins are waited for (plugin.hpp), after the switch itself is
  // over, so such a handler may switch workspaces too.
  SetupReport activate(std::string name, const std::filesystem::path& directory);
  void deactivate();

  // The active workspace's name ("" when none): what engines put in
  // EventContext::workspace, and what its external hooks see there.
  [[nodiscard]] std::string active_name() const;
  [[nodiscard]] std::filesystem::path active_directory() const;

 private:
  Hooks& hooks_;
  WorkspaceOptions options_;
  // Switches are serialised (a handler may switch too, hence recursive), and
  // the previous workspace is unloaded after this lock is released; the name
  // has its own lock, so a handler reading it never waits for a switch.
  std::recursive_mutex switch_mutex_;
  std::unique_ptr<Installation> active_;  // guarded by switch_mutex_
  mutable std::mutex name_mutex_;
  std::string name_;                      // guarded by name_mutex_
  std::filesystem::path directory_;       // guarded by name_mutex_
};

}  // namespace hookbus
