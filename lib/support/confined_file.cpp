// The rules of confined_file.hpp, once for every file hookbus writes on a
// config's say. A project's file is reached from the project directory one
// component at a time with O_NOFOLLOW, so a repository's `trace -> /home/me`
// or `audit.jsonl -> ../../.bashrc` is refused instead of written through;
// every file refuses a link at the file itself; rotation renames only
// regular files, with renameat, which moves a link itself and never what it
// points to.

#include "support/confined_file.hpp"

#include <hookbus/errors.hpp>

#include "support/file_descriptor.hpp"
#include "support/files.hpp"
#include "support/logging.hpp"

#include <fmt/format.h>
#include <spdlog/common.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <system_error>

namespace hookbus::detail {

namespace fs = std::filesystem;

namespace {

// Where version-control systems keep a repository's configuration, hooks and
// history; `.git` is also the file naming them in a worktree or submodule.
constexpr std::array<std::string_view, 7> vcs_metadata_names{".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul"};

// Case-insensitively: on a case-insensitive file system `.GIT` is `.git`.
bool is_vcs_metadata(const fs::path& component) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  const std::string& name = component.native();
  return std::any_of(vcs_metadata_names.begin(), vcs_metadata_names.end(), [&](std::string_view metadata) {
    return std::equal(name.begin(), name.end(), metadata.begin(), metadata.end(),
                      [&](char a, char b) { return lower(a) == b; });
  });
}

[[noreturn]] void fail(const fs::path& file, std::string_view what) {
  throw Error(fmt::format("{}: {}", file.string(), what));
}

// `link`, the file itself or a directory on its way, is a symbolic link.
[[noreturn]] void refuse_link(const fs::path& file, const fs::path& link) {
  const std::string why = fmt::format(
      "{} is a symbolic link, which hookbus never writes through: name a file in a real directory", link.string());
  if (link == file) throw Error(why);
  fail(file, why);
}

// The path `file` must have whatever is on disk: a file's, and for a
// project's, one inside the project, which it returns relative to the
// project directory (a path anywhere is returned as it is).
fs::path checked_path(const FileToWrite& file) {
  if (auto why = why_not_a_file_name(file.path)) fail(file.path, *why);
  if (file.confined_to.empty()) return file.path;
  const fs::path inside = fs::absolute(file.path).lexically_normal().lexically_relative(
      fs::absolute(file.confined_to).lexically_normal());
  if (auto why = why_not_a_file_name(inside)) fail(file.path, *why);
  if (auto why = why_not_in_project(inside.empty() ? fs::path("..") : inside))
    fail(file.path, fmt::format("{}: a project's files stay inside {}, outside version-control metadata", *why,
                                file.confined_to.string()));
  return inside;
}

// The directory holding the file, open, and the file's name in it.
struct DirectoryOf {
  FileDescriptor directory;
  fs::path name;
};

// Opens the directory holding the file, its missing directories created. A
// project's is reached from the project directory one component at a time,
// never through a link.
DirectoryOf open_directory_of(const FileToWrite& file) {
  const fs::path inside = checked_path(file);
  if (file.confined_to.empty()) {
    const fs::path directory = file.path.has_parent_path() ? file.path.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(directory, ec);
    if (ec) fail(file.path, fmt::format("cannot create its directory: {}", ec.message()));
    FileDescriptor fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.is_open()) fail(file.path, fmt::format("cannot open its directory: {}", error_text(errno)));
    return {std::move(fd), file.path.filename()};
  }
  FileDescriptor directory(::open(file.confined_to.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!directory.is_open())
    fail(file.path, fmt::format("cannot open {}: {}", file.confined_to.string(), error_text(errno)));
  fs::path reached = file.confined_to;
  for (const fs::path& component : inside.parent_path()) {
    reached /= component;
    if (::mkdirat(directory.get(), component.c_str(), 0777) != 0 && errno != EEXIST)
      fail(file.path, fmt::format("cannot create {}: {}", reached.string(), error_text(errno)));
    FileDescriptor next(::openat(directory.get(), component.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.is_open()) {
      const int error = errno;
      struct stat st {};
      if (::fstatat(directory.get(), component.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        refuse_link(file.path, reached);
      fail(file.path, fmt::format("cannot open {}: {}", reached.string(), error_text(error)));
    }
    directory = std::move(next);
  }
  return {std::move(directory), inside.filename()};
}

// What is at `name` in `directory`, not following a link; nullopt when nothing is.
std::optional<struct stat> entry_at(const FileDescriptor& directory, const fs::path& name) {
  struct stat st {};
  if (::fstatat(directory.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  return st;
}

bool is_regular_file_at(const FileDescriptor& directory, const fs::path& name) {
  const auto entry = entry_at(directory, name);
  return entry && S_ISREG(entry->st_mode);
}

// Refuses what is at the file's path when it may not be written: a link or a
// directory; for a project's file, anything but a regular file.
void check_kind(const FileToWrite& file, const struct stat& st) {
  if (S_ISLNK(st.st_mode)) refuse_link(file.path, file.path);
  if (S_ISDIR(st.st_mode)) fail(file.path, "is a directory: name a file");
  if (!file.confined_to.empty() && !S_ISREG(st.st_mode))
    fail(file.path, "is not a regular file: a project's files must be regular files");
}

}  // namespace

std::optional<std::string> why_not_a_file_name(const fs::path& path) {
  const fs::path name = path.lexically_normal().filename();
  if (name.empty() || name == "." || name == "..") return "names a directory, not a file";
  return std::nullopt;
}

std::optional<std::string> why_not_in_project(const fs::path& path) {
  if (path.is_absolute()) return "is an absolute path";
  const fs::path normal = path.lexically_normal();
  if (!normal.empty() && *normal.begin() == "..") return "leaves the project directory";
  for (const fs::path& component : normal)
    if (is_vcs_metadata(component))
      return fmt::format("is in version-control metadata ({})", component.string());
  return std::nullopt;
}

bool start_writer(std::string_view writer, const FileToWrite& file, const std::function<void()>& start) {
  (void)checked_path(file);
  if (file.confined_to.empty()) {
    start();
    return true;
  }
  try {
    start();
    return true;
  } catch (const Error& error) {
    log(spdlog::level::warn, "{}: {}; nothing is written to it until that changes", writer, error.what());
    return false;
  }
}

void check_file_to_write(const FileToWrite& file) {
  const auto [directory, name] = open_directory_of(file);
  const auto entry = entry_at(directory, name);
  if (entry) check_kind(file, *entry);
  if (::faccessat(directory.get(), entry ? name.c_str() : ".", W_OK, 0) != 0)
    fail(file.path, fmt::format("cannot write {}: {}", entry ? "it" : "into its directory", error_text(errno)));
}

void rotate_written_file(const FileToWrite& file, unsigned keep) {
  const auto [directory, name] = open_directory_of(file);
  if (!is_regular_file_at(directory, name)) return;  // nothing there, a device, or a link the open refuses
  const auto numbered = [&](unsigned n) { return fs::path(name.string() + "." + std::to_string(n)); };
  const int fd = directory.get();
  if (keep == 0) {
    if (::unlinkat(fd, name.c_str(), 0) != 0)
      fail(file.path, fmt::format("cannot remove it: {}", error_text(errno)));
    return;
  }
  (void)::unlinkat(fd, numbered(keep).c_str(), 0);  // a link goes, not what it points to; a directory stays
  for (unsigned n = keep; n > 1; --n)
    if (is_regular_file_at(directory, numbered(n - 1)))
      (void)::renameat(fd, numbered(n - 1).c_str(), fd, numbered(n).c_str());
  if (::renameat(fd, name.c_str(), fd, numbered(1).c_str()) != 0)
    fail(file.path, fmt::format("cannot rotate it to {}: {}", (file.path.parent_path() / numbered(1)).string(),
                                error_text(errno)));
}

WrittenFile::WrittenFile(const FileToWrite& file, Mode mode) : path_(file.path) {
  const auto [directory, name] = open_directory_of(file);
  // Non-blocking, so that a FIFO without a reader is an error rather than a hang.
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK | (mode == Mode::append ? O_APPEND : 0);
  FileDescriptor fd(::openat(directory.get(), name.c_str(), flags, 0600));
  if (!fd.is_open()) {
    const int error = errno;
    if (const auto entry = entry_at(directory, name)) check_kind(file, *entry);
    fail(path_, fmt::format("cannot open for writing: {}", error_text(error)));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail(path_, fmt::format("cannot read its status: {}", error_text(errno)));
  check_kind(file, st);
  // Another name may be the user's file outside the project (`ln ~/.bashrc
  // audit.jsonl`). Rotation is not writing: it moves a name away.
  if (!file.confined_to.empty() && st.st_nlink > 1)
    fail(path_, fmt::format("has {} names (hard links), and a project's files must have one: another may be a "
                            "file outside the project",
                            st.st_nlink));
  if (mode == Mode::truncate && S_ISREG(st.st_mode) && ::ftruncate(fd.get(), 0) != 0)
    fail(path_, fmt::format("cannot truncate it: {}", error_text(errno)));
  if (const int status = ::fcntl(fd.get(), F_GETFL); status < 0 || ::fcntl(fd.get(), F_SETFL, status & ~O_NONBLOCK) != 0)
    fail(path_, fmt::format("cannot set it to blocking writes: {}", error_text(errno)));
  if (mode == Mode::append && S_ISREG(st.st_mode)) size_ = static_cast<std::uintmax_t>(st.st_size);
  fd_ = fd.release();
}

WrittenFile::~WrittenFile() { ::close(fd_); }

void WrittenFile::write(std::string_view bytes) {
  try {
    write_all(fd_, bytes, "cannot write");
  } catch (const std::system_error& error) {
    throw Error(fmt::format("{}: {}", path_.string(), error.what()));
  }
  size_ += bytes.size();
}

}  // namespace hookbus::detail
