// The built-in tracer (tracer.hpp): each file format written by a real bus and
// read back (the JSONL trace with hookbus's own reader, the Chrome trace and
// the OTLP lines parsed and checked against their formats' rules), rotation,
// shutdown, and the config's "trace" settings.
#include "script_fixture.hpp"

#include <hookbus/config.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/trace.hpp>
#include <hookbus/tracer.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <mutex>
#include <sstream>

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

// --------------------------------------------------------------------- OTLP

// Every key of an OTLP/JSON object is a protobuf field's lowerCamelCase JSON
// name (attribute keys are values, not field names).
void expect_lower_camel_case_keys(const json::value& value, const std::string& path) {
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.as_array().size(); ++i)
      expect_lower_camel_case_keys(value.as_array()[i], path + "[" + std::to_string(i) + "]");
  } else if (value.is_object()) {
    for (const auto& [key, member] : value.as_object()) {
      EXPECT_THAT(std::string(key), MatchesRegex("[a-z][a-zA-Z]*")) << path << "." << key;
      expect_lower_camel_case_keys(member, path + "." + std::string(key));
    }
  }
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
    auto tracing = trace(*hooks, TraceOptions{.otlp = file, .project = dir.path()});
    emit_session();
  }
  std::ifstream in(file);
  std::vector<json::value> requests;
  for (std::string line; std::getline(in, line);) requests.push_back(parse_json(line, file.string()));
  ASSERT_THAT(requests, SizeIs(3));
  for (const auto& request : requests) {
    expect_lower_camel_case_keys(request, "request");
    const auto& resource_spans = request.at("resourceSpans").as_array();
    ASSERT_THAT(resource_spans, SizeIs(1));
    const auto resource = attributes_of(resource_spans[0].at("resource"));
    EXPECT_EQ(resource.at("service.name"), "hookbus");
    EXPECT_EQ(resource.at("process.pid"), json::value(std::to_string(::getpid())));
    EXPECT_EQ(resource.at("hookbus.project"), json::value(dir.path().string()));
    const auto& scope_spans = resource_spans[0].at("scopeSpans").as_array();
    ASSERT_THAT(scope_spans, SizeIs(1));
    EXPECT_EQ(scope_spans[0].at("scope").at("name"), "hookbus");
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

TEST_F(Traced, AFailedHandlersSpanHasAnErrorStatusWithItsMessage) {
  const fs::path file = dir / "session.otlp.jsonl";
  auto broken = hooks->on<TurnStartEvent>([](const TurnStartEvent&) { throw std::runtime_error("boom"); },
                                          {.label = "broken"});
  {
    auto tracing = trace(*hooks, TraceOptions{.otlp = file});
    hooks->emit(TurnStartEvent{});
  }
  const json::value request = parse_json(testing::read_file(file), file.string());
  const auto& spans = request.at("resourceSpans").at(0).at("scopeSpans").at(0).at("spans").as_array();
  EXPECT_EQ(spans[1].at("status"), (json::object{{"code", 2}, {"message", "boom"}}));
}

TEST_F(Traced, AFileThatCannotBeWrittenIsReportedAndTheOtherFilesStillGetTheRecord) {
  std::vector<HookError> errors;
  auto listener = hooks->on_handler_error([&](const HookError& e) { errors.push_back(e); });
  const fs::path jsonl = dir / "session.jsonl";
  {
    auto tracing = trace(*hooks, 
        TraceOptions{.jsonl = JsonlTraceOptions{.file = jsonl}, .otlp = "/dev/full", .queue = std::nullopt});
    hooks->emit(TurnStartEvent{});
  }
  EXPECT_THAT(read_trace_file(jsonl).records, SizeIs(1));
  ASSERT_THAT(errors, SizeIs(1));
  EXPECT_EQ(errors[0].handler, "trace");
  EXPECT_THAT(errors[0].message, HasSubstr("/dev/full: cannot write: No space left on device"));
}

// ------------------------------------------------------------------- config

ConfigObject settings_of(const json::object& object, const fs::path& project) {
  return ConfigObject(object, ConfigLocation{.file = project / ".hookbus" / "config.json", .project_dir = project, .path = "trace"});
}

TEST(TraceConfig, EverySettingIsRead) {
  const json::object settings{{"jsonl", {{"file", "trace/s.jsonl"}, {"max_bytes", 1048576}, {"max_files", 3}}},
                              {"chrome", "trace/s.trace.json"},
                              {"otlp", "/var/log/hookbus/s.otlp.jsonl"},
                              {"queue", {{"capacity", 128}, {"overflow", "drop_oldest"}}}};
  const TraceOptions options = read_trace_options(settings_of(settings, "/p"));
  ASSERT_TRUE(options.jsonl);
  EXPECT_EQ(options.jsonl->file, "/p/trace/s.jsonl");
  EXPECT_EQ(options.jsonl->max_bytes, 1048576u);
  EXPECT_EQ(options.jsonl->max_files, 3u);
  EXPECT_EQ(options.chrome, fs::path("/p/trace/s.trace.json"));
  EXPECT_EQ(options.otlp, fs::path("/var/log/hookbus/s.otlp.jsonl"));
  ASSERT_TRUE(options.queue);
  EXPECT_EQ(options.queue->capacity, 128u);
  EXPECT_EQ(options.queue->overflow, Overflow::drop_oldest);
  EXPECT_EQ(options.project, fs::path("/p"));
}

TEST(TraceConfig, QueueFalseTracesOnTheEmittingThread) {
  EXPECT_FALSE(read_trace_options(settings_of({{"jsonl", "t.jsonl"}, {"queue", false}}, "/p")).queue);
}

TEST(TraceConfig, MistakesAreErrorsNamingTheFileAndPath) {
  const auto error_of = [](const json::object& settings) {
    try {
      (void)read_trace_options(settings_of(settings, "/p"));
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
  EXPECT_THAT(error_of({{"otlp", 3}}), HasSubstr("trace.otlp: expected string, got number"));
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
  EXPECT_THAT([&] { Tracer tracer(settings_of(settings, project.path())); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("/proc/hookbus-no-such-dir/t.jsonl")));
}

}  // namespace
}  // namespace hookbus
