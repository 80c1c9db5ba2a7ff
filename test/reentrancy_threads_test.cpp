// Reentrancy (nested emit, register/disconnect during emit) and threads.
#include <hookbus/hooks.hpp>
#include <hookbus/names.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

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

// disconnect() returns at once, also while the handler runs on another thread:
// it does not wait for the call, which goes on.
TEST(Threads, DisconnectDoesNotWaitForACallRunningOnAnotherThread) {
  Hooks hooks;
  std::latch running(1), release(1);
  auto handler = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) {
    running.count_down();
    release.wait();
  });
  std::thread emitter([&] { hooks.emit(TurnStartEvent{}); });
  running.wait();
  handler.disconnect();  // the handler is still inside its call: this must not block
  EXPECT_FALSE(handler.connected());
  release.count_down();
  emitter.join();
}

// What a disconnected handler holds (its captures) is released once the emits
// that were calling it have returned, not before.
TEST(Threads, ADisconnectedHandlerIsDestroyedOnceTheEmitsCallingItHaveReturned) {
  Hooks hooks;
  auto held = std::make_shared<int>(7);
  const std::weak_ptr<int> watch = held;
  std::latch running(1), release(1);
  auto handler = hooks.on<TurnStartEvent>([&, held = std::move(held)](const TurnStartEvent&) {
    running.count_down();
    release.wait();
    EXPECT_EQ(*held, 7);
  });
  std::thread emitter([&] { hooks.emit(TurnStartEvent{}); });
  running.wait();
  handler.disconnect();
  EXPECT_FALSE(watch.expired());  // the call on the other thread still uses it
  release.count_down();
  emitter.join();
  EXPECT_TRUE(watch.expired());
}

// The emit holds a tracked owner for the length of each call: an owner that
// its last holder drops on another thread meanwhile lives until the call returns.
TEST(Threads, ATrackedOwnerLivesUntilTheCallUsingItReturns) {
  Hooks hooks;
  auto owner = std::make_shared<int>(1);
  const std::weak_ptr<int> watch = owner;
  std::latch running(1), dropped(1);
  auto handler = hooks.on<TurnStartEvent>(
      [&](const TurnStartEvent&) {
        running.count_down();
        dropped.wait();
        EXPECT_FALSE(watch.expired());
      },
      {.track = std::weak_ptr<const void>(owner)});
  std::thread emitter([&] { hooks.emit(TurnStartEvent{}); });
  running.wait();
  owner.reset();
  EXPECT_FALSE(watch.expired());
  dropped.count_down();
  emitter.join();
  EXPECT_TRUE(watch.expired());
  EXPECT_FALSE(handler.connected());
}

// One handle may be disconnected from several threads at once (TSan in CI).
TEST(Threads, OneConnectionMayBeDisconnectedFromSeveralThreadsAtOnce) {
  Hooks hooks;
  for (int round = 0; round < 200; ++round) {
    auto handler = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
    std::latch start(3);
    auto disconnect = [&] {
      start.arrive_and_wait();
      handler.disconnect();
    };
    std::thread a(disconnect), b(disconnect);
    start.arrive_and_wait();
    (void)handler.connected();  // reading the handle meanwhile is allowed too
    a.join();
    b.join();
    EXPECT_FALSE(hooks.has_handlers<TurnStartEvent>());
  }
}

// Emits, connects, disconnects, owners expiring and the bus's destruction
// (with handles disconnected from another thread while it goes), all at
// once; bounded in count. Run under TSan in CI. Afterwards each bus's counts
// are exact: nothing left connected, nothing counted twice.
TEST(Threads, EmitsRegistrationsOwnerExpiryAndBusDestructionRaceSafely) {
  for (int round = 0; round < 20; ++round) {
    auto hooks = std::make_unique<Hooks>();
    std::atomic<int> calls{0};
    auto counted = [&calls](const auto&) { calls.fetch_add(1, std::memory_order_relaxed); };
    auto kept = hooks->on<TurnStartEvent>(counted);
    std::vector<Connection> handed_over;
    std::mutex handed_over_mutex;
    std::atomic<bool> churning{true};
    std::latch started(3);
    auto emitter = [&] {
      started.arrive_and_wait();
      for (int i = 0; i < 50 || churning.load(); ++i) {
        hooks->emit(TurnStartEvent{});
        (void)hooks->emit(ToolCallEvent{.tool_name = "bash"});
        (void)hooks->emit(HookEvent(TurnStartEvent{}));
      }
    };
    auto churner = [&] {
      started.arrive_and_wait();
      for (int i = 0; i < 200; ++i) {
        auto owner = std::make_shared<int>(0);
        auto tracked = hooks->on<TurnStartEvent>(counted, {.track = std::weak_ptr<const void>(owner)});
        auto named = hooks->on("tool_call", [&](const HookEvent&) -> HookOutcome {
          calls.fetch_add(1, std::memory_order_relaxed);
          return std::monostate{};
        });
        auto all = hooks->subscribe([](const EventRef& event) { (void)event.index(); });
        owner.reset();
        named.disconnect();
        if (i % 20 == 0) {
          std::lock_guard lock(handed_over_mutex);
          handed_over.push_back(std::move(all));
        }
      }
      churning = false;
    };
    std::thread a(emitter), b(emitter), churn(churner);
    churn.join();
    a.join();
    b.join();
    EXPECT_GT(calls.load(), 0);
    EXPECT_EQ(hooks->handler_count("turn_start"), 1u);
    EXPECT_FALSE(hooks->has_handlers<ToolCallEvent>());
    EXPECT_EQ(hooks->subscriber_count(), handed_over.size());
    // The bus goes while another thread disconnects the handles it handed out.
    std::latch start(2);
    std::thread disconnecter([&] {
      start.arrive_and_wait();
      for (auto& connection : handed_over) connection.disconnect();
    });
    start.arrive_and_wait();
    hooks.reset();
    disconnecter.join();
    kept.disconnect();
  }
}

}  // namespace
}  // namespace hookbus
