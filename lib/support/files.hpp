#pragma once
// Reading small files that someone else may have written (config files,
// settings, caches) without hanging on a FIFO, reading a device forever, or
// taking a dangling symlink for "no file". Also atomic replacement of files
// hookbus owns (trust.json, the query cache).

#include <hookbus/errors.hpp>

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace hookbus::detail {

// Why a read failed, without the file's name (the caller says where).
class FileReadError : public Error {
 public:
  using Error::Error;
};

// The whole content of a regular file of at most `max_size` bytes. Symlinks
// are followed; what is not a regular file is refused without being opened.
// Throws FileReadError "is a FIFO, not a regular file", "is a symlink to
// '/x', which does not exist", "is 5000000 bytes, over the limit of 1048576",
// "cannot read: Permission denied", ...
std::string read_regular_file(const std::filesystem::path& file, std::uintmax_t max_size);

// Like read_regular_file, but nullopt when nothing is at the path at all
// (a dangling symlink is still an error).
std::optional<std::string> read_regular_file_if_exists(const std::filesystem::path& file, std::uintmax_t max_size);

// A script's '#!' line as the kernel reads it (its first 255 bytes): the
// interpreter it runs the script with, and the one optional argument (the
// rest of the line, blanks trimmed, not split).
struct InterpreterLine {
  std::string interpreter{};
  std::string argument{};
};
// The '#!' line of the regular file `file`; nullopt when it has none or
// cannot be read (it is opened without waiting, and without following a FIFO).
std::optional<InterpreterLine> interpreter_line(const std::filesystem::path& file);

// Creates `directory` when it does not exist (and its missing parents), the
// directory itself with mode 0700: hookbus's state and caches are the user's
// alone. Throws Error naming it on failure.
void create_private_directory(const std::filesystem::path& directory);

// Replaces `file` with `content` atomically (a temporary file in the same
// directory, fsync, rename), with permissions `mode`; creates its directory
// with create_private_directory. Throws Error naming the file on failure.
void write_file_atomically(const std::filesystem::path& file, const std::string& content, mode_t mode);

// Writes all of `bytes` to `fd`, going on after a partial write or EINTR.
// Throws std::system_error with `what` and the system's reason.
void write_all(int fd, std::string_view bytes, const std::string& what);

}  // namespace hookbus::detail
