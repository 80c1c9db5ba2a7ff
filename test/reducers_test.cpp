// Emit and reducers: one test per reduction rule, through a real Hooks::emit.
#include <hookbus/hooks.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hookbus {
namespace {

using ::testing::_;
using ::testing::ElementsAre;
using ::testing::MockFunction;
using ::testing::Return;

boost::json::object command(std::string text) { return {{"command", std::move(text)}}; }

ToolCallEvent bash_call(std::string text) {
  ToolCallEvent event;
  event.tool_name = "bash";
  event.input = command(std::move(text));
  return event;
}

std::vector<ContentPart> text(std::string value) { return {TextPart{std::move(value)}}; }

// ------------------------------------------------------------------ neutral

TEST(NoHandlers, EmitReturnsTheNeutralOutcome) {
  Hooks hooks;
  EXPECT_EQ(hooks.emit(bash_call("ls")), ToolCallResult{});
  EXPECT_EQ(hooks.emit(ToolResultEvent{}), ToolResultResult{});
  EXPECT_EQ(hooks.emit(AgentEndEvent{}), AgentEndResult{});
  EXPECT_EQ(hooks.emit(InputEvent{}), InputResult{});
}

TEST(NoHandlers, VariantEmitOfObserveOnlyEventReturnsMonostate) {
  Hooks hooks;
  auto handler = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  EXPECT_TRUE(std::holds_alternative<std::monostate>(hooks.emit(HookEvent{TurnStartEvent{}})));
}

// emit(const HookEvent&) answers an event nobody listens to inline, without
// visiting the variant; these pin down what that shortcut returns and skips.
TEST(NoHandlers, VariantEmitWithNoListenerAtAllReturnsMonostateForObserveOnlyEvents) {
  Hooks hooks;
  EXPECT_TRUE(std::holds_alternative<std::monostate>(hooks.emit(HookEvent{TurnStartEvent{}})));
}

TEST(NoHandlers, VariantEmitWithNoListenerReturnsTheNeutralResultOfItsType) {
  Hooks hooks;
  const HookOutcome outcome = hooks.emit(HookEvent{bash_call("ls")});
  ASSERT_TRUE(std::holds_alternative<ToolCallResult>(outcome));
  EXPECT_EQ(std::get<ToolCallResult>(outcome), ToolCallResult{});
}

TEST(NoHandlers, VariantEmitReachesACatchAllSubscriberWhenNoTypedHandlerListens) {
  Hooks hooks;
  MockFunction<void(const HookEvent&)> subscriber;
  EXPECT_CALL(subscriber, Call(_)).Times(1);
  auto all = hooks.subscribe(subscriber.AsStdFunction());
  EXPECT_TRUE(std::holds_alternative<std::monostate>(hooks.emit(HookEvent{TurnStartEvent{}})));
}

TEST(VariantEmit, ReturnsTheEventsReducedResult) {
  Hooks hooks;
  auto block = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.block = true}; });
  HookOutcome outcome = hooks.emit(HookEvent{bash_call("ls")});
  ASSERT_TRUE(std::holds_alternative<ToolCallResult>(outcome));
  EXPECT_TRUE(std::get<ToolCallResult>(outcome).block);
}

// -------------------------------------------------------------- block: tool_call

TEST(ToolCallBlock, InputReplacementsChainAndEachHandlerSeesTheLatest) {
  Hooks hooks;
  std::vector<std::string> seen;
  auto record = [&](const ToolCallEvent& e) { seen.emplace_back(e.input.at("command").as_string()); };
  auto first = hooks.on<ToolCallEvent>([&](const ToolCallEvent& e) {
    record(e);
    return ToolCallResult{.input = command("ls -a")};
  });
  auto second = hooks.on<ToolCallEvent>([&](const ToolCallEvent& e) {
    record(e);
    return ToolCallResult{.input = command("ls -al")};
  });
  auto third = hooks.on<ToolCallEvent>(record);
  ToolCallResult outcome = hooks.emit(bash_call("ls"));
  EXPECT_THAT(seen, ElementsAre("ls", "ls -a", "ls -al"));
  ASSERT_TRUE(outcome.input.has_value());
  EXPECT_EQ(*outcome.input, command("ls -al"));
  EXPECT_FALSE(outcome.block);
}

TEST(ToolCallBlock, FirstBlockStopsTheChain) {
  Hooks hooks;
  MockFunction<void(const ToolCallEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto block = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.block = true, .reason = "no"}; });
  auto after = hooks.on<ToolCallEvent>(later.AsStdFunction());
  ToolCallResult outcome = hooks.emit(bash_call("rm -rf /"));
  EXPECT_TRUE(outcome.block);
  EXPECT_EQ(outcome.reason, "no");
}

TEST(ToolCallBlock, BlockWithoutReasonGetsTheDefaultReason) {
  Hooks hooks;
  auto block = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.block = true}; });
  EXPECT_EQ(hooks.emit(bash_call("x")).reason, "Tool call blocked by hook");
}

TEST(ToolCallBlock, OutcomeCarriesTheFinalInputEvenWhenBlocked) {
  Hooks hooks;
  auto rewrite = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.input = command("sudo x")}; });
  auto block = hooks.on<ToolCallEvent>([](const ToolCallEvent& e) {
    return ToolCallResult{.block = e.input.at("command") == "sudo x"};
  });
  ToolCallResult outcome = hooks.emit(bash_call("x"));
  EXPECT_TRUE(outcome.block);
  EXPECT_EQ(*outcome.input, command("sudo x"));
}

TEST(ToolCallBlock, ConstEmitLeavesTheCallersEventUnchanged) {
  Hooks hooks;
  auto rewrite = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.input = command("b")}; });
  const ToolCallEvent event = bash_call("a");
  EXPECT_EQ(*hooks.emit(event).input, command("b"));
  EXPECT_EQ(event.input, command("a"));
}

TEST(ToolCallBlock, RvalueEmitGivesTheSameOutcomeAsConstEmit) {
  Hooks hooks;
  auto rewrite = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.input = command("b")}; });
  const ToolCallEvent event = bash_call("a");
  EXPECT_EQ(hooks.emit(ToolCallEvent(event)), hooks.emit(event));
}

TEST(ChannelConnectDeny, FirstDenyStops) {
  Hooks hooks;
  MockFunction<void(const ChannelConnectEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto allow = hooks.on<ChannelConnectEvent>([](const ChannelConnectEvent&) { return ChannelConnectResult{}; });
  auto deny = hooks.on<ChannelConnectEvent>([](const ChannelConnectEvent&) { return ChannelConnectResult{.allow = false}; });
  auto after = hooks.on<ChannelConnectEvent>(later.AsStdFunction());
  ChannelConnectResult outcome = hooks.emit(ChannelConnectEvent{.channel_id = "telegram"});
  EXPECT_FALSE(outcome.allow);
  EXPECT_EQ(outcome.reason, "Channel connection denied by hook");
}

// ------------------------------------------------------------ patch: tool_result

TEST(ToolResultPatch, EachPatchSetsOnlyItsFields) {
  Hooks hooks;
  auto content = hooks.on<ToolResultEvent>([](const ToolResultEvent&) { return ToolResultResult{.content = text("patched")}; });
  auto error = hooks.on<ToolResultEvent>([](const ToolResultEvent&) { return ToolResultResult{.is_error = true}; });
  ToolResultEvent event;
  event.content = text("original");
  ToolResultResult outcome = hooks.emit(event);
  EXPECT_EQ(outcome.content, text("patched"));
  EXPECT_EQ(outcome.is_error, true);
  EXPECT_EQ(outcome.terminate, std::nullopt);
}

TEST(ToolResultPatch, EachHandlerSeesEarlierPatchesApplied) {
  Hooks hooks;
  auto first = hooks.on<ToolResultEvent>([](const ToolResultEvent&) {
    return ToolResultResult{.content = text("one"), .is_error = true};
  });
  std::vector<ContentPart> seen_content;
  bool seen_error = false;
  auto second = hooks.on<ToolResultEvent>([&](const ToolResultEvent& e) {
    seen_content = e.content;
    seen_error = e.is_error;
  });
  hooks.emit(ToolResultEvent{});
  EXPECT_EQ(seen_content, text("one"));
  EXPECT_TRUE(seen_error);
}

TEST(ToolResultPatch, LaterPatchOfTheSameFieldWins) {
  Hooks hooks;
  auto first = hooks.on<ToolResultEvent>([](const ToolResultEvent&) { return ToolResultResult{.content = text("one")}; });
  auto second = hooks.on<ToolResultEvent>([](const ToolResultEvent&) { return ToolResultResult{.content = text("two")}; });
  EXPECT_EQ(hooks.emit(ToolResultEvent{}).content, text("two"));
}

TEST(ToolResultPatch, NoPatchMeansNothingChanged) {
  Hooks hooks;
  auto observe = hooks.on<ToolResultEvent>([](const ToolResultEvent&) { return std::optional<ToolResultResult>(); });
  EXPECT_EQ(hooks.emit(ToolResultEvent{}), ToolResultResult{});
}

// ---------------------------------------------------------- replace chains

TEST(ContextReplace, EachHandlerSeesThePreviousReplacement) {
  Hooks hooks;
  const Message system{.role = Role::system, .content = text("be brief")};
  auto add = hooks.on<ContextEvent>([&](const ContextEvent& e) {
    auto messages = e.messages;
    messages.insert(messages.begin(), system);
    return ContextResult{.messages = messages};
  });
  std::size_t seen = 0;
  auto count = hooks.on<ContextEvent>([&](const ContextEvent& e) -> std::optional<ContextResult> {
    seen = e.messages.size();
    return std::nullopt;
  });
  ContextEvent event;
  event.messages = {Message{.role = Role::user, .content = text("hi")}};
  ContextResult outcome = hooks.emit(event);
  EXPECT_EQ(seen, 2u);
  ASSERT_TRUE(outcome.messages);
  EXPECT_EQ(outcome.messages->front(), system);
}

TEST(ToolResultPersistReplace, RedactionsChain) {
  Hooks hooks;
  auto first = hooks.on<ToolResultPersistEvent>([](const ToolResultPersistEvent& e) {
    auto value = std::get<TextPart>(e.content[0]).text;
    return ToolResultPersistResult{.content = text(value.replace(value.find("sk-1"), 4, "[KEY]"))};
  });
  auto second = hooks.on<ToolResultPersistEvent>([](const ToolResultPersistEvent& e) {
    auto value = std::get<TextPart>(e.content[0]).text;
    return ToolResultPersistResult{.content = text(value + " (redacted)")};
  });
  ToolResultPersistEvent event;
  event.content = text("key sk-1");
  EXPECT_EQ(hooks.emit(event).content, text("key [KEY] (redacted)"));
}

// --------------------------------------------------------------- last wins

TEST(BeforeAgentStartLastWins, LastNonEmptySystemPromptWins) {
  Hooks hooks;
  auto first = hooks.on<BeforeAgentStartEvent>([](const BeforeAgentStartEvent&) { return BeforeAgentStartResult{"one"}; });
  auto second = hooks.on<BeforeAgentStartEvent>([](const BeforeAgentStartEvent&) { return BeforeAgentStartResult{"two"}; });
  auto empty = hooks.on<BeforeAgentStartEvent>([](const BeforeAgentStartEvent&) { return BeforeAgentStartResult{""}; });
  auto none = hooks.on<BeforeAgentStartEvent>([](const BeforeAgentStartEvent&) { return BeforeAgentStartResult{}; });
  EXPECT_EQ(hooks.emit(BeforeAgentStartEvent{}).system_prompt, "two");
}

TEST(BeforeAgentStartLastWins, HandlersSeeTheCurrentSystemPrompt) {
  Hooks hooks;
  auto first = hooks.on<BeforeAgentStartEvent>([](const BeforeAgentStartEvent& e) {
    return BeforeAgentStartResult{e.system_prompt + " +a"};
  });
  auto second = hooks.on<BeforeAgentStartEvent>([](const BeforeAgentStartEvent& e) {
    return BeforeAgentStartResult{e.system_prompt + " +b"};
  });
  EXPECT_EQ(hooks.emit(BeforeAgentStartEvent{.system_prompt = "base"}).system_prompt, "base +a +b");
}

// ------------------------------------------------------------------ cancel

TEST(SessionBeforeSwitchCancel, FirstCancelStops) {
  Hooks hooks;
  MockFunction<void(const SessionBeforeSwitchEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto cancel = hooks.on<SessionBeforeSwitchEvent>([](const SessionBeforeSwitchEvent&) {
    return SessionBeforeSwitchResult{.cancel = true, .reason = "unsaved work"};
  });
  auto after = hooks.on<SessionBeforeSwitchEvent>(later.AsStdFunction());
  auto outcome = hooks.emit(SessionBeforeSwitchEvent{});
  EXPECT_TRUE(outcome.cancel);
  EXPECT_EQ(outcome.reason, "unsaved work");
}

TEST(SessionBeforeForkCancel, FirstCancelStops) {
  Hooks hooks;
  MockFunction<void(const SessionBeforeForkEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto cancel = hooks.on<SessionBeforeForkEvent>([](const SessionBeforeForkEvent&) {
    return SessionBeforeForkResult{.cancel = true};
  });
  auto after = hooks.on<SessionBeforeForkEvent>(later.AsStdFunction());
  auto outcome = hooks.emit(SessionBeforeForkEvent{});
  EXPECT_TRUE(outcome.cancel);
  EXPECT_EQ(outcome.reason, "Cancelled by hook");
}

TEST(SessionBeforeCompactCancel, LastSuppliedCompactionWins) {
  Hooks hooks;
  auto first = hooks.on<SessionBeforeCompactEvent>([](const SessionBeforeCompactEvent&) {
    return SessionBeforeCompactResult{.compaction = Compaction{.summary = "one"}};
  });
  auto second = hooks.on<SessionBeforeCompactEvent>([](const SessionBeforeCompactEvent&) {
    return SessionBeforeCompactResult{.compaction = Compaction{.summary = "two"}};
  });
  auto outcome = hooks.emit(SessionBeforeCompactEvent{});
  EXPECT_FALSE(outcome.cancel);
  EXPECT_EQ(outcome.compaction->summary, "two");
}

TEST(SessionBeforeCompactCancel, CancelStopsEvenAfterACompactionWasSupplied) {
  Hooks hooks;
  auto supply = hooks.on<SessionBeforeCompactEvent>([](const SessionBeforeCompactEvent&) {
    return SessionBeforeCompactResult{.compaction = Compaction{.summary = "one"}};
  });
  auto cancel = hooks.on<SessionBeforeCompactEvent>([](const SessionBeforeCompactEvent&) {
    return SessionBeforeCompactResult{.cancel = true};
  });
  EXPECT_TRUE(hooks.emit(SessionBeforeCompactEvent{}).cancel);
}

TEST(SessionBeforeTreeCancel, FieldsMergeWithLastWins) {
  Hooks hooks;
  auto first = hooks.on<SessionBeforeTreeEvent>([](const SessionBeforeTreeEvent&) {
    return SessionBeforeTreeResult{.summary = "s1", .label = "l1"};
  });
  auto second = hooks.on<SessionBeforeTreeEvent>([](const SessionBeforeTreeEvent&) {
    return SessionBeforeTreeResult{.summary = "s2", .custom_instructions = "c2"};
  });
  auto outcome = hooks.emit(SessionBeforeTreeEvent{});
  EXPECT_EQ(outcome.summary, "s2");
  EXPECT_EQ(outcome.custom_instructions, "c2");
  EXPECT_EQ(outcome.label, "l1");
  EXPECT_FALSE(outcome.cancel);
}

// --------------------------------------------------------------- transform

TEST(InputTransform, TransformsChainAndEachHandlerSeesTheTransformedText) {
  Hooks hooks;
  auto upper = hooks.on<InputEvent>([](const InputEvent& e) {
    return InputResult{.action = InputAction::transform, .text = e.text + "!"};
  });
  auto again = hooks.on<InputEvent>([](const InputEvent& e) {
    return InputResult{.action = InputAction::transform, .text = e.text + "?"};
  });
  InputResult outcome = hooks.emit(InputEvent{.text = "hi"});
  EXPECT_EQ(outcome.action, InputAction::transform);
  EXPECT_EQ(outcome.text, "hi!?");
}

TEST(InputTransform, ImagesAreKeptUnlessReplaced) {
  Hooks hooks;
  auto retext = hooks.on<InputEvent>([](const InputEvent&) {
    return InputResult{.action = InputAction::transform, .text = "new"};
  });
  std::size_t images_seen = 0;
  auto look = hooks.on<InputEvent>([&](const InputEvent& e) { images_seen = e.images.size(); });
  InputEvent event{.text = "old", .images = {ImagePart{"image/png", "AAAA"}}};
  InputResult outcome = hooks.emit(event);
  EXPECT_EQ(images_seen, 1u);
  EXPECT_EQ(outcome.images, std::nullopt);
}

TEST(InputTransform, ContinueLeavesTheInputAlone) {
  Hooks hooks;
  auto pass = hooks.on<InputEvent>([](const InputEvent&) { return InputResult{.text = "ignored"}; });
  EXPECT_EQ(hooks.emit(InputEvent{.text = "hi"}), InputResult{});
}

TEST(InputTransform, HandledStopsTheChain) {
  Hooks hooks;
  MockFunction<void(const InputEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto handled = hooks.on<InputEvent>([](const InputEvent&) { return InputResult{.action = InputAction::handled}; });
  auto after = hooks.on<InputEvent>(later.AsStdFunction());
  EXPECT_EQ(hooks.emit(InputEvent{.text = "/help"}).action, InputAction::handled);
}

TEST(InputTransform, RejectStopsTheChainWithItsReason) {
  Hooks hooks;
  MockFunction<void(const InputEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto reject = hooks.on<InputEvent>([](const InputEvent&) {
    return InputResult{.action = InputAction::reject, .reason = "profanity"};
  });
  auto after = hooks.on<InputEvent>(later.AsStdFunction());
  InputResult outcome = hooks.emit(InputEvent{.text = "x"});
  EXPECT_EQ(outcome.action, InputAction::reject);
  EXPECT_EQ(outcome.reason, "profanity");
}

TEST(MessageReceiveTransform, TransformsChainOnParts) {
  Hooks hooks;
  auto transcribe = hooks.on<MessageReceiveEvent>([](const MessageReceiveEvent&) {
    return MessageReceiveResult{.action = ReceiveAction::transform, .parts = text("transcript")};
  });
  std::vector<ContentPart> seen;
  auto look = hooks.on<MessageReceiveEvent>([&](const MessageReceiveEvent& e) { seen = e.parts; });
  MessageReceiveEvent event;
  event.parts = {AudioPart{"audio/ogg", "T2dn"}};
  MessageReceiveResult outcome = hooks.emit(event);
  EXPECT_EQ(seen, text("transcript"));
  EXPECT_EQ(outcome.action, ReceiveAction::transform);
  EXPECT_EQ(outcome.parts, text("transcript"));
}

TEST(MessageReceiveTransform, FirstRejectStopsAndCarriesItsReason) {
  Hooks hooks;
  MockFunction<void(const MessageReceiveEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto reject = hooks.on<MessageReceiveEvent>([](const MessageReceiveEvent&) {
    return MessageReceiveResult{.action = ReceiveAction::reject, .reason = "spam"};
  });
  auto after = hooks.on<MessageReceiveEvent>(later.AsStdFunction());
  auto outcome = hooks.emit(MessageReceiveEvent{});
  EXPECT_EQ(outcome.action, ReceiveAction::reject);
  EXPECT_EQ(outcome.reason, "spam");
}

// ----------------------------------------------------------------- collect

TEST(Collect, AgentEndFollowUpsAccumulateInHandlerOrder) {
  Hooks hooks;
  auto first = hooks.on<AgentEndEvent>([](const AgentEndEvent&) { return AgentEndResult{{"a", "b"}}; });
  auto none = hooks.on<AgentEndEvent>([](const AgentEndEvent&) { return std::optional<AgentEndResult>(); });
  auto second = hooks.on<AgentEndEvent>([](const AgentEndEvent&) { return AgentEndResult{{"c"}}; });
  EXPECT_THAT(hooks.emit(AgentEndEvent{}).follow_up_messages, ElementsAre("a", "b", "c"));
}

TEST(Collect, MessageSendPartsAccumulate) {
  Hooks hooks;
  auto tts = hooks.on<MessageSendEvent>([](const MessageSendEvent&) {
    return MessageSendResult{{AudioPart{"audio/ogg", "AAA"}}};
  });
  auto card = hooks.on<MessageSendEvent>([](const MessageSendEvent&) { return MessageSendResult{text("card")}; });
  EXPECT_EQ(hooks.emit(MessageSendEvent{}).parts.size(), 2u);
}

TEST(Collect, BootstrapFilesAndResourcesAccumulate) {
  Hooks hooks;
  auto a = hooks.on<BootstrapFilesEvent>([](const BootstrapFilesEvent&) { return BootstrapFilesResult{{"AGENTS.md"}}; });
  auto b = hooks.on<BootstrapFilesEvent>([](const BootstrapFilesEvent&) { return BootstrapFilesResult{{"RULES.md"}}; });
  auto c = hooks.on<ResourcesDiscoverEvent>([](const ResourcesDiscoverEvent&) { return ResourcesDiscoverResult{{"/skills"}}; });
  EXPECT_THAT(hooks.emit(BootstrapFilesEvent{}).contents, ElementsAre("AGENTS.md", "RULES.md"));
  EXPECT_THAT(hooks.emit(ResourcesDiscoverEvent{}).paths, ElementsAre("/skills"));
}

// -------------------------------------------------------------- first wins

TEST(UserBashFirstWins, FirstHandlerThatHandlesItWins) {
  Hooks hooks;
  MockFunction<void(const UserBashEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto decline = hooks.on<UserBashEvent>([](const UserBashEvent&) { return UserBashResult{}; });
  auto handle = hooks.on<UserBashEvent>([](const UserBashEvent&) {
    return UserBashResult{.handled = true, .output = "sandboxed", .exit_code = 0};
  });
  auto after = hooks.on<UserBashEvent>(later.AsStdFunction());
  auto outcome = hooks.emit(UserBashEvent{.command = "ls"});
  EXPECT_TRUE(outcome.handled);
  EXPECT_EQ(outcome.output, "sandboxed");
}

}  // namespace
}  // namespace hookbus
