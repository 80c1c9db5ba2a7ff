#pragma once
// Listing the directories hookbus reads and runs code from (hook directories,
// plugin directories, Claude Code plugins), one way for every reader: hook
// discovery, plugin loading and the trust fingerprint all list with
// directory_entries(), so a directory discovery can enter is a directory the
// fingerprint covers. docs/security.md ("Trust") relies on it.

#include <filesystem>
#include <functional>
#include <system_error>
#include <vector>

namespace hookbus::detail {

// What an entry is once symlinks are followed, as hookbus reads and runs
// through them.
enum class EntryKind {
  file,        // a regular file
  directory,
  other,       // a FIFO, a socket, a device
  dangling,    // a symlink to nothing (or an entry gone since it was listed)
  unreadable,  // its kind cannot be learnt, or (walk_below) a directory that cannot be listed
  per_process, // (walk_below) reached through procfs (/proc/self/cwd): another file in each process, never entered
};

struct DirectoryEntry {
  std::filesystem::path path{};
  EntryKind kind = EntryKind::other;
  bool symlink = false;  // the entry itself is a symlink
};

// The entries of `directory`, by name, kinds resolved through symlinks. A
// missing directory has none; `error` is set when it exists but cannot be listed.
std::vector<DirectoryEntry> directory_entries(const std::filesystem::path& directory, std::error_code& error);

// Every entry below `directory`: a directory's entries in name order, then
// each of its subdirectories the same way, symlinked ones too (discovery
// enters a symlinked plugin directory, so whatever must cover everything a
// directory holds must enter them); each real directory is entered once, so
// a symlink loop ends. A directory that cannot be listed is visited as
// EntryKind::unreadable. A symlink or a directory (a mount point) whose path
// goes through procfs, and `directory` itself when it does, is visited as
// EntryKind::per_process and never entered: what it names depends on the
// process (/proc/self/cwd is the engine's working directory here), and
// nothing reached so may run. `visit` may throw to stop the walk.
void walk_below(const std::filesystem::path& directory, const std::function<void(const DirectoryEntry&)>& visit);

}  // namespace hookbus::detail
