// Trace files (lib/trace/trace_writers.hpp) and hookbus's own JSONL trace
// writer. Where they may be written, and how without being led elsewhere by a
// link, is the rule of every file hookbus writes (support/confined_file.hpp).

#include "trace/trace_writers.hpp"

namespace hookbus::detail {

namespace fs = std::filesystem;

// ------------------------------------------------------------------- TraceFile

TraceFile::TraceFile(Options options) : options_(std::move(options)) {
  (void)start_writer("trace", options_.file, [this] { check_file_to_write(options_.file); });
}

void TraceFile::start(WrittenFile::Mode mode) {
  output_.reset();
  if (mode == WrittenFile::Mode::truncate) rotate_written_file(options_.file, options_.max_files);
  output_.emplace(options_.file, mode);
  if (output_->size() == 0) output_->write(options_.header);
}

void TraceFile::write(std::string_view text) {
  if (!output_)
    start(options_.found == Found::appended ? WrittenFile::Mode::append : WrittenFile::Mode::truncate);
  // A file holding no more than its header takes the text whatever its size.
  const bool has_more_than_header = output_->size() > options_.header.size();
  if (options_.max_bytes != 0 && has_more_than_header && output_->size() + text.size() > options_.max_bytes)
    start(WrittenFile::Mode::truncate);
  output_->write(text);
}

// ------------------------------------------------------------------- JSONL

JsonlTraceWriter::JsonlTraceWriter(const JsonlTraceOptions& options, fs::path confined_to, const TraceHeader& header)
    : file_({.file = {.path = options.file, .confined_to = std::move(confined_to)},
             .header = trace_line(header) + '\n',
             .max_bytes = options.max_bytes,
             .max_files = options.max_files,
             .found = TraceFile::Found::kept}) {}

void JsonlTraceWriter::write(const EmissionRecord& record) { file_.write(trace_line(record) + '\n'); }

}  // namespace hookbus::detail
