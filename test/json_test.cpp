// The JSON contract of json.hpp: lossless round trips for every event and
// result (property style, over random values generated from the descriptions),
// the wire shape, the lenient/strict reading rules, and one test per error.

#include "catalogue/json_detail.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

#include <boost/json/serialize.hpp>
#include <boost/mp11/algorithm.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace hookbus {
namespace {

namespace json = boost::json;
using namespace reflect;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// ------------------------------------------------------------ random values

// Random catalogue values built from their descriptions: every member of every
// struct gets a value, so a new field or event is covered without an edit here.
class RandomValues {
 public:
  explicit RandomValues(std::uint64_t seed) : engine_(seed) {}

  template <class T>
  T make() {
    if constexpr (std::is_same_v<T, bool>) return chance();
    else if constexpr (Integer<T>) return integer<T>();
    else if constexpr (std::is_same_v<T, std::string>) return text();
    else if constexpr (std::is_same_v<T, json::object>) return object(0);
    else if constexpr (std::is_same_v<T, json::value>) return json_value(0);
    else if constexpr (std::is_same_v<T, Timestamp>) return Timestamp(make<Duration>());
    else if constexpr (std::is_same_v<T, Duration>) return Duration(integer<Duration::rep>());
    else if constexpr (DescribedEnum<T>) return one_of(enumerators<T>());
    else if constexpr (is_optional_v<T>) return chance() ? T(make<typename T::value_type>()) : T();
    else if constexpr (is_vector_v<T>) return vector<typename T::value_type>();
    else if constexpr (std::is_same_v<T, ContentPart>) return alternative<T>(std::make_index_sequence<std::variant_size_v<T>>{});
    else if constexpr (DescribedStruct<T>) return structure<T>();
    else static_assert(always_false<T>, "RandomValues: teach me this member type");
  }

 private:
  std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(engine_); }
  bool chance() { return below(2) == 0; }

  template <class T>
  T one_of(const std::vector<T>& choices) {
    return choices[below(choices.size())];
  }

  // A third of the time an extreme, otherwise anywhere in the type's range.
  template <Integer T>
  T integer() {
    using limits = std::numeric_limits<T>;
    if (below(3) == 0) return one_of<T>({limits::min(), limits::max(), T{0}});
    return std::uniform_int_distribution<T>(limits::min(), limits::max())(engine_);
  }

  // Quotes, backslashes, control characters and multi-byte UTF-8 among plain text.
  std::string text() {
    static const std::vector<std::string> pieces = {"a", "Z", "7", " ", "\"", "\\", "\n", "\t", "\x01", "/",
                                                    "é", "日本", "🎉", "{}", "null"};
    std::string text;
    for (std::size_t n = below(13); n > 0; --n) text += one_of(pieces);
    return text;
  }

  json::value json_value(int depth) {
    switch (below(depth < 2 ? 8 : 6)) {
      case 0: return nullptr;
      case 1: return chance();
      case 2: return integer<std::int64_t>();
      case 3: return integer<std::uint64_t>();
      case 4: return static_cast<double>(integer<std::int32_t>()) / 8;  // exact in binary and in decimal
      case 5: return json::string(text());
      case 6: return array(depth + 1);
      default: return object(depth + 1);
    }
  }

  json::array array(int depth) {
    json::array array;
    for (std::size_t n = below(4); n > 0; --n) array.push_back(json_value(depth));
    return array;
  }

  json::object object(int depth) {
    json::object object;
    for (std::size_t n = below(4); n > 0; --n) object[text()] = json_value(depth);
    return object;
  }

  template <DescribedEnum E>
  static std::vector<E> enumerators() {
    std::vector<E> values;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) { values.push_back(d.value); });
    return values;
  }

  template <class T>
  std::vector<T> vector() {
    std::vector<T> values;
    for (std::size_t n = below(4); n > 0; --n) values.push_back(make<T>());
    return values;
  }

  template <class V, std::size_t... I>
  V alternative(std::index_sequence<I...>) {
    using Make = V (*)(RandomValues&);
    static constexpr Make makers[] = {[](RandomValues& r) -> V { return r.make<std::variant_alternative_t<I, V>>(); }...};
    return makers[below(sizeof...(I))](*this);
  }

  template <class T>
  T structure() {
    T value{};
    boost::mp11::mp_for_each<members_of<T>>([&](auto member) {
      value.*member.pointer = make<std::remove_cvref_t<decltype(value.*member.pointer)>>();
    });
    return value;
  }

  std::mt19937_64 engine_;
};

constexpr int values_per_type = 200;

template <class T>
std::uint64_t seed_for() {
  return std::hash<std::string>{}(type_display_name<T>());
}

json::value through_text(const json::value& value) { return parse_json(json::serialize(value), "round trip"); }

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
    ASSERT_TRUE(from_json<TypeParam>(through_text(written)) == event) << json::serialize(written);
  }
}

TYPED_TEST(EventRoundTrip, RandomValuesSurviveAsHookEventPickedByType) {
  RandomValues random(seed_for<TypeParam>() + 1);
  for (int i = 0; i < values_per_type; ++i) {
    const HookEvent event = random.template make<TypeParam>();
    const json::value written = to_json(event);
    ASSERT_TRUE(event_from_json(through_text(written)) == event) << json::serialize(written);
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
    ASSERT_TRUE(from_json<TypeParam>(through_text(written)) == result) << json::serialize(written);
  }
}

TYPED_TEST(ResultRoundTrip, RandomValuesSurviveAsOutcomeOfTheirEvent) {
  RandomValues random(seed_for<TypeParam>() + 1);
  const std::size_t event = event_index_returning<TypeParam>();
  for (int i = 0; i < values_per_type; ++i) {
    const HookOutcome outcome = random.template make<TypeParam>();
    const json::value written = to_json(outcome);
    ASSERT_TRUE(outcome_from_json(event, through_text(written)) == outcome) << json::serialize(written);
  }
}

// ---------------------------------------------------------------- the shape

json::value parse(std::string_view text) { return parse_json(text, "test"); }

TEST(JsonShape, EventsAreWrittenWithTypeFirst) {
  const ToolCallEvent call{.tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls"}}};
  EXPECT_THAT(json::serialize(to_json(HookEvent{call})), StartsWith(R"({"type":"tool_call","context":{)"));
  EXPECT_EQ(to_json(call), to_json(HookEvent{call}));
}

TEST(JsonShape, ContentPartsAreWrittenWithTypeFirst) {
  EXPECT_EQ(json::serialize(to_json(ContentPart{ImagePart{.mime_type = "image/png", .data = "AAAA"}})),
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
            "ToolCallResult.decision: unknown value 'yes'; expected one of: none, allow, ask, deny");
}

TEST(JsonErrors, ValueTypePathStartsAtTheTypeName) {
  EXPECT_EQ(error_of([] { from_json<Message>(parse(R"({"role": "robot"})")); }),
            "Message.role: unknown value 'robot'; expected one of: system, user, assistant, tool");
}

TEST(JsonErrors, SyntaxErrorNamesSourceAndOffset) {
  EXPECT_THAT(error_of([] { parse_json(R"({"a": tru})", "stdin"); }), StartsWith("stdin: invalid JSON at offset 6: "));
}

TEST(JsonErrors, TrailingTextIsASyntaxError) {
  EXPECT_THAT(error_of([] { parse_json("{} x", "hook.json"); }), StartsWith("hook.json: invalid JSON at offset 3: "));
}

TEST(JsonErrors, EmptyTextIsIncompleteJson) {
  EXPECT_THAT(error_of([] { parse_json("", "stdin"); }), StartsWith("stdin: invalid JSON at offset 0: "));
}

}  // namespace
}  // namespace hookbus
