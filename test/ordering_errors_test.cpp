// Ordering, error isolation, failure policies, introspection.
#include <hookbus/hooks.hpp>
#include <hookbus/log.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

namespace hookbus {
namespace {

using ::testing::_;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MockFunction;

template <class E>
Connection record(Hooks& hooks, std::vector<std::string>& calls, std::string name, HandlerOptions options = {}) {
  options.label = name;
  return hooks.on<E>([&calls, name](const E&) { calls.push_back(name); }, std::move(options));
}

// ---------------------------------------------------------------- ordering

TEST(Ordering, RegistrationOrderByDefault) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto a = record<TurnStartEvent>(hooks, calls, "a");
  auto b = record<TurnStartEvent>(hooks, calls, "b");
  auto c = record<TurnStartEvent>(hooks, calls, "c");
  hooks.emit(TurnStartEvent{});
  EXPECT_THAT(calls, ElementsAre("a", "b", "c"));
}

TEST(Ordering, LowerPriorityRunsFirstAndEqualPrioritiesKeepRegistrationOrder) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto late = record<TurnStartEvent>(hooks, calls, "late", {.priority = 10});
  auto first = record<TurnStartEvent>(hooks, calls, "first", {.priority = -5});
  auto middle1 = record<TurnStartEvent>(hooks, calls, "middle1");
  auto middle2 = record<TurnStartEvent>(hooks, calls, "middle2");
  hooks.emit(TurnStartEvent{});
  EXPECT_THAT(calls, ElementsAre("first", "middle1", "middle2", "late"));
  EXPECT_THAT(hooks.handlers("turn_start"), ElementsAre("first", "middle1", "middle2", "late"));
}

TEST(Ordering, NestedOrderingRunsClosingEventsInReverseWithinAPriorityGroup) {
  Hooks hooks({.nested_ordering = true});
  std::vector<std::string> calls;
  auto before_a = record<ToolCallEvent>(hooks, calls, "before a");
  auto before_b = record<ToolCallEvent>(hooks, calls, "before b");
  auto after_a = record<ToolResultEvent>(hooks, calls, "after a");
  auto after_b = record<ToolResultEvent>(hooks, calls, "after b");
  auto after_urgent = record<ToolResultEvent>(hooks, calls, "after urgent", {.priority = -1});
  (void)hooks.emit(ToolCallEvent{});
  (void)hooks.emit(ToolResultEvent{});
  EXPECT_THAT(calls, ElementsAre("before a", "before b", "after urgent", "after b", "after a"));
  EXPECT_THAT(hooks.handlers("tool_result"), ElementsAre("after urgent", "after b", "after a"));
}

TEST(Ordering, NestedOrderingCoversEveryClosingEvent) {
  Hooks hooks({.nested_ordering = true});
  std::vector<std::string> calls;
  auto a1 = record<ToolExecutionEndEvent>(hooks, calls, "1");
  auto a2 = record<ToolExecutionEndEvent>(hooks, calls, "2");
  auto b1 = record<AfterModelCallEvent>(hooks, calls, "3");
  auto b2 = record<AfterModelCallEvent>(hooks, calls, "4");
  auto c1 = record<AgentEndEvent>(hooks, calls, "5");
  auto c2 = record<AgentEndEvent>(hooks, calls, "6");
  hooks.emit(ToolExecutionEndEvent{});
  (void)hooks.emit(AfterModelCallEvent{});
  (void)hooks.emit(AgentEndEvent{});
  EXPECT_THAT(calls, ElementsAre("2", "1", "4", "3", "6", "5"));
}

TEST(Ordering, WithoutNestedOrderingClosingEventsKeepRegistrationOrder) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto a = record<ToolResultEvent>(hooks, calls, "a");
  auto b = record<ToolResultEvent>(hooks, calls, "b");
  (void)hooks.emit(ToolResultEvent{});
  EXPECT_THAT(calls, ElementsAre("a", "b"));
}

// ------------------------------------------------------------------ errors

class Errors : public ::testing::Test {
 protected:
  void SetUp() override {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log_);
    set_logger(std::make_shared<spdlog::logger>("hookbus-test", sink));
    listener_ = hooks_.on_handler_error([this](const HandlerFailure& e) { errors_.push_back(e); });
  }
  void TearDown() override { set_logger(nullptr); }

  std::ostringstream log_;
  Hooks hooks_;
  std::vector<HandlerFailure> errors_;
  Connection listener_;
};

TEST_F(Errors, ThrowingHandlerIsSkippedAndTheChainContinuesFromTheLastGoodValue) {
  auto rewrite = hooks_.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.input = boost::json::object{{"command", "good"}}};
  });
  auto thrower = hooks_.on<ToolCallEvent>([](const ToolCallEvent&) -> std::optional<ToolCallResult> {
    throw std::runtime_error("boom");
  });
  std::string seen;
  auto after = hooks_.on<ToolCallEvent>([&](const ToolCallEvent& e) { seen = e.input.at("command").as_string(); });
  ToolCallResult outcome = hooks_.emit(ToolCallEvent{});
  EXPECT_EQ(seen, "good");
  EXPECT_EQ(outcome.decision, Decision::none);
  EXPECT_EQ(outcome.input->at("command"), "good");
}

TEST_F(Errors, ThrowingHandlerIsReportedWithEventLabelAndMessage) {
  auto thrower = hooks_.on<TurnStartEvent>([](const TurnStartEvent&) { throw std::runtime_error("boom"); },
                                           {.label = "flaky"});
  hooks_.emit(TurnStartEvent{});
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_EQ(errors_[0].event, "turn_start");
  EXPECT_EQ(errors_[0].handler, "flaky");
  EXPECT_EQ(errors_[0].message, "boom");
}

TEST_F(Errors, ThrowingHandlerIsReportedWithItsKindAndSource) {
  auto thrower = hooks_.on<TurnStartEvent>([](const TurnStartEvent&) { throw std::runtime_error("boom"); },
                                           {.label = "lint", .kind = HandlerKind::external, .source = "/p/hooks/lint"});
  hooks_.emit(TurnStartEvent{});
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_EQ(errors_[0].kind, HandlerKind::external);
  EXPECT_EQ(errors_[0].source, "/p/hooks/lint");
}

TEST_F(Errors, ThrowingHandlerIsLoggedThroughTheHookbusLogger) {
  auto thrower = hooks_.on<TurnStartEvent>([](const TurnStartEvent&) { throw std::runtime_error("boom"); },
                                           {.label = "flaky"});
  hooks_.emit(TurnStartEvent{});
  EXPECT_THAT(log_.str(), HasSubstr("hook 'flaky' failed on 'turn_start': boom"));
}

TEST_F(Errors, NonStandardExceptionIsReportedToo) {
  auto thrower = hooks_.on<TurnStartEvent>([](const TurnStartEvent&) { throw 42; });
  hooks_.emit(TurnStartEvent{});
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_THAT(errors_[0].message, HasSubstr("unknown exception"));
  EXPECT_EQ(errors_[0].handler, "turn_start#0");
}

TEST_F(Errors, ThrowingErrorListenerIsLoggedAndNeverReReported) {
  auto bad_listener = hooks_.on_handler_error([](const HandlerFailure&) { throw std::runtime_error("listener broke"); });
  auto thrower = hooks_.on<TurnStartEvent>([](const TurnStartEvent&) { throw std::runtime_error("boom"); });
  hooks_.emit(TurnStartEvent{});
  EXPECT_EQ(errors_.size(), 1u);
  EXPECT_THAT(log_.str(), HasSubstr("listener broke"));
}

TEST_F(Errors, ThrowingCatchAllSubscriberIsReported) {
  auto subscriber = hooks_.subscribe([](const HookEvent&) { throw std::runtime_error("tracer broke"); },
                                     {.label = "tracer"});
  hooks_.emit(TurnStartEvent{});
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_EQ(errors_[0].handler, "tracer");
}

TEST_F(Errors, FailOpenGatingHandlerDoesNotBlock) {
  auto thrower = hooks_.on<ToolCallEvent>([](const ToolCallEvent&) -> std::optional<ToolCallResult> {
    throw std::runtime_error("policy server down");
  });
  EXPECT_EQ(hooks_.emit(ToolCallEvent{}).decision, Decision::none);
}

TEST_F(Errors, FailClosedToolCallHandlerDeniesWithAReasonNamingIt) {
  MockFunction<void(const ToolCallEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto thrower = hooks_.on<ToolCallEvent>(
      [](const ToolCallEvent&) -> std::optional<ToolCallResult> { throw std::runtime_error("policy server down"); },
      {.label = "security", .failure = FailurePolicy::fail_closed});
  auto after = hooks_.on<ToolCallEvent>(later.AsStdFunction());
  ToolCallResult outcome = hooks_.emit(ToolCallEvent{});
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "hook 'security' failed: policy server down");
  EXPECT_EQ(errors_.size(), 1u);
}

TEST_F(Errors, FailClosedCancelHandlerCancels) {
  auto thrower = hooks_.on<SessionBeforeSwitchEvent>(
      [](const SessionBeforeSwitchEvent&) -> std::optional<SessionBeforeSwitchResult> { throw std::runtime_error("x"); },
      {.label = "guard", .failure = FailurePolicy::fail_closed});
  auto outcome = hooks_.emit(SessionBeforeSwitchEvent{});
  EXPECT_TRUE(outcome.cancel);
  EXPECT_EQ(outcome.reason, "hook 'guard' failed: x");
}

TEST_F(Errors, FailClosedInputAndMessageReceiveHandlersReject) {
  auto input = hooks_.on<InputEvent>([](const InputEvent&) -> std::optional<InputResult> { throw std::runtime_error("x"); },
                                     {.label = "filter", .failure = FailurePolicy::fail_closed});
  auto receive = hooks_.on<MessageReceiveEvent>(
      [](const MessageReceiveEvent&) -> std::optional<MessageReceiveResult> { throw std::runtime_error("y"); },
      {.label = "stt", .failure = FailurePolicy::fail_closed});
  EXPECT_EQ(hooks_.emit(InputEvent{}).action, InputAction::reject);
  auto received = hooks_.emit(MessageReceiveEvent{});
  EXPECT_EQ(received.action, ReceiveAction::reject);
  EXPECT_EQ(received.reason, "hook 'stt' failed: y");
}

TEST_F(Errors, FailClosedChannelConnectHandlerDenies) {
  auto thrower = hooks_.on<ChannelConnectEvent>(
      [](const ChannelConnectEvent&) -> std::optional<ChannelConnectResult> { throw std::runtime_error("x"); },
      {.failure = FailurePolicy::fail_closed});
  EXPECT_FALSE(hooks_.emit(ChannelConnectEvent{}).allow);
}

TEST_F(Errors, FailClosedOnANonGatingEventIsReportedLikeFailOpen) {
  auto thrower = hooks_.on<ToolResultEvent>(
      [](const ToolResultEvent&) -> std::optional<ToolResultResult> { throw std::runtime_error("x"); },
      {.failure = FailurePolicy::fail_closed});
  EXPECT_EQ(hooks_.emit(ToolResultEvent{}), ToolResultResult{});
  EXPECT_EQ(errors_.size(), 1u);
}

// ----------------------------------------------------------- introspection

TEST(Introspection, HandlerCountCountsTypedAndNamedHandlers) {
  Hooks hooks;
  auto typed = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {});
  auto named = hooks.on("before_tool_call", [](const HookEvent&) -> HookOutcome { return {}; });
  EXPECT_EQ(hooks.handler_count("tool_call"), 2u);
  EXPECT_EQ(hooks.handler_count("turn_start"), 0u);
}

TEST(Introspection, HandlerCountOfUnknownNameThrows) {
  Hooks hooks;
  EXPECT_THROW((void)hooks.handler_count("nope"), UnknownEventError);
}

TEST(Introspection, HasHandlersFollowsConnectAndDisconnect) {
  Hooks hooks;
  EXPECT_FALSE(hooks.has_handlers<TurnEndEvent>());
  auto connection = hooks.on<TurnEndEvent>([](const TurnEndEvent&) {});
  EXPECT_TRUE(hooks.has_handlers<TurnEndEvent>());
  connection.disconnect();
  EXPECT_FALSE(hooks.has_handlers<TurnEndEvent>());
}

TEST(Introspection, RegisteredEventsListsNamesWithAtLeastOneHandler) {
  Hooks hooks;
  auto a = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {});
  auto b = hooks.on<MessageReceiveEvent>([](const MessageReceiveEvent&) {});
  auto all = hooks.subscribe([](const HookEvent&) {});
  EXPECT_THAT(hooks.registered_events(), ElementsAre("tool_call", "message:receive"));
}

TEST(Introspection, HandlersListsLabelsWithDefaultsForUnlabelled) {
  Hooks hooks;
  auto a = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {}, {.label = "policy"});
  auto b = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {});
  EXPECT_THAT(hooks.handlers("before_tool_call"), ElementsAre("policy", "tool_call#1"));
}

TEST(Introspection, ClearOneEventLeavesOthers) {
  Hooks hooks;
  auto a = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {});
  auto b = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  hooks.clear("tool_call");
  EXPECT_FALSE(a.connected());
  EXPECT_TRUE(b.connected());
  EXPECT_THAT(hooks.registered_events(), ElementsAre("turn_start"));
}

TEST(Introspection, ClearAllRemovesEveryTypedHandler) {
  Hooks hooks;
  auto a = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {});
  auto b = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  hooks.clear();
  EXPECT_THAT(hooks.registered_events(), IsEmpty());
  EXPECT_FALSE(hooks.has_handlers<ToolCallEvent>());
  EXPECT_FALSE(hooks.has_handlers<TurnStartEvent>());
}

TEST(Introspection, DisconnectAfterClearDoesNotUnderflowTheCount) {
  Hooks hooks;
  auto a = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  hooks.clear();
  a.disconnect();
  auto b = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  EXPECT_TRUE(hooks.has_handlers<TurnStartEvent>());
  b.disconnect();
  EXPECT_FALSE(hooks.has_handlers<TurnStartEvent>());
}

}  // namespace
}  // namespace hookbus
