#pragma once
// Internal: the writers behind the built-in tracer (include/hookbus/tracer.hpp),
// one per file format, and the OTLP/HTTP exporter. Each is called by one
// observer at a time (the tracer's delivery thread, or the emitting threads
// under the tracer's lock).

#include <hookbus/trace.hpp>
#include <hookbus/tracer.hpp>

#include "support/confined_file.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>

namespace hookbus::detail {

// One trace file as its writer sees it, written by the rules of every file
// hookbus writes on a config's say (support/confined_file.hpp). Made, it has
// checked that the file can be written (its missing directories created;
// the file, or else its directory, writable; no link at the file): an Error
// for a file anywhere, a warning for a project's (it is checked again at
// each open). The file itself is created or rotated only by the first
// write, so a tracer that records nothing (`hookctl list`) leaves what is
// there alone. Each file it starts begins with `header`. Text that would
// take the file past `max_bytes` (0: no limit) goes to a new file, unless
// the file holds nothing but its header; FILE becomes FILE.1, FILE.1 becomes
// FILE.2, ..., FILE.max_files is the last kept. Only regular files are
// rotated: links are never followed, and a device (/dev/null) is written as
// it is.
class TraceFile {
 public:
  enum class Found {
    kept,      // a FILE found at the first write becomes FILE.1: each tracer has a file of its own
    appended,  // a FILE found at the first write is appended to
  };
  struct Options {
    FileToWrite file{};  // confined to TraceOptions::confined_to, if any
    std::string header{};
    std::uintmax_t max_bytes = 0;
    unsigned max_files = 5;
    Found found = Found::kept;
  };
  explicit TraceFile(Options options);

  void write(std::string_view text);
  [[nodiscard]] bool started() const noexcept { return output_.has_value(); }

 private:
  void start(WrittenFile::Mode mode);

  Options options_;
  std::optional<WrittenFile> output_;
};

// The tool a tool event is about, for the formats that name it.
struct ToolOfEvent {
  std::string_view name;
  std::string_view call_id;
};
std::optional<ToolOfEvent> tool_of(const HookEvent& event);

// hookbus's trace file: a header line, then one line per record.
class JsonlTraceWriter {
 public:
  JsonlTraceWriter(const JsonlTraceOptions& options, std::filesystem::path confined_to, const TraceHeader& header);
  void write(const EmissionRecord& record);

 private:
  TraceFile file_;
};

// The Chrome trace event format, JSON array form: "[", one event per line, "]".
class ChromeTraceWriter {
 public:
  ChromeTraceWriter(std::filesystem::path file, std::filesystem::path confined_to, std::int64_t pid,
                    const std::string& process_name);
  ~ChromeTraceWriter();  // writes the closing bracket
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;
  void write(const EmissionRecord& record);

 private:
  void write_event(const boost::json::object& event, std::string& text) const;
  // A complete event ("ph": "X"): a slice of its thread's track.
  void write_slice(std::string_view name, std::string_view category, double start, std::chrono::nanoseconds duration,
                   std::uint32_t thread, boost::json::object args, std::string& text) const;
  void write_step(const EmissionRecord& record, double start, boost::json::object args, std::string& text) const;

  std::int64_t pid_;
  TraceFile file_;
  std::chrono::sys_time<std::chrono::nanoseconds> origin_;  // ts 0
  std::set<std::uint32_t> named_threads_;
};

// OpenTelemetry spans of records in OTLP/JSON (ExportTraceServiceRequest's
// protobuf JSON mapping), for the OTLP file and the OTLP/HTTP exporter alike:
// what one sends is what the other writes.
class OtlpSpanMaker {
 public:
  // The resource of every request: service.name, process.pid, host.name and hookbus.project.
  explicit OtlpSpanMaker(const TraceHeader& about);
  // The spans of one record, a trace of their own with new ids: the emit's
  // (or the wrapped step's) span first, then a child per handler (per level).
  boost::json::array spans(const EmissionRecord& record);
  // An ExportTraceServiceRequest of `spans` (of any records), under the
  // resource and hookbus's instrumentation scope.
  [[nodiscard]] boost::json::object request(boost::json::array spans) const;

 private:
  std::string new_id(std::size_t bytes);

  boost::json::array resource_attributes_;
  std::mt19937_64 random_;
};

// OTLP/JSON lines: one ExportTraceServiceRequest per emit or wrapped step.
class OtlpTraceWriter {
 public:
  OtlpTraceWriter(const OtlpTraceOptions& options, std::filesystem::path confined_to, const TraceHeader& about);
  void write(const EmissionRecord& record);

 private:
  TraceFile file_;
  OtlpSpanMaker spans_;
};

// The same spans sent to a Collector's OTLP/HTTP receiver (otlp_http.cpp):
// write() only queues them, within OtlpHttpTraceOptions::max_queued_spans
// (the newest are dropped beyond); a thread of the exporter's own POSTs them
// in batches and retries as OTLP says. Spans that are not sent are counted
// and logged as warnings, never lost in silence. Destroying it sends what is
// queued, waiting at most the options' timeout.
class OtlpHttpExporter {
 public:
  // An endpoint that is not a URL is an Error; one whose origin the
  // allowance does not name is a warning, and its spans are dropped.
  OtlpHttpExporter(const OtlpHttpTraceOptions& options, const TraceHeader& about);
  ~OtlpHttpExporter();
  OtlpHttpExporter(const OtlpHttpExporter&) = delete;
  OtlpHttpExporter& operator=(const OtlpHttpExporter&) = delete;
  void write(const EmissionRecord& record);

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::jthread sender_;  // last: stopped and joined before the state goes
};

}  // namespace hookbus::detail
