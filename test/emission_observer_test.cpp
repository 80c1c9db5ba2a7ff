// Emission observers (Hooks::on_emission, docs/semantics.md "Emission
// observers"): one record per emit with every handler reached, in call order,
// what each did, the result and who decided it.
#include <hookbus/hooks.hpp>
#include <hookbus/names.hpp>
#include <hookbus/trace.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

namespace hookbus {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// Records every emit of a bus.
class Recorded : public ::testing::Test {
 protected:
  std::vector<EmissionRecord> records;
  Hooks hooks;
  Connection observer = hooks.on_emission([this](const EmissionRecord& r) { records.push_back(r); }, {.label = "test"});

  std::vector<HandlerAction> actions(std::size_t record = 0) const {
    std::vector<HandlerAction> all;
    for (const auto& handler : records.at(record).handlers) all.push_back(handler.action);
    return all;
  }
  std::vector<std::string> labels(std::size_t record = 0) const {
    std::vector<std::string> all;
    for (const auto& handler : records.at(record).handlers) all.push_back(handler.label);
    return all;
  }
};

ToolCallEvent call(std::string tool, std::string command = "ls") {
  return ToolCallEvent{.tool_call_id = "c1", .tool_name = std::move(tool), .input = {{"command", command}}};
}

TEST_F(Recorded, EveryEmitGivesOneRecordWithItsEventAndASequenceNumberInEmitOrder) {
  const TurnStartEvent turn_start{.turn_index = 1};
  hooks.emit(turn_start);
  (void)hooks.emit(call("bash"));
  ASSERT_THAT(records, SizeIs(2));
  EXPECT_EQ(records[0].seq + 1, records[1].seq);
  EXPECT_EQ(records[0].payload, HookEvent(turn_start));
  EXPECT_EQ(records[1].payload, HookEvent(call("bash")));
}

// The bus reuses what it records an emit in (lib/bus/recording/emission_capture.hpp):
// nothing of an emit reaches the record of the next.
TEST_F(Recorded, EachRecordHoldsOnlyItsOwnEmitsEventHandlersAndResult) {
  auto guard = hooks.on<ToolCallEvent>(
      [](const ToolCallEvent& call) -> ToolCallResult {
        if (call.tool_name == "rm") return ToolCallResult{.decision = Decision::deny, .reason = "no rm"};
        return {};
      },
      {.label = "guard"});
  const ToolCallResult denied = hooks.emit(call("rm", "rm -rf /"));
  const TurnStartEvent turn_start{.turn_index = 3};
  hooks.emit(turn_start);
  const ToolCallResult allowed = hooks.emit(call("ls"));
  ASSERT_THAT(records, SizeIs(3));
  EXPECT_EQ(records[0].result, HookOutcome(denied));
  EXPECT_EQ(records[0].decided_by->handler, "guard");
  EXPECT_EQ(records[1].payload, HookEvent(turn_start));
  EXPECT_THAT(records[1].handlers, IsEmpty());
  EXPECT_TRUE(std::holds_alternative<std::monostate>(records[1].result));
  EXPECT_FALSE(records[1].decided_by);
  EXPECT_EQ(records[2].payload, HookEvent(call("ls")));
  EXPECT_THAT(actions(2), ElementsAre(HandlerAction::no_change));
  EXPECT_EQ(records[2].result, HookOutcome(allowed));
  EXPECT_FALSE(records[2].decided_by);
}

// Consecutive emits of one type are recorded over each other, member by member.
TEST_F(Recorded, TheRecordOfAnEventLikeTheOneBeforeHoldsEachOfItsOwnValues) {
  auto denier = hooks.on<ToolCallEvent>([](const ToolCallEvent& call) -> ToolCallResult {
    if (call.input.at("command") == "rm -rf /") return ToolCallResult{.decision = Decision::deny, .reason = "no"};
    return ToolCallResult{.input = boost::json::object{{"command", "ls -l"}}};
  });
  const ToolCallEvent first{.context = {.session_id = "s", .cwd = "/a"},
                            .tool_call_id = "c1",
                            .tool_name = "bash",
                            .input = {{"command", "rm -rf /"}, {"timeout", 0.0}}};
  const ToolCallEvent second{.context = {.session_id = "s", .cwd = "/b"},
                             .tool_call_id = "c2",
                             .tool_name = "bash",
                             .input = {{"command", "ls"}, {"timeout", -0.0}}};
  const ToolCallResult denied = hooks.emit(first);
  const ToolCallResult patched = hooks.emit(second);
  ASSERT_THAT(records, SizeIs(2));
  EXPECT_EQ(records[1].payload, HookEvent(second));
  EXPECT_TRUE(std::signbit(std::get<ToolCallEvent>(records[1].payload).input.at("timeout").as_double()));
  EXPECT_EQ(records[0].result, HookOutcome(denied));
  EXPECT_EQ(records[1].result, HookOutcome(patched));
}

TEST_F(Recorded, AnEmitNobodyHandlesIsRecordedToo) {
  const ToolCallResult outcome = hooks.emit(call("bash"));
  ASSERT_THAT(records, SizeIs(1));
  EXPECT_THAT(records[0].handlers, IsEmpty());
  EXPECT_EQ(records[0].result, HookOutcome(outcome));
}

TEST_F(Recorded, TheThreadIsNumberedByHookbusAndDiffersBetweenThreads) {
  hooks.emit(TurnStartEvent{});
  std::thread([&] { hooks.emit(TurnStartEvent{}); }).join();
  ASSERT_THAT(records, SizeIs(2));
  EXPECT_GE(records[0].thread, 1u);
  EXPECT_NE(records[0].thread, records[1].thread);
}

TEST_F(Recorded, HandlersAreRecordedInCallOrderWithTheirLabelKindAndSource) {
  auto second = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {}, {.label = "second", .priority = 2});
  auto first = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {},
                                       {.label = "first", .priority = 1, .kind = HandlerKind::external,
                                        .source = ".hookbus/hooks/first", .protocol = "hookbus"});
  auto watcher = hooks.subscribe([](const HookEvent&) {}, {.label = "watcher"});
  (void)hooks.emit(call("bash"));
  ASSERT_THAT(records, SizeIs(1));
  EXPECT_THAT(labels(), ElementsAre("first", "second", "watcher"));
  const auto& handlers = records[0].handlers;
  EXPECT_EQ(handlers[0].kind, RecordedKind::external);
  EXPECT_EQ(handlers[0].source, ".hookbus/hooks/first");
  EXPECT_EQ(handlers[0].protocol, "hookbus");
  EXPECT_EQ(handlers[1].kind, RecordedKind::in_process);
  EXPECT_EQ(handlers[2].kind, RecordedKind::subscriber);
}

TEST_F(Recorded, HandlerTimesLieWithinTheEmit) {
  auto slow = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  hooks.emit(TurnStartEvent{});
  const auto& handler = records.at(0).handlers.at(0);
  EXPECT_GE(handler.start_offset.count(), 0);
  EXPECT_LE(handler.start_offset + handler.duration, records[0].duration);
}

TEST_F(Recorded, ConsecutiveHandlersTimesAbutAndTheEmitEndsWithTheLast) {
  auto first = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {}, {.label = "first", .priority = 1});
  auto second = hooks.on<TurnStartEvent>(
      [](const TurnStartEvent&) { std::this_thread::sleep_for(std::chrono::milliseconds(2)); },
      {.label = "second", .priority = 2});
  hooks.emit(TurnStartEvent{});
  const auto& handlers = records.at(0).handlers;
  ASSERT_THAT(handlers, SizeIs(2));
  EXPECT_EQ(handlers[0].start_offset.count(), 0);
  EXPECT_EQ(handlers[1].start_offset, handlers[0].start_offset + handlers[0].duration);
  EXPECT_GE(handlers[1].duration, std::chrono::milliseconds(2));
  EXPECT_EQ(records[0].duration, handlers[1].start_offset + handlers[1].duration);
}

TEST_F(Recorded, AHandlerItsToolMatcherExcludesIsRecordedAsSkipped) {
  auto git_only = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {}, {.label = "git-only", .tools = "git"});
  (void)hooks.emit(call("bash"));
  EXPECT_THAT(actions(), ElementsAre(HandlerAction::skipped));
}

TEST_F(Recorded, AThrowingHandlerIsRecordedAsFailedWithItsMessage) {
  auto broken = hooks.on<ToolCallEvent>([](const ToolCallEvent&) -> std::optional<ToolCallResult> {
    throw std::runtime_error("policy file missing");
  }, {.label = "broken", .failure = FailurePolicy::fail_closed});
  const ToolCallResult outcome = hooks.emit(call("bash"));
  const auto& handler = records.at(0).handlers.at(0);
  EXPECT_EQ(handler.action, HandlerAction::failed);
  EXPECT_EQ(handler.error, "policy file missing");
  EXPECT_EQ(records[0].decided_by, outcome.decided_by);
  EXPECT_EQ(records[0].decided_by->handler, "broken");
}

TEST_F(Recorded, DecisionsAreRecordedWithTheirReasonsAndTheDeciderIsNamed) {
  auto allow = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.decision = Decision::allow, .reason = "read-only"};
  }, {.label = "allow"});
  auto ask = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.decision = Decision::ask, .reason = "pushes"};
  }, {.label = "ask"});
  auto deny = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.decision = Decision::deny, .reason = "rm -rf is not allowed"};
  }, {.label = "no-rm-rf", .source = ".hookbus/hooks/no-rm-rf"});
  const ToolCallResult outcome = hooks.emit(call("bash"));
  EXPECT_THAT(actions(), ElementsAre(HandlerAction::allow, HandlerAction::ask, HandlerAction::deny));
  EXPECT_EQ(records[0].handlers[0].reason, "read-only");
  EXPECT_EQ(records[0].handlers[2].reason, "rm -rf is not allowed");
  EXPECT_EQ(records[0].result, HookOutcome(outcome));
  EXPECT_EQ(records[0].decided_by, (Decider{"no-rm-rf", ".hookbus/hooks/no-rm-rf"}));
}

TEST_F(Recorded, HandlersAfterTheOneThatStoppedTheChainAreNotRecorded) {
  auto deny = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{.decision = Decision::deny}; },
                                      {.label = "deny"});
  auto never = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {}, {.label = "never"});
  (void)hooks.emit(call("bash"));
  EXPECT_THAT(labels(), ElementsAre("deny"));
}

TEST_F(Recorded, AHandlerThatAnswersAgainIsRecordedEachTimeItAnswersWithItsLayer) {
  auto guard = hooks.on<ToolCallEvent>(
      [](const ToolCallEvent& e) {
        if (e.input.at("command") == "rm -rf /") return ToolCallResult{.decision = Decision::deny, .reason = "no"};
        return ToolCallResult{.decision = Decision::allow};
      },
      {.label = "guard", .layer = Layer::user});
  auto rewrite = hooks.on<ToolCallEvent>(
      [](const ToolCallEvent&) { return ToolCallResult{.input = boost::json::object{{"command", "rm -rf /"}}}; },
      {.label = "rewrite", .layer = Layer::project});
  (void)hooks.emit(call("bash", "ls"));
  EXPECT_THAT(labels(), ElementsAre("guard", "rewrite", "guard"));
  EXPECT_THAT(actions(), ElementsAre(HandlerAction::allow, HandlerAction::patch, HandlerAction::deny));
  EXPECT_EQ(records[0].handlers[0].layer, Layer::user);
  EXPECT_EQ(records[0].handlers[1].layer, Layer::project);
}

TEST_F(Recorded, NoChangePatchAndStopAreTold) {
  auto nothing = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{}; });
  auto rewrite = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.input = boost::json::object{{"command", "ls -l"}}};
  });
  auto stop = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.stop = StopRequest{.reason = "budget used up"}};
  });
  (void)hooks.emit(call("bash"));
  EXPECT_THAT(actions(), ElementsAre(HandlerAction::no_change, HandlerAction::patch, HandlerAction::stop));
  EXPECT_EQ(records[0].handlers[2].reason, "budget used up");
}

TEST_F(Recorded, ReplaceTransformCancelRejectAndHandledAreTold) {
  auto replace = hooks.on<ContextEvent>([](const ContextEvent&) { return ContextResult{.messages = std::vector<Message>{}}; });
  auto transform = hooks.on<InputEvent>([](const InputEvent&) {
    return InputResult{.action = InputAction::transform, .text = "expanded"};
  });
  auto reject = hooks.on<InputEvent>([](const InputEvent&) {
    return InputResult{.action = InputAction::reject, .reason = "empty"};
  });
  auto cancel = hooks.on<SessionBeforeSwitchEvent>([](const SessionBeforeSwitchEvent&) {
    return SessionBeforeSwitchResult{.cancel = true, .reason = "unsaved work"};
  });
  auto handled = hooks.on<UserBashEvent>([](const UserBashEvent&) { return UserBashResult{.handled = true}; });
  (void)hooks.emit(ContextEvent{});
  (void)hooks.emit(InputEvent{.text = "/x"});
  (void)hooks.emit(SessionBeforeSwitchEvent{});
  (void)hooks.emit(UserBashEvent{});
  EXPECT_THAT(actions(0), ElementsAre(HandlerAction::replace));
  EXPECT_THAT(actions(1), ElementsAre(HandlerAction::transform, HandlerAction::reject));
  EXPECT_EQ(records[1].handlers[1].reason, "empty");
  EXPECT_THAT(actions(2), ElementsAre(HandlerAction::cancel));
  EXPECT_EQ(records[2].handlers[0].reason, "unsaved work");
  EXPECT_THAT(actions(3), ElementsAre(HandlerAction::handled));
}

TEST_F(Recorded, ThePayloadIsTheEventAsEmittedEvenWhenHandlersChangeItInPlace) {
  auto rewrite = hooks.on<ToolCallEvent>([](const ToolCallEvent&) {
    return ToolCallResult{.input = boost::json::object{{"command", "ls -l"}}};
  });
  const ToolCallResult outcome = hooks.emit(call("bash", "ls"));
  ASSERT_TRUE(outcome.input);
  EXPECT_EQ(*outcome.input, (boost::json::object{{"command", "ls -l"}}));
  EXPECT_EQ(records.at(0).payload, HookEvent(call("bash", "ls")));
  EXPECT_EQ(records[0].result, HookOutcome(outcome));
}

// The bus reuses what it records an emit into; a record is the observer's own.
TEST_F(Recorded, EachRecordKeepsItsOwnEventAndResultWhileTheBusRecordsMore) {
  auto patch = hooks.on<ToolCallEvent>([](const ToolCallEvent& event) {
    return ToolCallResult{.input = boost::json::object{{"command", event.input.at("command")}, {"patched", true}}};
  });
  constexpr std::uint32_t emits = 300;
  std::vector<HookEvent> emitted;
  for (std::uint32_t i = 0; i < emits; ++i) {
    if (i % 3 == 2) {
      emitted.emplace_back(TurnStartEvent{.turn_index = i});
      hooks.emit(std::get<TurnStartEvent>(emitted.back()));
    } else {
      emitted.emplace_back(call(i % 2 == 0 ? "bash" : "a-tool-name-longer-than-a-small-string", std::string(i, 'x')));
      (void)hooks.emit(std::get<ToolCallEvent>(emitted.back()));
    }
  }
  ASSERT_THAT(records, SizeIs(emits));
  for (std::uint32_t i = 0; i < emits; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(records[i].payload, emitted[i]);
    if (i % 3 == 2) {
      EXPECT_TRUE(std::holds_alternative<std::monostate>(records[i].result));
    } else {
      EXPECT_EQ(records[i].result, HookOutcome(ToolCallResult{
                                       .input = boost::json::object{{"command", std::string(i, 'x')}, {"patched", true}}}));
    }
  }
}

TEST(EmissionObservers, AQueuedObserversRecordsAreEachEmitsOwnWhileTheEmitsGoOn) {
  Hooks hooks;
  std::vector<EmissionRecord> records;
  Connection observer = hooks.on_emission([&](const EmissionRecord& r) { records.push_back(r); },
                                          {.queued = DeliveryQueue{.capacity = 8}});
  constexpr int emits = 500;
  for (int i = 0; i < emits; ++i) (void)hooks.emit(call("bash", std::to_string(i)));
  hooks.flush();
  ASSERT_THAT(records, SizeIs(emits));
  for (int i = 0; i < emits; ++i) EXPECT_EQ(records[i].payload, HookEvent(call("bash", std::to_string(i)))) << i;
}

TEST_F(Recorded, AnObserveOnlyEventHasNoResult) {
  auto watch = hooks.on<TurnStartEvent>([](const TurnStartEvent&) {});
  hooks.emit(TurnStartEvent{});
  EXPECT_TRUE(std::holds_alternative<std::monostate>(records.at(0).result));
  EXPECT_FALSE(records[0].decided_by);
}

TEST_F(Recorded, AThrowingSubscriberIsRecordedAsFailed) {
  auto broken = hooks.subscribe([](const HookEvent&) { throw std::runtime_error("log full"); }, {.label = "log"});
  hooks.emit(TurnStartEvent{});
  ASSERT_THAT(records.at(0).handlers, SizeIs(1));
  EXPECT_EQ(records[0].handlers[0].action, HandlerAction::failed);
  EXPECT_EQ(records[0].handlers[0].error, "log full");
}

TEST_F(Recorded, ANestedEmitIsItsOwnRecordFinishedFirstAndNumberedAfterItsParent) {
  auto outer = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) { hooks.emit(MessageStartEvent{}); });
  hooks.emit(TurnStartEvent{});
  ASSERT_THAT(records, SizeIs(2));
  EXPECT_EQ(event_name(records[0].payload), "message_start");
  EXPECT_EQ(event_name(records[1].payload), "turn_start");
  EXPECT_EQ(records[0].seq, records[1].seq + 1);
  EXPECT_GE(records[0].start, records[1].start);
  EXPECT_LE(records[0].start + records[0].duration, records[1].start + records[1].duration);
}

TEST(EmissionObservers, ADisconnectedObserverGetsNoMoreRecords) {
  Hooks hooks;
  int records = 0;
  auto observer = hooks.on_emission([&](const EmissionRecord&) { ++records; });
  hooks.emit(TurnStartEvent{});
  observer.disconnect();
  hooks.emit(TurnStartEvent{});
  EXPECT_EQ(records, 1);
}

TEST(EmissionObservers, AThrowingObserverIsReportedWithItsLabel) {
  Hooks hooks;
  std::vector<HandlerFailure> errors;
  auto listener = hooks.on_handler_error([&](const HandlerFailure& e) { errors.push_back(e); });
  auto observer = hooks.on_emission([](const EmissionRecord&) { throw std::runtime_error("disk full"); },
                                    {.label = "tracer"});
  hooks.emit(TurnStartEvent{});
  ASSERT_THAT(errors, SizeIs(1));
  EXPECT_EQ(errors[0].handler, "tracer");
  EXPECT_EQ(errors[0].event, "on_emission");
  EXPECT_EQ(errors[0].message, "disk full");
}

TEST(EmissionObservers, AnEmptyObserverIsRejected) {
  Hooks hooks;
  EXPECT_THROW((void)hooks.on_emission(nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace hookbus
