#pragma once
// Finding external hooks: executables in hook directories that say, when run
// as `HOOK hook`, which events they handle. docs/external-hooks.md is the
// contract for hook authors; external.hpp runs what is found here.
//
//   auto report = hookbus::discover_hooks(hookbus::default_hook_directories(project_dir));
//   for (const auto& skipped : report.skipped) ...  // shadowed, ignored, or refused, with why
//   auto installed = hookbus::install_external_hooks(hooks, report, config);
//
// The rules, in order:
//   - a hook directory writable by group or others is refused as a whole, with
//     a warning: anyone who can write it could run code as the agent;
//   - dot-files, names ending in ".disable", subdirectories, anything that is
//     not a regular file (after following a symlink) and files we may not
//     execute are ignored;
//   - a name (with its plugin prefix) already taken by a file in a
//     higher-precedence directory is shadowed by it;
//   - a file writable by group or others is refused with a warning;
//   - the file is run as `HOOK hook` with a timeout; each non-empty stdout
//     line must be a wire name or alias from the catalogue. A failing query or
//     an unknown name refuses the file with a warning naming it.
// Hooks run in directory precedence order, and by name within a directory.
// A missing or empty directory is not an error. Nothing here throws for what
// is found on disk: every problem becomes an entry of the report.

#include <hookbus/types.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace hookbus {

struct HookDirectory {
  std::filesystem::path path;
  std::string prefix;  // put before each hook's file name: "" or, for plugins, "org/repo/"
  std::string source;  // where it comes from, for reports: "project", "user", "config", "project plugin org/repo"
};

// Hook directories in precedence order, highest first.
struct HookDirectories {
  std::vector<HookDirectory> entries;

  void add(std::filesystem::path path, std::string source, std::string prefix = "");
  // `path`, then the hook directory of each plugin installed next to it,
  // `<path>/../plugins/<org>/<repo>/hooks`, by org and repo name, with the
  // prefix "org/repo/".
  void add_with_plugins(const std::filesystem::path& path, const std::string& source);
};

// `extra` (source "config"), then `<project_dir>/.hookbus/hooks/` and its
// plugins, then `$XDG_CONFIG_HOME/hookbus/hooks/` (or `~/.config/hookbus/hooks/`)
// and its plugins.
HookDirectories default_hook_directories(const std::filesystem::path& project_dir,
                                         const std::vector<std::filesystem::path>& extra = {});

// An event a hook asked for.
struct RequestedEvent {
  std::size_t index;  // in HookEvent
  std::string name;   // as the hook printed it: a wire name or an alias (the payload's "event")
};

struct DiscoveredHook {
  std::string name;  // prefix + file name: "guard", "acme/tools/guard"
  std::vector<RequestedEvent> events;
  std::filesystem::path path;
  std::string source;
};

struct SkippedFile {
  enum class Why {
    ignored,   // not a hook by the rules (directory, dot-file, .disable, not executable): quietly
    shadowed,  // a hook of the same name in a higher-precedence directory wins
    refused,   // looked like a hook but is unsafe or did not answer `hook` properly: logged as a warning
  };
  std::string name;
  std::filesystem::path path;
  std::string source;
  Why why = Why::ignored;
  std::string reason;  // says what to do about it
};

struct DiscoveryReport {
  std::vector<DiscoveredHook> hooks;  // in run order
  std::vector<SkippedFile> skipped;   // in the order found
};

inline constexpr Duration default_query_timeout = std::chrono::seconds(5);

// Scans the directories and asks each candidate its events. Refusals are also
// logged through hookbus::logger(). Thread-safe; runs the queries one by one.
DiscoveryReport discover_hooks(const HookDirectories& directories, Duration query_timeout = default_query_timeout);

}  // namespace hookbus
