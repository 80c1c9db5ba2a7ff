// copy_over (lib/bus/recording/copy_over.hpp), which a reused trace capture copies
// each emit's event and result with: afterwards the older value is the newer
// one, exactly (the same JSON text: member order and the bits of numbers),
// whatever the two held before.

#include "random_values.hpp"
#include "bus/recording/copy_over.hpp"

#include <hookbus/json.hpp>
#include <hookbus/reflect.hpp>

#include <boost/json/parse.hpp>
#include <boost/mp11/algorithm.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace hookbus {
namespace {

namespace json = boost::json;
using detail::copy_over;
using testing::RandomValues;

constexpr int pairs_per_type = 100;

// Test names are the C++ type names (ToolCallEvent): wire names hold ':'.
struct TypeNames {
  template <class T>
  static std::string GetName(int) {
    return reflect::type_display_name<T>();
  }
};

template <class T>
class CopyOverCatalogue : public ::testing::Test {};
using CatalogueRoots = boost::mp11::mp_rename<detail::catalogue_roots<HookEvent>, ::testing::Types>;
TYPED_TEST_SUITE(CopyOverCatalogue, CatalogueRoots, TypeNames);

TYPED_TEST(CopyOverCatalogue, ARandomValueCopiedOverAnotherBecomesItExactly) {
  RandomValues random(std::hash<std::string>{}(reflect::type_display_name<TypeParam>()));
  TypeParam older = random.make<TypeParam>();
  for (int i = 0; i < pairs_per_type; ++i) {
    const TypeParam newer = random.make<TypeParam>();
    copy_over(older, newer);
    ASSERT_EQ(older, newer);
    ASSERT_EQ(write_json(to_json(older)), write_json(to_json(newer)));
  }
}

json::value parsed(std::string_view text) { return json::parse(text); }

TEST(CopyOverJson, AnObjectWithTheSameKeysTakesTheNewValues) {
  json::value older = parsed(R"({"command": "ls", "timeout": 5, "env": {"A": "1"}})");
  const json::value newer = parsed(R"({"command": "rm -rf build", "timeout": 50, "env": {"A": "2"}})");
  copy_over(older, newer);
  EXPECT_EQ(write_json(older), write_json(newer));
}

TEST(CopyOverJson, AnObjectWithReorderedKeysTakesTheNewOrder) {
  json::value older = parsed(R"({"a": 1, "b": 2})");
  const json::value newer = parsed(R"({"b": 2, "a": 1})");
  copy_over(older, newer);
  EXPECT_EQ(write_json(older), R"({"b":2,"a":1})");
}

TEST(CopyOverJson, AnObjectWithOtherKeysIsReplaced) {
  json::value older = parsed(R"({"a": 1, "b": 2})");
  const json::value newer = parsed(R"({"a": 1, "c": 2})");
  copy_over(older, newer);
  EXPECT_EQ(write_json(older), R"({"a":1,"c":2})");
}

TEST(CopyOverJson, AnArrayOfTheSameLengthTakesTheNewElements) {
  json::value older = parsed(R"([1, "two", [3], {"four": 4}])");
  const json::value newer = parsed(R"([10, "twenty", [30], {"four": 40}])");
  copy_over(older, newer);
  EXPECT_EQ(write_json(older), write_json(newer));
}

TEST(CopyOverJson, AnArrayOfAnotherLengthIsReplaced) {
  json::value older = parsed(R"([1, 2, 3])");
  const json::value newer = parsed(R"([1, 2])");
  copy_over(older, newer);
  EXPECT_EQ(write_json(older), "[1,2]");
}

TEST(CopyOverJson, AValueOfAnotherKindIsReplaced) {
  json::value older = parsed(R"({"n": "five"})");
  const json::value newer = parsed(R"({"n": 5})");
  copy_over(older, newer);
  EXPECT_EQ(write_json(older), R"({"n":5})");
}

TEST(CopyOverJson, NegativeZeroReplacesZero) {
  json::value older = 0.0;
  copy_over(older, json::value(-0.0));
  EXPECT_TRUE(std::signbit(older.as_double()));
}

TEST(CopyOverJson, SignedAndUnsignedIntegersKeepTheirKind) {
  json::value older = std::int64_t{7};
  copy_over(older, json::value(std::uint64_t{7}));
  EXPECT_TRUE(older.is_uint64());
}

TEST(CopyOverEvent, AnEventOfTheSameShapeTakesEveryChangedMember) {
  ToolResultEvent older{.context = {.session_id = "s-1", .cwd = "/a"},
                        .tool_call_id = "call_1",
                        .tool_name = "bash",
                        .input = {{"command", "ls"}},
                        .content = {TextPart{"one"}, ImagePart{"image/png", "AAAA"}},
                        .is_error = false};
  const ToolResultEvent newer{.context = {.session_id = "s-1", .cwd = "/b"},
                              .tool_call_id = "call_2",
                              .tool_name = "bash",
                              .input = {{"command", "rm"}},
                              .content = {TextPart{"two"}, TextPart{"three"}},
                              .is_error = true};
  copy_over(older, newer);
  EXPECT_EQ(older, newer);
}

TEST(CopyOverEvent, AnOptionalMemberIsSetAndCleared) {
  ToolCallResult older{.input = json::object{{"command", "ls"}}};
  copy_over(older, ToolCallResult{});
  EXPECT_FALSE(older.input.has_value());
  copy_over(older, ToolCallResult{.input = json::object{{"command", "pwd"}}});
  EXPECT_EQ(older.input, (json::object{{"command", "pwd"}}));
}

}  // namespace
}  // namespace hookbus
