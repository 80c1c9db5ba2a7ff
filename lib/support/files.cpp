#include "support/files.hpp"

#include "support/file_descriptor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string_view>
#include <system_error>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

std::string_view file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Why `file` could not be reached or opened: a dangling symlink is named as one.
[[noreturn]] void fail_open(const fs::path& file, int error) {
  struct stat link {};
  if (error == ENOENT && ::lstat(file.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(file, ec);
    throw FileReadError(fmt::format("is a symlink to '{}', which does not exist", target.string()));
  }
  throw FileReadError("cannot read: " + error_text(error));
}

}  // namespace

std::optional<std::string> read_regular_file_if_exists(const std::filesystem::path& file, std::uintmax_t max_size) {
  struct stat link {};
  if (::lstat(file.c_str(), &link) != 0 && (errno == ENOENT || errno == ENOTDIR)) return std::nullopt;
  return read_regular_file(file, max_size);
}

std::string read_regular_file(const std::filesystem::path& file, std::uintmax_t max_size) {
  // What is not a regular file is refused before it is opened: opening a
  // device can act (a watchdog arms, a tape rewinds), and a repository's
  // config may be a link to one.
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) fail_open(file, errno);
  if (!S_ISREG(st.st_mode)) throw FileReadError(fmt::format("is {}, not a regular file", file_kind(st.st_mode)));
  // O_NONBLOCK: should it have become a FIFO since, opening it must not wait for a writer.
  FileDescriptor fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) fail_open(file, errno);
  if (::fstat(fd.get(), &st) != 0) throw FileReadError("cannot read: " + error_text(errno));
  if (!S_ISREG(st.st_mode)) throw FileReadError(fmt::format("is {}, not a regular file", file_kind(st.st_mode)));
  if (static_cast<std::uintmax_t>(st.st_size) > max_size)
    throw FileReadError(fmt::format("is {} bytes, over the limit of {} bytes", st.st_size, max_size));
  std::string text;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FileReadError("cannot read: " + error_text(errno));
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    // The file may grow while it is read.
    if (text.size() > max_size) throw FileReadError(fmt::format("is over the limit of {} bytes", max_size));
  }
  return text;
}

std::optional<InterpreterLine> interpreter_line(const std::filesystem::path& file) {
  FileDescriptor fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  char buffer[256];  // BINPRM_BUF_SIZE: what the kernel reads of it
  ssize_t n;
  do n = ::read(fd.get(), buffer, sizeof buffer - 1);
  while (n < 0 && errno == EINTR);
  if (n < 2) return std::nullopt;
  std::string_view line(buffer, static_cast<std::size_t>(n));
  if (!line.starts_with("#!")) return std::nullopt;
  line = line.substr(2, line.find('\n') - 2);
  line = line.substr(0, line.find('\0'));
  constexpr std::string_view kBlanks = " \t";
  const auto word = [&] {
    line.remove_prefix(std::min(line.find_first_not_of(kBlanks), line.size()));
    const std::string_view first = line.substr(0, line.find_first_of(kBlanks));
    line.remove_prefix(first.size());
    return std::string(first);
  };
  InterpreterLine read{.interpreter = word(), .argument = {}};
  line.remove_prefix(std::min(line.find_first_not_of(kBlanks), line.size()));
  read.argument = std::string(line.substr(0, line.find_last_not_of(kBlanks) + 1));
  if (read.interpreter.empty()) return std::nullopt;
  return read;
}

void create_private_directory(const std::filesystem::path& directory) {
  std::error_code ec;
  if (directory.empty() || fs::is_directory(directory, ec)) return;
  fs::create_directories(directory, ec);
  if (ec) throw Error(fmt::format("{}: cannot create the directory: {}", directory.string(), error_text(ec.value())));
  ::chmod(directory.c_str(), 0700);
}

void write_file_atomically(const std::filesystem::path& file, const std::string& content, mode_t mode) {
  const auto fail = [&](std::string_view what, int error) {
    throw Error(fmt::format("{}: cannot {}: {}", file.string(), what, error_text(error)));
  };
  const fs::path directory = file.parent_path();
  create_private_directory(directory);
  // Built with fmt: GCC 12 at -O3 misreads `"." + std::string` as an overlapping copy (-Wrestrict).
  std::string temporary = (directory / fmt::format(".{}.XXXXXX", file.filename().string())).string();
  FileDescriptor fd(::mkostemp(temporary.data(), O_CLOEXEC));
  if (fd.get() < 0) fail("create a temporary file", errno);
  const auto remove_temporary = [&] { ::unlink(temporary.c_str()); };
  if (::fchmod(fd.get(), mode) != 0) {
    const int error = errno;
    remove_temporary();
    fail("set its permissions", error);
  }
  for (std::size_t written = 0; written < content.size();) {
    const ssize_t n = ::write(fd.get(), content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      remove_temporary();
      fail("write", error);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0 || ::close(fd.release()) != 0) {
    const int error = errno;
    remove_temporary();
    fail("write", error);
  }
  if (::rename(temporary.c_str(), file.c_str()) != 0) {
    const int error = errno;
    remove_temporary();
    fail("replace", error);
  }
}

void write_all(int fd, std::string_view bytes, const std::string& what) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) throw std::system_error(errno, std::generic_category(), what);
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
}

}  // namespace hookbus::detail
