#pragma once
// Internal: the writers behind the built-in tracer (include/hookbus/tracer.hpp),
// one per file format. Each is called by one observer at a time (the tracer's
// delivery thread, or the emitting threads under the tracer's lock).

#include <hookbus/trace.hpp>
#include <hookbus/tracer.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>

namespace hookbus::detail {

// A trace file: created with its directories, mode 0600, close-on-exec (hooks
// must not inherit it). Errors are hookbus::Errors naming the file.
class TraceOutput {
 public:
  enum class Mode { append, truncate };
  TraceOutput(std::filesystem::path file, Mode mode);
  ~TraceOutput();
  TraceOutput(const TraceOutput&) = delete;
  TraceOutput& operator=(const TraceOutput&) = delete;

  // All of `bytes`, in one write() when the system takes it whole: a line is
  // never left in a buffer of ours.
  void write(std::string_view bytes);
  [[nodiscard]] std::uintmax_t size() const noexcept { return size_; }
  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }

 private:
  std::filesystem::path file_;
  int fd_ = -1;
  std::uintmax_t size_ = 0;
};

// Checks, without touching the file, that a tracer will be able to write it:
// creates its missing directories; the file, or else its directory, must be
// writable. Files are created only once there is a record to write, so a
// tracer that records nothing (`hookctl list`) leaves them alone.
void check_trace_file(const std::filesystem::path& file);

// FILE becomes FILE.1, FILE.1 becomes FILE.2, ..., up to FILE.keep; what would
// become FILE.(keep+1) is removed (with keep 0, FILE itself). Nothing when FILE
// is not a regular file (absent, or a device such as /dev/stdout).
void rotate_trace_file(const std::filesystem::path& file, unsigned keep);

// The tool a tool event is about, for the formats that name it.
struct ToolOfEvent {
  std::string_view name;
  std::string_view call_id;
};
std::optional<ToolOfEvent> tool_of(const HookEvent& event);

// hookbus's trace file.
class JsonlTraceWriter {
 public:
  JsonlTraceWriter(JsonlTraceOptions options, TraceHeader header);
  void write(const EmissionRecord& record);

 private:
  void start_file();

  JsonlTraceOptions options_;
  TraceHeader header_;
  std::optional<TraceOutput> output_;
  std::uintmax_t header_bytes_ = 0;
};

// The Chrome trace event format, JSON array form: "[", one event per line, "]".
class ChromeTraceWriter {
 public:
  ChromeTraceWriter(std::filesystem::path file, std::int64_t pid, std::string process_name);
  ~ChromeTraceWriter();  // writes the closing bracket
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;
  void write(const EmissionRecord& record);

 private:
  void write_event(const boost::json::object& event, std::string& text) const;

  std::filesystem::path file_;
  std::optional<TraceOutput> output_;
  std::string process_name_;
  std::int64_t pid_;
  std::chrono::sys_time<std::chrono::nanoseconds> origin_;  // ts 0
  std::set<std::uint32_t> named_threads_;
};

// OTLP/JSON lines: one ExportTraceServiceRequest per emit.
class OtlpTraceWriter {
 public:
  OtlpTraceWriter(std::filesystem::path file, const TraceHeader& about);
  void write(const EmissionRecord& record);

 private:
  std::string new_id(std::size_t bytes);

  std::filesystem::path file_;
  std::optional<TraceOutput> output_;
  boost::json::array resource_attributes_;
  std::mt19937_64 random_;
};

}  // namespace hookbus::detail
