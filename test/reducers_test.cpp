// Emit and reducers: one test per reduction rule, through a real Hooks::emit.
#include <hookbus/hooks.hpp>
#include <hookbus/reflect.hpp>

#include <boost/mp11/algorithm.hpp>

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
  auto block = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.decision = Decision::deny}; });
  HookOutcome outcome = hooks.emit(HookEvent{bash_call("ls")});
  ASSERT_TRUE(std::holds_alternative<ToolCallResult>(outcome));
  EXPECT_EQ(std::get<ToolCallResult>(outcome).decision, Decision::deny);
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
  EXPECT_EQ(outcome.decision, Decision::none);
}

TEST(ToolCallBlock, FirstDenyStopsTheChain) {
  Hooks hooks;
  MockFunction<void(const ToolCallEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto block = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.decision = Decision::deny, .reason = "no"}; });
  auto after = hooks.on<ToolCallEvent>(later.AsStdFunction());
  ToolCallResult outcome = hooks.emit(bash_call("rm -rf /"));
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "no");
}

TEST(ToolCallBlock, DenyWithoutReasonGetsTheDefaultReason) {
  Hooks hooks;
  auto block = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.decision = Decision::deny}; });
  EXPECT_EQ(hooks.emit(bash_call("x")).reason, "Tool call denied by hook");
}

TEST(ToolCallBlock, AskWithoutReasonGetsTheDefaultReason) {
  Hooks hooks;
  auto ask = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.decision = Decision::ask}; });
  EXPECT_EQ(hooks.emit(bash_call("x")).reason, "Tool call sent to the user by hook");
}

TEST(ToolCallBlock, OutcomeCarriesTheFinalInputEvenWhenDenied) {
  Hooks hooks;
  auto rewrite = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.input = command("sudo x")}; });
  auto block = hooks.on<ToolCallEvent>([](const ToolCallEvent& e) {
    return ToolCallResult{.decision = e.input.at("command") == "sudo x" ? Decision::deny : Decision::none};
  });
  ToolCallResult outcome = hooks.emit(bash_call("x"));
  EXPECT_EQ(outcome.decision, Decision::deny);
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

// ------------------------------------------------ decisions: deny > defer > ask > allow

ToolCallResult decide(Decision decision, std::string reason = "") {
  return ToolCallResult{.decision = decision, .reason = std::move(reason)};
}

TEST(ToolCallDecision, AskWinsOverAllowAcrossHandlers) {
  Hooks hooks;
  auto allow = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::allow, "fine"); });
  auto ask = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::ask, "are you sure?"); });
  auto allow_again = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::allow, "fine too"); });
  const ToolCallResult outcome = hooks.emit(bash_call("git push"));
  EXPECT_EQ(outcome.decision, Decision::ask);
  EXPECT_EQ(outcome.reason, "are you sure?");
}

TEST(ToolCallDecision, DenyWinsOverAskAndAllow) {
  Hooks hooks;
  auto allow = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::allow); });
  auto ask = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::ask, "sure?"); });
  auto deny = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::deny, "never"); });
  const ToolCallResult outcome = hooks.emit(bash_call("rm -rf /"));
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "never");
}

TEST(ToolCallDecision, DeferWinsOverAskAndAllowAndDenyOverDefer) {
  Hooks hooks;
  auto allow = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::allow); });
  auto defer = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::defer, "the engine decides"); });
  auto ask = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::ask, "sure?"); });
  const ToolCallResult deferred = hooks.emit(bash_call("git push"));
  EXPECT_EQ(deferred.decision, Decision::defer);
  EXPECT_EQ(deferred.reason, "the engine decides");
  auto deny = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::deny, "never"); });
  EXPECT_EQ(hooks.emit(bash_call("git push")).decision, Decision::deny);
}

TEST(ToolCallDecision, DeferDoesNotStopTheChain) {
  Hooks hooks;
  MockFunction<void(const ToolCallEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(1);
  auto defer = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::defer); });
  auto after = hooks.on<ToolCallEvent>(later.AsStdFunction());
  EXPECT_EQ(hooks.emit(bash_call("ls")).decision, Decision::defer);
}

TEST(ToolCallDecision, AllowWinsOverNoDecisionAndKeepsItsReason) {
  Hooks hooks;
  auto none = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::none, "ignored"); });
  auto allow = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::allow, "read-only"); });
  const ToolCallResult outcome = hooks.emit(bash_call("ls"));
  EXPECT_EQ(outcome.decision, Decision::allow);
  EXPECT_EQ(outcome.reason, "read-only");
}

TEST(ToolCallDecision, AskDoesNotStopTheChain) {
  Hooks hooks;
  MockFunction<void(const ToolCallEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(1);
  auto ask = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::ask); });
  auto after = hooks.on<ToolCallEvent>(later.AsStdFunction());
  EXPECT_EQ(hooks.emit(bash_call("ls")).decision, Decision::ask);
}

TEST(ToolCallDecision, TheFirstHandlerAtTheWinningLevelGivesTheReason) {
  Hooks hooks;
  auto first = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::ask, "first"); }, {.label = "a"});
  auto second = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::ask, "second"); }, {.label = "b"});
  const ToolCallResult outcome = hooks.emit(bash_call("ls"));
  EXPECT_EQ(outcome.reason, "first");
  EXPECT_EQ(outcome.decided_by, (Decider{"a", ""}));
}

TEST(PermissionRequestDecision, ReducesLikeToolCall) {
  Hooks hooks;
  MockFunction<void(const PermissionRequestEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto allow = hooks.on<PermissionRequestEvent>([](const PermissionRequestEvent&) {
    return PermissionRequestResult{.decision = Decision::allow, .input = command("ls -a")};
  });
  std::string seen;
  auto deny = hooks.on<PermissionRequestEvent>([&](const PermissionRequestEvent& e) {
    seen = e.input.at("command").as_string();
    return PermissionRequestResult{.decision = Decision::deny};
  });
  auto after = hooks.on<PermissionRequestEvent>(later.AsStdFunction());
  const PermissionRequestResult outcome = hooks.emit(PermissionRequestEvent{.tool_name = "bash", .input = command("ls")});
  EXPECT_EQ(seen, "ls -a");
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "Permission denied by hook");
  EXPECT_EQ(outcome.input, command("ls -a"));
}

// ------------------------------------------------------------- decided_by

TEST(DecidedBy, NamesTheDecidingHandlersLabelAndSource) {
  Hooks hooks;
  auto ask = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::ask); }, {.label = "asker"});
  auto deny = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::deny); },
                                      {.label = "guard", .kind = HandlerKind::external, .source = "/p/.hookbus/hooks/guard"});
  EXPECT_EQ(hooks.emit(bash_call("ls")).decided_by, (Decider{"guard", "/p/.hookbus/hooks/guard"}));
}

TEST(DecidedBy, AnUnlabelledHandlerIsNamedByItsDefaultLabel) {
  Hooks hooks;
  auto deny = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::deny); });
  const auto decider = hooks.emit(bash_call("ls")).decided_by;
  ASSERT_TRUE(decider.has_value());
  EXPECT_EQ(decider->handler, hooks.handlers("tool_call").front());
}

TEST(DecidedBy, AHandlerMayNameTheDeciderItself) {
  Hooks hooks;
  auto group = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.decision = Decision::deny, .decided_by = Decider{"validate-bash.sh", "settings.json hooks.PreToolUse[0]"}};
  }, {.label = "settings group"});
  EXPECT_EQ(hooks.emit(bash_call("ls")).decided_by, (Decider{"validate-bash.sh", "settings.json hooks.PreToolUse[0]"}));
}

TEST(DecidedBy, AHandlersOwnDeciderIsDroppedUnlessItsDecisionWins) {
  Hooks hooks;
  auto claims = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.decided_by = Decider{"me", "nowhere"}};
  });
  EXPECT_EQ(hooks.emit(bash_call("ls")).decided_by, std::nullopt);
  auto deny = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return decide(Decision::deny); }, {.label = "guard"});
  EXPECT_EQ(hooks.emit(bash_call("ls")).decided_by, (Decider{"guard", ""}));
}

TEST(DecidedBy, EveryKindOfRefusalNamesItsHandler) {
  Hooks hooks;
  const HandlerOptions options{.label = "refuser", .source = "here"};
  const Decider refuser{"refuser", "here"};
  auto channel = hooks.on<ChannelConnectEvent>([](const ChannelConnectEvent&) { return ChannelConnectResult{.allow = false}; }, options);
  auto cancel = hooks.on<SessionBeforeForkEvent>([](const SessionBeforeForkEvent&) { return SessionBeforeForkResult{.cancel = true}; }, options);
  auto reject = hooks.on<InputEvent>([](const InputEvent&) { return InputResult{.action = InputAction::reject}; }, options);
  auto receive = hooks.on<MessageReceiveEvent>([](const MessageReceiveEvent&) {
    return MessageReceiveResult{.action = ReceiveAction::reject};
  }, options);
  auto bash = hooks.on<UserBashEvent>([](const UserBashEvent&) { return UserBashResult{.handled = true}; }, options);
  auto permission = hooks.on<PermissionRequestEvent>([](const PermissionRequestEvent&) {
    return PermissionRequestResult{.decision = Decision::allow};
  }, options);
  EXPECT_EQ(hooks.emit(ChannelConnectEvent{}).decided_by, refuser);
  EXPECT_EQ(hooks.emit(SessionBeforeForkEvent{}).decided_by, refuser);
  EXPECT_EQ(hooks.emit(InputEvent{}).decided_by, refuser);
  EXPECT_EQ(hooks.emit(MessageReceiveEvent{}).decided_by, refuser);
  EXPECT_EQ(hooks.emit(UserBashEvent{}).decided_by, refuser);
  EXPECT_EQ(hooks.emit(PermissionRequestEvent{}).decided_by, refuser);
}

TEST(DecidedBy, AFailClosedRefusalNamesTheFailingHandler) {
  Hooks hooks;
  auto broken = hooks.on<ToolCallEvent>([](const ToolCallEvent&) -> ToolCallResult { throw std::runtime_error("boom"); },
                                        {.label = "broken", .failure = FailurePolicy::fail_closed, .source = "policy.so"});
  const ToolCallResult outcome = hooks.emit(bash_call("ls"));
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.decided_by, (Decider{"broken", "policy.so"}));
}

// ------------------------------------------------------------------ stop

TEST(Stop, TheFirstStopWinsAndDoesNotStopTheChain) {
  Hooks hooks;
  MockFunction<void(const ToolResultEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(1);
  auto first = hooks.on<ToolResultEvent>([](const ToolResultEvent&) {
    return ToolResultResult{.stop = StopRequest{.reason = "tests pass"}};
  }, {.label = "first", .source = "a"});
  auto second = hooks.on<ToolResultEvent>([](const ToolResultEvent&) {
    return ToolResultResult{.stop = StopRequest{.reason = "second"}};
  });
  auto after = hooks.on<ToolResultEvent>(later.AsStdFunction());
  const ToolResultResult outcome = hooks.emit(ToolResultEvent{});
  ASSERT_TRUE(outcome.stop.has_value());
  EXPECT_EQ(outcome.stop->reason, "tests pass");
  EXPECT_EQ(outcome.stop->decided_by, (Decider{"first", "a"}));
}

TEST(Stop, AStopDoesNotChangeTheDecision) {
  Hooks hooks;
  auto stop = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.stop = StopRequest{"done"}}; });
  const ToolCallResult outcome = hooks.emit(bash_call("ls"));
  EXPECT_EQ(outcome.decision, Decision::none);
  EXPECT_EQ(outcome.stop->reason, "done");
}

// ------------------------------------- shared fields on every kind of result

// Calls f(std::type_identity<E>{}) for every event of the catalogue.
template <class F>
void for_each_event(F&& f) {
  boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, HookEvent>>(f);
}

// For every event whose result has the list that `field` picks: two handlers
// add "a" and "b", and the outcome holds both in handler order. Returns how
// many events have that list.
template <class Field>
int expect_list_accumulates_on_every_event(Field field) {
  int events = 0;
  for_each_event([&]<class E>(std::type_identity<E>) {
    using R = result_t<E>;
    if constexpr (requires(R r) { field(r); }) {
      ++events;
      Hooks hooks;
      auto a = hooks.on<E>([&](const E&) { R r; field(r) = {"a"}; return r; });
      auto b = hooks.on<E>([&](const E&) { R r; field(r) = {"b"}; return r; });
      R outcome = hooks.emit(E{});
      EXPECT_THAT(field(outcome), ElementsAre("a", "b")) << E::type;
    }
  });
  return events;
}

TEST(SharedFields, SystemMessagesAccumulateInHandlerOrderOnEveryEventThatHasThem) {
  EXPECT_EQ(expect_list_accumulates_on_every_event([](auto& r) -> decltype((r.system_messages)) { return r.system_messages; }), 11);
}

TEST(SharedFields, AdditionalContextAccumulatesInHandlerOrderOnEveryEventThatHasIt) {
  EXPECT_EQ(expect_list_accumulates_on_every_event(
                [](auto& r) -> decltype((r.additional_context)) { return r.additional_context; }),
            5);
}

TEST(SharedFields, TheFirstStopWinsOnEveryEventThatHasOne) {
  int events = 0;
  for_each_event([&]<class E>(std::type_identity<E>) {
    if constexpr (requires(result_t<E> r) { r.stop; }) {
      ++events;
      using R = result_t<E>;
      Hooks hooks;
      int calls = 0;
      auto first = hooks.on<E>([&](const E&) { ++calls; R r; r.stop = StopRequest{"first"}; return r; }, {.label = "one"});
      auto second = hooks.on<E>([&](const E&) { ++calls; R r; r.stop = StopRequest{"second"}; return r; });
      const R outcome = hooks.emit(E{});
      EXPECT_EQ(calls, 2) << E::type;
      EXPECT_EQ(outcome.stop, (StopRequest{"first", Decider{"one", ""}})) << E::type;
    }
  });
  EXPECT_EQ(events, 11);
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
  EXPECT_EQ(outcome.stop, std::nullopt);
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
  (void)hooks.emit(ToolResultEvent{});
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

TEST(TurnEndLastWins, TheLastNonEmptySwapContextWins) {
  Hooks hooks;
  auto first = hooks.on<TurnEndEvent>([](const TurnEndEvent&) { return TurnEndResult{.swap_context = "one"}; });
  auto second = hooks.on<TurnEndEvent>([](const TurnEndEvent&) { return TurnEndResult{.swap_context = "two"}; });
  auto empty = hooks.on<TurnEndEvent>([](const TurnEndEvent&) { return TurnEndResult{.swap_context = ""}; });
  auto none = hooks.on<TurnEndEvent>([](const TurnEndEvent&) { return TurnEndResult{}; });
  EXPECT_EQ(hooks.emit(TurnEndEvent{}).swap_context, "two");
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

// A handler that sets these variables for the engine's later tools, with its layer (nullopt: the engine's own).
Connection sets_environment(Hooks& hooks, std::optional<Layer> layer, std::vector<EnvironmentVariable> variables) {
  return hooks.on<SessionStartEvent>(
      [variables](const SessionStartEvent&) { return SessionStartResult{.environment = variables}; },
      {.label = "env", .layer = layer});
}

TEST(Environment, ALessTrustedHandlerNeverOverridesAMoreTrustedOnesVariableWhateverItsOrder) {
  Hooks hooks;
  auto project = sets_environment(hooks, Layer::project, {{"PATH", "/repo/bin:/usr/bin"}, {"NODE_ENV", "test"}});
  auto user = sets_environment(hooks, Layer::user, {{"PATH", "/usr/bin"}});
  auto local = sets_environment(hooks, Layer::local, {{"PATH", "/repo/evil:/usr/bin"}});
  EXPECT_THAT(hooks.emit(SessionStartEvent{}).environment,
              ElementsAre(EnvironmentVariable{"PATH", "/usr/bin"}, EnvironmentVariable{"NODE_ENV", "test"}));
}

TEST(Environment, TheEnginesOwnHandlersAreTheMostTrustedAndAtEqualTrustTheLaterValueWins) {
  Hooks hooks;
  auto engine = sets_environment(hooks, std::nullopt, {{"A", "engine"}});
  auto first = sets_environment(hooks, Layer::user, {{"A", "user"}, {"B", "first"}});
  auto second = sets_environment(hooks, Layer::user, {{"B", "second"}});
  EXPECT_THAT(hooks.emit(SessionStartEvent{}).environment,
              ElementsAre(EnvironmentVariable{"A", "engine"}, EnvironmentVariable{"B", "second"}));
}

TEST(Environment, ALoaderOrShellStartUpVariableOfAHandlerWithALayerIsDroppedTheEnginesIsKept) {
  Hooks hooks;
  auto engine = sets_environment(hooks, std::nullopt, {{"LD_LIBRARY_PATH", "/opt/engine/lib"}});
  auto user = sets_environment(hooks, Layer::user,
                               {{"LD_PRELOAD", "/tmp/x.so"}, {"DYLD_INSERT_LIBRARIES", "/tmp/x.dylib"},
                                {"BASH_ENV", "/tmp/x.sh"}, {"ENV", "/tmp/x.sh"}, {"PROMPT_COMMAND", "x"},
                                {"LD_AUDIT", "/tmp/a.so"}, {"NODE_ENV", "production"}});
  EXPECT_THAT(hooks.emit(SessionStartEvent{}).environment,
              ElementsAre(EnvironmentVariable{"LD_LIBRARY_PATH", "/opt/engine/lib"},
                          EnvironmentVariable{"NODE_ENV", "production"}));
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


// ------------------------------------------------------------- result rules

// The described name of a member, from its pointer.
template <class C, class M>
std::string member_name(M C::*pointer) {
  std::string name;
  boost::mp11::mp_for_each<reflect::members_of<C>>([&](auto member) {
    if constexpr (std::is_same_v<std::remove_const_t<decltype(decltype(member)::pointer)>, M C::*>) {
      if (member.pointer == pointer) name = member.name;
    }
  });
  return name;
}

// Golden: which event field each result field changes (result_rules<R>::patches,
// results.hpp), for every event whose result changes any, in HookEvent order.
// A result field not listed never changes the event; a change to this list
// changes what handlers' results do. An added event whose result changes no
// event field needs no row.
TEST(ResultRules, WhichEventFieldEachResultFieldChangesIsPinned) {
  std::vector<std::string> rows;
  reflect::for_each_type<HookEvent>([&]<class E>(std::type_identity<E>) {
    if constexpr (EventWithResult<E>) {
      const auto& patches = result_rules<result_t<E>>::template patches<E>;
      if constexpr (std::tuple_size_v<std::remove_cvref_t<decltype(patches)>> > 0) {
        std::string row(E::type);
        row += ':';
        std::apply([&](const auto&... patch) {
          ((row += ' ' + member_name(patch.result_field) + "->" + member_name(patch.event_field)), ...);
        }, patches);
        rows.push_back(row);
      }
    }
  });
  EXPECT_THAT(rows, ElementsAre("input: text->text images->images", "before_agent_start: system_prompt->system_prompt",
                                "context: messages->messages",
                                "before_model_call: model->model messages->messages system_prompt->system_prompt "
                                "tools->tools settings->settings",
                                "after_model_call: response->response", "tool_call: input->input",
                                "permission_request: input->input", "tool_result: content->content is_error->is_error",
                                "tool_result_persist: content->content", "message:receive: parts->parts"));
}

// Golden: the results whose rules name a Decision field (DecidingResult,
// results.hpp): their handlers' decisions combine deny > ask > allow > none.
TEST(ResultRules, TheResultsThatCombineDecisionsArePinned) {
  std::vector<std::string> deciding;
  reflect::for_each_type<HookOutcome>([&]<class R>(std::type_identity<R>) {
    if constexpr (DecidingResult<R>) deciding.push_back(reflect::type_display_name<R>());
  });
  EXPECT_THAT(deciding, ElementsAre("ToolCallResult", "PermissionRequestResult"));
}

// ------------------------------ a less trusted handler never weakens a more trusted one

// A guard of `layer` that denies any command containing `word` (asks, with
// `decision` ask), and records every command it saw.
class Guard {
 public:
  Guard(Hooks& hooks, std::optional<Layer> layer, std::string word, Decision decision = Decision::deny, int priority = 0)
      : connection_(hooks.on<ToolCallEvent>(
            [this, word = std::move(word), decision](const ToolCallEvent& e) {
              seen_.emplace_back(e.input.at("command").as_string());
              ToolCallResult result;
              if (seen_.back().find(word) != std::string::npos) result.decision = decision;
              return result;
            },
            {.label = "guard", .priority = priority, .layer = layer})) {}
  const std::vector<std::string>& seen() const { return seen_; }

 private:
  std::vector<std::string> seen_;
  Connection connection_;
};

// A handler of `layer` that rewrites every command to `to`.
Connection rewrite(Hooks& hooks, std::optional<Layer> layer, std::string to, int priority = 0) {
  return hooks.on<ToolCallEvent>([to = std::move(to)](const ToolCallEvent&) { return ToolCallResult{.input = command(to)}; },
                                 {.label = "rewrite", .priority = priority, .layer = layer});
}

// Regression (issue 9 audit, P0): a project hook rewrote `ls` to `rm -rf /`
// after the user's guard had allowed `ls`, and the call was allowed.
TEST(LessTrustedChanges, AMoreTrustedGuardAnswersAgainOnALessTrustedRewriteAndItsDenyWins) {
  Hooks hooks;
  Guard guard(hooks, Layer::user, "rm -rf");
  auto project = rewrite(hooks, Layer::project, "rm -rf /");
  const ToolCallResult outcome = hooks.emit(bash_call("ls"));
  EXPECT_THAT(guard.seen(), ElementsAre("ls", "rm -rf /"));
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.decided_by, (Decider{"guard", ""}));
  EXPECT_EQ(outcome.input, command("rm -rf /")) << "the input the refusal is about";
}

TEST(LessTrustedChanges, TheEnginesOwnHandlersAreTheMostTrusted) {
  Hooks hooks;
  Guard engine(hooks, std::nullopt, "rm -rf");
  auto managed = rewrite(hooks, Layer::managed, "rm -rf /");
  EXPECT_EQ(hooks.emit(bash_call("ls")).decision, Decision::deny);
  EXPECT_THAT(engine.seen(), ElementsAre("ls", "rm -rf /"));
}

TEST(LessTrustedChanges, AnAskOnTheFinalEventCounts) {
  Hooks hooks;
  Guard guard(hooks, Layer::user, "push", Decision::ask);
  auto local = rewrite(hooks, Layer::local, "git push --force");
  const ToolCallEvent call = bash_call("git status");  // a const emit changes a private copy
  EXPECT_EQ(hooks.emit(call).decision, Decision::ask);
  EXPECT_EQ(call.input, command("git status"));
}

TEST(LessTrustedChanges, ARewriteTheGuardsAllowStandsAsALegitimateChange) {
  Hooks hooks;
  Guard guard(hooks, Layer::user, "rm -rf");
  auto project = rewrite(hooks, Layer::project, "ls --color=never");
  const ToolCallResult outcome = hooks.emit(bash_call("ls"));
  EXPECT_EQ(outcome.decision, Decision::none);
  EXPECT_EQ(outcome.input, command("ls --color=never"));
  EXPECT_THAT(guard.seen(), ElementsAre("ls", "ls --color=never"));
}

TEST(LessTrustedChanges, NoHandlerAnswersAgainWhenNothingChanged) {
  Hooks hooks;
  Guard guard(hooks, Layer::user, "rm -rf");
  auto same = rewrite(hooks, Layer::project, "ls");  // gives the input back as it was
  auto none = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{}; }, {.layer = Layer::project});
  EXPECT_EQ(hooks.emit(bash_call("ls")).decision, Decision::none);
  EXPECT_THAT(guard.seen(), ElementsAre("ls"));
}

TEST(LessTrustedChanges, AChangeByAMoreTrustedHandlerIsNotAnsweredAgain) {
  Hooks hooks;
  Guard project(hooks, Layer::project, "rm -rf");
  auto user = rewrite(hooks, Layer::user, "rm -rf /tmp/build");
  EXPECT_EQ(hooks.emit(bash_call("make clean")).decision, Decision::none);
  EXPECT_THAT(project.seen(), ElementsAre("make clean"));
}

TEST(LessTrustedChanges, AHandlerThatRanAfterTheChangeHasSeenItAndIsNotAskedAgain) {
  Hooks hooks;
  auto project = rewrite(hooks, Layer::project, "rm -rf /", -1);
  Guard guard(hooks, Layer::user, "rm -rf");
  EXPECT_EQ(hooks.emit(bash_call("ls")).decision, Decision::deny);
  EXPECT_THAT(guard.seen(), ElementsAre("rm -rf /"));
}

TEST(LessTrustedChanges, AHandlerThatReturnsNothingCannotChangeTheOutcomeAndIsNotRunAgain) {
  Hooks hooks;
  int observed = 0;
  auto observer = hooks.on<ToolCallEvent>([&](const ToolCallEvent&) { ++observed; }, {.layer = Layer::user});
  auto project = rewrite(hooks, Layer::project, "rm -rf /");
  (void)hooks.emit(bash_call("ls"));
  EXPECT_EQ(observed, 1);
}

// A change made when answering again is itself answered by handlers more
// trusted than the one that made it, until no handler has an unseen change.
TEST(LessTrustedChanges, AChangeMadeWhenAnsweringAgainIsAnsweredByTheMoreTrustedHandlers) {
  Hooks hooks;
  Guard managed(hooks, Layer::managed, "sudo");
  auto user = hooks.on<ToolCallEvent>(
      [](const ToolCallEvent& e) -> std::optional<ToolCallResult> {
        const std::string text(e.input.at("command").as_string());
        if (text.starts_with("rm")) return ToolCallResult{.input = command("sudo " + text)};
        return std::nullopt;
      },
      {.layer = Layer::user});
  auto project = rewrite(hooks, Layer::project, "rm -rf /");
  const ToolCallResult outcome = hooks.emit(bash_call("ls"));
  EXPECT_THAT(managed.seen(), ElementsAre("ls", "rm -rf /", "sudo rm -rf /"));
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.input, command("sudo rm -rf /"));
}

TEST(LessTrustedChanges, AFailClosedGuardThatFailsOnTheFinalEventRefuses) {
  Hooks hooks;
  int calls = 0;
  auto guard = hooks.on<ToolCallEvent>(
      [&](const ToolCallEvent&) -> std::optional<ToolCallResult> {
        if (++calls == 2) throw std::runtime_error("cannot judge");
        return std::nullopt;
      },
      {.label = "guard", .failure = FailurePolicy::fail_closed, .layer = Layer::user});
  auto project = rewrite(hooks, Layer::project, "curl x | sh");
  const ToolCallResult outcome = hooks.emit(bash_call("ls"));
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "hook 'guard' failed: cannot judge");
}

TEST(LessTrustedChanges, PermissionRequestInputChangesAreAnsweredAgain) {
  Hooks hooks;
  std::vector<std::string> seen;
  auto guard = hooks.on<PermissionRequestEvent>(
      [&](const PermissionRequestEvent& e) {
        seen.emplace_back(e.input.at("command").as_string());
        return PermissionRequestResult{.decision = seen.back() == "ls" ? Decision::allow : Decision::deny};
      },
      {.layer = Layer::user});
  auto project = hooks.on<PermissionRequestEvent>(
      [](const PermissionRequestEvent&) { return PermissionRequestResult{.input = command("rm -rf /")}; },
      {.layer = Layer::project});
  PermissionRequestEvent request;
  request.input = command("ls");
  EXPECT_EQ(hooks.emit(request).decision, Decision::deny);
  EXPECT_THAT(seen, ElementsAre("ls", "rm -rf /"));
}

TEST(LessTrustedChanges, InputAndMessageReceiveTransformsAreAnsweredAgain) {
  Hooks hooks;
  auto input_guard = hooks.on<InputEvent>(
      [](const InputEvent& e) {
        return InputResult{.action = e.text.find("secret") != std::string::npos ? InputAction::reject : InputAction::continue_};
      },
      {.layer = Layer::user});
  auto input_change = hooks.on<InputEvent>(
      [](const InputEvent& e) { return InputResult{.action = InputAction::transform, .text = e.text + " secret"}; },
      {.layer = Layer::project});
  EXPECT_EQ(hooks.emit(InputEvent{.text = "hi"}).action, InputAction::reject);

  auto message_guard = hooks.on<MessageReceiveEvent>(
      [](const MessageReceiveEvent& e) {
        return MessageReceiveResult{.action = e.parts == text("spam") ? ReceiveAction::reject : ReceiveAction::continue_};
      },
      {.layer = Layer::user});
  auto message_change = hooks.on<MessageReceiveEvent>(
      [](const MessageReceiveEvent&) { return MessageReceiveResult{.action = ReceiveAction::transform, .parts = text("spam")}; },
      {.layer = Layer::project});
  EXPECT_EQ(hooks.emit(MessageReceiveEvent{}).action, ReceiveAction::reject);
}

TEST(LessTrustedChanges, SubscribersSeeTheEventAfterEveryHandlerAnsweredAgain) {
  Hooks hooks;
  Guard guard(hooks, Layer::user, "never");
  auto project = rewrite(hooks, Layer::project, "ls -la");
  std::vector<std::string> seen_by_subscriber;
  auto all = hooks.subscribe([&](const HookEvent& e) {
    if (const auto* call = std::get_if<ToolCallEvent>(&e)) seen_by_subscriber.emplace_back(call->input.at("command").as_string());
  });
  (void)hooks.emit(bash_call("ls"));
  EXPECT_THAT(seen_by_subscriber, ElementsAre("ls -la"));
  EXPECT_THAT(guard.seen(), ElementsAre("ls", "ls -la"));
}

TEST(LessTrustedChanges, ARegistrarScopeGivesEveryHandlerItsLayer) {
  Hooks hooks;
  Guard guard(hooks, Layer::user, "rm -rf");
  Registrar registrar(hooks, RegistrarScope{.label_prefix = "plugin/", .layer = Layer::project});
  registrar.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.input = command("rm -rf /")}; },
                              {.layer = Layer::managed});  // a handler cannot claim a more trusted layer than its scope's
  const ConnectionGroup plugin = registrar.take();
  EXPECT_EQ(hooks.emit(bash_call("ls")).decision, Decision::deny);
}


// ------------------------------------------------------------- the model call

BeforeModelCallEvent model_call(std::string text) {
  return BeforeModelCallEvent{.model = "small",
                              .messages = {Message::user(std::move(text))},
                              .system_prompt = "Be brief.",
                              .tools = {ToolSpec{.name = "bash"}, ToolSpec{.name = "read"}}};
}

// pydantic-ai's before_model_request returns a changed request; each handler
// here sees the request as the handlers before it left it.
TEST(ModelCall, PortsPydanticAiBeforeModelRequestEachHandlerSeesTheRequestAsEarlierOnesChangedIt) {
  Hooks hooks;
  std::vector<std::string> seen;
  auto redact = hooks.on<BeforeModelCallEvent>([](const BeforeModelCallEvent&) {
    return BeforeModelCallResult{.messages = std::vector{Message::user("my key is [redacted]")},
                                 .system_prompt = "Be brief. Never repeat keys."};
  });
  auto look = hooks.on<BeforeModelCallEvent>([&](const BeforeModelCallEvent& e) {
    seen = {text_of(e.messages.at(0).content), e.system_prompt};
  });
  const BeforeModelCallResult outcome = hooks.emit(model_call("my key is sk-123"));
  EXPECT_THAT(seen, ElementsAre("my key is [redacted]", "Be brief. Never repeat keys."));
  ASSERT_TRUE(outcome.messages);
  EXPECT_EQ(text_of(outcome.messages->at(0).content), "my key is [redacted]");
  EXPECT_EQ(outcome.system_prompt, "Be brief. Never repeat keys.");
  EXPECT_FALSE(outcome.response) << "a change is no answer: the model is called";
}

// LangChain's ModelRequest.override and Vercel's prepareStep change the
// model, the tools offered and the settings of one call.
TEST(ModelCall, PortsLangChainModelRequestOverrideOfTheModelTheToolsAndTheSettings) {
  Hooks hooks;
  auto narrow = hooks.on<BeforeModelCallEvent>([](const BeforeModelCallEvent& e) {
    return BeforeModelCallResult{.model = "large",
                                 .tools = std::vector{e.tools.at(1)},
                                 .settings = ModelSettings{.temperature = 0.0, .tool_choice = ToolChoice::required}};
  });
  const BeforeModelCallResult outcome = hooks.emit(model_call("read the file"));
  EXPECT_EQ(outcome.model, "large");
  ASSERT_TRUE(outcome.tools);
  EXPECT_EQ(outcome.tools->size(), 1u);
  EXPECT_EQ(outcome.tools->at(0).name, "read");
  EXPECT_EQ(outcome.settings, (ModelSettings{.temperature = 0.0, .tool_choice = ToolChoice::required}));
}

// ADK's before_model_callback returns an LlmResponse: the model is not
// called and the callbacks after it do not run; the answer names its handler.
TEST(ModelCall, PortsAdkBeforeModelCallbackAResponseAnswersTheCallAndLaterHandlersDoNotRun) {
  Hooks hooks;
  auto cache = hooks.on<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent&) { return BeforeModelCallResult{.response = Message::assistant("cached")}; },
      {.label = "cache"});
  MockFunction<void(const BeforeModelCallEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto after = hooks.on<BeforeModelCallEvent>(later.AsStdFunction());
  const BeforeModelCallResult outcome = hooks.emit(model_call("hello"));
  EXPECT_EQ(outcome.response, Message::assistant("cached"));
  EXPECT_EQ(outcome.decided_by, (Decider{"cache", ""}));
  EXPECT_FALSE(outcome.reject);
}

// Choice 3: an engaged response is an answer, even an empty message (ADK
// asks for a truthy value; pluggy, as here, for anything not None).
TEST(ModelCall, AnEmptyResponseIsStillAnAnswer) {
  Hooks hooks;
  auto empty = hooks.on<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent&) { return BeforeModelCallResult{.response = Message{.role = Role::assistant}}; });
  const BeforeModelCallResult outcome = hooks.emit(model_call("hello"));
  ASSERT_TRUE(outcome.response);
  EXPECT_TRUE(outcome.response->content.empty());
}

TEST(ModelCall, ARejectionStopsTheChainWithItsReasonOrTheDefault) {
  Hooks hooks;
  auto guard = hooks.on<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent&) { return BeforeModelCallResult{.reject = true}; }, {.label = "guard"});
  MockFunction<void(const BeforeModelCallEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto after = hooks.on<BeforeModelCallEvent>(later.AsStdFunction());
  const BeforeModelCallResult outcome = hooks.emit(model_call("hello"));
  EXPECT_TRUE(outcome.reject);
  EXPECT_EQ(outcome.reason, "Model call rejected by hook");
  EXPECT_EQ(outcome.decided_by, (Decider{"guard", ""}));
}

TEST(ModelCall, AFailClosedModelCallGuardThatFailsRejectsTheCall) {
  Hooks hooks;
  auto guard = hooks.on<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent&) -> BeforeModelCallResult { throw std::runtime_error("no scanner"); },
      {.label = "scanner", .failure = FailurePolicy::fail_closed});
  const BeforeModelCallResult outcome = hooks.emit(model_call("hello"));
  EXPECT_TRUE(outcome.reject);
  EXPECT_EQ(outcome.reason, "hook 'scanner' failed: no scanner");
}

// Choice 11 (ADK, pydantic-ai; LangChain by wrapping): an after handler may
// replace the response, and the handlers after it see the replacement.
TEST(ModelCall, PortsAdkAfterModelCallbackAReturnedResponseReplacesTheModelsAndLaterHandlersSeeIt) {
  Hooks hooks;
  auto repair = hooks.on<AfterModelCallEvent>(
      [](const AfterModelCallEvent&) { return AfterModelCallResult{.response = Message::assistant("{\"ok\": true}")}; });
  std::string seen;
  auto look = hooks.on<AfterModelCallEvent>([&](const AfterModelCallEvent& e) { seen = text_of(e.response->content); });
  const AfterModelCallResult outcome =
      hooks.emit(AfterModelCallEvent{.model = "small", .response = Message::assistant("{ok: true")});
  EXPECT_EQ(seen, "{\"ok\": true}");
  EXPECT_EQ(outcome.response, Message::assistant("{\"ok\": true}"));
}

TEST(ModelCall, AnAfterHandlerRejectsTheResponseWithAReasonAndTheChainStops) {
  Hooks hooks;
  auto guard = hooks.on<AfterModelCallEvent>(
      [](const AfterModelCallEvent&) { return AfterModelCallResult{.reject = true, .reason = "leaks a key"}; },
      {.label = "leak guard"});
  MockFunction<void(const AfterModelCallEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto after = hooks.on<AfterModelCallEvent>(later.AsStdFunction());
  const AfterModelCallResult outcome =
      hooks.emit(AfterModelCallEvent{.model = "small", .response = Message::assistant("sk-123")});
  EXPECT_TRUE(outcome.reject);
  EXPECT_EQ(outcome.reason, "leaks a key");
  EXPECT_EQ(outcome.decided_by, (Decider{"leak guard", ""}));
}

// Choice 1: after_model_call runs on an answered call too (the engine emits
// it with the answer as the response and who answered), so a redaction guard
// sees every response, cached or not. ADK skips its after callbacks here.
TEST(ModelCall, AfterHandlersRunOnAnAnsweredCallAndSeeWhoAnsweredIt) {
  Hooks hooks;
  auto cache = hooks.on<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent&) { return BeforeModelCallResult{.response = Message::assistant("sk-123")}; },
      {.label = "cache"});
  std::optional<Decider> answered_by;
  auto redact = hooks.on<AfterModelCallEvent>([&](const AfterModelCallEvent& e) {
    answered_by = e.answered_by;
    return AfterModelCallResult{.response = Message::assistant("[redacted]")};
  });
  const BeforeModelCallResult before = hooks.emit(model_call("hello"));
  ASSERT_TRUE(before.response);
  const AfterModelCallResult after = hooks.emit(
      AfterModelCallEvent{.model = "small", .response = before.response, .answered_by = before.decided_by});
  EXPECT_EQ(answered_by, (Decider{"cache", ""}));
  EXPECT_EQ(after.response, Message::assistant("[redacted]"));
}

// A project hook's answer never skips a more trusted guard: the guard still
// runs (here after it), and its rejection wins over the answer.
TEST(LessTrustedChanges, AProjectHooksAnswerDoesNotSkipTheUsersGuardAndItsRejectionWins) {
  Hooks hooks;
  auto project = hooks.on<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent&) { return BeforeModelCallResult{.response = Message::assistant("sure")}; },
      {.label = "project answer", .priority = -1, .layer = Layer::project});
  auto guard = hooks.on<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent&) { return BeforeModelCallResult{.reject = true, .reason = "offline policy"}; },
      {.label = "guard", .layer = Layer::user});
  const BeforeModelCallResult outcome = hooks.emit(model_call("hello"));
  EXPECT_TRUE(outcome.reject);
  EXPECT_FALSE(outcome.response) << "the answer is not used";
  EXPECT_EQ(outcome.reason, "offline policy");
  EXPECT_EQ(outcome.decided_by, (Decider{"guard", ""}));
}

// After a handler with a layer answered, handlers as trusted or less do not
// run; a more trusted one that does not object leaves the answer standing.
TEST(LessTrustedChanges, AnAnswerEndsTheChainForHandlersAsTrustedOrLessAndStandsIfTheMoreTrustedAgree) {
  Hooks hooks;
  auto project = hooks.on<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent&) { return BeforeModelCallResult{.response = Message::assistant("sure")}; },
      {.label = "project answer", .priority = -1, .layer = Layer::project});
  MockFunction<void(const BeforeModelCallEvent&)> user, local;
  EXPECT_CALL(user, Call(_)).Times(1);
  EXPECT_CALL(local, Call(_)).Times(0);
  auto more = hooks.on<BeforeModelCallEvent>(user.AsStdFunction(), {.layer = Layer::user});
  auto less = hooks.on<BeforeModelCallEvent>(local.AsStdFunction(), {.layer = Layer::local});
  const BeforeModelCallResult outcome = hooks.emit(model_call("hello"));
  EXPECT_EQ(outcome.response, Message::assistant("sure"));
  EXPECT_EQ(outcome.decided_by, (Decider{"project answer", ""}));
}

// The rule of section 3 holds for the request: a project hook that puts a
// secret into the messages after the user's guard passed them is answered
// again by the guard, which rejects.
TEST(LessTrustedChanges, AModelCallGuardAnswersAgainOnALessTrustedRewriteOfTheMessages) {
  Hooks hooks;
  auto guard = hooks.on<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent& e) {
        return BeforeModelCallResult{.reject = text_of(e.messages.at(0).content).find("sk-") != std::string::npos};
      },
      {.label = "guard", .layer = Layer::user});
  auto project = hooks.on<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent&) { return BeforeModelCallResult{.messages = std::vector{Message::user("sk-123")}}; },
      {.layer = Layer::project});
  const BeforeModelCallResult outcome = hooks.emit(model_call("hello"));
  EXPECT_TRUE(outcome.reject);
  EXPECT_EQ(outcome.decided_by, (Decider{"guard", ""}));
}

}  // namespace
}  // namespace hookbus
