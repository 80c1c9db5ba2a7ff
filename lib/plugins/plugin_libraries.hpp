#pragma once
// The libraries a project's plugin would have the dynamic loader load with
// it, found as the loader finds them and checked before the plugin loads: a
// trusted `.so` must not bring in a library that is not what was trusted
// (docs/plugins.md, docs/security.md).

#include <hookbus/trust.hpp>

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hookbus::detail {

// Bounds on what one plugin brings: hostile run paths or dependency chains
// must not make loading slow.
inline constexpr std::size_t max_plugin_libraries = 64;     // libraries of the project read, the plugin's own included
inline constexpr std::size_t max_run_path_entries = 32;     // per library
inline constexpr std::size_t max_needed_libraries = 256;    // per library

// The plugin directory of a project layer (a project's `.hookbus/plugins`,
// or a workspace's `plugins`), as the trust fingerprint covers it: every file
// below it, symlinked directories entered (walk_below), listed when made.
class PluginLibraries {
 public:
  // `project`: the project or workspace directory; `trusted`: its trusted
  // files, against which every library of it is checked (null: no trust check,
  // under trust_all).
  PluginLibraries(const std::filesystem::path& project, const std::filesystem::path& directory,
                  const TrustedFiles* trusted);

  // Why the plugin `file` (of the directory) must not load, or nullopt. Its
  // dynamic section is read (support/elf_dynamic.hpp), and so is that of each
  // library it would load from the project, recursively: a run path entry
  // (DT_RUNPATH, or DT_RPATH without it; `$ORIGIN` expanded) or a library
  // path (DT_NEEDED with a '/') must be absolute, since a relative one is
  // resolved against the engine's working directory; one that reaches into
  // the project outside the plugin directory refuses the plugin (nothing
  // there is fingerprinted); DT_RPATH, which the loader also searches for the
  // libraries of every library under the plugin (the system's, which are not
  // read), may not reach into the plugin directory either. Each library the
  // loader would find in the plugin directory gets the file checks and, with
  // `trusted`, the trust check (TrustedFiles::why_not_run). Libraries outside
  // the project are not the project's: they load as usual.
  [[nodiscard]] std::optional<std::string> why_not_load(const std::filesystem::path& file) const;

 private:
  std::filesystem::path project_;       // physical
  std::filesystem::path directory_;     // as given, for messages
  const TrustedFiles* trusted_;
  std::vector<std::filesystem::path> covered_directories_;          // physical: the directory and every one entered
  std::map<std::pair<dev_t, ino_t>, std::filesystem::path> files_;  // each file below it, as the fingerprint names it
  std::optional<std::string> unusable_;  // why nothing of the directory can be checked
};

}  // namespace hookbus::detail
