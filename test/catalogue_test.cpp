#include <hookbus/hookbus.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace hookbus {
namespace {

using ::testing::HasSubstr;

template <class E>
constexpr bool name_matches_index() {
  return std::variant_alternative_t<event_index<E>, HookEvent>::type == E::type;
}

TEST(Catalogue, EveryWireNameIsUniqueAndIndexed) {
  std::set<std::string_view> seen(event_names().begin(), event_names().end());
  EXPECT_EQ(seen.size(), event_count);
  for (std::size_t i = 0; i < event_count; ++i) EXPECT_EQ(find_event(event_names()[i]), i);
}

TEST(Catalogue, EventIndexIsTheVariantPosition) {
  static_assert(name_matches_index<ToolCallEvent>());
  static_assert(name_matches_index<MessageReceiveEvent>());
  EXPECT_EQ(event_name(event_index<GatewayStartupEvent>), "gateway:startup");
  EXPECT_EQ(event_name(HookEvent{ToolResultEvent{}}), "tool_result");
}

TEST(Catalogue, TraitsMapEventsToResultsAndReductions) {
  static_assert(std::is_same_v<result_t<ToolCallEvent>, ToolCallResult>);
  static_assert(std::is_same_v<result_t<TurnStartEvent>, void>);
  static_assert(reduction_of<ToolCallEvent> == Reduction::block);
  static_assert(reduction_of<ToolResultEvent> == Reduction::patch);
  static_assert(reduction_of<ContextEvent> == Reduction::replace);
  static_assert(reduction_of<TurnStartEvent> == Reduction::observe);
  static_assert(reduction_of<PermissionRequestEvent> == Reduction::block);
  static_assert(std::is_same_v<result_t<PermissionRequestEvent>, PermissionRequestResult>);
  static_assert(reduction_of<SessionStartEvent> == Reduction::collect);
  static_assert(reduction_of<SubagentEndEvent> == Reduction::collect);
  static_assert(reduction_of<ToolExecutionFailureEvent> == Reduction::collect);
  static_assert(reduction_of<NotificationEvent> == Reduction::observe && reduction_of<LoopWarningEvent> == Reduction::observe);
  static_assert(is_closing<ToolResultEvent> && is_closing<AgentEndEvent> && !is_closing<ToolCallEvent>);
  SUCCEED();
}

TEST(Catalogue, HasResultAtAgreesWithTheResultTraitForEveryEvent) {
  const std::vector<bool> expected = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::vector<bool>{EventWithResult<std::variant_alternative_t<I, HookEvent>>...};
  }(std::make_index_sequence<event_count>{});
  for (std::size_t i = 0; i < event_count; ++i) EXPECT_EQ(has_result_at[i], expected[i]) << event_name(i);
  EXPECT_TRUE(has_result_at[event_index<ToolCallEvent>]);
  EXPECT_FALSE(has_result_at[event_index<TurnStartEvent>]);
}

struct AliasCase {
  std::string_view alias;
  std::string_view name;
};

class AliasResolution : public ::testing::TestWithParam<AliasCase> {};

TEST_P(AliasResolution, ResolvesToCatalogueName) {
  EXPECT_EQ(event_name(resolve_event(GetParam().alias)), GetParam().name);
}

INSTANTIATE_TEST_SUITE_P(
    OtherSystems, AliasResolution,
    ::testing::Values(AliasCase{"before_tool_call", "tool_call"}, AliasCase{"on_before_tool", "tool_call"},
                      AliasCase{"BeforeToolCallEvent", "tool_call"}, AliasCase{"after_tool_call", "tool_result"},
                      AliasCase{"on_after_tool", "tool_result"}, AliasCase{"AfterToolCallEvent", "tool_result"},
                      AliasCase{"on_tool_error", "tool_execution_failure"}, AliasCase{"user_message_send", "input"},
                      AliasCase{"agent_stop", "agent_end"}, AliasCase{"on_turn_start", "turn_start"},
                      AliasCase{"on_turn_end", "turn_end"}, AliasCase{"on_error", "agent_error"},
                      AliasCase{"on_permission_denied", "permission_denied"},
                      AliasCase{"on_token_budget_exceeded", "token_budget_exceeded"},
                      AliasCase{"on_tools_disabled", "tools_disabled"}, AliasCase{"MessageAddedEvent", "message_end"},
                      AliasCase{"BeforeInvocationEvent", "agent_start"}, AliasCase{"AfterInvocationEvent", "agent_end"},
                      AliasCase{"BeforeModelCallEvent", "before_model_call"},
                      AliasCase{"AfterModelCallEvent", "after_model_call"}, AliasCase{"tool_call", "tool_call"},
                      AliasCase{"on_loop_warning", "loop_warning"}, AliasCase{"after_agent_end", "agent_end"},
                      AliasCase{"before_llm_call", "before_model_call"}, AliasCase{"after_llm_call", "after_model_call"}));

TEST(Names, UnknownNameErrorListsValidNames) {
  try {
    resolve_event("tool_cal");
    FAIL() << "expected UnknownEventError";
  } catch (const UnknownEventError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown event 'tool_cal'"));
    EXPECT_THAT(e.what(), HasSubstr("tool_call"));
    EXPECT_THAT(e.what(), HasSubstr("message:receive"));
  }
}

TEST(Names, FindEventReturnsNulloptForUnknownName) { EXPECT_EQ(find_event("nope"), std::nullopt); }

TEST(Names, EventNameOutOfRangeThrows) { EXPECT_THROW(event_name(event_count), std::out_of_range); }

TEST(Names, MakeEventBuildsTheIndexedAlternative) {
  for (std::size_t i = 0; i < event_count; ++i) EXPECT_EQ(make_event(i).index(), i);
}

TEST(Catalogue, ContextOfGivesTheContextOfTheEventTheVariantHolds) {
  const HookEvent event = ToolCallEvent{.context = {.session_id = "s1", .cwd = "/work"}, .tool_name = "bash"};
  EXPECT_EQ(context_of(event).session_id, "s1");
  EXPECT_EQ(context_of(HookEvent{TurnEndEvent{.context = {.agent_id = "a2"}}}).agent_id, "a2");
}

// The defaults an engine would otherwise get wrong.

TEST(Defaults, TurnStartTimestampIsWhenTheEventWasMade) {
  const Timestamp before = timestamp_now();
  const TurnStartEvent start{.turn_index = 1};
  const Timestamp after = timestamp_now();
  EXPECT_LE(before, start.timestamp);
  EXPECT_LE(start.timestamp, after);
}

TEST(Defaults, TurnEndMessageIsTheAssistantsUnlessSet) {
  EXPECT_EQ(TurnEndEvent{}.message.role, Role::assistant);
  EXPECT_EQ(TurnEndEvent{.message = Message::assistant("done")}.message.role, Role::assistant);
}

TEST(Defaults, MessageRoleIsUserUnlessSet) {
  EXPECT_EQ(Message{.content = {TextPart{"hi"}}}.role, Role::user);
  EXPECT_EQ(Message::user("hi"), (Message{.role = Role::user, .content = {TextPart{"hi"}}}));
}

TEST(Defaults, AssistantMessageHasTheAssistantRoleItsTextAndItsToolCalls) {
  const ToolCall call{.id = "c1", .name = "bash", .input = {{"command", "ls"}}};
  EXPECT_EQ(Message::assistant("Listing.", {call}),
            (Message{.role = Role::assistant, .content = {TextPart{"Listing."}}, .tool_calls = {call}}));
  EXPECT_THAT(Message::assistant("", {call}).content, ::testing::IsEmpty());
}

TEST(TextOf, JoinsTheTextPartsWithNewlinesAndSkipsImagesAndAudio) {
  const std::vector<ContentPart> parts{TextPart{"first"}, ImagePart{.mime_type = "image/png", .data = "AAAA"},
                                       TextPart{"second"}, AudioPart{.mime_type = "audio/wav", .data = "BBBB"},
                                       TextPart{""}};
  EXPECT_EQ(text_of(parts), "first\nsecond\n");
  EXPECT_EQ(text_of({}), "");
  EXPECT_EQ(text_of({ImagePart{}}), "");
}

}  // namespace
}  // namespace hookbus
