// Reentrancy (nested emit, register/disconnect during emit) and threads.
#include <hookbus/hooks.hpp>
#include <hookbus/names.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace hookbus {
namespace {

using ::testing::_;
using ::testing::ElementsAre;
using ::testing::MockFunction;

TEST(Reentrancy, HandlerMayEmitANestedEvent) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto outer = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) {
    calls.push_back("turn_start");
    hooks.emit(MessageStartEvent{});
    calls.push_back("turn_start done");
  });
  auto inner = hooks.on<MessageStartEvent>([&](const MessageStartEvent&) { calls.push_back("message_start"); });
  hooks.emit(TurnStartEvent{});
  EXPECT_THAT(calls, ElementsAre("turn_start", "message_start", "turn_start done"));
}

TEST(Reentrancy, HandlerMayEmitTheSameEventRecursively) {
  Hooks hooks;
  int depth = 0;
  auto recurse = hooks.on<TurnStartEvent>([&](const TurnStartEvent& e) {
    ++depth;
    if (e.turn_index < 3) hooks.emit(TurnStartEvent{.turn_index = e.turn_index + 1});
  });
  hooks.emit(TurnStartEvent{});
  EXPECT_EQ(depth, 4);
}

TEST(Reentrancy, NestedEmitsKeepTheirOwnReducedResults) {
  Hooks hooks;
  ToolCallResult inner_outcome;
  auto handler = hooks.on<ToolCallEvent>([&](const ToolCallEvent& e) -> std::optional<ToolCallResult> {
    if (e.tool_name == "outer") {
      ToolCallEvent inner;
      inner.tool_name = "inner";
      inner_outcome = hooks.emit(inner);
      return std::nullopt;
    }
    return ToolCallResult{.decision = Decision::deny, .reason = "inner only"};
  });
  ToolCallEvent outer;
  outer.tool_name = "outer";
  EXPECT_EQ(hooks.emit(outer).decision, Decision::none);
  EXPECT_EQ(inner_outcome.decision, Decision::deny);
}

TEST(Reentrancy, HandlerRegisteredDuringAnEmitFirstRunsOnTheNextEmit) {
  Hooks hooks;
  MockFunction<void(const TurnStartEvent&)> added;
  Connection added_connection;
  auto adder = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) {
    if (!added_connection.connected()) added_connection = hooks.on<TurnStartEvent>(added.AsStdFunction());
  });
  {
    ::testing::InSequence sequence;
    EXPECT_CALL(added, Call(_)).Times(0);
    hooks.emit(TurnStartEvent{});
  }
  ::testing::Mock::VerifyAndClearExpectations(&added);
  EXPECT_CALL(added, Call(_)).Times(1);
  hooks.emit(TurnStartEvent{});
}

TEST(Reentrancy, CatchAllSubscriberAddedDuringAnEmitFirstRunsOnTheNextEmit) {
  Hooks hooks;
  std::vector<std::string> seen;
  Connection added_connection;
  auto adder = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) {
    if (!added_connection.connected())
      added_connection = hooks.subscribe([&](const HookEvent& e) { seen.emplace_back(event_name(e)); });
  });
  hooks.emit(TurnStartEvent{});
  EXPECT_THAT(seen, ElementsAre());
  (void)hooks.emit(TurnEndEvent{});
  EXPECT_THAT(seen, ElementsAre("turn_end"));
}

TEST(Reentrancy, HandlerDisconnectedDuringAnEmitAndNotYetCalledIsNotCalled) {
  Hooks hooks;
  MockFunction<void(const TurnStartEvent&)> victim;
  EXPECT_CALL(victim, Call(_)).Times(0);
  Connection victim_connection;
  auto killer = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) { victim_connection.disconnect(); });
  victim_connection = hooks.on<TurnStartEvent>(victim.AsStdFunction());
  hooks.emit(TurnStartEvent{});
}

TEST(Reentrancy, HandlerMayDisconnectItself) {
  Hooks hooks;
  int calls = 0;
  Connection self;
  self = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) {
    ++calls;
    self.disconnect();
  });
  hooks.emit(TurnStartEvent{});
  hooks.emit(TurnStartEvent{});
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(hooks.has_handlers<TurnStartEvent>());
}

TEST(Reentrancy, HandlerMayClearItsEventDuringAnEmit) {
  Hooks hooks;
  MockFunction<void(const TurnStartEvent&)> later;
  EXPECT_CALL(later, Call(_)).Times(0);
  auto clearer = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) { hooks.clear("turn_start"); });
  auto after = hooks.on<TurnStartEvent>(later.AsStdFunction());
  hooks.emit(TurnStartEvent{});
  EXPECT_FALSE(hooks.has_handlers<TurnStartEvent>());
}

// Emit, register and disconnect from several threads at once; bounded in count.
// Run under TSan in CI: it must be clean, and every emit must see a consistent
// reduction (the block and the replacement come from the same handler set).
TEST(Threads, ConcurrentEmitRegisterAndDisconnectAreSafe) {
  Hooks hooks;
  auto policy = hooks.on<ToolCallEvent>([](const ToolCallEvent& e) -> std::optional<ToolCallResult> {
    if (e.tool_name == "rm") return ToolCallResult{.decision = Decision::deny};
    return ToolCallResult{.input = boost::json::object{{"seen", true}}};
  });
  std::atomic<int> wrong{0};
  std::atomic<bool> stop{false};
  auto emitter = [&](std::string tool) {
    for (int i = 0; i < 2000; ++i) {
      ToolCallEvent event;
      event.tool_name = tool;
      ToolCallResult outcome = hooks.emit(event);
      if ((outcome.decision == Decision::deny) != (tool == "rm")) ++wrong;
      hooks.emit(TurnStartEvent{});
    }
  };
  auto churner = [&] {
    while (!stop.load()) {
      auto extra = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {}, {.priority = 1});
      auto observer = hooks.subscribe([](const HookEvent&) {});
      auto turns = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
      (void)hooks.handlers("tool_call");
      extra.disconnect();
    }
  };
  std::thread churn(churner);
  std::thread a(emitter, "rm");
  std::thread b(emitter, "ls");
  a.join();
  b.join();
  stop = true;
  churn.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(hooks.handler_count("tool_call"), 1u);
}

TEST(Threads, ConcurrentEmitsDoNotShareReductionState) {
  Hooks hooks;
  auto echo = hooks.on<ToolCallEvent>([](const ToolCallEvent& e) {
    return ToolCallResult{.input = boost::json::object{{"tool", e.tool_name}}};
  });
  auto append = hooks.on<ToolCallEvent>([](const ToolCallEvent& e) {
    auto input = e.input;
    input["checked"] = true;
    return ToolCallResult{.input = input};
  });
  std::atomic<int> wrong{0};
  auto emitter = [&](std::string tool) {
    for (int i = 0; i < 2000; ++i) {
      ToolCallEvent event;
      event.tool_name = tool;
      auto outcome = hooks.emit(std::move(event));
      if (outcome.input->at("tool") != tool.c_str() || !outcome.input->contains("checked")) ++wrong;
    }
  };
  std::thread a(emitter, "a");
  std::thread b(emitter, "b");
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
}

// Each emit keeps its own log of changes and of who answered again.
TEST(Threads, ConcurrentEmitsEachAnswerTheirOwnLessTrustedChangesAgain) {
  Hooks hooks;
  auto guard = hooks.on<ToolCallEvent>(
      [](const ToolCallEvent& e) {
        return ToolCallResult{.decision = e.input.contains("denied") ? Decision::deny : Decision::none};
      },
      {.layer = Layer::user});
  auto project = hooks.on<ToolCallEvent>(
      [](const ToolCallEvent& e) -> std::optional<ToolCallResult> {
        if (e.tool_name != "rewritten") return std::nullopt;
        return ToolCallResult{.input = boost::json::object{{"denied", true}}};
      },
      {.layer = Layer::project});
  std::atomic<int> wrong{0};
  auto emitter = [&](std::string tool, Decision expected) {
    for (int i = 0; i < 2000; ++i) {
      ToolCallEvent event;
      event.tool_name = tool;
      if (hooks.emit(std::move(event)).decision != expected) ++wrong;
    }
  };
  std::thread a(emitter, "rewritten", Decision::deny);
  std::thread b(emitter, "left alone", Decision::none);
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace hookbus
