// The built-in tracer (tracer.hpp): each file format written by a real bus and
// read back (the JSONL trace with hookbus's own reader, the Chrome trace and
// the OTLP lines parsed and checked against their formats' rules), rotation,
// shutdown, and the config's "trace" settings.
#include "log_capture.hpp"
#include "script_fixture.hpp"

#include <hookbus/config.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/trace.hpp>
#include <hookbus/tracer.hpp>
#include <hookbus/version.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <stdexcept>
#include <sstream>
#include <thread>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::SizeIs;
using ::testing::StartsWith;

// Traces `hooks` as the options say, until the group is dropped.
ConnectionGroup trace(Hooks& hooks, TraceOptions options) {
  Tracer tracer(std::move(options));
  return hooks.add(tracer);
}

ToolCallEvent rm_rf() {
  return ToolCallEvent{.context = {.session_id = "session-7", .agent_id = "main"},
                       .tool_call_id = "call_1",
                       .tool_name = "bash",
                       .input = {{"command", "rm -rf /"}}};
}

// A bus with a small policy and a watcher, and the records an in-memory
// observer got, to compare the files with.
class Traced : public ::testing::Test {
 protected:
  TempDir dir;
  std::unique_ptr<Hooks> hooks = std::make_unique<Hooks>();
  std::vector<EmissionRecord> seen;
  std::mutex mutex;
  Connection witness = hooks->on_emission([this](const EmissionRecord& r) {
    std::lock_guard lock(mutex);
    seen.push_back(r);
  });
  Connection policy = hooks->on<ToolCallEvent>(
      [](const ToolCallEvent& e) -> std::optional<ToolCallResult> {
        if (e.input.at("command").as_string().starts_with("rm -rf"))
          return ToolCallResult{.decision = Decision::deny, .reason = "rm -rf is not allowed"};
        return std::nullopt;
      },
      {.label = "no-rm-rf", .source = ".hookbus/hooks/no-rm-rf"});
  Connection watcher = hooks->subscribe([](const HookEvent&) {}, {.label = "watcher"});

  void emit_session() {
    (void)hooks->emit(SessionStartEvent{.context = {.session_id = "session-7"}});
    (void)hooks->emit(rm_rf());
    (void)hooks->emit(TurnEndEvent{.context = {.session_id = "session-7"}});
  }

  // A tool run through a wrapper that retries once what the tool threw: the
  // first run of the step throws, the second gives the output.
  void run_retried_step() {
    auto retry = hooks->wrap<ToolCallEvent>(
        [](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
          try {
            return next(call);
          } catch (const std::runtime_error&) {
            return next(call);
          }
        },
        {.label = "retry", .source = "engine/retry"});
    int runs = 0;
    ToolCallEvent call = rm_rf();
    call.input["command"] = "make";
    (void)hooks->run_step(call, [&](const ToolCallEvent&) {
      if (++runs == 1) throw std::runtime_error("flaky tool");
      return ToolOutput{.content = {TextPart{"built"}}};
    });
  }
};

// --------------------------------------------------------------------- JSONL

TEST_F(Traced, TheJsonlFileReadsBackAsTheRecordsTheBusMade) {
  const fs::path file = dir / "trace" / "session.jsonl";
  {
    auto tracing = trace(*hooks, TraceOptions{.jsonl = JsonlTraceOptions{.file = file},
                                                                      .project = dir.path()});
    emit_session();
  }  // dropping the tracer writes what is queued
  const Trace trace = read_trace_file(file);
  EXPECT_EQ(trace.header.pid, ::getpid());
  EXPECT_EQ(trace.header.project, dir.path());
  EXPECT_EQ(trace.records, seen);
  ASSERT_THAT(trace.records, SizeIs(3));
  EXPECT_EQ(trace.records[1].decided_by, (Decider{"no-rm-rf", ".hookbus/hooks/no-rm-rf"}));
}

TEST_F(Traced, AWrappedStepIsAStepLineThatReadsBackAsTheRecordTheBusMade) {
  const fs::path file = dir / "session.jsonl";
  {
    auto tracing = trace(*hooks, TraceOptions{.jsonl = JsonlTraceOptions{.file = file}});
    run_retried_step();
  }
  const Trace trace = read_trace_file(file);
  EXPECT_EQ(trace.records, seen);
  ASSERT_THAT(trace.records, SizeIs(1));
  ASSERT_TRUE(trace.records[0].step.has_value());
  EXPECT_THAT(trace.records[0].step->levels, SizeIs(3));
}

TEST_F(Traced, ASynchronousTracerWritesEachRecordBeforeTheEmitReturns) {
  const fs::path file = dir / "session.jsonl";
  Tracer tracer(TraceOptions{.jsonl = JsonlTraceOptions{.file = file}, .queue = std::nullopt});
  auto tracing = hooks->add(tracer);
  (void)hooks->emit(rm_rf());
  EXPECT_THAT(read_trace_file(file).records, SizeIs(1));
}

TEST_F(Traced, DestroyingTheBusWritesTheLastRecordOfAQueuedTracer) {
  const fs::path file = dir / "session.jsonl";
  trace(*hooks, TraceOptions{.jsonl = JsonlTraceOptions{.file = file}}).release();  // only the bus's end stops it
  for (int i = 0; i < 200; ++i) hooks->emit(TurnStartEvent{.turn_index = static_cast<std::uint32_t>(i)});
  hooks.reset();
  const Trace trace = read_trace_file(file);
  ASSERT_THAT(trace.records, SizeIs(200));
  ASSERT_TRUE(std::holds_alternative<TurnStartEvent>(trace.records.back().payload));
  EXPECT_EQ(std::get<TurnStartEvent>(trace.records.back().payload).turn_index, 199u);
}

TEST_F(Traced, TheJsonlFileIsRotatedBySizeEachPartStartingWithAHeader) {
  const fs::path file = dir / "session.jsonl";
  {
    auto tracing = trace(*hooks,
        TraceOptions{.jsonl = JsonlTraceOptions{.file = file, .max_bytes = 4096, .max_files = 100}});
    for (int i = 0; i < 100; ++i) (void)hooks->emit(rm_rf());
  }
  std::vector<EmissionRecord> all;
  for (int part = 100; part >= 0; --part) {
    const fs::path path = part == 0 ? file : fs::path(file.string() + "." + std::to_string(part));
    if (!fs::exists(path)) continue;
    EXPECT_LE(fs::file_size(path), 4096u) << path;
    for (auto& record : read_trace_file(path).records) all.push_back(std::move(record));
  }
  EXPECT_TRUE(fs::exists(file.string() + ".2"));
  EXPECT_EQ(all, seen);
}

TEST_F(Traced, ATracerKeepsTheFileItFindsAsFileDotOne) {
  const fs::path file = dir / "session.jsonl";
  for (int run = 0; run < 2; ++run) {
    auto tracing = trace(*hooks, TraceOptions{.jsonl = JsonlTraceOptions{.file = file}});
    hooks->emit(TurnStartEvent{.turn_index = static_cast<std::uint32_t>(run)});
  }
  EXPECT_EQ(std::get<TurnStartEvent>(read_trace_file(file.string() + ".1").records.at(0).payload).turn_index, 0u);
  EXPECT_EQ(std::get<TurnStartEvent>(read_trace_file(file).records.at(0).payload).turn_index, 1u);
}

TEST_F(Traced, ATracerThatRecordsNothingLeavesItsFilesAlone) {
  const fs::path jsonl = dir / "session.jsonl";
  const fs::path chrome = dir / "session.trace.json";
  std::ofstream(jsonl) << "the previous session\n";
  { auto tracing = trace(*hooks, TraceOptions{.jsonl = JsonlTraceOptions{.file = jsonl}, .chrome = chrome}); }
  EXPECT_EQ(testing::read_file(jsonl), "the previous session\n");
  EXPECT_FALSE(fs::exists(jsonl.string() + ".1"));
  EXPECT_FALSE(fs::exists(chrome));
}

// -------------------------------------------------------------------- Chrome

// The Trace Event Format's rules for what we write: an array of events, each
// with name, ph, pid and tid; complete events ("X") with ts and dur in
// microseconds; metadata events ("M") naming the process and threads.
TEST_F(Traced, TheChromeTraceIsAnArrayOfCompleteEventsPerEmitAndHandlerOnTheirThreadsTrack) {
  const fs::path file = dir / "session.trace.json";
  {
    auto tracing = trace(*hooks, TraceOptions{.chrome = file});
    emit_session();
    std::thread([&] { hooks->emit(TurnStartEvent{}); }).join();
  }
  const json::value document = parse_json(testing::read_file(file), file.string());
  ASSERT_TRUE(document.is_array());
  std::vector<json::object> complete;
  std::set<std::int64_t> named_threads;
  bool process_named = false;
  for (const auto& value : document.as_array()) {
    const json::object& event = value.as_object();
    for (const char* key : {"name", "ph", "pid", "tid"}) EXPECT_TRUE(event.contains(key)) << key << " in " << event;
    EXPECT_EQ(event.at("pid").as_int64(), ::getpid());
    const std::string_view phase = event.at("ph").as_string();
    if (phase == "M") {
      ASSERT_TRUE(event.at("args").as_object().contains("name"));
      if (event.at("name") == "process_name") process_named = true;
      if (event.at("name") == "thread_name") named_threads.insert(event.at("tid").as_int64());
      continue;
    }
    ASSERT_EQ(phase, "X");
    EXPECT_TRUE(event.at("ts").is_number());
    EXPECT_GE(event.at("dur").to_number<double>(), 0.0);
    EXPECT_TRUE(event.at("args").is_object());
    complete.push_back(event);
  }
  EXPECT_TRUE(process_named);
  EXPECT_THAT(named_threads, SizeIs(2));
  // 4 emits; the policy ran on tool_call, the watcher on each.
  const auto count = [&](std::string_view cat) {
    return std::count_if(complete.begin(), complete.end(), [&](const auto& e) { return e.at("cat").as_string() == cat; });
  };
  EXPECT_EQ(count("emit"), 4);
  EXPECT_EQ(count("handler"), 5);
  // The tool_call's events: the emit with the decision, its handlers within it on the same track.
  const auto emit = std::find_if(complete.begin(), complete.end(), [](const auto& e) { return e.at("name") == "tool_call"; });
  ASSERT_NE(emit, complete.end());
  EXPECT_EQ(emit->at("args").at("result").at("decision"), "deny");
  EXPECT_EQ(emit->at("args").at("decided_by"), "no-rm-rf (.hookbus/hooks/no-rm-rf)");
  EXPECT_EQ(emit->at("args").at("tool"), "bash");
  const auto policy_event = std::next(emit);
  EXPECT_EQ(policy_event->at("name"), "no-rm-rf");
  EXPECT_EQ(policy_event->at("args").at("action"), "deny");
  EXPECT_EQ(policy_event->at("args").at("reason"), "rm -rf is not allowed");
  EXPECT_EQ(policy_event->at("tid"), emit->at("tid"));
  const double emit_start = emit->at("ts").to_number<double>();
  const double emit_end = emit_start + emit->at("dur").to_number<double>();
  const double start = policy_event->at("ts").to_number<double>();
  EXPECT_GE(start, emit_start);
  EXPECT_LE(start + policy_event->at("dur").to_number<double>(), emit_end + 1e-3);
}

TEST_F(Traced, AWrappedStepIsASliceWithOneForEachLevelWithinItOnItsThreadsTrack) {
  const fs::path file = dir / "session.trace.json";
  {
    auto tracing = trace(*hooks, TraceOptions{.chrome = file});
    run_retried_step();
  }
  const json::value document = parse_json(testing::read_file(file), file.string());
  std::vector<json::object> slices;
  for (const auto& value : document.as_array())
    if (value.at("ph") == "X") slices.push_back(value.as_object());
  ASSERT_THAT(slices, SizeIs(4));
  const json::object& run = slices[0];
  EXPECT_EQ(run.at("name"), "step tool_call");
  EXPECT_EQ(run.at("cat"), "step");
  EXPECT_EQ(run.at("args").at("tool"), "bash");
  EXPECT_EQ(slices[1].at("name"), "retry");
  EXPECT_EQ(slices[1].at("cat"), "wrapper");
  EXPECT_EQ(slices[1].at("args").at("next_calls"), 2);
  EXPECT_EQ(slices[1].at("args").at("outcome"), "output");
  EXPECT_EQ(slices[2].at("name"), "run step");
  EXPECT_EQ(slices[2].at("args").at("outcome"), "threw");
  EXPECT_EQ(slices[2].at("args").at("error"), "flaky tool");
  EXPECT_EQ(slices[3].at("args").at("outcome"), "output");
  // Each slice within the one around it, on one track: Perfetto nests them so.
  const auto within = [](const json::object& inner, const json::object& outer) {
    const double start = inner.at("ts").to_number<double>(), end = start + inner.at("dur").to_number<double>();
    const double outer_start = outer.at("ts").to_number<double>();
    return start >= outer_start - 1e-3 && end <= outer_start + outer.at("dur").to_number<double>() + 1e-3;
  };
  EXPECT_TRUE(within(slices[1], run));
  EXPECT_TRUE(within(slices[2], slices[1]));
  EXPECT_TRUE(within(slices[3], slices[1]));
  EXPECT_LE(slices[2].at("ts").to_number<double>() + slices[2].at("dur").to_number<double>(),
            slices[3].at("ts").to_number<double>() + 1e-3);
  for (const auto& slice : slices) EXPECT_EQ(slice.at("tid"), run.at("tid"));
}

// --------------------------------------------------------------------- OTLP

// The messages an ExportTraceServiceRequest is made of, as opentelemetry-proto
// defines them (collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
// resource/v1/resource.proto, common/v1/common.proto), by the JSON names of
// their fields (lowerCamelCase, the protobuf JSON mapping) and what each
// holds: another message, or a value written as OTLP/JSON writes it.
enum class OtlpValue { message, string, hex_id, decimal_string, integer, boolean, number, base64 };
struct OtlpField {
  std::string_view name;
  OtlpValue value;
  std::string_view message = {};  // OtlpValue::message: which
  bool repeated = false;
};
const std::map<std::string_view, std::vector<OtlpField>>& otlp_messages() {
  using enum OtlpValue;
  static const std::map<std::string_view, std::vector<OtlpField>> messages{
      {"ExportTraceServiceRequest", {{"resourceSpans", message, "ResourceSpans", true}}},
      {"ResourceSpans",
       {{"resource", message, "Resource"}, {"scopeSpans", message, "ScopeSpans", true}, {"schemaUrl", string}}},
      {"Resource", {{"attributes", message, "KeyValue", true}, {"droppedAttributesCount", integer}}},
      {"ScopeSpans",
       {{"scope", message, "InstrumentationScope"}, {"spans", message, "Span", true}, {"schemaUrl", string}}},
      {"InstrumentationScope",
       {{"name", string},
        {"version", string},
        {"attributes", message, "KeyValue", true},
        {"droppedAttributesCount", integer}}},
      {"Span",
       {{"traceId", hex_id},
        {"spanId", hex_id},
        {"traceState", string},
        {"parentSpanId", hex_id},
        {"flags", integer},
        {"name", string},
        {"kind", integer},  // enums are integers in OTLP/JSON
        {"startTimeUnixNano", decimal_string},
        {"endTimeUnixNano", decimal_string},
        {"attributes", message, "KeyValue", true},
        {"droppedAttributesCount", integer},
        {"events", message, "Event", true},
        {"droppedEventsCount", integer},
        {"links", message, "Link", true},
        {"droppedLinksCount", integer},
        {"status", message, "Status"}}},
      {"Event",
       {{"timeUnixNano", decimal_string},
        {"name", string},
        {"attributes", message, "KeyValue", true},
        {"droppedAttributesCount", integer}}},
      {"Link",
       {{"traceId", hex_id},
        {"spanId", hex_id},
        {"traceState", string},
        {"attributes", message, "KeyValue", true},
        {"droppedAttributesCount", integer},
        {"flags", integer}}},
      {"Status", {{"message", string}, {"code", integer}}},
      {"KeyValue", {{"key", string}, {"value", message, "AnyValue"}}},
      {"AnyValue",
       {{"stringValue", string},
        {"boolValue", boolean},
        {"intValue", decimal_string},  // int64
        {"doubleValue", number},
        {"arrayValue", message, "ArrayValue"},
        {"kvlistValue", message, "KeyValueList"},
        {"bytesValue", base64}}},
      {"ArrayValue", {{"values", message, "AnyValue", true}}},
      {"KeyValueList", {{"values", message, "KeyValue", true}}},
  };
  return messages;
}

void expect_otlp_message(const json::value& value, std::string_view message, const std::string& path);

void expect_otlp_value(const json::value& value, const OtlpField& field, const std::string& path) {
  switch (field.value) {
    case OtlpValue::message: return expect_otlp_message(value, field.message, path);
    case OtlpValue::string: EXPECT_TRUE(value.is_string()) << path; return;
    case OtlpValue::hex_id:
      EXPECT_THAT(value.is_string() ? std::string(value.as_string()) : "", MatchesRegex("([0-9a-f]{16}){1,2}"))
          << path << ": an id is lowercase hex";
      return;
    case OtlpValue::decimal_string:
      EXPECT_THAT(value.is_string() ? std::string(value.as_string()) : "", MatchesRegex("-?[0-9]+"))
          << path << ": 64-bit integers are decimal strings";
      return;
    case OtlpValue::integer: EXPECT_TRUE(value.is_int64() || value.is_uint64()) << path; return;
    case OtlpValue::boolean: EXPECT_TRUE(value.is_bool()) << path; return;
    case OtlpValue::number: EXPECT_TRUE(value.is_number()) << path; return;
    case OtlpValue::base64: EXPECT_TRUE(value.is_string()) << path; return;
  }
}

// Every key of `value` is a field of `message`, holding what that field holds.
void expect_otlp_message(const json::value& value, std::string_view message, const std::string& path) {
  if (!value.is_object()) {
    ADD_FAILURE() << path << ": a " << message << " is an object";
    return;
  }
  const std::vector<OtlpField>& fields = otlp_messages().at(message);
  for (const auto& [key, member] : value.as_object()) {
    const std::string at = path + "." + std::string(key);
    const auto field = std::ranges::find(fields, std::string_view(key), &OtlpField::name);
    if (field == fields.end()) {
      ADD_FAILURE() << at << ": " << message << " has no field '" << std::string_view(key) << "'";
      continue;
    }
    if (!field->repeated) {
      expect_otlp_value(member, *field, at);
      continue;
    }
    if (!member.is_array()) {
      ADD_FAILURE() << at << ": a repeated field is an array";
      continue;
    }
    for (std::size_t i = 0; i < member.as_array().size(); ++i)
      expect_otlp_value(member.as_array()[i], *field, at + "[" + std::to_string(i) + "]");
  }
}

TEST(OtlpFieldCheck, AMisspeltOrUnknownFieldFails) {
  EXPECT_NONFATAL_FAILURE(
      expect_otlp_message(parse_json(R"({"resourceSpans": [{"scopeSpan": []}]})", "t"), "ExportTraceServiceRequest", "r"),
      "r.resourceSpans[0].scopeSpan: ResourceSpans has no field 'scopeSpan'");
  EXPECT_NONFATAL_FAILURE(expect_otlp_message(parse_json(R"({"name": "x", "start_time_unix_nano": "1"})", "t"), "Span", "s"),
                          "Span has no field 'start_time_unix_nano'");
  EXPECT_NONFATAL_FAILURE(expect_otlp_message(parse_json(R"({"startTimeUnixNano": 1})", "t"), "Span", "s"),
                          "64-bit integers are decimal strings");
}

std::map<std::string, json::value> attributes_of(const json::value& span) {
  std::map<std::string, json::value> attributes;
  for (const auto& attribute : span.at("attributes").as_array()) {
    EXPECT_THAT(attribute.as_object(), SizeIs(2));
    const json::object& value = attribute.at("value").as_object();
    EXPECT_THAT(value, SizeIs(1));  // AnyValue: one of its fields
    attributes.emplace(attribute.at("key").as_string(), value.begin()->value());
    const std::string_view kind = value.begin()->key();
    EXPECT_TRUE(kind == "stringValue" || kind == "intValue" || kind == "boolValue" || kind == "doubleValue") << kind;
    if (kind == "intValue") {
      EXPECT_TRUE(value.begin()->value().is_string()) << "int64 is a decimal string";
    }
  }
  return attributes;
}

TEST_F(Traced, OtlpLinesAreExportTraceServiceRequestsInTheProtobufJsonMapping) {
  const fs::path file = dir / "session.otlp.jsonl";
  {
    auto tracing = trace(*hooks, TraceOptions{.otlp = OtlpTraceOptions{.file = file}, .project = dir.path()});
    emit_session();
  }
  std::ifstream in(file);
  std::vector<json::value> requests;
  for (std::string line; std::getline(in, line);) requests.push_back(parse_json(line, file.string()));
  ASSERT_THAT(requests, SizeIs(3));
  for (const auto& request : requests) {
    expect_otlp_message(request, "ExportTraceServiceRequest", "request");
    const auto& resource_spans = request.at("resourceSpans").as_array();
    ASSERT_THAT(resource_spans, SizeIs(1));
    const auto resource = attributes_of(resource_spans[0].at("resource"));
    EXPECT_EQ(resource.at("service.name"), "hookbus");
    EXPECT_EQ(resource.at("process.pid"), json::value(std::to_string(::getpid())));
    EXPECT_EQ(resource.at("hookbus.project"), json::value(dir.path().string()));
    const auto& scope_spans = resource_spans[0].at("scopeSpans").as_array();
    ASSERT_THAT(scope_spans, SizeIs(1));
    EXPECT_EQ(scope_spans[0].at("scope").at("name"), "hookbus");
    EXPECT_EQ(scope_spans[0].at("scope").at("version"), json::value(hookbus::version().string));
    const auto& spans = scope_spans[0].at("spans").as_array();
    ASSERT_FALSE(spans.empty());
    const json::value& emit = spans[0];
    EXPECT_FALSE(emit.as_object().contains("parentSpanId"));
    for (const auto& span : spans) {
      EXPECT_THAT(std::string(span.at("traceId").as_string()), MatchesRegex("[0-9a-f]{32}"));
      EXPECT_THAT(std::string(span.at("spanId").as_string()), MatchesRegex("[0-9a-f]{16}"));
      EXPECT_EQ(span.at("traceId"), emit.at("traceId"));
      EXPECT_EQ(span.at("kind"), 1);  // SPAN_KIND_INTERNAL, an integer
      EXPECT_THAT(std::string(span.at("startTimeUnixNano").as_string()), MatchesRegex("[0-9]+"));
      EXPECT_THAT(std::string(span.at("endTimeUnixNano").as_string()), MatchesRegex("[0-9]+"));
      EXPECT_LE(std::stoull(std::string(span.at("startTimeUnixNano").as_string())),
                std::stoull(std::string(span.at("endTimeUnixNano").as_string())));
      if (&span != &emit) {
        EXPECT_EQ(span.at("parentSpanId"), emit.at("spanId"));
      }
    }
  }
  // The tool_call: GenAI attributes on the emit's span, the policy's span a child with its decision.
  const auto& spans = requests[1].at("resourceSpans").at(0).at("scopeSpans").at(0).at("spans").as_array();
  const auto emit = attributes_of(spans[0]);
  EXPECT_EQ(spans[0].at("name"), "tool_call bash");
  EXPECT_EQ(emit.at("gen_ai.operation.name"), "execute_tool");
  EXPECT_EQ(emit.at("gen_ai.tool.name"), "bash");
  EXPECT_EQ(emit.at("gen_ai.tool.call.id"), "call_1");
  EXPECT_EQ(emit.at("gen_ai.conversation.id"), "session-7");
  EXPECT_EQ(emit.at("gen_ai.agent.id"), "main");
  EXPECT_EQ(emit.at("hookbus.event"), "tool_call");
  EXPECT_EQ(emit.at("hookbus.decision"), "deny");
  EXPECT_EQ(emit.at("hookbus.decided_by.handler"), "no-rm-rf");
  const auto policy_span = attributes_of(spans[1]);
  EXPECT_EQ(spans[1].at("name"), "hook no-rm-rf");
  EXPECT_EQ(policy_span.at("hookbus.action"), "deny");
  EXPECT_EQ(policy_span.at("hookbus.reason"), "rm -rf is not allowed");
  EXPECT_EQ(policy_span.at("hookbus.handler.source"), ".hookbus/hooks/no-rm-rf");
}

TEST_F(Traced, AWrappedStepsSpansAreEachTheChildOfTheWrapperWhoseNextRanIt) {
  const fs::path file = dir / "session.otlp.jsonl";
  {
    auto tracing = trace(*hooks, TraceOptions{.otlp = OtlpTraceOptions{.file = file}});
    run_retried_step();
  }
  const json::value request = parse_json(testing::read_file(file), file.string());
  expect_otlp_message(request, "ExportTraceServiceRequest", "request");
  const auto& spans = request.at("resourceSpans").at(0).at("scopeSpans").at(0).at("spans").as_array();
  ASSERT_THAT(spans, SizeIs(4));
  EXPECT_EQ(spans[0].at("name"), "step tool_call bash");
  EXPECT_EQ(attributes_of(spans[0]).at("hookbus.record"), "step");
  EXPECT_EQ(spans[1].at("name"), "wrap retry");
  EXPECT_EQ(spans[1].at("parentSpanId"), spans[0].at("spanId"));
  EXPECT_EQ(attributes_of(spans[1]).at("hookbus.step.next_calls"), "2");
  for (const std::size_t attempt : {2u, 3u}) {
    EXPECT_EQ(spans[attempt].at("name"), "run step");
    EXPECT_EQ(spans[attempt].at("parentSpanId"), spans[1].at("spanId"));
  }
  EXPECT_EQ(spans[2].at("status"), (json::object{{"code", 2}, {"message", "flaky tool"}}));
  EXPECT_EQ(spans[3].at("status"), json::object{});
}

TEST_F(Traced, AFailedHandlersSpanHasAnErrorStatusWithItsMessage) {
  const fs::path file = dir / "session.otlp.jsonl";
  auto broken = hooks->on<TurnStartEvent>([](const TurnStartEvent&) { throw std::runtime_error("boom"); },
                                          {.label = "broken"});
  {
    auto tracing = trace(*hooks, TraceOptions{.otlp = OtlpTraceOptions{.file = file}});
    hooks->emit(TurnStartEvent{});
  }
  const json::value request = parse_json(testing::read_file(file), file.string());
  const auto& spans = request.at("resourceSpans").at(0).at("scopeSpans").at(0).at("spans").as_array();
  EXPECT_EQ(spans[1].at("status"), (json::object{{"code", 2}, {"message", "boom"}}));
}

TEST_F(Traced, AFileThatCannotBeWrittenIsReportedAndTheOtherFilesStillGetTheRecord) {
  std::vector<HandlerFailure> errors;
  auto listener = hooks->on_handler_error([&](const HandlerFailure& e) { errors.push_back(e); });
  const fs::path jsonl = dir / "session.jsonl";
  {
    auto tracing = trace(*hooks, 
        TraceOptions{.jsonl = JsonlTraceOptions{.file = jsonl}, .otlp = OtlpTraceOptions{.file = "/dev/full"},
                     .queue = std::nullopt});
    hooks->emit(TurnStartEvent{});
  }
  EXPECT_THAT(read_trace_file(jsonl).records, SizeIs(1));
  ASSERT_THAT(errors, SizeIs(1));
  EXPECT_EQ(errors[0].handler, "trace");
  EXPECT_THAT(errors[0].message, HasSubstr("/dev/full: cannot write: No space left on device"));
}

TEST_F(Traced, TheOtlpFileIsAppendedToAcrossRuns) {
  const fs::path file = dir / "session.otlp.jsonl";
  for (int run = 0; run < 2; ++run) {
    auto tracing = trace(*hooks, TraceOptions{.otlp = OtlpTraceOptions{.file = file}});
    hooks->emit(TurnStartEvent{});
  }
  std::ifstream in(file);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) (void)parse_json(line, file.string());
  EXPECT_EQ(lines, 2u);
  EXPECT_FALSE(fs::exists(file.string() + ".1"));
}

TEST_F(Traced, TheOtlpFileIsRotatedBySize) {
  const fs::path file = dir / "session.otlp.jsonl";
  {
    auto tracing = trace(*hooks, TraceOptions{.otlp = OtlpTraceOptions{.file = file, .max_bytes = 4096, .max_files = 100}});
    for (int i = 0; i < 100; ++i) (void)hooks->emit(rm_rf());
  }
  std::size_t requests = 0;
  for (int part = 0; part <= 100; ++part) {
    const fs::path path = part == 0 ? file : fs::path(file.string() + "." + std::to_string(part));
    if (!fs::exists(path)) continue;
    EXPECT_LE(fs::file_size(path), 4096u) << path;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line); ++requests) (void)parse_json(line, path.string());
  }
  EXPECT_TRUE(fs::exists(file.string() + ".2"));
  EXPECT_EQ(requests, 100u);
}

// ----------------------------------------------------- where a tracer writes

// A trace file may be named by a repository (its project config), which may
// also hold symbolic links: each writer must refuse to be led anywhere else.
enum class Format { jsonl, chrome, otlp };

std::string format_name(const ::testing::TestParamInfo<Format>& info) {
  switch (info.param) {
    case Format::jsonl: return "Jsonl";
    case Format::chrome: return "Chrome";
    case Format::otlp: return "Otlp";
  }
  return "?";
}

class TraceFileSafety : public ::testing::TestWithParam<Format> {
 protected:
  // Recording on the emitting thread to `file` in the format under test.
  TraceOptions writing(const fs::path& file, std::optional<fs::path> confined_to = std::nullopt) const {
    TraceOptions options{.queue = std::nullopt, .confined_to = std::move(confined_to)};
    switch (GetParam()) {
      case Format::jsonl: options.jsonl = JsonlTraceOptions{.file = file}; break;
      case Format::chrome: options.chrome = file; break;
      case Format::otlp: options.otlp = OtlpTraceOptions{.file = file}; break;
    }
    return options;
  }
  std::string error_making(const TraceOptions& options) const {
    try {
      Tracer tracer(options);
    } catch (const Error& error) {
      return error.what();
    }
    return "no error";
  }
  // What the tracer's failures said, one per record it could not write.
  std::vector<std::string> failures() const {
    std::vector<std::string> messages;
    for (const HandlerFailure& error : errors) messages.push_back(error.message);
    return messages;
  }
  bool outside_holds_only_the_victim() const {
    return std::distance(fs::directory_iterator(outside.path()), fs::directory_iterator()) == 1 &&
           testing::read_file(victim) == "the user's own file\n";
  }

  TempDir outside;  // where a repository's links point
  TempDir project;
  const fs::path victim = testing::write_file(outside / "victim.txt", "the user's own file\n");
  Hooks hooks;
  std::vector<HandlerFailure> errors;
  Connection listener = hooks.on_handler_error([this](const HandlerFailure& e) { errors.push_back(e); });
};

INSTANTIATE_TEST_SUITE_P(EachWriter, TraceFileSafety, ::testing::Values(Format::jsonl, Format::chrome, Format::otlp),
                         format_name);

TEST_P(TraceFileSafety, ALinkAtTheFileIsRefusedAndWhatItPointsToIsLeftAlone) {
  const fs::path file = project / "session";
  fs::create_symlink(victim, file);
  EXPECT_THAT(error_making(writing(file)), HasSubstr(file.string() + " is a symbolic link, which hookbus never writes through"));
  EXPECT_TRUE(outside_holds_only_the_victim());
}

TEST_P(TraceFileSafety, ADirectoryAtTheFilesPathIsAnErrorWhenTheTracerIsMade) {
  testing::make_directories(project / "session");
  EXPECT_THAT(error_making(writing(project / "session")), HasSubstr((project / "session").string() + ": is a directory"));
}

TEST_P(TraceFileSafety, ALinkPutAtTheFileOnceTheTracerStartedIsNeitherRotatedNorWrittenThrough) {
  const fs::path file = project / "session";
  Tracer tracer(writing(file));
  auto tracing = hooks.add(tracer);
  fs::create_symlink(victim, file);
  hooks.emit(TurnStartEvent{});
  EXPECT_THAT(failures(), ElementsAre(HasSubstr(file.string() + " is a symbolic link")));
  EXPECT_TRUE(fs::is_symlink(file));
  EXPECT_FALSE(fs::exists(fs::symlink_status(file.string() + ".1")));
  EXPECT_TRUE(outside_holds_only_the_victim());
}

TEST_P(TraceFileSafety, ALinkedDirectoryInsideTheConfiningDirectoryIsRefused) {
  fs::create_directory_symlink(outside.path(), project / "trace");
  Tracer tracer(writing(project / "trace" / "session", project.path()));
  auto tracing = hooks.add(tracer);
  hooks.emit(TurnStartEvent{});
  EXPECT_THAT(failures(), ElementsAre(HasSubstr((project / "trace").string() + " is a symbolic link")));
  EXPECT_TRUE(outside_holds_only_the_victim());
}

// What is on disk can change after the user trusted the project (a link
// pulled in): it must not stop the engine, and with it the user's guards.
TEST_P(TraceFileSafety, WhatIsWrongOnDiskWithAProjectsFileWhenTheTracerStartsIsAWarningNotAnError) {
  fs::create_symlink(victim, project / "session");
  const testing::LogCapture log;
  EXPECT_EQ(error_making(writing(project / "session", project.path())), "no error");
  EXPECT_THAT(log.text(), HasSubstr("trace: " + (project / "session").string() +
                                    " is a symbolic link, which hookbus never writes through"));
}

TEST_P(TraceFileSafety, AProjectsFileInVersionControlMetadataIsRefused) {
  EXPECT_THAT(error_making(writing(project / ".git" / "hooks" / "pre-commit", project.path())),
              HasSubstr("pre-commit: is in version-control metadata (.git)"));
  EXPECT_FALSE(fs::exists(project / ".git"));
}

TEST_P(TraceFileSafety, ADirectoryReplacedByALinkOnceTheTracerStartedIsNotWrittenThrough) {
  testing::make_directories(project / "trace");
  Tracer tracer(writing(project / "trace" / "session", project.path()));
  auto tracing = hooks.add(tracer);
  fs::remove(project / "trace");
  fs::create_directory_symlink(outside.path(), project / "trace");
  hooks.emit(TurnStartEvent{});
  EXPECT_THAT(failures(), ElementsAre(HasSubstr((project / "trace").string() + " is a symbolic link")));
  EXPECT_TRUE(outside_holds_only_the_victim());
}

TEST_P(TraceFileSafety, AFileOutsideTheConfiningDirectoryIsRefused) {
  EXPECT_THAT(error_making(writing(outside / "session", project.path())),
              HasSubstr((outside / "session").string() + ": leaves the project directory: a project's files stay inside " +
                        project.path().string()));
  EXPECT_TRUE(outside_holds_only_the_victim());
}

TEST_P(TraceFileSafety, ALinkAmongTheRotatedFilesIsReplacedNeverFollowed) {
  const fs::path file = project / "session";
  testing::write_file(file, "the previous run\n");
  fs::create_symlink(victim, file.string() + ".1");
  TraceOptions options = writing(file, project.path());
  if (options.otlp) options.otlp->max_bytes = 1;  // appended to, so rotated only by size: at once
  {
    Tracer tracer(options);
    auto tracing = hooks.add(tracer);
    hooks.emit(TurnStartEvent{});
  }
  EXPECT_THAT(failures(), ::testing::IsEmpty());
  EXPECT_FALSE(fs::is_symlink(file.string() + ".1"));
  EXPECT_EQ(testing::read_file(file.string() + ".1"), "the previous run\n");
  EXPECT_TRUE(outside_holds_only_the_victim());
}

TEST_P(TraceFileSafety, AFifoAtAConfinedPathIsAnErrorNotAWait) {
  const fs::path file = project / "session";
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  Tracer tracer(writing(file, project.path()));
  auto tracing = hooks.add(tracer);
  hooks.emit(TurnStartEvent{});  // opening a FIFO nobody reads would wait forever
  EXPECT_THAT(failures(), ElementsAre(HasSubstr(file.string() + ": is not a regular file")));
}

TEST_P(TraceFileSafety, ANewTraceFileIsReadableByItsOwnerOnly) {
  const fs::path file = project / "session";
  {
    Tracer tracer(writing(file, project.path()));
    auto tracing = hooks.add(tracer);
    hooks.emit(TurnStartEvent{});
  }
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

// The OTLP file is appended to: a project's with another name (a hard link
// to the user's file, made by a command, not by git) is never written.
TEST(AppendedTraceFile, AProjectsFileWithAnotherNameIsNotAppendedTo) {
  TempDir outside;
  TempDir project;
  const fs::path victim = testing::write_file(outside / "victim.txt", "the user's own file\n");
  fs::create_hard_link(victim, project / "session.otlp.jsonl");
  Hooks hooks;
  std::vector<std::string> failures;
  Connection listener = hooks.on_handler_error([&](const HandlerFailure& e) { failures.push_back(e.message); });
  {
    Tracer tracer({.otlp = OtlpTraceOptions{.file = project / "session.otlp.jsonl"}, .queue = std::nullopt,
                   .confined_to = project.path()});
    auto tracing = hooks.add(tracer);
    hooks.emit(TurnStartEvent{});
  }
  EXPECT_THAT(failures, ElementsAre(HasSubstr("session.otlp.jsonl: has 2 names (hard links)")));
  EXPECT_EQ(testing::read_file(victim), "the user's own file\n");
}

// ------------------------------------------------------------------- config

ConfigObject settings_of(const json::object& object, const fs::path& project) {
  return ConfigObject(object, ConfigLocation{.file = project / ".hookbus" / "config.json", .project_dir = project, .path = "trace"});
}

TEST(TraceConfig, EverySettingIsRead) {
  const json::object settings{{"jsonl", {{"file", "trace/s.jsonl"}, {"max_bytes", 1048576}, {"max_files", 3}}},
                              {"chrome", "trace/s.trace.json"},
                              {"otlp", {{"file", "trace/s.otlp.jsonl"}, {"max_bytes", 8192}, {"max_files", 2}}},
                              {"queue", {{"capacity", 128}, {"overflow", "drop_oldest"}}}};
  const TraceOptions options = read_trace_options(settings_of(settings, "/p"), Layer::project);
  ASSERT_TRUE(options.jsonl);
  EXPECT_EQ(options.jsonl->file, "/p/trace/s.jsonl");
  EXPECT_EQ(options.jsonl->max_bytes, 1048576u);
  EXPECT_EQ(options.jsonl->max_files, 3u);
  EXPECT_EQ(options.chrome, fs::path("/p/trace/s.trace.json"));
  ASSERT_TRUE(options.otlp);
  EXPECT_EQ(options.otlp->file, "/p/trace/s.otlp.jsonl");
  EXPECT_EQ(options.otlp->max_bytes, 8192u);
  EXPECT_EQ(options.otlp->max_files, 2u);
  ASSERT_TRUE(options.queue);
  EXPECT_EQ(options.queue->capacity, 128u);
  EXPECT_EQ(options.queue->overflow, Overflow::drop_oldest);
  EXPECT_EQ(options.project, fs::path("/p"));
}

TEST(TraceConfig, AnOtlpFileGivenAsAPathIsRotatedAt64MiB) {
  const TraceOptions options = read_trace_options(settings_of({{"otlp", "s.otlp.jsonl"}}, "/p"), Layer::project);
  ASSERT_TRUE(options.otlp);
  EXPECT_EQ(options.otlp->max_bytes, std::uintmax_t{64} << 20);
  EXPECT_EQ(options.otlp->max_files, 5u);
}

TEST(TraceConfig, AProjectsConfigConfinesItsTraceFilesToTheProject) {
  for (const Layer layer : {Layer::project, Layer::local}) {
    const TraceOptions options = read_trace_options(settings_of({{"jsonl", "trace/s.jsonl"}}, "/p"), layer);
    EXPECT_EQ(options.confined_to, fs::path("/p")) << layer_name(layer);
  }
}

TEST(TraceConfig, AnAbsoluteTracePathInAProjectsConfigIsAnErrorNamingTheFileAndKey) {
  const auto error_of = [](const json::object& settings, Layer layer) {
    try {
      (void)read_trace_options(settings_of(settings, "/p"), layer);
    } catch (const ConfigError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  for (const Layer layer : {Layer::project, Layer::local}) {
    EXPECT_THAT(error_of({{"jsonl", "/home/dev/.bashrc"}}, layer),
                StartsWith("/p/.hookbus/config.json: trace.jsonl: \"/home/dev/.bashrc\" is an absolute path, and a "
                           "project's config may have hookbus write only inside the project"))
        << layer_name(layer);
    EXPECT_THAT(error_of({{"chrome", "/tmp/t.json"}}, layer), HasSubstr("trace.chrome: \"/tmp/t.json\" is an absolute path"));
    EXPECT_THAT(error_of({{"otlp", {{"file", "/tmp/t.otlp"}}}}, layer),
                HasSubstr("trace.otlp.file: \"/tmp/t.otlp\" is an absolute path"));
  }
}

TEST(TraceConfig, ATracePathLeavingTheProjectInAProjectsConfigIsAnError) {
  for (const std::string path : {"../victim.txt", "trace/../../victim.txt"}) {
    EXPECT_THAT([&] { (void)read_trace_options(settings_of({{"jsonl", path}}, "/p"), Layer::project); },
                ::testing::ThrowsMessage<ConfigError>(HasSubstr("trace.jsonl: \"" + path + "\" leaves the project directory")))
        << path;
  }
}

TEST(TraceConfig, ATracePathIntoVersionControlMetadataInAProjectsConfigIsAnError) {
  for (const std::string path : {".git/hooks/pre-commit", ".git/config", "sub/.GIT/x", ".hg/hgrc", ".jj/repo/x"}) {
    EXPECT_THAT([&] { (void)read_trace_options(settings_of({{"jsonl", path}}, "/p"), Layer::project); },
                ::testing::ThrowsMessage<ConfigError>(
                    HasSubstr("trace.jsonl: \"" + path + "\" is in version-control metadata")))
        << path;
  }
}

TEST(TraceConfig, APathNamingADirectoryIsAnErrorNamingTheFileAndKey) {
  for (const Layer layer : {Layer::project, Layer::user}) {
    for (const std::string path : {".", "trace/", "trace/.."}) {
      EXPECT_THAT([&] { (void)read_trace_options(settings_of({{"otlp", {{"file", path}}}}, "/p"), layer); },
                  ::testing::ThrowsMessage<ConfigError>(StartsWith(
                      "/p/.hookbus/config.json: trace.otlp.file: \"" + path + "\" names a directory, not a file")))
          << path;
    }
  }
}

TEST(TraceConfig, TheUsersConfigMayTraceAnywhereAndIsAboutNoProject) {
  const json::object settings{{"jsonl", "/var/log/hookbus/s.jsonl"}, {"otlp", "../s.otlp.jsonl"}};
  for (const Layer layer : {Layer::user, Layer::managed}) {
    const TraceOptions options = read_trace_options(settings_of(settings, "/home/dev/.config/hookbus"), layer);
    EXPECT_EQ(options.jsonl->file, "/var/log/hookbus/s.jsonl");
    EXPECT_EQ(options.otlp->file, "/home/dev/.config/s.otlp.jsonl");
    EXPECT_FALSE(options.confined_to) << layer_name(layer);
    EXPECT_FALSE(options.project) << layer_name(layer);
  }
}

TEST(TraceConfig, QueueFalseTracesOnTheEmittingThread) {
  EXPECT_FALSE(read_trace_options(settings_of({{"jsonl", "t.jsonl"}, {"queue", false}}, "/p"), Layer::project).queue);
}

TEST(TraceConfig, MistakesAreErrorsNamingTheFileAndPath) {
  const auto error_of = [](const json::object& settings) {
    try {
      (void)read_trace_options(settings_of(settings, "/p"), Layer::project);
    } catch (const ConfigError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of({{"jsonl", "t.jsonl"}, {"chorme", "c.json"}}),
              StartsWith("/p/.hookbus/config.json: trace.chorme: unknown key; expected one of: jsonl, chrome, otlp, queue"));
  EXPECT_THAT(error_of({}), HasSubstr("trace: nothing to write: give at least one of"));
  EXPECT_THAT(error_of({{"jsonl", "t.jsonl"}, {"queue", {{"overflow", "wait"}}}}),
              HasSubstr("trace.queue.overflow: expected \"drop_newest\", \"drop_oldest\" or \"block\", got \"wait\""));
  EXPECT_THAT(error_of({{"jsonl", "t.jsonl"}, {"queue", true}}), HasSubstr("trace.queue: expected an object"));
  EXPECT_THAT(error_of({{"jsonl", {{"file", "t.jsonl"}, {"max_bytes", 10}}}}),
              HasSubstr("trace.jsonl.max_bytes: expected integer from 4096"));
  EXPECT_THAT(error_of({{"otlp", 3}}), HasSubstr(R"(trace.otlp: expected a path (string), or an object {"file", "max_bytes", "max_files"}, got number)"));
}

TEST(TraceConfig, AConfigFileWithTraceInstallsTheTracerWithItsFilesInTheProject) {
  TempDir project;
  fs::create_directories(project / ".hookbus");
  std::ofstream(project / ".hookbus" / "config.json")
      << R"({"trace": {"jsonl": "trace/s.jsonl", "chrome": "trace/s.trace.json", "otlp": "trace/s.otlp.jsonl"}})";
  const Config config = load_config(project / ".hookbus" / "config.json");
  {
    Hooks hooks;
    const ConnectionGroup installed = install_builtins(hooks, config);
    hooks.emit(TurnStartEvent{});
  }
  const Trace trace = read_trace_file(project / "trace" / "s.jsonl");
  EXPECT_EQ(trace.header.project, project.path());
  EXPECT_THAT(trace.records, SizeIs(1));
  EXPECT_TRUE(parse_json(testing::read_file(project / "trace" / "s.trace.json"), "chrome").is_array());
  EXPECT_FALSE(testing::read_file(project / "trace" / "s.otlp.jsonl").empty());
}

// The settings are read once, with the file: the config holds them typed, as
// the tracer takes them, and as written, for listings.
TEST(TraceConfig, ALoadedConfigHoldsTheTraceOptionsItsTracerIsMadeWith) {
  TempDir project;
  fs::create_directories(project / ".hookbus");
  std::ofstream(project / ".hookbus" / "config.json") << R"({"trace": {"jsonl": "trace/s.jsonl", "queue": false}})";
  const Config config = load_config(project / ".hookbus" / "config.json");
  ASSERT_TRUE(config.trace);
  EXPECT_EQ(config.trace->options, (TraceOptions{.jsonl = JsonlTraceOptions{.file = project / "trace" / "s.jsonl"},
                                                 .chrome = std::nullopt,
                                                 .otlp = std::nullopt,
                                                 .queue = std::nullopt,
                                                 .project = project.path(),
                                                 .confined_to = project.path()}));
  EXPECT_EQ(config.trace->settings, (json::object{{"jsonl", "trace/s.jsonl"}, {"queue", false}}));
}

TEST(TraceConfig, InstallingAConfigMakesTheTracerFromItsTraceOptions) {
  TempDir dir;
  Config config;  // made in code, as an engine may
  config.trace = TraceConfig{.options = {.jsonl = JsonlTraceOptions{.file = dir / "s.jsonl"}, .queue = std::nullopt},
                             .settings = {}};
  {
    Hooks hooks;
    const ConnectionGroup installed = install_builtins(hooks, config);
    hooks.emit(TurnStartEvent{});
  }
  EXPECT_THAT(read_trace_file(dir / "s.jsonl").records, SizeIs(1));
}

TEST(TraceConfig, AFullQueueSetInConfigDropsRecordsAndDeliveryQueuesCountThem) {
  TempDir dir;
  const fs::path fifo = dir / "trace.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Someone reads the FIFO (so the tracer can open it) but takes nothing until
  // the end: once its 4 KiB are full, the tracer's thread waits in write().
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  ASSERT_GE(::fcntl(reader, F_SETPIPE_SZ, 4096), 4096);
  ASSERT_EQ(::fcntl(reader, F_SETFL, 0), 0);  // the drain below waits for data, then for the end
  // The tracer opens the FIFO on its first record, on its own thread; until the
  // test's writer closes, the drain cannot mistake "not open yet" for the end.
  const int writer_until_the_end = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(writer_until_the_end, 0);
  testing::write_file(dir / "config.json", R"({"trace": {"jsonl": ")" + fifo.string() +
                                               R"(", "queue": {"capacity": 1, "overflow": "drop_newest"}}})");
  const Config config = load_config(dir / "config.json", Layer::user);
  constexpr std::uint64_t kEmits = 100;
  std::optional<DeliveryQueueState> queue;
  std::string written;
  std::thread drain;
  {
    Hooks hooks;
    const ConnectionGroup installed = install_builtins(hooks, config);
    for (std::uint64_t i = 0; i < kEmits; ++i) (void)hooks.emit(rm_rf());  // never waits: drops instead
    for (const DeliveryQueueState& state : hooks.delivery_queues())
      if (state.label == "trace") queue = state;
    drain = std::thread([&] {  // until the tracer and the test have closed the FIFO
      char buffer[4096];
      for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;) written.append(buffer, static_cast<std::size_t>(n));
    });
  }  // the bus writes what was queued, then the tracer closes the FIFO
  ::close(writer_until_the_end);
  drain.join();
  ::close(reader);
  ASSERT_TRUE(queue);
  EXPECT_EQ(queue->capacity, 1u);
  EXPECT_EQ(queue->overflow, Overflow::drop_newest);
  EXPECT_GT(queue->dropped, 0u);
  std::istringstream in(written);
  TraceReader trace(in, fifo.string());
  std::uint64_t records = 0;
  while (trace.next()) ++records;
  EXPECT_EQ(records, kEmits - queue->dropped);  // each emit is either written or counted as dropped
}

TEST(TraceConfig, AConfigFileWithABadTraceSettingDoesNotLoad) {
  TempDir project;
  fs::create_directories(project / ".hookbus");
  std::ofstream(project / ".hookbus" / "config.json") << R"({"trace": {"jsonl": ""}})";
  EXPECT_THAT([&] { (void)load_config(project / ".hookbus" / "config.json"); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("trace.jsonl: expected non-empty string")));
}

TEST(TraceConfig, AFileThatCannotBeOpenedIsAConfigError) {
  TempDir project;
  const json::object settings{{"jsonl", "/proc/hookbus-no-such-dir/t.jsonl"}};
  EXPECT_THAT([&] { Tracer tracer(settings_of(settings, project.path()), Layer::user); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("/proc/hookbus-no-such-dir/t.jsonl")));
}

}  // namespace
}  // namespace hookbus
