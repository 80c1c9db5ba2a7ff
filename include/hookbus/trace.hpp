#pragma once
// Tracing: what one emit did, as an EmissionRecord (the event as emitted,
// every handler reached, in call order, with what it did and how long it
// took, the reduced result and who decided it), or what a run of a wrapped
// step did (each wrapper, each attempt of its next, each run of the step),
// and the trace file: JSON Lines, a header line and one line per record, in the schema of
// docs/tracing.md ("The trace file"). Hooks::on_emission (hooks.hpp) delivers
// records; the built-in tracer (tracer.hpp) writes them to files.
//
//   for (hookbus::TraceReader reader(file, "session.jsonl"); auto record = reader.next();)
//     if (const auto* decider = record->decided_by ? &*record->decided_by : nullptr) ...

#include <hookbus/errors.hpp>
#include <hookbus/events.hpp>
#include <hookbus/layers.hpp>

#include <boost/describe/enum.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus {

// The trace file format this hookbus writes (the header's "hookbus_trace").
// Version 2 added the records of wrapped steps (StepRecord); version 1 files,
// which have none, are read as well.
inline constexpr int trace_format_version = 2;
inline constexpr int oldest_trace_format_version = 1;

// What a handler did in one emit. The names are the trace file's.
enum class HandlerAction {
  no_change,  // returned nothing, or a result that changes nothing
  patch,      // changed some fields (a patch, an input rewrite, items added to a collected result)
  replace,    // replaced the value (context, tool_result_persist, before_agent_start)
  transform,  // input or message:receive transformed
  allow,      // tool_call / permission_request decisions
  ask,
  defer,      // handed the decision back to the engine's own permission flow
  deny,       // also channel:connect refused
  cancel,     // a session_before_* event cancelled
  reject,     // input or message:receive rejected
  handled,    // input or user_bash handled
  stop,       // asked the agent to stop (StopRequest), nothing stronger
  failed,     // threw; `error` says what
  skipped,    // its tool matcher (HandlerOptions::tools), or its own (a Claude Code matcher), excluded the event
};
BOOST_DESCRIBE_ENUM(HandlerAction, no_change, patch, replace, transform, allow, ask, defer, deny, cancel, reject, handled,
                    stop, failed, skipped)

// What a recorded handler is: HandlerKind's kinds (hooks.hpp), or a catch-all subscriber.
enum class RecordedKind { in_process, builtin, external, plugin, subscriber };
BOOST_DESCRIBE_ENUM(RecordedKind, in_process, builtin, external, plugin, subscriber)

// One handler reached by an emit.
// Whether a handler's work started ahead of its turn, at once with the
// emit's other external hooks (docs/semantics.md §16).
enum class RanAhead {
  no,         // it ran at its turn
  taken,      // it ran ahead; its answer, read at its turn, counted (the record's times are the run's)
  discarded,  // it ran ahead, but an earlier answer changed the event: it ran again (the record's times are the last run's)
};
BOOST_DESCRIBE_ENUM(RanAhead, no, taken, discarded)

struct HandlerRecord {
  std::string label{};
  RecordedKind kind = RecordedKind::in_process;
  std::string source{};    // HandlerOptions::source
  std::string protocol{};  // external hooks: "hookbus", "kodelet" or "claude_code"; else ""
  std::optional<Layer> layer{};  // the layer it came from, when known
  std::chrono::nanoseconds start_offset{};  // from the emit's start
  std::chrono::nanoseconds duration{};
  HandlerAction action = HandlerAction::no_change;
  std::string reason{};  // allow, ask, defer, deny, cancel, reject, handled, stop: the reason, when given
  std::string error{};   // failed: what() of the exception
  RanAhead ran_ahead = RanAhead::no;
  bool operator==(const HandlerRecord&) const = default;
};

// How one level of a wrapped step ended (wrap.hpp, Hooks::run_step).
enum class StepOutcome {
  output,   // it gave the step's output
  threw,    // an exception passed out of it: the step's own, or what its next threw and it let through
  failed,   // a fail-open wrapper failed: the run went on as if it were not there
  refused,  // a fail-closed wrapper failed: the step was refused (StepRefusedError)
};
BOOST_DESCRIBE_ENUM(StepOutcome, output, threw, failed, refused)

// One level of a wrapped step's run: a wrapper's call, or a run of the
// engine's own step. A wrapper's attempts are the levels its next ran, each
// with its own time and outcome: they name it as their parent.
struct StepLevelRecord {
  bool step = false;        // the engine's own step, not a wrapper
  std::string label{};      // the wrapper's label; "" for the step
  std::string source{};     // the wrapper's HandlerOptions::source
  std::optional<std::uint32_t> parent{};  // the index of the wrapper whose next ran it; none for the outermost
  std::chrono::nanoseconds start_offset{};  // from the run's start
  std::chrono::nanoseconds duration{};
  std::uint32_t next_calls = 0;  // a wrapper: how many times it called its next
  StepOutcome outcome = StepOutcome::output;
  std::string error{};  // threw, failed, refused: what
  bool operator==(const StepLevelRecord&) const = default;
};

// A run of a wrapped step: its levels in the order they started, the
// outermost wrapper first.
struct StepRecord {
  std::vector<StepLevelRecord> levels{};
  bool operator==(const StepRecord&) const = default;
};

// One emit, recorded when it finished; or a run of a wrapped step (`step`
// set), recorded when it finished: its payload is the step's event, it has
// no handlers and no result, and decided_by names the wrapper that refused it.
struct EmissionRecord {
  std::uint64_t seq = 0;     // per bus, from 0, in the order emits started (among the recorded ones)
  std::uint32_t thread = 0;  // hookbus's number of the emitting thread: 1 is the first thread it saw
  // Wall clock at the emit's start. The bus takes it as the steady clock plus
  // the wall-steady offset it measured once, so the records of one process
  // are consistent with each other (nested emits nest) whatever the wall
  // clock does meanwhile.
  std::chrono::sys_time<std::chrono::nanoseconds> start{};
  std::chrono::nanoseconds duration{};        // steady clock, the whole emit
  HookEvent payload{};                        // the event as emitted, before any handler changed it
  std::vector<HandlerRecord> handlers{};      // those reached, in call order
  HookOutcome result{};                       // the reduced result; monostate for observe-only events
  std::optional<Decider> decided_by{};        // the result's decided_by, when it has one
  std::optional<StepRecord> step{};           // a run of a wrapped step, not an emit
  // The handlers whose runs started ahead of their turn were stopped, in call
  // order: the chain ended before their turn (docs/semantics.md §16). A
  // sequential emit would not have run them; nothing they answered counted.
  std::vector<std::string> runs_stopped{};
  bool operator==(const EmissionRecord&) const = default;
};

// The first line of a trace file.
struct TraceHeader {
  std::chrono::sys_time<std::chrono::microseconds> started{};
  std::int64_t pid = 0;
  std::string host{};
  std::optional<std::filesystem::path> project{};  // absolute; unset when the engine named none
  bool operator==(const TraceHeader&) const = default;
};

// A trace line that does not fit the schema, or a trace file that cannot be
// read: "session.jsonl:3: handlers[1].action: unknown value 'blok'; expected
// one of: no_change, patch, ...".
class TraceError : public Error {
 public:
  TraceError(std::string source, std::size_t line, const std::string& what);
  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  [[nodiscard]] std::size_t line() const noexcept { return line_; }  // 0: not about one line

 private:
  std::string source_;
  std::size_t line_;
};

// ------------------------------------------------------------------ writing

// A line of the trace file as JSON (write_json makes it one line of valid UTF-8).
boost::json::object trace_json(const TraceHeader& header);
boost::json::object trace_json(const EmissionRecord& record);

// The same, as the line's text, without the newline.
std::string trace_line(const TraceHeader& header);
std::string trace_line(const EmissionRecord& record);

// ------------------------------------------------------------------ reading

// Reading is strict: every key the schema requires must be there with its
// type, enums must be one of their names (the error lists them), the payload
// must be a valid event of the named type and the result a valid result of
// it. Unknown keys are ignored (a newer hookbus may add some); a header of
// a format version this hookbus does not read is refused. `source` and
// `line` name the line in errors.
TraceHeader read_trace_header(std::string_view line, std::string_view source = "trace", std::size_t line_number = 1);
EmissionRecord read_emission_record(std::string_view line, std::string_view source = "trace",
                                    std::size_t line_number = 1);

// What hookbus reads as a trace file: a regular file (symlinks followed; a
// FIFO, a device, a directory or a dangling symlink is refused, as reading
// them could block or never end) of at most max_trace_file_bytes, no line
// longer than max_trace_line_bytes. A longer session: let the tracer rotate
// its file (TraceOptions::max_bytes).
inline constexpr std::uintmax_t max_trace_file_bytes = std::uintmax_t{256} << 20;  // 256 MiB
inline constexpr std::size_t max_trace_line_bytes = std::size_t{16} << 20;         // 16 MiB

// The whole text of a trace file, checked as above, for a TraceReader
// (through a std::istringstream). Throws TraceError naming the file:
// "t.jsonl: is a FIFO, not a regular file".
std::string read_trace_text(const std::filesystem::path& file);

// Reads a trace file line by line: the header at construction, then one
// record per next(). Errors are TraceErrors naming `source` and the line
// (a line longer than max_trace_line_bytes is one).
class TraceReader {
 public:
  TraceReader(std::istream& in, std::string source);
  [[nodiscard]] const TraceHeader& header() const noexcept { return header_; }
  // The next record, or nullopt at the end of the file.
  std::optional<EmissionRecord> next();
  // The line the last record (or the header) was read from.
  [[nodiscard]] std::size_t line() const noexcept { return line_; }

 private:
  bool read_line(std::string& text);

  std::istream& in_;
  std::string source_;
  std::size_t line_ = 0;
  TraceHeader header_{};
};

// A whole trace file (read_trace_text, then a TraceReader).
struct Trace {
  TraceHeader header{};
  std::vector<EmissionRecord> records{};
};
Trace read_trace_file(const std::filesystem::path& file);

}  // namespace hookbus
