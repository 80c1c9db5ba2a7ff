// The trace file of trace.hpp: headers and emission records written as lines
// and read back unchanged (for random events and results of every type), files
// read line by line, and one test per reading error, each naming the file and
// line.

#include "random_values.hpp"
#include "script_fixture.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/trace.hpp>

#include <boost/mp11/algorithm.hpp>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

namespace hookbus {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TraceHeader sample_header() {
  return TraceHeader{.started = std::chrono::sys_days(std::chrono::year(2026) / 11 / 24) + 21h + 123456us,
                     .pid = 1234,
                     .host = "build-7",
                     .project = std::filesystem::path("/home/dev/project")};
}

// A tool_call denied by its third handler, after one its matcher skipped and
// one that failed; every field of a handler record is used.
EmissionRecord denied_tool_call() {
  EmissionRecord record;
  record.seq = 17;
  record.thread = 2;
  record.start = std::chrono::sys_time<std::chrono::nanoseconds>(1795000000123456789ns);
  record.duration = 48211ns;
  record.payload = ToolCallEvent{.context = {.session_id = "s1"},
                                 .tool_call_id = "call_1",
                                 .tool_name = "bash",
                                 .input = {{"command", "rm -rf /"}}};
  record.handlers = {
      HandlerRecord{.label = "reads-only", .start_offset = 900ns, .action = HandlerAction::skipped},
      HandlerRecord{.label = "audit",
                    .kind = RecordedKind::builtin,
                    .start_offset = 1000ns,
                    .duration = 150ns,
                    .action = HandlerAction::failed,
                    .error = "disk full"},
      HandlerRecord{.label = "no-rm-rf",
                    .kind = RecordedKind::external,
                    .source = ".hookbus/hooks/no-rm-rf",
                    .protocol = "hookbus",
                    .layer = Layer::project,
                    .start_offset = 1200ns,
                    .duration = 20011ns,
                    .action = HandlerAction::deny,
                    .reason = "rm -rf is not allowed"},
  };
  record.result = ToolCallResult{.decision = Decision::deny,
                                 .reason = "rm -rf is not allowed",
                                 .decided_by = Decider{"no-rm-rf", ".hookbus/hooks/no-rm-rf"}};
  record.decided_by = Decider{"no-rm-rf", ".hookbus/hooks/no-rm-rf"};
  return record;
}

// A tool run through a retrying wrapper: its first attempt threw, its second
// gave the output; a fail-open logger inside failed on the first.
EmissionRecord retried_tool_run() {
  EmissionRecord record;
  record.seq = 18;
  record.thread = 2;
  record.start = std::chrono::sys_time<std::chrono::nanoseconds>(1795000000200000000ns);
  record.duration = 90000ns;
  record.payload = ToolCallEvent{.tool_call_id = "call_2", .tool_name = "bash", .input = {{"command", "make"}}};
  record.step = StepRecord{{
      StepLevelRecord{.label = "retry", .source = "engine", .duration = 90000ns, .next_calls = 2},
      StepLevelRecord{.label = "logger",
                      .parent = 0,
                      .start_offset = 100ns,
                      .duration = 40000ns,
                      .outcome = StepOutcome::threw,
                      .error = "timeout"},
      StepLevelRecord{.step = true,
                      .parent = 1,
                      .start_offset = 200ns,
                      .duration = 39000ns,
                      .outcome = StepOutcome::threw,
                      .error = "timeout"},
      StepLevelRecord{.step = true, .parent = 0, .start_offset = 50000ns, .duration = 39000ns},
  }};
  return record;
}

std::string line_of(const json::object& object) { return write_json(object); }

// The record's line with one member changed (or removed, for nullptr_t).
std::string record_line_with(std::string_view key, const json::value& value) {
  json::object line = trace_json(denied_tool_call());
  line[key] = value;
  return write_json(line);
}

std::string error_of(std::string_view line) {
  try {
    (void)read_emission_record(line, "session.jsonl", 3);
  } catch (const TraceError& error) {
    return error.what();
  }
  return "no error";
}

// ------------------------------------------------------------- round trips

TEST(TraceLines, AHeaderIsWrittenInTheSchemasShapeAndReadBack) {
  const json::object written = trace_json(sample_header());
  EXPECT_EQ(written.at("hookbus_trace"), 2);
  EXPECT_EQ(written.at("started"), "2026-11-24T21:00:00.123456Z");
  EXPECT_EQ(written.at("pid"), 1234);
  EXPECT_EQ(written.at("host"), "build-7");
  EXPECT_EQ(written.at("project"), "/home/dev/project");
  EXPECT_EQ(read_trace_header(trace_line(sample_header())), sample_header());
}

// Found by the trace_file fuzz target: a year past 2262 (or before 1678)
// overflowed a count of nanoseconds while the time was read.
TEST(TraceLines, AStartedTimeOutsideTheNanosecondRangeReadsBackExactly) {
  for (const auto* started : {"3940-01-01T00:00:00.000001Z", "0001-01-01T00:00:00.999999Z", "9999-12-31T23:59:59Z"}) {
    json::object header = trace_json(sample_header());
    header["started"] = started;
    const TraceHeader read = read_trace_header(line_of(header));
    EXPECT_EQ(read_trace_header(trace_line(read)), read) << started;
  }
  json::object header = trace_json(sample_header());
  header["started"] = "3940-01-01T00:00:00.000001Z";
  EXPECT_EQ(trace_json(read_trace_header(line_of(header))).at("started"), "3940-01-01T00:00:00.000001Z");
}

TEST(TraceLines, AHeaderWithoutAProjectHasNull) {
  TraceHeader header = sample_header();
  header.project.reset();
  EXPECT_TRUE(trace_json(header).at("project").is_null());
  EXPECT_EQ(read_trace_header(trace_line(header)), header);
}

TEST(TraceLines, ARecordIsWrittenInTheSchemasShape) {
  const json::object written = trace_json(denied_tool_call());
  EXPECT_EQ(written.at("seq"), 17);
  EXPECT_EQ(written.at("event"), "tool_call");
  EXPECT_EQ(written.at("thread"), 2);
  EXPECT_EQ(written.at("start_ns"), 1795000000123456789);
  EXPECT_EQ(written.at("duration_ns"), 48211);
  EXPECT_EQ(written.at("payload"), to_json(HookEvent(denied_tool_call().payload)));
  EXPECT_EQ(written.at("result").at("decision"), "deny");
  EXPECT_EQ(written.at("decided_by"), (json::object{{"handler", "no-rm-rf"}, {"source", ".hookbus/hooks/no-rm-rf"}}));
  const auto& handlers = written.at("handlers").as_array();
  ASSERT_EQ(handlers.size(), 3u);
  EXPECT_EQ(handlers[0], (json::object{{"label", "reads-only"},
                                       {"kind", "in_process"},
                                       {"source", ""},
                                       {"protocol", ""},
                                       {"layer", ""},
                                       {"start_offset_ns", 900},
                                       {"duration_ns", 0},
                                       {"action", "skipped"}}));
  EXPECT_EQ(handlers[1].at("action"), "failed");
  EXPECT_EQ(handlers[1].at("error"), "disk full");
  EXPECT_EQ(handlers[2].at("kind"), "external");
  EXPECT_EQ(handlers[2].at("protocol"), "hookbus");
  EXPECT_EQ(handlers[2].at("layer"), "project");
  EXPECT_EQ(handlers[2].at("reason"), "rm -rf is not allowed");
  EXPECT_FALSE(handlers[2].as_object().contains("error"));
}

TEST(TraceLines, ARecordIsOneLineThatReadsBackUnchanged) {
  const std::string line = trace_line(denied_tool_call());
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(read_emission_record(line), denied_tool_call());
}

TEST(TraceLines, RunsAheadAndRunsStoppedAreWrittenOnlyWhenThereAreAnyAndReadBack) {
  EXPECT_FALSE(trace_json(denied_tool_call()).contains("runs_stopped"));
  EXPECT_FALSE(trace_json(denied_tool_call()).at("handlers").as_array()[0].as_object().contains("ran_ahead"));
  EmissionRecord record = denied_tool_call();
  record.handlers[0].ran_ahead = RanAhead::discarded;
  record.handlers[2].ran_ahead = RanAhead::taken;
  record.runs_stopped = {"audit", "lint"};
  const json::object written = trace_json(record);
  EXPECT_EQ(written.at("handlers").as_array()[0].as_object().at("ran_ahead"), "discarded");
  EXPECT_EQ(written.at("runs_stopped"), (json::array{"audit", "lint"}));
  EXPECT_EQ(read_emission_record(write_json(written)), record);
}

TEST(TraceLines, AnObserveOnlyEventHasANullResultAndReadsBack) {
  EmissionRecord record;
  record.payload = TurnStartEvent{.turn_index = 3};
  record.handlers = {HandlerRecord{.label = "tracer", .kind = RecordedKind::subscriber}};
  const json::object written = trace_json(record);
  EXPECT_TRUE(written.at("result").is_null());
  EXPECT_TRUE(written.at("decided_by").is_null());
  EXPECT_EQ(read_emission_record(write_json(written)), record);
}

TEST(TraceLines, AStepLineIsWrittenInTheSchemasShapeAndReadsBackUnchanged) {
  const json::object written = trace_json(retried_tool_run());
  EXPECT_EQ(written.at("event"), "tool_call");
  EXPECT_TRUE(written.at("result").is_null());
  EXPECT_TRUE(written.at("handlers").as_array().empty());
  const auto& levels = written.at("step").at("levels").as_array();
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0], (json::object{{"kind", "wrapper"},
                                     {"label", "retry"},
                                     {"source", "engine"},
                                     {"parent", nullptr},
                                     {"start_offset_ns", 0},
                                     {"duration_ns", 90000},
                                     {"next_calls", 2},
                                     {"outcome", "output"}}));
  EXPECT_EQ(levels[2].at("kind"), "step");
  EXPECT_EQ(levels[2].at("parent"), 1);
  EXPECT_EQ(levels[2].at("error"), "timeout");
  EXPECT_EQ(read_emission_record(trace_line(retried_tool_run())), retried_tool_run());
}

TEST(TraceLines, ARefusedStepLineReadsBackWithItsRefuser) {
  EmissionRecord record = retried_tool_run();
  record.step->levels.resize(1);
  record.step->levels[0] = {.label = "guard", .outcome = StepOutcome::refused, .error = "policy server down"};
  record.decided_by = Decider{"guard", ""};
  EXPECT_EQ(read_emission_record(trace_line(record)), record);
}

TEST(TraceLines, AVersionOneFileIsStillRead) {
  json::object header = trace_json(sample_header());
  header["hookbus_trace"] = 1;
  std::istringstream in(line_of(header) + "\n" + trace_line(denied_tool_call()) + "\n");
  TraceReader reader(in, "old.jsonl");
  EXPECT_EQ(reader.next(), denied_tool_call());
}

TEST(TraceLines, AReasonOnlyAppearsWithActionsThatHaveOne) {
  EmissionRecord record = denied_tool_call();
  record.handlers = {HandlerRecord{.label = "a", .action = HandlerAction::ask, .reason = ""},
                     HandlerRecord{.label = "b", .action = HandlerAction::stop, .reason = "budget used up"}};
  const json::object written = trace_json(record);
  const auto& handlers = written.at("handlers").as_array();
  EXPECT_FALSE(handlers[0].as_object().contains("reason"));
  EXPECT_EQ(handlers[1].at("reason"), "budget used up");
  EXPECT_EQ(read_emission_record(trace_line(record)), record);
}

// Every event type, with random payloads and results.
template <class E>
class RecordRoundTrip : public ::testing::Test {};
using EventTypes = boost::mp11::mp_rename<HookEvent, ::testing::Types>;
struct TypeNames {
  template <class T>
  static std::string GetName(int) {
    return reflect::type_display_name<T>();
  }
};
TYPED_TEST_SUITE(RecordRoundTrip, EventTypes, TypeNames);

TYPED_TEST(RecordRoundTrip, RandomPayloadsAndResultsReadBackUnchanged) {
  testing::RandomValues random(std::hash<std::string>{}(reflect::type_display_name<TypeParam>()));
  for (int i = 0; i < 50; ++i) {
    EmissionRecord record;
    record.seq = random.template make<std::uint64_t>();
    record.thread = random.template make<std::uint32_t>();
    record.payload = random.template make<TypeParam>();
    if constexpr (EventWithResult<TypeParam>) record.result = random.template make<result_t<TypeParam>>();
    record.handlers.push_back(HandlerRecord{.label = random.template make<std::string>(),
                                            .kind = random.template make<RecordedKind>(),
                                            .action = HandlerAction::no_change});
    record.decided_by = random.template make<std::optional<Decider>>();
    const std::string line = trace_line(record);
    ASSERT_EQ(read_emission_record(line), record) << line;
  }
}

// ------------------------------------------------------------------ files

TEST(TraceFiles, AFileIsReadHeaderFirstThenOneRecordPerLine) {
  const auto file = std::filesystem::temp_directory_path() / "hookbus-trace-file-test.jsonl";
  EmissionRecord second = denied_tool_call();
  second.seq = 18;
  {
    std::ofstream out(file, std::ios::trunc);
    out << trace_line(sample_header()) << '\n' << trace_line(denied_tool_call()) << '\n' << trace_line(second) << '\n';
  }
  const Trace trace = read_trace_file(file);
  std::filesystem::remove(file);
  EXPECT_EQ(trace.header, sample_header());
  ASSERT_EQ(trace.records.size(), 2u);
  EXPECT_EQ(trace.records[0], denied_tool_call());
  EXPECT_EQ(trace.records[1], second);
}

TEST(TraceFiles, TheReaderSaysWhichLineItRead) {
  std::istringstream in(trace_line(sample_header()) + "\n" + trace_line(denied_tool_call()) + "\n");
  TraceReader reader(in, "session.jsonl");
  EXPECT_EQ(reader.line(), 1u);
  ASSERT_TRUE(reader.next());
  EXPECT_EQ(reader.line(), 2u);
  EXPECT_FALSE(reader.next());
}

TEST(TraceFiles, UnknownKeysAreIgnored) {
  json::object header = trace_json(sample_header());
  header["compression"] = "none";
  json::object record = trace_json(denied_tool_call());
  record["cpu"] = 3;
  record["handlers"].as_array()[0].as_object()["memory"] = 12;
  EXPECT_EQ(read_trace_header(line_of(header)), sample_header());
  EXPECT_EQ(read_emission_record(line_of(record)), denied_tool_call());
}

TEST(TraceFiles, AMissingFileIsAnErrorNamingIt) {
  EXPECT_THAT([] { (void)read_trace_file("/nonexistent/session.jsonl"); },
              ::testing::ThrowsMessage<TraceError>(StartsWith("/nonexistent/session.jsonl: cannot read: No such file")));
}

// A FIFO would block the reader until a writer came; it is refused at once.
TEST(TraceFiles, AFifoIsRefusedWithoutWaitingForAWriter) {
  const testing::TempDir dir;
  const auto fifo = dir / "session.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT([&] { (void)read_trace_file(fifo); },
              ::testing::ThrowsMessage<TraceError>(fifo.string() + ": is a FIFO, not a regular file"));
}

// /dev/zero would never end.
TEST(TraceFiles, ADeviceIsRefusedUnread) {
  EXPECT_THAT([] { (void)read_trace_text("/dev/zero"); },
              ::testing::ThrowsMessage<TraceError>("/dev/zero: is a character device, not a regular file"));
}

TEST(TraceFiles, ALineOverTheLimitIsRefusedNamingIt) {
  std::istringstream in(trace_line(sample_header()) + "\n" + std::string(max_trace_line_bytes + 1, ' ') + "\n");
  TraceReader reader(in, "session.jsonl");
  EXPECT_THAT([&] { (void)reader.next(); },
              ::testing::ThrowsMessage<TraceError>(fmt::format("session.jsonl:2: the line is {} bytes, over the limit of {} bytes",
                                                               max_trace_line_bytes + 1, max_trace_line_bytes)));
}

// ----------------------------------------------------------------- errors

TEST(TraceErrors, AnEmptyFileHasNoHeader) {
  std::istringstream in("");
  EXPECT_THAT([&] { TraceReader reader(in, "session.jsonl"); },
              ::testing::ThrowsMessage<TraceError>(HasSubstr("session.jsonl: empty file")));
}

TEST(TraceErrors, AFirstLineThatIsNotAHeaderIsRefused) {
  std::istringstream in(trace_line(denied_tool_call()) + "\n");
  EXPECT_THAT([&] { TraceReader reader(in, "session.jsonl"); },
              ::testing::ThrowsMessage<TraceError>(StartsWith("session.jsonl:1: not a hookbus trace")));
}

TEST(TraceErrors, AnotherFormatVersionIsRefused) {
  json::object header = trace_json(sample_header());
  header["hookbus_trace"] = 3;
  EXPECT_THAT([&] { (void)read_trace_header(line_of(header), "session.jsonl"); },
              ::testing::ThrowsMessage<TraceError>(HasSubstr(
                  "session.jsonl:1: hookbus_trace: trace format 3 is not one this hookbus reads (it reads 1 to 2); "
                  "a newer hookbus wrote it")));
  header["hookbus_trace"] = 0;
  EXPECT_THAT([&] { (void)read_trace_header(line_of(header), "session.jsonl"); },
              ::testing::ThrowsMessage<TraceError>(HasSubstr("trace format 0 is not one this hookbus reads")));
}

// A step line's own rules: its event can be wrapped, it has no handlers or
// result, and each parent is a wrapper listed before the level.
std::string step_line_with(const std::function<void(json::object&)>& change) {
  json::object line = trace_json(retried_tool_run());
  change(line);
  return write_json(line);
}

TEST(TraceErrors, AStepLineOfAnEventThatCannotBeWrappedIsRefused) {
  EXPECT_THAT(error_of(step_line_with([](json::object& line) {
                line["event"] = "turn_start";
                line["payload"] = to_json(HookEvent(TurnStartEvent{}));
              })),
              HasSubstr("session.jsonl:3: event: 'turn_start' is not a step that can be wrapped"));
}

TEST(TraceErrors, AStepLineWithAResultOrHandlersIsRefused) {
  EXPECT_THAT(error_of(step_line_with([](json::object& line) { line["result"] = json::object{}; })),
              HasSubstr("session.jsonl:3: result: expected null: a step line has no result"));
  EXPECT_THAT(error_of(step_line_with([](json::object& line) {
                line["handlers"] = trace_json(denied_tool_call()).at("handlers");
              })),
              HasSubstr("session.jsonl:3: handlers: expected []: a step line records no handlers"));
}

TEST(TraceErrors, AStepLineWhoseParentIsNotAnEarlierWrapperIsRefused) {
  // A level naming itself, a later level, or the step (which has no next) as its parent.
  for (const std::int64_t parent : {1, 3, 2}) {
    EXPECT_THAT(error_of(step_line_with([&](json::object& line) {
                  line["step"].as_object()["levels"].as_array()[parent == 2 ? 3 : 1].as_object()["parent"] = parent;
                })),
                HasSubstr("step.levels[" + std::string(parent == 2 ? "3" : "1") +
                          "].parent: expected the index of a wrapper listed before this level"))
        << parent;
  }
}

TEST(TraceErrors, AStepLevelOfAnUnknownKindOrOutcomeIsNamed) {
  EXPECT_THAT(error_of(step_line_with([](json::object& line) {
                line["step"].as_object()["levels"].as_array()[0].as_object()["kind"] = "middleware";
              })),
              HasSubstr("step.levels[0].kind: unknown value 'middleware'; expected one of: wrapper, step"));
  EXPECT_THAT(error_of(step_line_with([](json::object& line) {
                line["step"].as_object()["levels"].as_array()[0].as_object()["outcome"] = "ok";
              })),
              HasSubstr("step.levels[0].outcome: unknown value 'ok'; expected one of: output, threw, failed, refused"));
}

TEST(TraceErrors, AStartedTimeThatIsNotUtcIsRefused) {
  json::object header = trace_json(sample_header());
  header["started"] = "2026-11-24 21:00:00";
  EXPECT_THAT([&] { (void)read_trace_header(line_of(header), "session.jsonl"); },
              ::testing::ThrowsMessage<TraceError>(HasSubstr("started: expected a UTC time like")));
}

TEST(TraceErrors, InvalidJsonNamesTheLineAndColumn) {
  EXPECT_THAT(error_of("{\"seq\": 1,,}"), StartsWith("session.jsonl:3: invalid JSON at line 1, column 11"));
}

TEST(TraceErrors, AMissingKeyIsNamed) {
  json::object record = trace_json(denied_tool_call());
  record.erase("duration_ns");
  EXPECT_EQ(error_of(line_of(record)), "session.jsonl:3: missing required key 'duration_ns'");
}

TEST(TraceErrors, AValueOfTheWrongTypeIsNamedWithItsPath) {
  EXPECT_EQ(error_of(record_line_with("seq", "17")), "session.jsonl:3: seq: expected integer, got string");
}

TEST(TraceErrors, ANegativeDurationIsOutOfRange) {
  EXPECT_THAT(error_of(record_line_with("duration_ns", -5)),
              StartsWith("session.jsonl:3: duration_ns: expected integer from 0 to"));
}

TEST(TraceErrors, AnUnknownActionListsTheActions) {
  json::object record = trace_json(denied_tool_call());
  record["handlers"].as_array()[2].as_object()["action"] = "blok";
  EXPECT_EQ(error_of(line_of(record)),
            "session.jsonl:3: handlers[2].action: unknown value 'blok'; expected one of: no_change, patch, replace, "
            "transform, allow, ask, defer, deny, cancel, reject, handled, stop, failed, skipped");
}

TEST(TraceErrors, AnUnknownKindLayerOrProtocolIsNamed) {
  for (const auto& [key, value] : {std::pair{"kind", "daemon"}, {"layer", "team"}, {"protocol", "grpc"}}) {
    json::object record = trace_json(denied_tool_call());
    record["handlers"].as_array()[2].as_object()[key] = value;
    EXPECT_THAT(error_of(line_of(record)), StartsWith(fmt::format("session.jsonl:3: handlers[2].{}: unknown", key)));
  }
}

TEST(TraceErrors, AnUnknownRanAheadOrARunsStoppedThatIsNotLabelsIsNamed) {
  json::object record = trace_json(denied_tool_call());
  record["handlers"].as_array()[2].as_object()["ran_ahead"] = "early";
  EXPECT_EQ(error_of(line_of(record)),
            "session.jsonl:3: handlers[2].ran_ahead: unknown value 'early'; expected one of: no, taken, discarded");
  EXPECT_EQ(error_of(record_line_with("runs_stopped", json::array{"audit", 7})),
            "session.jsonl:3: runs_stopped[1]: expected string, got number");
  EXPECT_EQ(error_of(record_line_with("runs_stopped", "audit")),
            "session.jsonl:3: runs_stopped: expected array, got string");
}

TEST(TraceErrors, AFailedHandlerWithoutItsErrorIsRefused) {
  json::object record = trace_json(denied_tool_call());
  record["handlers"].as_array()[1].as_object().erase("error");
  EXPECT_EQ(error_of(line_of(record)), "session.jsonl:3: handlers[1]: missing required key 'error'");
}

TEST(TraceErrors, AnUnknownEventIsNamed) {
  EXPECT_EQ(error_of(record_line_with("event", "tool_cal")), "session.jsonl:3: event: unknown event 'tool_cal'");
}

TEST(TraceErrors, APayloadThatIsNotItsEventIsAnErrorWithThePayloadsPath) {
  json::object record = trace_json(denied_tool_call());
  record["payload"].as_object()["input"] = "rm";
  EXPECT_EQ(error_of(line_of(record)), "session.jsonl:3: payload: tool_call.input: expected object, got string");
}

TEST(TraceErrors, AResultOnAnObserveOnlyEventIsRefused) {
  EmissionRecord record;
  record.payload = TurnStartEvent{};
  json::object line = trace_json(record);
  line["result"] = json::object{};
  EXPECT_EQ(error_of(line_of(line)), "session.jsonl:3: result: expected null: 'turn_start' has no result");
}

TEST(TraceErrors, AnEmptyLineInTheMiddleIsRefused) {
  std::istringstream in(trace_line(sample_header()) + "\n\n" + trace_line(denied_tool_call()) + "\n");
  TraceReader reader(in, "session.jsonl");
  EXPECT_THAT([&] { (void)reader.next(); },
              ::testing::ThrowsMessage<TraceError>(StartsWith("session.jsonl:2: empty line")));
}

}  // namespace
}  // namespace hookbus
