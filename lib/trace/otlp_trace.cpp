// OpenTelemetry spans in OTLP/JSON (lib/trace/trace_writers.hpp): one maker
// turns each record into spans for the OTLP file (a line per record) and the
// OTLP/HTTP exporter (otlp_http.cpp, a batch per request) alike. Each line or
// request is one ExportTraceServiceRequest in the protobuf JSON mapping, with
// OTLP's own rules: field names in lowerCamelCase, traceId and spanId as hex,
// enums as integers, 64-bit integers (times, intValue) as decimal strings.
// One trace per emit: a span for the emit, a child span per handler. One
// trace per run of a wrapped step: a span for the run, a child span per
// level, each the child of the wrapper whose next ran it.
//
// Attributes follow the GenAI semantic conventions where they fit (the tool
// and call of a tool event, the session as the conversation, the agent) and
// are hookbus.* otherwise.

#include "trace/trace_writers.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/reflect.hpp>
#include <hookbus/version.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <random>
#include <string>
#include <vector>

namespace hookbus::detail {

namespace json = boost::json;
using namespace std::chrono;

namespace {

constexpr int kSpanKindInternal = 1;  // opentelemetry.proto.trace.v1.Span.SpanKind
constexpr int kStatusCodeError = 2;   // opentelemetry.proto.trace.v1.Status.StatusCode

json::object attribute(std::string_view key, json::object value) { return {{"key", key}, {"value", std::move(value)}}; }

json::object text(std::string_view key, std::string_view value) {
  return attribute(key, {{"stringValue", value}});
}

json::object integer(std::string_view key, std::int64_t value) {
  return attribute(key, {{"intValue", std::to_string(value)}});
}

std::string unix_nanos(sys_time<nanoseconds> time) { return std::to_string(time.time_since_epoch().count()); }

}  // namespace

OtlpSpanMaker::OtlpSpanMaker(const TraceHeader& about) : random_(std::random_device{}()) {
  resource_attributes_.push_back(text("service.name", "hookbus"));
  resource_attributes_.push_back(integer("process.pid", about.pid));
  resource_attributes_.push_back(text("host.name", about.host));
  if (about.project) resource_attributes_.push_back(text("hookbus.project", about.project->string()));
}

// `bytes` random bytes as lowercase hex, never all zero (an invalid id).
std::string OtlpSpanMaker::new_id(std::size_t bytes) {
  std::string id;
  do {
    id.clear();
    for (std::size_t i = 0; i < bytes; i += 8) id += fmt::format("{:016x}", random_());
    id.resize(bytes * 2);
  } while (id.find_first_not_of('0') == std::string::npos);
  return id;
}

json::array OtlpSpanMaker::spans(const EmissionRecord& record) {
  const std::string trace_id = new_id(16);
  const std::string emit_span_id = new_id(8);
  const std::string_view event = event_name(record.payload);
  const auto tool = tool_of(record.payload);
  const EventContext& context = context_of(record.payload);

  json::array attributes{text("hookbus.event", event), integer("hookbus.seq", static_cast<std::int64_t>(record.seq)),
                         integer("hookbus.thread", record.thread)};
  if (tool) {
    attributes.push_back(text("gen_ai.operation.name", "execute_tool"));
    attributes.push_back(text("gen_ai.tool.name", tool->name));
    if (!tool->call_id.empty()) attributes.push_back(text("gen_ai.tool.call.id", tool->call_id));
  }
  if (!context.session_id.empty()) attributes.push_back(text("gen_ai.conversation.id", context.session_id));
  if (!context.agent_id.empty()) attributes.push_back(text("gen_ai.agent.id", context.agent_id));
  if (!std::holds_alternative<std::monostate>(record.result)) {
    const json::value result = to_json(record.result);
    if (const auto* decision = result.as_object().if_contains("decision"))
      attributes.push_back(text("hookbus.decision", decision->as_string()));
    attributes.push_back(text("hookbus.result", write_json(result)));
  }
  if (record.decided_by) {
    attributes.push_back(text("hookbus.decided_by.handler", record.decided_by->handler));
    attributes.push_back(text("hookbus.decided_by.source", record.decided_by->source));
  }
  if (record.step) attributes.push_back(text("hookbus.record", "step"));
  if (!record.runs_stopped.empty())
    attributes.push_back(text("hookbus.runs_stopped", fmt::format("{}", fmt::join(record.runs_stopped, ", "))));

  json::array spans;
  const std::string name = tool ? fmt::format("{} {}", event, tool->name) : std::string(event);
  spans.push_back(json::object{{"traceId", trace_id},
                               {"spanId", emit_span_id},
                               {"name", record.step ? "step " + name : name},
                               {"kind", kSpanKindInternal},
                               {"startTimeUnixNano", unix_nanos(record.start)},
                               {"endTimeUnixNano", unix_nanos(record.start + record.duration)},
                               {"attributes", std::move(attributes)},
                               {"status", json::object{}}});
  for (const HandlerRecord& handler : record.handlers) {
    json::array handler_attributes{text("hookbus.handler.label", handler.label),
                                   text("hookbus.handler.kind", *reflect::enum_wire_name(handler.kind)),
                                   text("hookbus.action", *reflect::enum_wire_name(handler.action))};
    if (!handler.source.empty()) handler_attributes.push_back(text("hookbus.handler.source", handler.source));
    if (!handler.protocol.empty()) handler_attributes.push_back(text("hookbus.handler.protocol", handler.protocol));
    if (handler.layer) handler_attributes.push_back(text("hookbus.handler.layer", layer_name(*handler.layer)));
    if (!handler.reason.empty()) handler_attributes.push_back(text("hookbus.reason", handler.reason));
    if (handler.ran_ahead != RanAhead::no)
      handler_attributes.push_back(text("hookbus.handler.ran_ahead", *reflect::enum_wire_name(handler.ran_ahead)));
    json::object status;
    if (handler.action == HandlerAction::failed) status = {{"code", kStatusCodeError}, {"message", handler.error}};
    const auto start = record.start + handler.start_offset;
    spans.push_back(json::object{{"traceId", trace_id},
                                 {"spanId", new_id(8)},
                                 {"parentSpanId", emit_span_id},
                                 {"name", fmt::format("hook {}", handler.label)},
                                 {"kind", kSpanKindInternal},
                                 {"startTimeUnixNano", unix_nanos(start)},
                                 {"endTimeUnixNano", unix_nanos(start + handler.duration)},
                                 {"attributes", std::move(handler_attributes)},
                                 {"status", std::move(status)}});
  }

  if (record.step) {
    std::vector<std::string> level_span_ids;
    for (const StepLevelRecord& level : record.step->levels) {
      level_span_ids.push_back(new_id(8));
      json::array level_attributes{text("hookbus.step.outcome", *reflect::enum_wire_name(level.outcome))};
      if (!level.step) {
        level_attributes.push_back(text("hookbus.handler.label", level.label));
        level_attributes.push_back(integer("hookbus.step.next_calls", level.next_calls));
      }
      if (!level.source.empty()) level_attributes.push_back(text("hookbus.handler.source", level.source));
      json::object status;
      if (level.outcome != StepOutcome::output) status = {{"code", kStatusCodeError}, {"message", level.error}};
      const auto start = record.start + level.start_offset;
      spans.push_back(json::object{{"traceId", trace_id},
                                   {"spanId", level_span_ids.back()},
                                   {"parentSpanId", level.parent ? level_span_ids.at(*level.parent) : emit_span_id},
                                   {"name", level.step ? std::string("run step") : fmt::format("wrap {}", level.label)},
                                   {"kind", kSpanKindInternal},
                                   {"startTimeUnixNano", unix_nanos(start)},
                                   {"endTimeUnixNano", unix_nanos(start + level.duration)},
                                   {"attributes", std::move(level_attributes)},
                                   {"status", std::move(status)}});
    }
  }

  return spans;
}

json::object OtlpSpanMaker::request(json::array spans) const {
  const json::object scope{{"name", "hookbus"}, {"version", std::string(version().string)}};
  return {{"resourceSpans",
           json::array{json::object{
               {"resource", json::object{{"attributes", resource_attributes_}}},
               {"scopeSpans", json::array{json::object{{"scope", scope}, {"spans", std::move(spans)}}}}}}}};
}

OtlpTraceWriter::OtlpTraceWriter(const OtlpTraceOptions& options, std::filesystem::path confined_to,
                                 const TraceHeader& about)
    // Appended to: each line stands alone, and a collector may be reading the file.
    : file_({.file = {.path = options.file, .confined_to = std::move(confined_to)},
             .header = {},
             .max_bytes = options.max_bytes,
             .max_files = options.max_files,
             .found = TraceFile::Found::appended}),
      spans_(about) {}

void OtlpTraceWriter::write(const EmissionRecord& record) {
  file_.write(write_json(spans_.request(spans_.spans(record))) + '\n');
}

}  // namespace hookbus::detail
