#include "external/file_safety.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <set>
#include <system_error>
#include <vector>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

std::string user_name(uid_t uid) {
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(4096);
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr)
    return fmt::format("{} ({})", uid, found->pw_name);
  return std::to_string(uid);
}

// Why one path (no symlink of its own to follow: it was resolved) is unsafe.
std::optional<std::string> unsafe_entry(const fs::path& path, bool is_the_hook) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    return fmt::format("cannot check '{}': {}", path.string(), std::generic_category().message(error));
  }
  const uid_t me = ::geteuid();
  const std::string what =
      is_the_hook ? fmt::format("'{}'", path.string()) : fmt::format("the directory '{}' on its path", path.string());
  if (st.st_uid != me && st.st_uid != 0)
    return fmt::format("{} is owned by user {}, not by you (user {}) or root, so that user could change what runs "
                       "as you; fix with: chown {} '{}'",
                       what, user_name(st.st_uid), user_name(me), me, path.string());
  const bool writable_by_others = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  const bool sticky_root_directory = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) != 0 && st.st_uid == 0;
  if (writable_by_others && !(sticky_root_directory && !is_the_hook))
    return fmt::format("{} is writable by group or others (mode {:04o}), so anyone who can write it could run "
                       "code as you; fix with: chmod go-w '{}'",
                       what, st.st_mode & 07777, path.string());
  return std::nullopt;
}

// `path` and each directory above it, checked once each across calls.
std::optional<std::string> unsafe_chain(const fs::path& resolved, bool include_self, std::set<fs::path>& checked) {
  std::vector<fs::path> chain;
  for (fs::path p = resolved; !p.empty(); p = p.parent_path()) {
    chain.push_back(p);
    if (p == p.root_path()) break;
  }
  for (std::size_t i = include_self ? 0 : 1; i < chain.size(); ++i) {
    if (!checked.insert(chain[i]).second) continue;
    if (auto why = unsafe_entry(chain[i], i == 0)) return why;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> unsafe_path_reason(const std::filesystem::path& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return fmt::format("cannot check '{}': {}", path.string(), ec.message());
  std::set<fs::path> checked;
  // The directories holding the entry itself (with their own symlinks resolved) ...
  const fs::path holder = fs::weakly_canonical(absolute.parent_path(), ec);
  if (ec) return fmt::format("cannot check '{}': {}", absolute.parent_path().string(), ec.message());
  if (auto why = unsafe_chain(holder / absolute.filename(), false, checked)) return why;
  // ... then what it really is, and every directory on the way there.
  const fs::path target = fs::canonical(absolute, ec);
  if (ec) return fmt::format("cannot check '{}': {}", absolute.string(), ec.message());
  return unsafe_chain(target, true, checked);
}

}  // namespace hookbus::detail
