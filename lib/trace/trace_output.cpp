// Trace files (lib/trace/trace_writers.hpp) and hookbus's own JSONL trace
// writer: opening, writing and rotating files without ever being led
// elsewhere by a link. A project's trace paths (TraceOptions::confined_to)
// are walked from the project directory one directory at a time with
// O_NOFOLLOW, so a repository's `trace -> /home/me` or
// `trace/session.jsonl -> ../../victim` is refused instead of written
// through; every path refuses a link at the file itself; rotation renames
// only regular files, with renameat, which moves a link itself and never
// what it points to.

#include "trace/trace_writers.hpp"

#include "external/pipes.hpp"
#include "support/files.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace hookbus::detail {

namespace fs = std::filesystem;

namespace {

std::string system_error_text(int error) { return std::generic_category().message(error); }

[[noreturn]] void fail(const fs::path& file, std::string_view what) {
  throw Error(fmt::format("{}: {}", file.string(), what));
}

// `link`, the file itself or a directory on its way, is a symbolic link.
[[noreturn]] void refuse_link(const fs::path& file, const fs::path& link) {
  const std::string why = fmt::format(
      "{} is a symbolic link, which trace files are never written through: name a file in a real directory",
      link.string());
  if (link == file) throw Error(why);
  fail(file, why);
}

// The directory holding `file`, open; its missing directories created. With
// `confined_to`, reached from there one component at a time, never through a
// link.
FileDescriptor open_directory_of(const fs::path& file, const fs::path& confined_to) {
  if (confined_to.empty()) {
    const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(directory, ec);
    if (ec) fail(file, fmt::format("cannot create its directory: {}", ec.message()));
    FileDescriptor fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.is_open()) fail(file, fmt::format("cannot open its directory: {}", system_error_text(errno)));
    return fd;
  }
  const fs::path inside =
      fs::absolute(file).lexically_normal().lexically_relative(fs::absolute(confined_to).lexically_normal());
  if (inside.empty() || *inside.begin() == ".." || !inside.has_filename())
    fail(file, fmt::format("is not inside {}, where this tracer may write", confined_to.string()));
  FileDescriptor directory(::open(confined_to.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!directory.is_open())
    fail(file, fmt::format("cannot open {}: {}", confined_to.string(), system_error_text(errno)));
  fs::path reached = confined_to;
  for (const fs::path& component : inside.parent_path()) {
    reached /= component;
    if (::mkdirat(directory.get(), component.c_str(), 0777) != 0 && errno != EEXIST)
      fail(file, fmt::format("cannot create {}: {}", reached.string(), system_error_text(errno)));
    FileDescriptor next(::openat(directory.get(), component.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.is_open()) {
      const int error = errno;
      struct stat st {};
      if (::fstatat(directory.get(), component.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        refuse_link(file, reached);
      fail(file, fmt::format("cannot open {}: {}", reached.string(), system_error_text(error)));
    }
    directory = std::move(next);
  }
  return directory;
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

// Checks, without creating the file, that it can be written.
void check_trace_file(const fs::path& file, const fs::path& confined_to) {
  const FileDescriptor directory = open_directory_of(file, confined_to);
  const fs::path name = file.filename();
  const auto entry = entry_at(directory, name);
  if (entry && S_ISLNK(entry->st_mode)) refuse_link(file, file);
  if (::faccessat(directory.get(), entry ? name.c_str() : ".", W_OK, 0) != 0)
    fail(file, fmt::format("cannot write {}: {}", entry ? "it" : "into its directory", system_error_text(errno)));
}

// FILE to FILE.1, ..., FILE.(keep-1) to FILE.keep; with keep 0, FILE removed.
void rotate_trace_file(const fs::path& file, const fs::path& confined_to, unsigned keep) {
  const FileDescriptor directory = open_directory_of(file, confined_to);
  const fs::path name = file.filename();
  if (!is_regular_file_at(directory, name)) return;  // nothing there, a device, or a link the open refuses
  const auto numbered = [&](unsigned n) { return fs::path(name.string() + "." + std::to_string(n)); };
  const int fd = directory.get();
  if (keep == 0) {
    if (::unlinkat(fd, name.c_str(), 0) != 0) fail(file, fmt::format("cannot remove it: {}", system_error_text(errno)));
    return;
  }
  (void)::unlinkat(fd, numbered(keep).c_str(), 0);  // a link goes, not what it points to; a directory stays
  for (unsigned n = keep; n > 1; --n)
    if (is_regular_file_at(directory, numbered(n - 1)))
      (void)::renameat(fd, numbered(n - 1).c_str(), fd, numbered(n).c_str());
  if (::renameat(fd, name.c_str(), fd, numbered(1).c_str()) != 0)
    fail(file, fmt::format("cannot rotate it to {}: {}", (file.parent_path() / numbered(1)).string(),
                           system_error_text(errno)));
}

}  // namespace

TraceOutput::TraceOutput(const fs::path& file, const fs::path& confined_to, Mode mode) : file_(file) {
  const FileDescriptor directory = open_directory_of(file_, confined_to);
  // Non-blocking, so that a FIFO without a reader is an error rather than a hang.
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (mode == Mode::append ? O_APPEND : O_TRUNC);
  FileDescriptor fd(::openat(directory.get(), file_.filename().c_str(), flags, 0600));
  if (!fd.is_open()) {
    const int error = errno;
    if (const auto entry = entry_at(directory, file_.filename()); entry && S_ISLNK(entry->st_mode))
      refuse_link(file_, file_);
    fail(file_, fmt::format("cannot open for writing: {}", system_error_text(error)));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail(file_, fmt::format("cannot read its status: {}", system_error_text(errno)));
  if (!confined_to.empty() && !S_ISREG(st.st_mode))
    fail(file_, "is not a regular file: a project's trace files must be regular files inside the project");
  if (const int status = ::fcntl(fd.get(), F_GETFL); status < 0 || ::fcntl(fd.get(), F_SETFL, status & ~O_NONBLOCK) != 0)
    fail(file_, fmt::format("cannot set it to blocking writes: {}", system_error_text(errno)));
  if (mode == Mode::append && S_ISREG(st.st_mode)) size_ = static_cast<std::uintmax_t>(st.st_size);
  fd_ = fd.release();
}

TraceOutput::~TraceOutput() { ::close(fd_); }

void TraceOutput::write(std::string_view bytes) {
  try {
    write_all(fd_, bytes, "cannot write");
  } catch (const std::system_error& error) {
    throw Error(fmt::format("{}: {}", file_.string(), error.what()));
  }
  size_ += bytes.size();
}

// ------------------------------------------------------------------- TraceFile

TraceFile::TraceFile(Options options) : options_(std::move(options)) {
  check_trace_file(options_.file, options_.confined_to);
}

void TraceFile::start(TraceOutput::Mode mode) {
  output_.reset();
  if (mode == TraceOutput::Mode::truncate) rotate_trace_file(options_.file, options_.confined_to, options_.max_files);
  output_.emplace(options_.file, options_.confined_to, mode);
  if (output_->size() == 0) output_->write(options_.header);
}

void TraceFile::write(std::string_view text) {
  if (!output_)
    start(options_.found == Found::appended ? TraceOutput::Mode::append : TraceOutput::Mode::truncate);
  // A file holding no more than its header takes the text whatever its size.
  const bool has_more_than_header = output_->size() > options_.header.size();
  if (options_.max_bytes != 0 && has_more_than_header && output_->size() + text.size() > options_.max_bytes)
    start(TraceOutput::Mode::truncate);
  output_->write(text);
}

// ------------------------------------------------------------------- JSONL

JsonlTraceWriter::JsonlTraceWriter(const JsonlTraceOptions& options, fs::path confined_to, const TraceHeader& header)
    : file_({.file = options.file,
             .confined_to = std::move(confined_to),
             .header = trace_line(header) + '\n',
             .max_bytes = options.max_bytes,
             .max_files = options.max_files,
             .found = TraceFile::Found::kept}) {}

void JsonlTraceWriter::write(const EmissionRecord& record) { file_.write(trace_line(record) + '\n'); }

}  // namespace hookbus::detail
