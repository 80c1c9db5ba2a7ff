// The JSON contract of json.hpp: lossless round trips for every event and
// result (property style, over random values generated from the descriptions),
// the wire shape, the lenient/strict reading rules, and one test per error.

#include "catalogue/json_text.hpp"
#include "log_capture.hpp"
#include "random_values.hpp"
#include "support/utf8.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/reflect.hpp>

#include <boost/mp11/algorithm.hpp>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>

namespace hookbus {
namespace {

namespace json = boost::json;
using namespace reflect;
using testing::RandomValues;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int values_per_type = 200;

template <class T>
std::uint64_t seed_for() {
  return std::hash<std::string>{}(type_display_name<T>());
}

json::value through_text(const json::value& value) { return parse_json(write_json(value), "round trip"); }

// Test names are the C++ type names (ToolCallEvent): wire names hold ':'.
struct TypeNames {
  template <class T>
  static std::string GetName(int) {
    return type_display_name<T>();
  }
};

// ------------------------------------------------------------- round trips

template <class E>
class EventRoundTrip : public ::testing::Test {};
using EventTypes = boost::mp11::mp_rename<HookEvent, ::testing::Types>;
TYPED_TEST_SUITE(EventRoundTrip, EventTypes, TypeNames);

TYPED_TEST(EventRoundTrip, RandomValuesSurviveToJsonTextAndBack) {
  RandomValues random(seed_for<TypeParam>());
  for (int i = 0; i < values_per_type; ++i) {
    const auto event = random.template make<TypeParam>();
    const json::value written = to_json(event);
    ASSERT_TRUE(from_json<TypeParam>(through_text(written)) == event) << write_json(written);
  }
}

TYPED_TEST(EventRoundTrip, RandomValuesSurviveAsHookEventPickedByType) {
  RandomValues random(seed_for<TypeParam>() + 1);
  for (int i = 0; i < values_per_type; ++i) {
    const HookEvent event = random.template make<TypeParam>();
    const json::value written = to_json(event);
    ASSERT_TRUE(event_from_json(through_text(written)) == event) << write_json(written);
  }
}

// The first event whose handlers return R.
template <class R>
std::size_t event_index_returning() {
  std::size_t found = event_count;
  for_each_type<HookEvent>([&]<class E>(std::type_identity<E>) {
    if constexpr (std::is_same_v<result_t<E>, R>)
      if (found == event_count) found = event_index<E>;
  });
  return found;
}

template <class R>
class ResultRoundTrip : public ::testing::Test {};
using ResultTypes = boost::mp11::mp_rename<boost::mp11::mp_pop_front<HookOutcome>, ::testing::Types>;
TYPED_TEST_SUITE(ResultRoundTrip, ResultTypes, TypeNames);

TYPED_TEST(ResultRoundTrip, RandomValuesSurviveToJsonTextAndBack) {
  RandomValues random(seed_for<TypeParam>());
  for (int i = 0; i < values_per_type; ++i) {
    const auto result = random.template make<TypeParam>();
    const json::value written = to_json(result);
    ASSERT_TRUE(from_json<TypeParam>(through_text(written)) == result) << write_json(written);
  }
}

TYPED_TEST(ResultRoundTrip, RandomValuesSurviveAsOutcomeOfTheirEvent) {
  RandomValues random(seed_for<TypeParam>() + 1);
  const std::size_t event = event_index_returning<TypeParam>();
  for (int i = 0; i < values_per_type; ++i) {
    const HookOutcome outcome = random.template make<TypeParam>();
    const json::value written = to_json(outcome);
    ASSERT_TRUE(outcome_from_json(event, through_text(written)) == outcome) << write_json(written);
  }
}

// ---------------------------------------------------------------- the shape

json::value parse(std::string_view text) { return parse_json(text, "test"); }

TEST(JsonShape, EventsAreWrittenWithTypeFirst) {
  const ToolCallEvent call{.tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls"}}};
  EXPECT_THAT(write_json(to_json(HookEvent{call})), StartsWith(R"({"type":"tool_call","context":{)"));
  EXPECT_EQ(to_json(call), to_json(HookEvent{call}));
}

TEST(JsonShape, ContentPartsAreWrittenWithTypeFirst) {
  EXPECT_EQ(write_json(to_json(ContentPart{ImagePart{.mime_type = "image/png", .data = "AAAA"}})),
            R"({"type":"image","mime_type":"image/png","data":"AAAA"})");
}

TEST(JsonShape, AbsentOptionalsAreLeftOut) {
  const json::value written = to_json(SessionStartEvent{});
  EXPECT_FALSE(written.as_object().contains("previous_session_file"));
}

TEST(JsonShape, EnumsAreNamesWithoutTheKeywordUnderscore) {
  EXPECT_EQ(to_json(InputResult{.action = InputAction::continue_}).at("action"), "continue");
  EXPECT_EQ(from_json<InputResult>(parse(R"({"action": "continue"})")).action, InputAction::continue_);
}

TEST(JsonShape, TimestampsAndDurationsAreIntegerMilliseconds) {
  const TurnStartEvent start{.turn_index = 1, .timestamp = Timestamp(Duration(1700000000123))};
  EXPECT_EQ(to_json(start).at("timestamp"), 1700000000123);
  const ToolExecutionEndEvent end{.duration = Duration(1500)};
  EXPECT_EQ(to_json(end).at("duration"), 1500);
}

TEST(JsonShape, ObserveOnlyOutcomeIsNull) { EXPECT_TRUE(to_json(HookOutcome{}).is_null()); }

// ---------------------------------------------------------- lenient reading

TEST(JsonReading, AliasInTypeIsAccepted) {
  const HookEvent event = event_from_json(parse(R"({"type": "before_tool_call", "tool_call_id": "c1", "tool_name": "bash"})"));
  ASSERT_TRUE(std::holds_alternative<ToolCallEvent>(event));
  EXPECT_EQ(std::get<ToolCallEvent>(event).tool_name, "bash");
}

TEST(JsonReading, KnownIndexIgnoresTheTypeKey) {
  const HookEvent event =
      event_from_json(event_index<ToolCallEvent>, parse(R"({"type": "turn_start", "tool_call_id": "c1", "tool_name": "bash"})"));
  EXPECT_TRUE(std::holds_alternative<ToolCallEvent>(event));
}

TEST(JsonReading, UnknownKeysAreIgnored) {
  const auto call = from_json<ToolCallEvent>(parse(R"({"tool_call_id": "c1", "tool_name": "bash", "extra": [1, 2]})"));
  EXPECT_EQ(call, (ToolCallEvent{.tool_call_id = "c1", .tool_name = "bash"}));
}

TEST(JsonReading, MissingOptionalContainerBoolJsonAndContextFieldsDefault) {
  const auto result = from_json<ToolResultEvent>(parse(R"({"tool_call_id": "c1", "tool_name": "bash"})"));
  EXPECT_EQ(result, (ToolResultEvent{.tool_call_id = "c1", .tool_name = "bash"}));
  EXPECT_EQ(from_json<SessionStartEvent>(parse(R"({"reason": "resume"})")).previous_session_file, std::nullopt);
}

// An engine, a trace or a hookctl emit from before agent_end had a status reads as a completed run.
TEST(JsonReading, AnAgentEndWithoutAStatusIsACompletedRun) {
  EXPECT_EQ(from_json<AgentEndEvent>(parse("{}")).status, RunStatus::completed);
  EXPECT_EQ(from_json<AgentEndEvent>(parse(R"({"status": "cancelled"})")).status, RunStatus::cancelled);
}

TEST(JsonReading, NullOptionalIsAbsent) {
  const auto start = from_json<SessionStartEvent>(parse(R"({"reason": "startup", "previous_session_file": null})"));
  EXPECT_EQ(start.previous_session_file, std::nullopt);
}

TEST(JsonReading, MissingResultFieldsMeanNoChange) {
  EXPECT_EQ(outcome_from_json(event_index<ToolCallEvent>, parse("{}")), HookOutcome{ToolCallResult{}});
  EXPECT_EQ(from_json<InputResult>(parse(R"({"text": "hi"})")), (InputResult{.text = "hi"}));
}

TEST(JsonReading, ObserveOnlyEventGivesMonostateWhateverTheJson) {
  EXPECT_EQ(outcome_from_json(event_index<TurnStartEvent>, parse(R"({"block": true})")), HookOutcome{});
}

TEST(JsonReading, WholeNumberInExponentFormIsAnInteger) {
  EXPECT_EQ(from_json<SessionBeforeForkEvent>(parse(R"({"entry_id": "e", "position": 1e3})")).position, 1000u);
}

// ------------------------------------------------------------------- errors

// The JsonError reading `text` throws, as "path: message".
template <class Read>
std::string error_of(Read read) {
  try {
    read();
  } catch (const JsonError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a JsonError";
  return {};
}

std::string event_error(std::string_view text) {
  return error_of([&] { event_from_json(parse(text)); });
}

TEST(JsonErrors, EventThatIsNotAnObject) { EXPECT_EQ(event_error("[1]"), "event: expected object, got array"); }

TEST(JsonErrors, MissingType) {
  EXPECT_EQ(event_error(R"({"tool_name": "bash"})"), "event: missing required field 'type'");
}

TEST(JsonErrors, TypeNotAString) { EXPECT_EQ(event_error(R"({"type": 7})"), "event.type: expected string, got number"); }

TEST(JsonErrors, UnknownTypeListsValidNames) {
  const std::string message = event_error(R"({"type": "tool_cal"})");
  EXPECT_THAT(message, StartsWith("event.type: unknown event 'tool_cal'; valid names are: session_start, "));
  EXPECT_THAT(message, HasSubstr("message:receive"));
}

TEST(JsonErrors, WrongFieldTypeNamesThePath) {
  try {
    event_from_json(parse(R"({"type": "tool_call", "tool_call_id": "c1", "tool_name": "bash", "input": "ls"})"));
    FAIL() << "expected a JsonError";
  } catch (const JsonError& error) {
    EXPECT_STREQ(error.what(), "tool_call.input: expected object, got string");
    EXPECT_EQ(error.path(), "tool_call.input");
  }
}

TEST(JsonErrors, MissingRequiredField) {
  EXPECT_EQ(event_error(R"({"type": "tool_call", "tool_call_id": "c1"})"), "tool_call: missing required field 'tool_name'");
}

TEST(JsonErrors, MissingRequiredFieldOfNestedStruct) {
  EXPECT_EQ(event_error(R"({"type": "tool_execution_start", "tool_call": {"id": "c1", "input": {}}})"),
            "tool_execution_start.tool_call: missing required field 'name'");
}

TEST(JsonErrors, UnknownEnumValueListsValidNames) {
  EXPECT_EQ(event_error(R"({"type": "tool_call", "tool_call_id": "c1", "tool_name": "bash",
                            "context": {"session_id": "s", "cwd": "/", "agent_id": "a", "invoked_by": "x"}})"),
            "tool_call.context.invoked_by: unknown value 'x'; expected one of: main, subagent");
}

TEST(JsonErrors, AnAgentEndStatusThatIsNoneOfItsNamesListsThem) {
  EXPECT_EQ(event_error(R"({"type": "agent_end", "status": "aborted"})"),
            "agent_end.status: unknown value 'aborted'; expected one of: completed, failed, cancelled");
}

TEST(JsonErrors, EnumKeywordUnderscoreIsNotAName) {
  EXPECT_EQ(error_of([] { from_json<InputResult>(parse(R"({"action": "continue_"})")); }),
            "InputResult.action: unknown value 'continue_'; expected one of: continue, transform, handled, reject");
}

TEST(JsonErrors, IntegerOutOfRange) {
  EXPECT_EQ(event_error(R"({"type": "turn_start", "turn_index": 4294967296, "timestamp": 0})"),
            "turn_start.turn_index: expected integer from 0 to 4294967295, got 4294967296");
}

TEST(JsonErrors, NegativeIntoUnsigned) {
  EXPECT_EQ(event_error(R"({"type": "turn_start", "turn_index": -1, "timestamp": 0})"),
            "turn_start.turn_index: expected integer from 0 to 4294967295, got -1");
}

TEST(JsonErrors, FractionIntoInteger) {
  EXPECT_EQ(event_error(R"({"type": "turn_start", "turn_index": 1.5, "timestamp": 0})"),
            "turn_start.turn_index: expected integer, got 1.5");
}

TEST(JsonErrors, StringIntoInteger) {
  EXPECT_EQ(event_error(R"({"type": "turn_start", "turn_index": "1", "timestamp": 0})"),
            "turn_start.turn_index: expected integer, got string");
}

TEST(JsonErrors, UnknownContentPartTypeWithArrayIndexPath) {
  EXPECT_EQ(event_error(R"({"type": "turn_end", "turn_index": 0, "message": {"role": "assistant"},
                            "tool_results": [{"tool_call_id": "a", "tool_name": "t"},
                                             {"tool_call_id": "b", "tool_name": "t"},
                                             {"tool_call_id": "c", "tool_name": "t", "content": [{"type": "video"}]}]})"),
            "turn_end.tool_results[2].content[0]: unknown content part type 'video'; expected one of: text, image, audio");
}

TEST(JsonErrors, ContentPartWithoutType) {
  EXPECT_EQ(event_error(R"({"type": "tool_result_persist", "tool_call_id": "c", "tool_name": "t", "content": [{"text": "hi"}]})"),
            "tool_result_persist.content[0]: missing required field 'type'");
}

TEST(JsonErrors, WrongTypeDeepInANestedArray) {
  EXPECT_EQ(event_error(R"({"type": "context", "messages": [{"role": "user"},
                                                            {"role": "user", "content": [{"type": "text", "text": 5}]}]})"),
            "context.messages[1].content[0].text: expected string, got number");
}

TEST(JsonErrors, ResultFieldWithAnUnknownEnumValue) {
  EXPECT_EQ(error_of([] { outcome_from_json(event_index<ToolCallEvent>, parse(R"({"decision": "yes"})")); }),
            "ToolCallResult.decision: unknown value 'yes'; expected one of: none, allow, ask, defer, deny");
}

TEST(JsonErrors, ValueTypePathStartsAtTheTypeName) {
  EXPECT_EQ(error_of([] { from_json<Message>(parse(R"({"role": "robot"})")); }),
            "Message.role: unknown value 'robot'; expected one of: system, user, assistant, tool");
}

TEST(JsonErrors, SyntaxErrorNamesSourceLineColumnAndOffset) {
  EXPECT_EQ(error_of([] { parse_json("{\"a\": 1,\n \"b\": tru}", "stdin"); }),
            "stdin: invalid JSON at line 2, column 7 (offset 15): syntax error");
}

TEST(JsonErrors, TrailingTextIsASyntaxError) {
  EXPECT_EQ(error_of([] { parse_json("{} x", "hook.json"); }),
            "hook.json: invalid JSON at line 1, column 4 (offset 3): extra data after the document");
}

TEST(JsonErrors, EmptyTextIsIncompleteJson) {
  EXPECT_EQ(error_of([] { parse_json("", "stdin"); }), "stdin: invalid JSON at line 1, column 1 (offset 0): incomplete JSON");
}

// ------------------------------------------------------- unknown fields

TEST(JsonUnknownFields, AMisspeltFieldIsNamedWithTheClosestKnownName) {
  const auto found = unknown_fields<ToolCallEvent>(parse(R"({"tool_call_id": "c1", "tool_nme": "bash"})"));
  EXPECT_EQ(found, (std::vector<UnknownField>{{.object = "tool_call", .name = "tool_nme", .suggestion = "tool_name"}}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message(), R"(unknown field "tool_nme" in tool_call (did you mean "tool_name"?))");
}

TEST(JsonUnknownFields, ADifferentCaseOrTwoSwappedLettersIsOneEditFromTheName) {
  const auto found = unknown_fields<ToolCallEvent>(parse(R"({"toolName": "bash", "tool_cal_lid": "c1"})"));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].suggestion, "tool_name");
  EXPECT_EQ(found[1].suggestion, "tool_call_id");
}

TEST(JsonUnknownFields, AFieldLikeNoKnownNameHasNoSuggestion) {
  const auto found = unknown_fields<ToolCallEvent>(parse(R"({"x": 1, "command": "ls"})"));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].message(), R"(unknown field "x" in tool_call)");
  EXPECT_EQ(found[1].suggestion, "");
}

TEST(JsonUnknownFields, AnOddNameIsQuotedAsAJsonString) {
  const auto found = unknown_fields<ToolCallEvent>(parse(R"({"a\"\n\u001b[2J": 1})"));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message(), R"(unknown field "a\"\n\u001b[2J" in tool_call)");
}

TEST(JsonUnknownFields, FieldsOfNestedStructsArraysAndContentPartsAreNamedByTheirObjectsPath) {
  const auto found = unknown_fields<TurnEndEvent>(parse(R"({"context": {"sessionId": "s"},
      "tool_results": [{}, {"is_eror": true, "content": [{"type": "text", "txt": "a"}]}]})"));
  EXPECT_EQ(found, (std::vector<UnknownField>{
                       {.object = "turn_end.context", .name = "sessionId", .suggestion = "session_id"},
                       {.object = "turn_end.tool_results[1]", .name = "is_eror", .suggestion = "is_error"},
                       {.object = "turn_end.tool_results[1].content[0]", .name = "txt", .suggestion = "text"}}));
}

TEST(JsonUnknownFields, TheTypeKeyOfEventsAndContentPartsIsKnown) {
  EXPECT_THAT(event_unknown_fields(event_index<ToolCallEvent>,
                                   parse(R"({"type": "tool_call", "tool_call_id": "c1", "tool_name": "bash"})")),
              ::testing::IsEmpty());
  EXPECT_THAT(unknown_fields<ContentPart>(parse(R"({"type": "text", "text": "a"})")), ::testing::IsEmpty());
}

TEST(JsonUnknownFields, FreeFormMembersAndValuesOfTheWrongKindAreNotLookedInto) {
  EXPECT_THAT(unknown_fields<ToolCallEvent>(parse(R"({"input": {"anything": 1}, "context": "not an object"})")),
              ::testing::IsEmpty());
}

TEST(JsonUnknownFields, AResultsFieldsAreCheckedAgainstTheEventsResultType) {
  EXPECT_EQ(outcome_unknown_fields(event_index<ToolCallEvent>, parse(R"({"decison": "deny"})")),
            (std::vector<UnknownField>{{.object = "ToolCallResult", .name = "decison", .suggestion = "decision"}}));
  EXPECT_THAT(outcome_unknown_fields(event_index<TurnStartEvent>, parse(R"({"block": true})")), ::testing::IsEmpty());
}

TEST(JsonUnknownFields, AReadWithUnknownFieldsErrorRefusesTheFirstAtItsObjectsPath) {
  try {
    event_from_json(parse(R"({"type": "tool_call", "tool_call_id": "c1", "tool_name": "bash", "tool_nme": "x", "y": 1})"),
                    {.unknown_fields = UnknownFields::error});
    FAIL() << "expected a JsonError";
  } catch (const JsonError& error) {
    EXPECT_STREQ(error.what(), R"(tool_call: unknown field "tool_nme" (did you mean "tool_name"?))");
    EXPECT_EQ(error.path(), "tool_call");
  }
  EXPECT_EQ(error_of([] { outcome_from_json(event_index<ToolCallEvent>, parse(R"({"decison": "deny"})"),
                                            {.unknown_fields = UnknownFields::error}); }),
            R"(ToolCallResult: unknown field "decison" (did you mean "decision"?))");
}

TEST(JsonUnknownFields, AReadWithUnknownFieldsWarnLogsEachAndReadsAsIfIgnored) {
  const testing::LogCapture log;
  const auto call = from_json<ToolCallEvent>(parse(R"({"tool_call_id": "c1", "tool_name": "bash", "tool_nme": "x"})"),
                                             {.unknown_fields = UnknownFields::warn});
  EXPECT_EQ(call, (ToolCallEvent{.tool_call_id = "c1", .tool_name = "bash"}));
  EXPECT_THAT(log.text(), HasSubstr(R"(unknown field "tool_nme" in tool_call (did you mean "tool_name"?))"));
}


// ------------------------------------------------------ reading numbers

// What strtod makes of the text: the correctly rounded double.
double strtod_of(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

// The double parse_json reads from text (a bare number as the whole document).
double parsed_double(const std::string& text) {
  const json::value value = parse(text);
  EXPECT_TRUE(value.is_double()) << text;
  return value.is_double() ? value.get_double() : 0;
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

std::string printf_17g(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string shortest(double value) {
  char text[40];
  return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

TEST(JsonNumbers, ParsesADoubleOfSeventeenDigitsAndALargeExponentCorrectlyRounded) {
  EXPECT_TRUE(same_bits(parsed_double("1.0555555555555555E43"), strtod_of("1.0555555555555555E43")));
  EXPECT_EQ(shortest(parsed_double("1.0555555555555555E43")), "1.0555555555555555e+43");
}

TEST(JsonNumbers, RandomDoublesReadAsStrtodReadsThem) {
  std::mt19937_64 engine(10);
  for (int i = 0; i < 20000; ++i) {
    const double value = std::bit_cast<double>(engine());
    if (!std::isfinite(value)) continue;
    for (const std::string& text : {printf_17g(value), shortest(value)}) {
      // A whole number without '.' or exponent reads as an integer when it fits one.
      const std::string as_double = text.find_first_of(".eE") == std::string::npos ? text + ".0" : text;
      ASSERT_TRUE(same_bits(parsed_double(as_double), strtod_of(as_double))) << as_double;
      ASSERT_TRUE(same_bits(parsed_double(as_double), value)) << as_double;
    }
  }
}

TEST(JsonNumbers, RandomDecimalTextReadsAsStrtodReadsIt) {
  // Up to 25 digits and any exponent: many of these fall between two doubles.
  std::mt19937_64 engine(11);
  for (int i = 0; i < 20000; ++i) {
    std::string digits;
    for (std::uint64_t n = 1 + engine() % 24; n > 0; --n) digits += static_cast<char>('0' + engine() % 10);
    const std::string text = fmt::format("{}{}.{}e{}", engine() % 2 ? "-" : "", 1 + engine() % 9, digits,
                                         static_cast<int>(engine() % 600) - 300);
    ASSERT_TRUE(same_bits(parsed_double(text), strtod_of(text))) << text;
  }
}

TEST(JsonNumbers, EdgeDoublesReadAsStrtodReadsThem) {
  for (const std::string text : {"4.9406564584124654e-324",   // the smallest subnormal
                                 "2.4703282292062328e-324",   // just above half of it: rounds up
                                 "2.2250738585072009e-308",   // the largest subnormal
                                 "2.2250738585072011e-308",   // between it and the smallest normal
                                 "2.2250738585072014e-308",   // the smallest normal
                                 "1.7976931348623157e308",    // the largest double
                                 "1.7976931348623158e308",    // rounds down to it
                                 "9007199254740991.0", "9007199254740992.0", "9007199254740993.0",  // 2^53 - 1, 2^53, 2^53 + 1
                                 "9007199254740995.0",                                             // a tie: to even
                                 "1.00000000000000011102230246251565404236316680908203125",        // 1 + 2^-53: a tie, to 1
                                 "1.00000000000000011102230246251565404236316680908203126",        // just above: the next double
                                 "0.1", "-0.0", "0e0", "1E+2", "123456789012345678901234567890"}) {
    EXPECT_TRUE(same_bits(parsed_double(text), strtod_of(text))) << text;
  }
  EXPECT_TRUE(std::signbit(parsed_double("-0.0")));
}

TEST(JsonNumbers, IntegersBeyond64BitsReadAsTheNearestDouble) {
  EXPECT_TRUE(same_bits(parsed_double("18446744073709551616"), 18446744073709551616.0));
  EXPECT_TRUE(same_bits(parsed_double("-9223372036854775809"), strtod_of("-9223372036854775809")));
  EXPECT_EQ(parse("18446744073709551615"), json::value(std::uint64_t{18446744073709551615u}));
  EXPECT_EQ(parse("-9223372036854775808"), json::value(std::numeric_limits<std::int64_t>::min()));
}

TEST(JsonNumbers, ANumberBeyondADoublesRangeIsAnErrorNamingItsPath) {
  EXPECT_EQ(error_of([] { parse_json(R"({"input": {"x": 1e400}})", "stdin"); }),
            "stdin: invalid JSON at line 1, column 22 (offset 21): input.x: number out of range: "
            "1e400 is beyond a double's range (about ±1.8e308)");
  EXPECT_THAT(error_of([] { parse_json(R"({"input": {"n": [0, -1e999]}})", "stdout"); }),
              HasSubstr("input.n[1]: number out of range: -1e999 is beyond"));
  EXPECT_THAT(error_of([] { parse_json("1.7976931348623159e308", "stdin"); }), HasSubstr("number out of range"));
}

TEST(JsonNumbers, AnExponentBeyondAnyDoublesIsOutOfRange) {
  EXPECT_THAT(error_of([] { parse_json(R"({"x": 1e99999999999})", "stdin"); }),
              HasSubstr("x: number out of range: its exponent is beyond any double's"));
}

TEST(JsonNumbers, ANumberBelowTheSmallestSubnormalReadsAsAZeroOfItsSign) {
  EXPECT_TRUE(same_bits(parsed_double("1e-400"), 0.0));
  EXPECT_TRUE(same_bits(parsed_double("-1e-400"), -0.0));
  EXPECT_TRUE(same_bits(parsed_double("2.4e-324"), 0.0));
}

// ------------------------------------------------------ reading, strictly

TEST(JsonStrictness, ADuplicateKeyIsAnErrorNamingIt) {
  EXPECT_EQ(error_of([] { parse_json(R"({"input": [{"a": 1, "a": 2}]})", "stdout"); }),
            "stdout: invalid JSON at line 1, column 23 (offset 22): input[0].a: duplicate key; each key may appear once");
}

TEST(JsonStrictness, AnOddKeyIsQuotedInThePath) {
  EXPECT_THAT(error_of([] { parse_json(R"({"a b": {"c": 1, "c": 1}})", "stdout"); }), HasSubstr(R"(["a b"].c: duplicate key)"));
}

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonStrictness, SixtyFourLevelsOfNestingAreRead) {
  EXPECT_NO_THROW(parse(nested_arrays(detail::max_json_depth)));
}

TEST(JsonStrictness, DeeperNestingIsAnErrorNotACrash) {
  EXPECT_THAT(error_of([] { parse_json(nested_arrays(65), "stdout"); }),
              HasSubstr("nested more than 64 levels deep (arrays and objects)"));
  EXPECT_THAT(error_of([] { parse_json(std::string(1'000'000, '['), "stdout"); }), HasSubstr("nested more than 64"));
}

TEST(JsonStrictness, IllFormedUtf8InAStringIsAnError) {
  EXPECT_EQ(error_of([] { parse_json("{\"a\": \"x\xff\"}", "stdout"); }),
            "stdout: invalid JSON at line 1, column 9 (offset 8): invalid UTF-8 in a string");
}

TEST(JsonStrictness, CommentsAndTrailingCommasAreErrors) {
  EXPECT_THAT(error_of([] { parse_json("{\"a\": 1 /* no */}", "stdin"); }), HasSubstr("syntax error"));
  EXPECT_THAT(error_of([] { parse_json("[1,]", "stdin"); }), HasSubstr("syntax error"));
}

// ---------------------------------------------------------------- writing

// The significant digits of a number's text: without sign, point, exponent, leading and trailing zeros.
std::size_t significant_digits(const std::string& text) {
  std::string digits;
  for (char c : text.substr(0, text.find('e')))
    if (c >= '0' && c <= '9') digits += c;
  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 1;
  return digits.find_last_not_of('0') - first + 1;
}

// The fewest significant digits printf needs for text that strtod reads back as `value`.
std::size_t fewest_digits_that_read_back(double value) {
  for (int precision = 0;; ++precision) {
    char text[40];
    std::snprintf(text, sizeof text, "%.*e", precision, value);
    if (same_bits(strtod_of(text), value)) return static_cast<std::size_t>(precision) + 1;
  }
}

TEST(JsonWriting, DoublesAreWrittenInTheirShortestFormThatReadsBackExactly) {
  std::mt19937_64 engine(12);
  for (int i = 0; i < 20000; ++i) {
    const double value = std::bit_cast<double>(engine());
    if (!std::isfinite(value)) continue;
    const std::string text = write_json(value);
    ASSERT_TRUE(same_bits(strtod_of(text), value)) << text;
    ASSERT_TRUE(same_bits(parsed_double(text), value)) << text;
    ASSERT_EQ(significant_digits(text), fewest_digits_that_read_back(value)) << text;
  }
  EXPECT_EQ(write_json(0.1), "0.1");
  EXPECT_EQ(write_json(1.0555555555555555e43), "1.0555555555555555e+43");
  EXPECT_EQ(write_json(5e-324), "5e-324");
}

TEST(JsonWriting, AWholeDoubleKeepsAPointSoItReadsBackAsADouble) {
  EXPECT_EQ(write_json(1.0), "1.0");
  EXPECT_EQ(write_json(-0.0), "-0.0");
  EXPECT_EQ(write_json(1e22), "1e+22");
  EXPECT_TRUE(std::signbit(parsed_double(write_json(-0.0))));
  EXPECT_EQ(write_json(json::value(std::int64_t{-7})), "-7");
  EXPECT_EQ(write_json(json::value(std::numeric_limits<std::uint64_t>::max())), "18446744073709551615");
}

TEST(JsonWriting, ANonFiniteDoubleIsRefusedNamingItsPath) {
  const json::value infinite = {{"input", {{"x", std::numeric_limits<double>::infinity()}}}};
  EXPECT_EQ(error_of([&] { write_json(infinite); }), "input.x: cannot write the number inf: JSON has no infinity or NaN");
  const json::value nan = json::array{1, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_EQ(error_of([&] { write_json(nan); }), "[1]: cannot write the number nan: JSON has no infinity or NaN");
}

TEST(JsonWriting, AnEventWithANonFiniteNumberFromCxxIsRefusedWhenWritten) {
  const ToolCallEvent call{.tool_call_id = "c1", .tool_name = "bash", .input = {{"x", -HUGE_VAL}}};
  EXPECT_EQ(error_of([&] { write_json(to_json(call)); }), "input.x: cannot write the number -inf: JSON has no infinity or NaN");
}

TEST(JsonWriting, IllFormedUtf8BecomesTheReplacementCharacter) {
  EXPECT_EQ(write_json(json::string("reason \xff\xfe here")), "\"reason \xEF\xBF\xBD\xEF\xBF\xBD here\"");
  EXPECT_EQ(write_json(json::object{{"k\xc3", "v"}}), "{\"k\xEF\xBF\xBD\":\"v\"}");
}

TEST(JsonWriting, EachMaximalIllFormedSubpartIsOneReplacementCharacter) {
  // As Python's bytes.decode("utf-8", "replace") and WHATWG decoders do.
  const auto written = [](std::string_view bytes) { return write_json(json::string(bytes)); };
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(written("\xE2\x82"), '"' + fffd + '"');                                // a cut euro sign
  EXPECT_EQ(written("\xE2\x82" "A"), '"' + fffd + "A\"");
  EXPECT_EQ(written("\xED\xA0\x80"), '"' + fffd + fffd + fffd + '"');               // a surrogate
  EXPECT_EQ(written("\xC0\xAF"), '"' + fffd + fffd + '"');                          // an overlong '/'
  EXPECT_EQ(written("\xF4\x90\x80\x80"), '"' + fffd + fffd + fffd + fffd + '"');    // above U+10FFFF
  EXPECT_EQ(written("\xF0\x9F\x8E"), '"' + fffd + '"');                             // a cut emoji
  EXPECT_EQ(written("\x80"), '"' + fffd + '"');
}

TEST(JsonWriting, WellFormedTextIsWrittenAsItIsAndControlsEscaped) {
  EXPECT_EQ(write_json(json::string("é日本🎉\xF4\x8F\xBF\xBF")), "\"é日本🎉\xF4\x8F\xBF\xBF\"");
  EXPECT_EQ(write_json(json::string("\"\\\n\t\x01\x7f/")), R"("\"\\\n\t\u0001\u007f/")");
}

// JSON printed to a terminal (hookctl's output, a log line) must not drive it:
// DEL, the C1 controls (U+009B is an 8-bit CSI), the bidirectional controls
// and the line separators are written as \uXXXX, which reads back the same.
TEST(JsonWriting, TerminalControlsAreEscapedAndReadBackUnchanged) {
  const std::string text = "a\x7f" "b\u0080c\u009b2Jd\u202eRLO\u2066\u2069\u200e\u200f\u061c\u2028\u2029 \u00a0é\u2030";
  const std::string written = write_json(json::string(text));
  EXPECT_EQ(written, R"("a\u007fb\u0080c\u009b2Jd\u202eRLO\u2066\u2069\u200e\u200f\u061c\u2028\u2029 )"
                     "\u00a0é\u2030\"");
  EXPECT_EQ(parse(written), json::value(text));
  EXPECT_EQ(write_json(json::object{{"\u202ekey", 1}}), R"({"\u202ekey":1})");
}

TEST(JsonWriting, AnyBytesAreWrittenAsValidUtf8ThatReadsBack) {
  std::mt19937_64 engine(13);
  for (int i = 0; i < 5000; ++i) {
    std::string bytes(engine() % 24, '\0');
    for (char& c : bytes) c = static_cast<char>(engine() % 256);
    const std::string text = write_json(json::string(bytes));
    ASSERT_TRUE(detail::is_valid_utf8(text));
    ASSERT_EQ(parse(text), json::value(detail::valid_utf8(bytes)));
  }
}

TEST(JsonWriting, TheIndentedLayoutHasTwoSpacesALevel) {
  EXPECT_EQ(write_json(json::value{{"a", json::array{1, json::object{}}}, {"b", json::array{}}}, JsonLayout::indented),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}");
}

}  // namespace
}  // namespace hookbus
