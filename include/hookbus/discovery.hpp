#pragma once
// Finding external hooks: executables in hook directories, each belonging to
// a layer (layers.hpp), whose events come from the config that declares them
// or from asking the file `HOOK hook`. docs/external-hooks.md is the contract
// for hook authors, docs/security.md the rules; external.hpp runs what is found.
//
//   auto report = hookbus::discover_hooks(directories, {.why_not_run = ..., .declared = ...});
//   for (const auto& skipped : report.skipped) ...  // ignored, shadowed, refused or not run, with why
//
// The rules, in order:
//   - a hook directory that is not safe (owned by another user than you or
//     root, or writable by group or others, itself or a directory on its path)
//     is refused as a whole, with a warning;
//   - dot-files, names ending in ".disable", subdirectories, anything that is
//     not a regular file (after following a symlink) and files we may not
//     execute are ignored;
//   - a name (with its plugin prefix) already taken in a higher-precedence
//     directory of the same layer is shadowed by it (the same name in two
//     layers is two hooks, and both run);
//   - a file that is not safe (the same rules; for a symlink, its target and
//     every directory on the target's path) is refused with a warning;
//   - a file that something else of its layer runs (a Claude Code command of
//     that layer runs it: `run_elsewhere`) is ignored, with what runs it, and
//     never queried;
//   - a file of a layer that may not run (an untrusted project, hooks
//     disabled by config), or one that changed since its project was
//     trusted, is listed as not run, with why, and never executed;
//   - its events: declared in config (never asked), else a cached answer for
//     this exact file (path, size, mtime, content hash), else `HOOK hook`,
//     run in a fresh empty directory with stdin at end of file, a minimal
//     environment (PATH, HOME, LANG, LC_ALL, HOOKBUS_QUERY=1, HOOKBUS_HOOK_NAME) and a
//     timeout; each non-empty stdout line must be a wire name or alias. A
//     failing query or an unknown name refuses the file with a warning.
// Hooks run in layer order (managed, user, project, local), then directory
// precedence, then name. A missing or empty directory is not an error.
// Nothing here throws for what is found on disk: every problem becomes an
// entry of the report.

#include <hookbus/config.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/types.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace hookbus {

struct HookDirectory {
  std::filesystem::path path{};
  std::string prefix{};  // put before each hook's file name: "" or, for plugins, "org/repo/"
  std::string source{};  // for reports: "project", "user", "project plugin org/repo", "config .hookbus/config.json"
  Layer layer = Layer::project;
};

// Hook directories in precedence order, highest first.
struct HookDirectories {
  std::vector<HookDirectory> entries{};

  void add(std::filesystem::path path, std::string source, std::string prefix = "", Layer layer = Layer::project);
  // `path`, then the hook directory of each plugin installed next to it,
  // `<path>/../plugins/<org>/<repo>/hooks`, by org and repo name, with the
  // prefix "org/repo/".
  void add_with_plugins(const std::filesystem::path& path, const std::string& source, Layer layer = Layer::project);
};

// Every layer's hook directories, most trusted layer first; within a layer:
// the directories its config names (`hook_directories`), then its own hook
// directory and its plugins. Layers without a directory are left out.
HookDirectories layer_hook_directories(const Locations& locations, const LayeredConfig& config);

// The directories of a project and its user, without layered config: `extra`
// (project layer, source "config"), `<project_dir>/.hookbus/hooks/` and its
// plugins (project), then the user's hook directory and its plugins (user).
HookDirectories default_hook_directories(const std::filesystem::path& project_dir,
                                         const std::vector<std::filesystem::path>& extra = {});

// An event a hook asked for.
struct RequestedEvent {
  std::size_t index{};  // in HookEvent
  std::string name{};   // as the hook printed it: a wire name or an alias (the payload's "event")
};

// How a hook's events were learnt.
enum class EventsFrom { declared, cache, query };

struct DiscoveredHook {
  std::string name{};  // prefix + file name: "guard", "acme/tools/guard"
  std::vector<RequestedEvent> events{};  // hookbus protocol
  // Absolute: a relative hook directory is taken from the working directory
  // discovery runs in, wherever the hook runs later.
  std::filesystem::path path{};
  std::string source{};
  Layer layer = Layer::project;
  HookProtocol protocol = HookProtocol::hookbus;
  std::vector<std::string> declared_events{};  // as config wrote them (Claude Code's names for claude_code)
  EventsFrom events_from = EventsFrom::query;
};

struct SkippedFile {
  enum class Why {
    ignored,    // not a hook by the rules (directory, dot-file, .disable, not executable): quietly
    shadowed,   // a hook of the same name in a higher-precedence directory of its layer wins
    refused,    // looked like a hook but is unsafe or did not answer `hook` properly: logged as a warning
    not_run,    // its layer may not run (an untrusted project, disable_all_hooks): never executed
  };
  std::string name{};
  std::filesystem::path path{};
  std::string source{};
  Layer layer = Layer::project;
  Why why = Why::ignored;
  std::string reason{};  // says what to do about it
  HookProtocol protocol = HookProtocol::hookbus;  // as config declares it (DiscoveryOptions::declared)
};

std::string_view skip_reason_name(SkippedFile::Why why) noexcept;

struct DiscoveryReport {
  std::vector<DiscoveredHook> hooks{};  // in run order
  std::vector<SkippedFile> skipped{};   // in the order found
};

inline constexpr Duration default_query_timeout = std::chrono::seconds(5);

// A hook's protocol and events as config declares them, for the `declared` option.
struct HookDeclaration {
  HookProtocol protocol = HookProtocol::hookbus;
  std::vector<std::string> events{};
};

struct DiscoveryOptions {
  Duration query_timeout = default_query_timeout;
  // The query cache file (`<Locations::cache>/queries.json`); empty: no cache.
  std::filesystem::path query_cache{};
  // Why files of a layer may not be executed at all (nullopt: they may); unset: every layer may.
  std::function<std::optional<std::string>(Layer)> why_not_run{};
  // The declaration config gives for a hook (its layer and name), if any.
  std::function<std::optional<HookDeclaration>(Layer, std::string_view name)> declared{};
  // What runs a file of a layer's hook directory other than discovery (a
  // Claude Code command of that layer), if anything: such a file is ignored,
  // with that reason, and never executed by discovery.
  std::function<std::optional<std::string>(Layer, const std::filesystem::path& file)> run_elsewhere{};
  // Why one file of a layer that may run must not run now (a project file
  // that changed since the project was trusted: TrustedFiles), or nullopt;
  // asked before the query. Unset: every file may.
  std::function<std::optional<std::string>(Layer, const std::filesystem::path&)> why_file_not_run{};
};

// Scans the directories and learns each candidate's events. Refusals are also
// logged through hookbus::logger(). Thread-safe; runs the queries one by one.
DiscoveryReport discover_hooks(const HookDirectories& directories, const DiscoveryOptions& options = {});

// The form of 0.1.0, deprecated in 0.2.0 and removed in 0.3.0 (CHANGELOG.md).
// A template, so that `discover_hooks(directories, {})` still means the options.
template <class Rep, class Period>
[[deprecated("use discover_hooks(directories, {.query_timeout = timeout}) (hookbus::DiscoveryOptions since 0.2.0; "
             "this overload goes in 0.3.0)")]]
DiscoveryReport discover_hooks(const HookDirectories& directories, std::chrono::duration<Rep, Period> query_timeout)
  requires std::is_convertible_v<std::chrono::duration<Rep, Period>, Duration>
{
  return discover_hooks(directories, DiscoveryOptions{.query_timeout = query_timeout});
}

// Why a hook file must not be run (ownership and write checks of
// docs/security.md, on the file and every directory on its path, symlinks
// resolved), or nullopt when it may: what `hookctl run-hook` checks too.
std::optional<std::string> unsafe_hook_file(const std::filesystem::path& file);

}  // namespace hookbus
