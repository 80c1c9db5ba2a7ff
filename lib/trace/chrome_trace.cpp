// The Chrome trace event format (lib/trace/trace_writers.hpp), as the Trace
// Event Format document describes its JSON array form: every emit and every
// handler, every run of a wrapped step and each of its levels (a wrapper's
// call, inside it the attempts its next ran), is a complete event ("ph": "X"),
// nested by time on its thread's track, with its start ("ts") and duration
// ("dur") in microseconds, on the track of its thread ("tid"); metadata events
// ("ph": "M") name the process and each thread. The closing bracket may be
// missing (a crashed engine), which the format allows; a finished trace has it.

#include "trace/trace_writers.hpp"

#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/reflect.hpp>

#include "support/logging.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace hookbus::detail {

namespace json = boost::json;
using namespace std::chrono;

namespace {

constexpr unsigned kChromeFilesKept = 5;

double microseconds_between(sys_time<nanoseconds> origin, sys_time<nanoseconds> time) {
  return static_cast<double>((time - origin).count()) / 1000.0;
}

double microseconds_of(nanoseconds duration) { return static_cast<double>(duration.count()) / 1000.0; }

json::object metadata(std::string_view name, std::int64_t pid, std::uint32_t tid, std::string_view value) {
  return {{"name", name}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", json::object{{"name", value}}}};
}

std::string decider_text(const Decider& decider) {
  return decider.source.empty() ? decider.handler : fmt::format("{} ({})", decider.handler, decider.source);
}

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(std::filesystem::path file, std::filesystem::path confined_to, std::int64_t pid,
                                     const std::string& process_name)
    : pid_(pid),
      // What a previous tracer left becomes FILE.1.
      file_({.file = {.path = std::move(file), .confined_to = std::move(confined_to)},
             .header = "[\n" + write_json(metadata("process_name", pid, 0, process_name)),
             .max_bytes = 0,
             .max_files = kChromeFilesKept,
             .found = TraceFile::Found::kept}),
      origin_(time_point_cast<nanoseconds>(system_clock::now())) {}

ChromeTraceWriter::~ChromeTraceWriter() {
  if (!file_.started()) return;
  try {
    file_.write("\n]\n");
  } catch (const Error& error) {
    detail::log(spdlog::level::err, "trace: the Chrome trace is left without its closing bracket: {}", error.what());
  }
}

void ChromeTraceWriter::write_event(const json::object& event, std::string& text) const {
  text += ",\n";
  text += write_json(event);
}

void ChromeTraceWriter::write_slice(std::string_view name, std::string_view category, double start,
                                    std::chrono::nanoseconds duration, std::uint32_t thread, json::object args,
                                    std::string& text) const {
  write_event({{"name", name},
               {"cat", category},
               {"ph", "X"},
               {"ts", start},
               {"dur", microseconds_of(duration)},
               {"pid", pid_},
               {"tid", thread},
               {"args", std::move(args)}},
              text);
}

void ChromeTraceWriter::write(const EmissionRecord& record) {
  std::string text;
  if (named_threads_.insert(record.thread).second)
    write_event(metadata("thread_name", pid_, record.thread, fmt::format("hookbus thread {}", record.thread)), text);
  json::object args{{"seq", record.seq}};
  if (const auto tool = tool_of(record.payload)) {
    args.emplace("tool", tool->name);
    args.emplace("tool_call_id", tool->call_id);
  }
  const double start = microseconds_between(origin_, record.start);
  if (record.step) {
    write_step(record, start, std::move(args), text);
    file_.write(text);
    return;
  }

  if (!std::holds_alternative<std::monostate>(record.result)) args.emplace("result", to_json(record.result));
  if (record.decided_by) args.emplace("decided_by", decider_text(*record.decided_by));
  if (!record.runs_stopped.empty()) args.emplace("runs_stopped", fmt::format("{}", fmt::join(record.runs_stopped, ", ")));
  write_slice(event_name(record.payload), "emit", start, record.duration, record.thread, std::move(args), text);
  for (const HandlerRecord& handler : record.handlers) {
    json::object handler_args{{"kind", *reflect::enum_wire_name(handler.kind)},
                              {"action", *reflect::enum_wire_name(handler.action)}};
    if (!handler.source.empty()) handler_args.emplace("source", handler.source);
    if (!handler.protocol.empty()) handler_args.emplace("protocol", handler.protocol);
    if (handler.layer) handler_args.emplace("layer", layer_name(*handler.layer));
    if (!handler.reason.empty()) handler_args.emplace("reason", handler.reason);
    if (handler.action == HandlerAction::failed) handler_args.emplace("error", handler.error);
    if (handler.ran_ahead != RanAhead::no) handler_args.emplace("ran_ahead", *reflect::enum_wire_name(handler.ran_ahead));
    write_slice(handler.label, "handler", start + microseconds_of(handler.start_offset), handler.duration,
                record.thread, std::move(handler_args), text);
  }
  file_.write(text);
}

// A run of a wrapped step: a slice for the run, one for each level inside it.
void ChromeTraceWriter::write_step(const EmissionRecord& record, double start, json::object args,
                                   std::string& text) const {
  if (record.decided_by) args.emplace("refused_by", decider_text(*record.decided_by));
  write_slice(fmt::format("step {}", event_name(record.payload)), "step", start, record.duration, record.thread,
              std::move(args), text);
  for (const StepLevelRecord& level : record.step->levels) {
    json::object level_args{{"outcome", *reflect::enum_wire_name(level.outcome)}};
    if (!level.step) level_args.emplace("next_calls", level.next_calls);
    if (!level.source.empty()) level_args.emplace("source", level.source);
    if (!level.error.empty()) level_args.emplace("error", level.error);
    write_slice(level.step ? std::string_view("run step") : std::string_view(level.label),
                level.step ? "step" : "wrapper", start + microseconds_of(level.start_offset), level.duration,
                record.thread, std::move(level_args), text);
  }
}

}  // namespace hookbus::detail
