// The one-line rendering contract of format.hpp, and its use through fmt and spdlog.

#include <hookbus/format.hpp>
#include <hookbus/names.hpp>

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

namespace hookbus {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const ToolCallEvent ls_call{.tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls"}}};

TEST(FormatLine, EventIsNamedByItsWireTypeAndLeavesOutAnEmptyContext) {
  EXPECT_EQ(format_line(ls_call), R"(tool_call{tool_call_id="c1", tool_name="bash", input={"command":"ls"}})");
}

TEST(FormatLine, FilledContextIsShownWithoutItsUnknownStrings) {
  const AgentStartEvent start{.context = {.session_id = "s1", .cwd = "/w", .agent_id = "a1"}};
  EXPECT_EQ(format_line(start), R"(agent_start{context={session_id="s1", cwd="/w", agent_id="a1", invoked_by=main}})");
}

TEST(FormatLine, ResultIsNamedByItsTypeAndLeavesOutAbsentOptionalsAndEmptyLists) {
  EXPECT_EQ(format_line(ToolCallResult{.decision = Decision::deny, .reason = "no rm"}), R"(ToolCallResult{decision=deny, reason="no rm"})");
}

TEST(FormatLine, ContentPartsAreNamedByTheirType) {
  const ToolResultPersistEvent persist{.tool_call_id = "c1", .tool_name = "read",
                                       .content = {TextPart{"hi"}, ImagePart{"image/png", "AAAA"}}};
  EXPECT_THAT(format_line(persist), HasSubstr(R"(content=[text{text="hi"}, image{mime_type="image/png", data="AAAA"}])"));
}

TEST(FormatLine, NestedStructsAreBracedWithoutAName) {
  const MessageEndEvent end{.message = {.role = Role::assistant, .content = {TextPart{"done"}}}};
  EXPECT_EQ(format_line(end), R"(message_end{message={role=assistant, content=[text{text="done"}], tool_calls=[]}})");
}

TEST(FormatLine, EnumsPrintTheirWireName) {
  EXPECT_EQ(format_line(InputResult{}), R"(InputResult{action=continue, reason=""})");
}

TEST(FormatLine, TimestampIsIso8601AndDurationMilliseconds) {
  EXPECT_EQ(format_line(TurnStartEvent{.turn_index = 2, .timestamp = Timestamp(Duration(1700000000123))}),
            "turn_start{turn_index=2, timestamp=2023-11-14T22:13:20.123Z}");
  EXPECT_THAT(format_line(ToolExecutionEndEvent{.duration = Duration(1500)}), HasSubstr("duration=1500ms"));
}

TEST(FormatLine, TimestampBeyondTheCalendarIsRawMilliseconds) {
  const Timestamp far{Duration(std::numeric_limits<Duration::rep>::max())};
  EXPECT_THAT(format_line(TurnStartEvent{.timestamp = far}), HasSubstr("timestamp=9223372036854775807ms"));
}

TEST(FormatLine, LongStringIsCutWithTheNumberOfBytesLeft) {
  const AgentErrorEvent error{.error = std::string(100, 'x')};
  EXPECT_EQ(format_line(error, 10), R"(agent_error{error="xxxxxxxxxx"…(90 more bytes)})");
}

TEST(FormatLine, CutNeverSplitsAUtf8Character) {
  const AgentErrorEvent error{.error = "ééééé"};  // 2 bytes each
  EXPECT_EQ(format_line(error, 3), R"(agent_error{error="é"…(8 more bytes)})");
}

TEST(FormatLine, JsonIsCompactAndCutLikeStrings) {
  const ToolCallEvent call{.tool_name = "write", .input = {{"content", std::string(50, 'y')}}};
  EXPECT_THAT(format_line(call, 20), HasSubstr(R"(input={"content":"yyyyyyyy…(44 more bytes))"));
}

// JSON members are written by write_json, as everything hookbus writes as JSON.
TEST(FormatLine, JsonIsWrittenAsValidUtf8WithTerminalControlsEscaped) {
  const ToolCallEvent call{.tool_name = "bash", .input = {{"command", "ls \xff\n\u009b"}}};
  EXPECT_THAT(format_line(call), HasSubstr(R"(input={"command":"ls )" "\xEF\xBF\xBD" R"(\n\u009b"})"));
}

TEST(FormatLine, JsonWithANonFiniteNumberSaysSoInsteadOfThrowing) {
  const ToolCallEvent call{.tool_name = "bash", .input = {{"x", HUGE_VAL}}};
  EXPECT_THAT(format_line(call), HasSubstr("input=<not JSON: x: cannot write the number inf"));
}

TEST(FormatLine, NewlinesQuotesAndControlCharactersAreEscaped) {
  const AgentErrorEvent error{.error = "a\nb\"c\\d\te\x01"};
  EXPECT_EQ(format_line(error), R"(agent_error{error="a\nb\"c\\d\te\u0001"})");
}

TEST(FormatLine, EveryEventIsOneLineStartingWithItsName) {
  for (std::size_t i = 0; i < event_count; ++i) {
    HookEvent event = make_event(i);
    std::visit([](auto& e) { e.context.cwd = "/line\nbreak"; }, event);
    const std::string line = format_line(event);
    EXPECT_THAT(line, StartsWith(std::string(event_name(i)) + "{"));
    EXPECT_THAT(line, Not(HasSubstr("\n")));
  }
}

TEST(FormatLine, OutcomeOfAnObserveOnlyEventIsNone) { EXPECT_EQ(format_line(HookOutcome{}), "none"); }

TEST(FormatLine, OutcomeIsItsResult) {
  EXPECT_EQ(format_line(HookOutcome{ContextResult{}}), "ContextResult{}");
}

TEST(Formatter, FmtFormatsHookEventsEventsAndOutcomes) {
  EXPECT_EQ(fmt::format("{}", HookEvent{ls_call}), format_line(ls_call));
  EXPECT_EQ(fmt::format("{}", ls_call), format_line(ls_call));
  EXPECT_EQ(fmt::format("{}", HookOutcome{ToolCallResult{.decision = Decision::deny}}), R"(ToolCallResult{decision=deny, reason=""})");
}

TEST(Formatter, SpdlogLogsEventsThroughTheFormatter) {
  std::ostringstream out;
  spdlog::logger logger("format_test", std::make_shared<spdlog::sinks::ostream_sink_st>(out));
  logger.set_pattern("%v");
  logger.info("emit {}", HookEvent{ls_call});
  EXPECT_EQ(out.str(), "emit " + format_line(ls_call) + "\n");
}

}  // namespace
}  // namespace hookbus
