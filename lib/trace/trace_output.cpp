// Trace files (lib/trace/trace_writers.hpp): opening, writing, rotating, and
// hookbus's own JSONL trace writer.

#include "trace/trace_writers.hpp"

#include "support/files.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace hookbus::detail {

namespace fs = std::filesystem;

TraceOutput::TraceOutput(fs::path file, Mode mode) : file_(std::move(file)) {
  std::error_code ec;
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (mode == Mode::append ? O_APPEND : O_TRUNC);
  fd_ = ::open(file_.c_str(), flags, 0600);
  if (fd_ < 0)
    throw Error(fmt::format("{}: cannot open for writing: {}", file_.string(), std::generic_category().message(errno)));
  if (mode == Mode::append) {
    const std::uintmax_t size = fs::file_size(file_, ec);
    size_ = ec ? 0 : size;  // a device has none
  }
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

void check_trace_file(const fs::path& file) {
  std::error_code ec;
  const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
  fs::create_directories(directory, ec);
  if (ec) throw Error(fmt::format("{}: cannot create its directory: {}", file.string(), ec.message()));
  const bool exists = fs::exists(file, ec);
  if (::access(exists ? file.c_str() : directory.c_str(), W_OK) != 0)
    throw Error(fmt::format("{}: cannot write {}: {}", file.string(), exists ? "it" : "into its directory",
                            std::generic_category().message(errno)));
}

void rotate_trace_file(const fs::path& file, unsigned keep) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(file, ec))) return;  // nothing there, or a device: nothing to keep
  const auto numbered = [&](unsigned n) { return fs::path(file.string() + "." + std::to_string(n)); };
  if (keep == 0) {
    fs::remove(file, ec);
    return;
  }
  fs::remove(numbered(keep), ec);
  for (unsigned n = keep; n > 1; --n) fs::rename(numbered(n - 1), numbered(n), ec);
  fs::rename(file, numbered(1), ec);
  if (ec) throw Error(fmt::format("{}: cannot rotate it to {}: {}", file.string(), numbered(1).string(), ec.message()));
}

// ------------------------------------------------------------------- JSONL

JsonlTraceWriter::JsonlTraceWriter(JsonlTraceOptions options, TraceHeader header)
    : options_(std::move(options)), header_(std::move(header)) {
  check_trace_file(options_.file);
}

void JsonlTraceWriter::start_file() {
  output_.reset();
  rotate_trace_file(options_.file, options_.max_files);
  output_.emplace(options_.file, TraceOutput::Mode::truncate);
  output_->write(trace_line(header_) + '\n');
  header_bytes_ = output_->size();
}

void JsonlTraceWriter::write(const EmissionRecord& record) {
  if (!output_) start_file();
  const std::string line = trace_line(record) + '\n';
  // A file holding no more than its header takes the record whatever its size.
  const bool has_records = output_->size() > header_bytes_;
  if (options_.max_bytes != 0 && has_records && output_->size() + line.size() > options_.max_bytes) start_file();
  output_->write(line);
}

}  // namespace hookbus::detail
