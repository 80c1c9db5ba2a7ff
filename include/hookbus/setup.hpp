#pragma once
// One call that does what every engine needs before its first emit: read each
// layer's configuration (managed, user, project, local), decide whether the
// project may run (trust.hpp), install the configured built-ins, load the
// plugins (plugin.hpp), discover and install the external hooks, and report
// what was loaded, refused and why.
// docs/engine.md shows a whole engine around it; `hookctl list` prints its report.
//
//   hookbus::Hooks hooks;
//   hookbus::Installation setup = hookbus::setup(hooks, {.project_dir = project_dir});
//   if (!setup.report.trust.project_may_run()) show(setup.report.trust.message);
//   ... emit ...                        // setup.connections keeps everything installed
//
// Throws ConfigError for a bad config file of a layer that applies (a project
// layer that is not trusted does not apply, so its config cannot stop the
// engine); nothing stays installed then.

#include <hookbus/builtins.hpp>
#include <hookbus/claude_code.hpp>
#include <hookbus/config.hpp>
#include <hookbus/connection.hpp>
#include <hookbus/discovery.hpp>
#include <hookbus/external.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/plugin.hpp>
#include <hookbus/trust.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hookbus {

struct SetupOptions {
  std::filesystem::path project_dir{};    // empty: the current directory
  std::optional<Locations> locations{};   // unset: Locations::from_environment(project_dir)
  // The engine's policy; managed and user config may make it stricter, never looser.
  ProjectTrustPolicy project_trust = ProjectTrustPolicy::require;
  const BuiltinRegistry* builtins = nullptr;  // unset: default_builtins()
  Duration query_timeout = default_query_timeout;
  bool query_cache = true;                    // remember `HOOK hook` answers under Locations::cache
  // Claude Code hooks the engine imports in code, on top of config's "claude_code" (claude_code.hpp).
  std::optional<ClaudeCodeSetup> claude_code{};
  // false: config's "trace" is read, but no tracer is installed (hookctl
  // replay emits a recorded session again without recording it over).
  bool trace = true;
  // What becomes of the processes an external hook leaves running, fully
  // detached, once it exits (ExternalInstallOptions::detached_processes);
  // config's "detached_processes" may make it stricter, never looser.
  DetachedProcesses detached_processes = DetachedProcesses::allow;
};

// A layer's config file and what became of it.
struct ConfigFileState {
  enum class State { absent, applied, not_applied };
  Layer layer = Layer::user;
  std::filesystem::path file{};
  State state = State::absent;
  std::string note{};  // for not_applied: why (the project is not trusted, or its error)
};

// A plugin file of a layer's plugin directory and what became of it.
struct PluginReport {
  Layer layer = Layer::user;
  std::filesystem::path file{};
  std::string name{};    // the plugin's own name, once loaded
  bool loaded = false;
  std::string reason{};  // why it was not loaded
};

// A built-in a layer's config enables ("builtins", or "trace" for the
// tracer) and what became of it; an untrusted project's are listed as its
// config writes them, as what trusting it would install.
struct BuiltinReport {
  Layer layer = Layer::user;
  std::filesystem::path file{};  // the config file that enables it
  std::string name{};            // "tool_policy"; "trace" for the tracer
  bool installed = false;
  std::string reason{};          // why it is not installed
};

struct SetupReport {
  Locations locations{};
  std::vector<ConfigFileState> config_files{};  // one per layer, most trusted first
  TrustReport trust{};
  LayeredConfig config{};                        // the layers that applied
  HookDirectories directories{};
  DiscoveryReport discovery{};
  InstallReport hooks{};                         // external hooks
  std::vector<PluginReport> plugins{};           // every layer's plugin files, most trusted layer first
  std::vector<BuiltinReport> builtins{};         // every layer's built-ins, most trusted layer first
  std::vector<std::string> warnings{};           // everything the user should hear about; also logged
};

struct [[nodiscard]] Installation {
  ConnectionGroup connections{};      // dropping it uninstalls everything setup installed...
  std::vector<LoadedPlugin> plugins{};  // ...and these, the plugins, which unload with them
  SetupReport report{};
  BackgroundRuns background{};          // the async hooks' background runs: counters, wait()
};

Installation setup(Hooks& hooks, const SetupOptions& options = {});

// What trust fingerprints for the project at `locations.project`, exactly as
// setup() does: the project and local config files, the project's hook and
// plugin directories, the directories and Claude Code plugins their config
// names, Claude Code's project settings once any layer imports them, and
// what the project layers' Claude Code commands reach (docs/security.md,
// "Trust"), with what of that it cannot cover. Reads the managed and user
// config (a bad one is a ConfigError) and the project's own config as data,
// whatever the trust policy: what `hookctl trust` reviews and records
// (trust.hpp, review_trust).
ProjectFiles project_files(const Locations& locations);

}  // namespace hookbus
