#pragma once
// Whether a file or directory may be trusted to hold code that hookbus runs:
// the ownership and write checks of docs/security.md, as sshd's StrictModes
// makes them for key files; and whether a path names the same file in every
// process, so that what is checked here is what a hook started elsewhere runs.
// Every reader of a file that decides what runs uses them: config, trust,
// discovery, plugins and the hook runner.

#include <sys/stat.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace hookbus::detail {

// A path as the kernel resolves it, component by component and one symlink
// hop at a time: `resolved` is physical (absolute, no symlink, no ".."), as
// far as the path exists; `missing` holds the components from the first that
// does not exist on (empty when the whole path exists; then `st` is its stat).
struct ResolvedPath {
  std::filesystem::path resolved{};
  std::vector<std::filesystem::path> missing{};
  struct stat st {};
};

// A path that cannot be resolved so: it goes through procfs (per_process), a
// symlink loop, or a component that cannot be read.
struct UnresolvedPath {
  std::string reason{};
  bool per_process = false;
};

// What is met on the way: each directory passed through and each symlink
// followed, with its stat; a reason returned stops the resolution with it.
struct PathStep {
  enum class Kind { directory, symlink };
  Kind kind;
  const std::filesystem::path& path;
  const struct stat& st;
};
using PathStepCheck = std::function<std::optional<std::string>(const PathStep& step)>;

// Resolves `path` (relative ones against the working directory). Every
// directory entered and the end are checked not to be on procfs (statfs):
// /proc/self/cwd, /proc/PID/root, /dev/fd/N (a link to /proc/self/fd/N),
// /dev/stdin and the like name another file in each process, so a path
// through them is never resolved here on behalf of another process.
std::variant<ResolvedPath, UnresolvedPath> resolve_path(const std::filesystem::path& path,
                                                        const PathStepCheck& check = {});

// Why `path` does not name one file for every process: it reaches through
// procfs (above); nullopt when it does not, or when it cannot be followed
// that far (a missing component, a loop: nothing is reached through it).
std::optional<std::string> per_process_path_reason(const std::filesystem::path& path);

// Why `path` must not be trusted to hold hook code, or nullopt when it may.
// The path (a file or a directory) and every directory on its way from the
// root must be owned by the user running hookbus or by root, and must not be
// writable by group or others; a root-owned directory with the sticky bit
// (/tmp) is accepted, since others cannot replace what is in it. Symlinks are
// followed one hop at a time, on the path and at its end: the directory
// holding each link of a chain is checked (whoever can write it can repoint
// the link), each link must be yours or root's, and each target with every
// directory on its way. A path through procfs is refused (resolve_path).
std::optional<std::string> unsafe_path_reason(const std::filesystem::path& path);

// Why the hook file `file` would not run what was checked, though it is
// safe itself: its '#!' line names a file by a relative path (the
// interpreter, `#!tools/python`; the program `/usr/bin/env` runs; a path in
// the argument, `#!/usr/bin/env -S node --require=./init.js`), which the run
// finds from its working directory, the event's, not beside the hook. nullopt
// when it names none.
std::optional<std::string> relative_interpreter_reason(const std::filesystem::path& file);

}  // namespace hookbus::detail
