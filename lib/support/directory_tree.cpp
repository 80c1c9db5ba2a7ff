// Listing hook, plugin and Claude Code plugin directories (support/directory_tree.hpp).
#include "support/directory_tree.hpp"
#include "support/file_safety.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <utility>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

EntryKind kind_of(const fs::path& path, struct stat& st) {
  if (::stat(path.c_str(), &st) != 0) return errno == ENOENT || errno == ENOTDIR ? EntryKind::dangling : EntryKind::unreadable;
  if (S_ISREG(st.st_mode)) return EntryKind::file;
  if (S_ISDIR(st.st_mode)) return EntryKind::directory;
  return EntryKind::other;
}

}  // namespace

std::vector<DirectoryEntry> directory_entries(const fs::path& directory, std::error_code& error) {
  error.clear();
  std::vector<DirectoryEntry> entries;
  fs::directory_iterator it(directory, error);
  if (error == std::errc::no_such_file_or_directory || error == std::errc::not_a_directory) {
    error.clear();
    return entries;
  }
  for (const fs::directory_iterator end; !error && it != end; it.increment(error)) {
    struct stat st {};
    std::error_code ignored;
    entries.push_back({it->path(), kind_of(it->path(), st), it->is_symlink(ignored)});
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return entries;
}

void walk_below(const fs::path& directory, const std::function<void(const DirectoryEntry&)>& visit) {
  if (per_process_path_reason(directory)) {
    std::error_code ignored;
    return visit({directory, EntryKind::per_process, fs::is_symlink(directory, ignored)});
  }
  std::set<std::pair<dev_t, ino_t>> entered;
  std::vector<fs::path> pending{directory};  // the directories still to enter, the next one last
  while (!pending.empty()) {
    const fs::path current = std::move(pending.back());
    pending.pop_back();
    struct stat st {};
    if (::stat(current.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !entered.emplace(st.st_dev, st.st_ino).second)
      continue;
    std::error_code error;
    const std::vector<DirectoryEntry> entries = directory_entries(current, error);
    if (error) {
      visit({current, EntryKind::unreadable, false});
      continue;
    }
    const auto first_subdirectory = pending.size();
    for (DirectoryEntry entry : entries) {
      if ((entry.symlink || entry.kind == EntryKind::directory) && per_process_path_reason(entry.path))
        entry.kind = EntryKind::per_process;
      visit(entry);
      if (entry.kind == EntryKind::directory) pending.push_back(entry.path);
    }
    std::reverse(pending.begin() + static_cast<std::ptrdiff_t>(first_subdirectory), pending.end());
  }
}

}  // namespace hookbus::detail
