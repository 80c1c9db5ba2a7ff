#include "support/file_safety.hpp"

#include "support/files.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <deque>
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

// Why one path (no symlink of its own to follow: it was resolved), whose
// stat is `st`, is unsafe.
std::optional<std::string> unsafe_entry(const fs::path& path, const struct stat& st, bool is_the_hook, uid_t me) {
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

// A symlink met on the way: who may replace it. Its directory was checked on
// the way in; in a sticky directory (/tmp) its owner may still replace it.
std::optional<std::string> unsafe_link(const fs::path& link, const struct stat& st, uid_t me) {
  if (st.st_uid == me || st.st_uid == 0) return std::nullopt;
  return fmt::format("the symlink '{}' on its path is owned by user {}, not by you (user {}) or root, so that user "
                     "could point it elsewhere; replace it with a link of your own",
                     link.string(), user_name(st.st_uid), user_name(me));
}

// The components of `path` after its root that name something: "" (a
// trailing separator) and "." change nothing.
std::vector<fs::path> steps_of(const fs::path& path) {
  std::vector<fs::path> steps;
  for (const auto& part : path.relative_path())
    if (!part.empty() && part != ".") steps.push_back(part);
  return steps;
}

// Linux's limit on symlinks followed while resolving one path (MAXSYMLINKS).
constexpr int kMaxSymlinks = 40;

// PROC_SUPER_MAGIC (linux/magic.h): what statfs says of procfs, wherever it
// is mounted (a bind mount of /proc too).
constexpr long kProcSuperMagic = 0x9fa0;

std::string cannot_check(const fs::path& what, int error) {
  return fmt::format("cannot check '{}': {}", what.string(), std::generic_category().message(error));
}

// Whether entries are on procfs, asked once per filesystem (device) met.
class ProcfsCheck {
 public:
  std::optional<UnresolvedPath> reason(const fs::path& entry, const struct stat& st) {
    if (std::find(elsewhere_.begin(), elsewhere_.end(), st.st_dev) != elsewhere_.end()) return std::nullopt;
    struct statfs fs_info {};
    if (::statfs(entry.c_str(), &fs_info) != 0) return UnresolvedPath{cannot_check(entry, errno)};
    if (static_cast<long>(fs_info.f_type) != kProcSuperMagic) {
      elsewhere_.push_back(st.st_dev);
      return std::nullopt;
    }
    return UnresolvedPath{
        fmt::format("its path goes through '{}', on procfs, whose names (/proc/self/cwd, /proc/PID/root, "
                    "/dev/fd/N, /dev/stdin) mean another file in each process, so the file checked here is not "
                    "the one that would run or be read elsewhere; link to the file itself, not through /proc",
                    entry.string()),
        true};
  }

 private:
  std::vector<dev_t> elsewhere_;  // devices that are not procfs
};

}  // namespace

// The path is resolved one component at a time, as the kernel does, and one
// symlink hop at a time, so every directory entered, every link and the end
// are seen as the kernel would open them.
std::variant<ResolvedPath, UnresolvedPath> resolve_path(const std::filesystem::path& path, const PathStepCheck& check) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return UnresolvedPath{fmt::format("cannot check '{}': {}", path.string(), ec.message())};
  const auto unresolved = [](const fs::path& what, int error) { return UnresolvedPath{cannot_check(what, error)}; };
  ProcfsCheck procfs;
  ResolvedPath out;
  out.resolved = absolute.root_path();  // no symlink in it, ever
  const std::vector<fs::path> given = steps_of(absolute);
  std::deque<fs::path> rest(given.begin(), given.end());
  // Each entry is stat'ed once: an lstat that finds no symlink is its stat.
  const auto arrive = [&]() -> std::optional<UnresolvedPath> {
    if (auto why = procfs.reason(out.resolved, out.st)) return why;
    if (!rest.empty() && check)
      if (auto why = check({PathStep::Kind::directory, out.resolved, out.st})) return UnresolvedPath{std::move(*why)};
    return std::nullopt;
  };
  if (::stat(out.resolved.c_str(), &out.st) != 0) return unresolved(out.resolved, errno);
  if (auto why = arrive()) return std::move(*why);
  int links = 0;
  while (!rest.empty()) {
    const fs::path step = std::move(rest.front());
    rest.pop_front();
    if (step == "..") {
      // `resolved` is physical: its lexical parent is its real one, passed on the way in.
      out.resolved = out.resolved.parent_path();
      if (::stat(out.resolved.c_str(), &out.st) != 0) return unresolved(out.resolved, errno);  // if the path ends here
      continue;
    }
    const fs::path entry = out.resolved / step;
    if (::lstat(entry.c_str(), &out.st) != 0) {
      const int error = errno;
      if (error != ENOENT) return unresolved(entry, error);
      out.missing.push_back(step);
      out.missing.insert(out.missing.end(), rest.begin(), rest.end());
      return out;
    }
    if (S_ISLNK(out.st.st_mode)) {
      if (++links > kMaxSymlinks) return unresolved(absolute, ELOOP);
      if (check)
        if (auto why = check({PathStep::Kind::symlink, entry, out.st})) return UnresolvedPath{std::move(*why)};
      const fs::path target = fs::read_symlink(entry, ec);
      if (ec) return UnresolvedPath{fmt::format("cannot check '{}': {}", entry.string(), ec.message())};
      if (target.is_absolute()) out.resolved = target.root_path();
      const std::vector<fs::path> hops = steps_of(target);
      rest.insert(rest.begin(), hops.begin(), hops.end());
      continue;
    }
    out.resolved = entry;
    if (auto why = arrive()) return std::move(*why);
  }
  return out;
}

std::optional<std::string> per_process_path_reason(const std::filesystem::path& path) {
  auto resolution = resolve_path(path);
  if (auto* unresolved = std::get_if<UnresolvedPath>(&resolution); unresolved != nullptr && unresolved->per_process)
    return std::move(unresolved->reason);
  return std::nullopt;
}

// Every directory entered is checked, so the directory holding each link of a
// chain is (whoever can write it can repoint the link), and so is every
// directory on the way to each target, and the final entry.
std::optional<std::string> unsafe_path_reason(const std::filesystem::path& path) {
  const uid_t me = ::geteuid();
  std::set<fs::path> checked;  // directories passed through, checked once each
  auto resolution = resolve_path(path, [&](const PathStep& step) -> std::optional<std::string> {
    if (step.kind == PathStep::Kind::symlink) return unsafe_link(step.path, step.st, me);
    if (!checked.insert(step.path).second) return std::nullopt;
    return unsafe_entry(step.path, step.st, false, me);
  });
  if (auto* unresolved = std::get_if<UnresolvedPath>(&resolution)) return std::move(unresolved->reason);
  const ResolvedPath& resolved = std::get<ResolvedPath>(resolution);
  if (!resolved.missing.empty()) return cannot_check(resolved.resolved / resolved.missing.front(), ENOENT);
  return unsafe_entry(resolved.resolved, resolved.st, true, me);
}

std::optional<std::string> relative_interpreter_reason(const std::filesystem::path& file) {
  const auto line = interpreter_line(file);
  if (!line) return std::nullopt;
  // A path the run resolves from its working directory: relative, with a '/'
  // (a bare name is looked up in PATH); an option's or a variable's value too.
  const auto relative = [](std::string_view word) {
    if (const auto equals = word.find('='); equals != std::string_view::npos) word.remove_prefix(equals + 1);
    return !word.empty() && word[0] != '/' && word[0] != '-' && word.find('/') != std::string_view::npos &&
           word.find("://") == std::string_view::npos;
  };
  std::optional<std::string> named;
  if (!line->interpreter.starts_with('/')) {
    named = line->interpreter;
  } else {
    // env -S splits its argument into words (the program and its arguments); otherwise it is one.
    std::string_view rest = line->argument;
    const bool split = fs::path(line->interpreter).filename() == "env" && rest.starts_with("-S");
    if (split) rest.remove_prefix(2);
    while (!rest.empty() && !named) {
      rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
      const std::string_view word = split ? rest.substr(0, rest.find_first_of(" \t")) : rest;
      if (relative(word)) named = std::string(word);
      rest.remove_prefix(word.size());
    }
  }
  if (!named) return std::nullopt;
  return fmt::format("its '#!' line names '{}' by a relative path, which each run finds from its own working "
                     "directory (the event's), not beside the hook; name it by its absolute path, or by a name "
                     "PATH finds (#!/usr/bin/env python3)",
                     *named);
}

}  // namespace hookbus::detail
