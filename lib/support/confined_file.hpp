#pragma once
// Files hookbus writes on someone's say: the trace files and the audit log a
// config names, and any file a later feature writes where a config decides.
// One set of rules for all of them (docs/security.md, "Files a project
// names"), because a repository chooses its config's paths and can ship links
// as easily:
//
// - A project's file (one a project layer's config names) lies inside the
//   project and outside version-control metadata, and is reached from the
//   project directory one real directory at a time (openat with O_NOFOLLOW),
//   when its writer starts and again each time the file is opened; it must
//   be a regular file with no other name.
// - Whoever named it, a file is written only at a path that names a file,
//   never through a link at the file itself, never by waiting on a FIFO
//   nobody reads, and is created with mode 0600 (it holds what hooks were
//   given), close-on-exec (hooks must not inherit it).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace hookbus::detail {

// A file hookbus writes, and the directory it must stay in.
struct FileToWrite {
  std::filesystem::path path{};
  // The project directory when a project layer's config named the file: it
  // must lie inside and be reached through real directories. Empty: anywhere
  // (the user's, the administrator's or the engine's choice).
  std::filesystem::path confined_to{};
};

// Why `path` names a directory rather than a file ("", ".", "trace/",
// "trace/.."), or nullopt when it names a file.
std::optional<std::string> why_not_a_file_name(const std::filesystem::path& path);

// Why a project may not have hookbus write at `path`, relative to the project
// directory: it is absolute, leaves the project with "..", or goes into
// version-control metadata (a component named .git, .hg, .svn, .bzr, _darcs,
// .jj or .pijul, in any case; a worktree's or submodule's `.git` file too).
// nullopt when it may.
std::optional<std::string> why_not_in_project(const std::filesystem::path& path);

// Starts the writer of `file` ("trace", "audit": `writer`): `start` checks or
// opens it. A path the rules refuse whatever is on disk is an Error. What is
// on disk is the writer's Error for a file anywhere, as the rest of the
// user's config; for a project's file it is a warning in the log, and false:
// what is on disk may have changed since the user trusted the project (a
// link pulled in), and must not stop the engine, and with it the user's
// guards. Each later open of the file then fails as the writer's failure.
bool start_writer(std::string_view writer, const FileToWrite& file, const std::function<void()>& start);

// Checks, without creating the file, that it can be written: its missing
// directories are created; what is at its path is no link and no directory
// (for a project's file, a regular file); the file, or else its directory,
// is writable. Throws Error naming the file.
void check_file_to_write(const FileToWrite& file);

// FILE to FILE.1, ..., FILE.(keep-1) to FILE.keep; with keep 0, FILE removed.
// Only regular files are moved, with renameat: a link among them is itself
// replaced or removed, never what it points to. Nothing at FILE, or a device,
// is left as it is.
void rotate_written_file(const FileToWrite& file, unsigned keep);

// An open file hookbus writes. Errors are hookbus::Errors naming the file.
class WrittenFile {
 public:
  enum class Mode { append, truncate };
  // Opens the file by the rules above, creating it when missing. Truncated
  // (Mode::truncate) only once it passed them: a project's file that turns
  // out to have another name is left as it is.
  WrittenFile(const FileToWrite& file, Mode mode);
  ~WrittenFile();
  WrittenFile(const WrittenFile&) = delete;
  WrittenFile& operator=(const WrittenFile&) = delete;

  // All of `bytes`, in one write() when the system takes it whole: a line is
  // never left in a buffer of ours.
  void write(std::string_view bytes);
  // Bytes in the file: what it held when opened for appending, and what was written since.
  [[nodiscard]] std::uintmax_t size() const noexcept { return size_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uintmax_t size_ = 0;
};

}  // namespace hookbus::detail
