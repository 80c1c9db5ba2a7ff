// Wrap-style middleware: Hooks::wrap and Hooks::run_step (docs/semantics.md,
// section 15), with the documented behaviours of LangChain v1's wrap_tool_call
// and wrap_model_call and of Semantic Kernel's filters ported as tests.
#include <hookbus/hooks.hpp>
#include <hookbus/names.hpp>
#include <hookbus/trace.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <variant>
#include <vector>

namespace hookbus {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ToolCallEvent call_of(std::string tool, std::string command = "ls") {
  ToolCallEvent call;
  call.tool_call_id = "call-1";
  call.tool_name = std::move(tool);
  call.input["command"] = command;
  return call;
}

ToolOutput text_output(std::string text, bool is_error = false) {
  return ToolOutput{.content = {TextPart{std::move(text)}}, .is_error = is_error};
}

std::string output_text(const ToolOutput& output) { return text_of(output.content); }

// The engine's tool runner: echoes the command it was given, counting its runs.
struct EchoTool {
  int runs = 0;
  ToolOutput operator()(const ToolCallEvent& call) {
    ++runs;
    return text_output("ran " + std::string(call.input.at("command").as_string()));
  }
};

// A wrapper that records its way in and out around its next.
Connection onion_layer(Hooks& hooks, std::vector<std::string>& calls, std::string name, HandlerOptions options = {}) {
  options.label = name;
  return hooks.wrap<ToolCallEvent>(
      [&calls, name](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
        calls.push_back(name + " in");
        ToolOutput output = next(call);
        calls.push_back(name + " out");
        return output;
      },
      std::move(options));
}

// A level of a recorded step as the tests compare it: who, whose attempt, how it ended.
struct Level {
  std::string label;  // "step" for the engine's step
  std::optional<std::uint32_t> parent;
  std::uint32_t next_calls = 0;
  StepOutcome outcome = StepOutcome::output;
  std::string error{};
  bool operator==(const Level&) const = default;
  friend std::ostream& operator<<(std::ostream& out, const Level& level) {
    return out << level.label << " parent=" << (level.parent ? std::to_string(*level.parent) : "-")
               << " next=" << level.next_calls << " outcome=" << static_cast<int>(level.outcome) << " " << level.error;
  }
};

// Every emit and run of a bus, as its emission observers get them.
class WrapRecorded : public ::testing::Test {
 protected:
  Hooks hooks;
  std::vector<EmissionRecord> records;
  Connection observer = hooks.on_emission([this](const EmissionRecord& r) { records.push_back(r); });

  std::vector<Level> levels(std::size_t record = 0) const {
    std::vector<Level> all;
    for (const StepLevelRecord& l : records.at(record).step.value().levels)
      all.push_back({l.step ? "step" : l.label, l.parent, l.next_calls, l.outcome, l.error});
    return all;
  }
};

// ------------------------------------------------------------------ order

TEST(Wrap, WithNoWrapperTheStepRunsOnceWithTheEvent) {
  Hooks hooks;
  EchoTool tool;
  const ToolOutput output = hooks.run_step(call_of("bash", "pwd"), std::ref(tool));
  EXPECT_EQ(output_text(output), "ran pwd");
  EXPECT_EQ(tool.runs, 1);
}

TEST(Wrap, PortsLangChainWrapToolCallTheFirstMiddlewareIsOutermost) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto a = onion_layer(hooks, calls, "a");
  auto b = onion_layer(hooks, calls, "b");
  auto c = onion_layer(hooks, calls, "c");
  const ToolOutput output = hooks.run_step(call_of("bash"), [&](const ToolCallEvent& call) {
    calls.push_back("tool");
    return EchoTool()(call);
  });
  EXPECT_EQ(output_text(output), "ran ls");
  EXPECT_THAT(calls, ElementsAre("a in", "b in", "c in", "tool", "c out", "b out", "a out"));
}

TEST(Wrap, PortsSemanticKernelFilterOnionTheFirstInOrderIsOutermostByPriorityThenRegistration) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto late = onion_layer(hooks, calls, "late", {.priority = 10});
  auto first = onion_layer(hooks, calls, "first", {.priority = -5});
  auto second = onion_layer(hooks, calls, "second", {.priority = -5});
  (void)hooks.run_step(call_of("bash"), EchoTool());
  EXPECT_THAT(calls, ElementsAre("first in", "second in", "late in", "late out", "second out", "first out"));
  EXPECT_THAT(hooks.wrappers("tool_call"), ElementsAre("first", "second", "late"));
}

TEST(Wrap, AToolWrapperDoesNotWrapTheModelCall) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto tool_wrapper = onion_layer(hooks, calls, "tools");
  const Message response = hooks.run_step(BeforeModelCallEvent{.model = "m"},
                                          [](const BeforeModelCallEvent&) { return Message::assistant("hello"); });
  EXPECT_EQ(response, Message::assistant("hello"));
  EXPECT_THAT(calls, IsEmpty());
  EXPECT_THAT(hooks.wrappers("before_model_call"), IsEmpty());
  EXPECT_THAT(hooks.wrappers("turn_start"), IsEmpty());
}

// ------------------------------------------------- zero, one or many nexts

TEST(Wrap, PortsLangChainWrapToolCallMayShortCircuitWithoutCallingTheHandler) {
  Hooks hooks;
  auto cached = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent&, const Next<ToolCallEvent>&) { return text_output("from the cache"); });
  EchoTool tool;
  const ToolOutput output = hooks.run_step(call_of("bash"), std::ref(tool));
  EXPECT_EQ(output_text(output), "from the cache");
  EXPECT_EQ(tool.runs, 0);
}

TEST(Wrap, PortsLangChainWrapModelCallMayCallTheHandlerTwice) {
  Hooks hooks;
  auto retry = hooks.wrap<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent& request, const Next<BeforeModelCallEvent>& next) {
        Message response = next(request);
        return response.content.empty() ? next(request) : response;
      });
  int calls = 0;
  const Message response = hooks.run_step(BeforeModelCallEvent{.model = "m"}, [&](const BeforeModelCallEvent&) {
    return ++calls == 1 ? Message::assistant("") : Message::assistant("second answer");
  });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(response, Message::assistant("second answer"));
}

TEST(Wrap, PortsLangChainToolRetryMiddlewareRetriesWhatTheToolThrewWithABackoffItChooses) {
  Hooks hooks;
  std::vector<std::chrono::milliseconds> waits;
  auto retry = hooks.wrap<ToolCallEvent>([&](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
    for (std::chrono::milliseconds wait{1};; wait *= 2) {
      try {
        return next(call);
      } catch (const std::runtime_error&) {
        if (waits.size() == 3) throw;
        waits.push_back(wait);  // a real wrapper sleeps here
      }
    }
  });
  int runs = 0;
  const ToolOutput output = hooks.run_step(call_of("fetch"), [&](const ToolCallEvent&) {
    if (++runs < 3) throw std::runtime_error("connection reset");
    return text_output("fetched");
  });
  EXPECT_EQ(output_text(output), "fetched");
  EXPECT_EQ(runs, 3);
  EXPECT_THAT(waits, ElementsAre(std::chrono::milliseconds(1), std::chrono::milliseconds(2)));
}

TEST(Wrap, AWrapperMayRunTheRestWithChangedInputWhichTheInnerLevelsAndTheStepSee) {
  Hooks hooks;
  auto sandbox = hooks.wrap<ToolCallEvent>([](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
    ToolCallEvent changed = call;
    changed.input["command"] = "sandbox " + std::string(call.input.at("command").as_string());
    return next(changed);
  });
  std::string inner_saw;
  auto inner = hooks.wrap<ToolCallEvent>([&](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
    inner_saw = call.input.at("command").as_string();
    return next(call);
  });
  EXPECT_EQ(output_text(hooks.run_step(call_of("bash", "ls"), EchoTool())), "ran sandbox ls");
  EXPECT_EQ(inner_saw, "sandbox ls");
}

TEST(Wrap, AWrapperReturningNothingAfterItsNextGivesThatNextsOutcome) {
  Hooks hooks;
  int seen = 0;
  auto observer = hooks.wrap<ToolCallEvent>(
      [&](const ToolCallEvent& call, const Next<ToolCallEvent>& next) -> std::optional<ToolOutput> {
        seen += static_cast<int>(next(call).content.size());
        return std::nullopt;
      });
  EchoTool tool;
  EXPECT_EQ(output_text(hooks.run_step(call_of("bash"), std::ref(tool))), "ran ls");
  EXPECT_EQ(tool.runs, 1);
  EXPECT_EQ(seen, 1);
}

// ------------------------------------------------------------------ errors

TEST(Wrap, WhatTheStepThrowsPassesOutThroughTheWrappersAndIsNoWrappersFailure) {
  Hooks hooks;
  std::vector<HandlerFailure> failures;
  auto listener = hooks.on_handler_error([&](const HandlerFailure& f) { failures.push_back(f); });
  std::vector<std::string> calls;
  auto a = onion_layer(hooks, calls, "a", {.failure = FailurePolicy::fail_closed});
  auto b = onion_layer(hooks, calls, "b");
  EXPECT_THROW((void)hooks.run_step(call_of("bash"),
                                    [](const ToolCallEvent&) -> ToolOutput { throw std::out_of_range("no such tool"); }),
               std::out_of_range);
  EXPECT_THAT(calls, ElementsAre("a in", "b in"));
  EXPECT_THAT(failures, IsEmpty());
}

TEST(Wrap, AThrowingFailOpenWrapperIsReportedAndTheStepRunsAsIfItWereNotThere) {
  Hooks hooks;
  std::vector<HandlerFailure> failures;
  auto listener = hooks.on_handler_error([&](const HandlerFailure& f) { failures.push_back(f); });
  auto broken = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent&, const Next<ToolCallEvent>&) -> ToolOutput { throw std::runtime_error("bug"); },
      {.label = "broken"});
  EchoTool tool;
  EXPECT_EQ(output_text(hooks.run_step(call_of("bash"), std::ref(tool))), "ran ls");
  EXPECT_EQ(tool.runs, 1);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].handler, "broken");
  EXPECT_EQ(failures[0].event, "tool_call");
  EXPECT_EQ(failures[0].message, "bug");
}

TEST(Wrap, AFailOpenWrapperThatThrowsAfterItsNextKeepsThatOutputAndDoesNotRunTheStepAgain) {
  Hooks hooks;
  auto broken = hooks.wrap<ToolCallEvent>([](const ToolCallEvent& call, const Next<ToolCallEvent>& next) -> ToolOutput {
    (void)next(call);
    throw std::runtime_error("bug after the run");
  });
  EchoTool tool;
  EXPECT_EQ(output_text(hooks.run_step(call_of("bash"), std::ref(tool))), "ran ls");
  EXPECT_EQ(tool.runs, 1);
}

TEST(Wrap, AThrowingFailClosedWrapperRefusesTheStepNamingItselfAndTheStepDoesNotRun) {
  Hooks hooks;
  auto guard = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent&, const Next<ToolCallEvent>&) -> ToolOutput { throw std::runtime_error("policy unreadable"); },
      {.label = "guard", .failure = FailurePolicy::fail_closed, .source = "guard.cpp"});
  EchoTool tool;
  try {
    (void)hooks.run_step(call_of("bash"), std::ref(tool));
    FAIL() << "the step was not refused";
  } catch (const StepRefusedError& refused) {
    EXPECT_STREQ(refused.what(), "hook 'guard' failed: policy unreadable");
    EXPECT_EQ(refused.decided_by(), (Decider{"guard", "guard.cpp"}));
  }
  EXPECT_EQ(tool.runs, 0);
}

TEST(Wrap, AWrapperThatNeitherCallsNextNorReturnsAnOutputIsAFailureNamingIt) {
  Hooks hooks;
  std::vector<HandlerFailure> failures;
  auto listener = hooks.on_handler_error([&](const HandlerFailure& f) { failures.push_back(f); });
  auto idle = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent&, const Next<ToolCallEvent>&) -> std::optional<ToolOutput> { return std::nullopt; },
      {.label = "idle"});
  EchoTool tool;
  EXPECT_EQ(output_text(hooks.run_step(call_of("bash"), std::ref(tool))), "ran ls") << "fail-open: as if it were not there";
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].handler, "idle");
  EXPECT_EQ(failures[0].message, "neither called next nor returned an output");

  idle = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent&, const Next<ToolCallEvent>&) -> std::optional<ToolOutput> { return std::nullopt; },
      {.label = "idle", .failure = FailurePolicy::fail_closed});
  EXPECT_THROW(
      {
        try {
          (void)hooks.run_step(call_of("bash"), std::ref(tool));
        } catch (const StepRefusedError& refused) {
          EXPECT_STREQ(refused.what(), "hook 'idle' failed: neither called next nor returned an output");
          throw;
        }
      },
      StepRefusedError);
  EXPECT_EQ(tool.runs, 1);
}

TEST(Wrap, ARefusalPassesOutThroughTheOuterWrappersAsWhatTheirNextThrew) {
  Hooks hooks;
  std::vector<HandlerFailure> failures;
  auto listener = hooks.on_handler_error([&](const HandlerFailure& f) { failures.push_back(f); });
  std::vector<std::string> calls;
  auto outer = onion_layer(hooks, calls, "outer", {.failure = FailurePolicy::fail_closed});
  auto guard = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent&, const Next<ToolCallEvent>&) -> ToolOutput { throw std::runtime_error("no"); },
      {.label = "guard", .failure = FailurePolicy::fail_closed});
  EchoTool tool;
  EXPECT_THROW((void)hooks.run_step(call_of("bash"), std::ref(tool)), StepRefusedError);
  EXPECT_THAT(calls, ElementsAre("outer in"));
  ASSERT_EQ(failures.size(), 1u) << "only the guard failed";
  EXPECT_EQ(failures[0].handler, "guard");
  EXPECT_EQ(tool.runs, 0);
}

// ------------------------------------------------------------ cancellation

TEST(Wrap, TheStopTokenReachesEveryWrapperAndTheStep) {
  Hooks hooks;
  std::stop_source stop;
  std::vector<bool> stop_seen;
  std::vector<Connection> wrappers;
  for (int i = 0; i < 3; ++i)
    wrappers.push_back(hooks.wrap<ToolCallEvent>([&](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
      stop_seen.push_back(emit_stop_token().stop_requested());
      return next(call);
    }));
  stop.request_stop();
  (void)hooks.run_step(
      call_of("bash"),
      [&](const ToolCallEvent& call) {
        stop_seen.push_back(emit_stop_token().stop_requested());
        return EchoTool()(call);
      },
      stop.get_token());
  EXPECT_THAT(stop_seen, ElementsAre(true, true, true, true));
  EXPECT_FALSE(emit_stop_token().stop_possible()) << "the token is gone once run_step returned";
}

TEST(Wrap, ARetryingWrapperStopsRetryingOnceTheStopIsRequested) {
  Hooks hooks;
  auto retry = hooks.wrap<ToolCallEvent>([](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
    ToolOutput output = next(call);
    while (output.is_error && !emit_stop_token().stop_requested()) output = next(call);
    return output;
  });
  std::stop_source stop;
  int runs = 0;
  const ToolOutput output = hooks.run_step(
      call_of("bash"),
      [&](const ToolCallEvent&) {
        if (++runs == 2) stop.request_stop();  // the user pressed Esc during the second attempt
        return text_output("busy", true);
      },
      stop.get_token());
  EXPECT_TRUE(output.is_error);
  EXPECT_EQ(runs, 2);
}

// ------------------------------------------------------------ registration

TEST(Wrap, AToolMatcherLimitsAWrapperToItsTools) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto shell_only = onion_layer(hooks, calls, "shell", {.tools = "bash|sh"});
  (void)hooks.run_step(call_of("read"), EchoTool());
  EXPECT_THAT(calls, IsEmpty());
  (void)hooks.run_step(call_of("bash"), EchoTool());
  EXPECT_THAT(calls, ElementsAre("shell in", "shell out"));
}

TEST(Wrap, ADisconnectedWrapperNoLongerWrapsAndAWrapperAddedDuringARunFirstWrapsTheNext) {
  Hooks hooks;
  std::vector<std::string> calls;
  Connection added;
  auto adder = hooks.wrap<ToolCallEvent>([&](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
    if (!added.connected()) added = onion_layer(hooks, calls, "added");
    return next(call);
  });
  (void)hooks.run_step(call_of("bash"), EchoTool());
  EXPECT_THAT(calls, IsEmpty());
  (void)hooks.run_step(call_of("bash"), EchoTool());
  EXPECT_THAT(calls, ElementsAre("added in", "added out"));
  added.disconnect();
  calls.clear();
  EchoTool tool;
  (void)hooks.run_step(call_of("bash"), std::ref(tool));
  EXPECT_THAT(calls, IsEmpty());
  EXPECT_EQ(tool.runs, 1);
}

TEST(Wrap, ClearRemovesHandlersButAWrapperStaysUntilItsConnectionGoes) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto wrapper = onion_layer(hooks, calls, "kept");
  auto handler = hooks.on<ToolCallEvent>([](const ToolCallEvent&) { return ToolCallResult{}; });
  hooks.clear();
  hooks.clear("tool_call");
  EXPECT_FALSE(handler.connected());
  (void)hooks.run_step(call_of("bash"), EchoTool());
  EXPECT_THAT(calls, ElementsAre("kept in", "kept out"));
  EXPECT_THAT(hooks.wrappers("tool_call"), ElementsAre("kept"));
  wrapper.disconnect();
  EXPECT_THAT(hooks.wrappers("tool_call"), IsEmpty());
}

TEST(Wrap, AWrapperWhoseTrackedOwnerDiedNoLongerWraps) {
  Hooks hooks;
  std::vector<std::string> calls;
  auto owner = std::make_shared<int>(0);
  auto tracked = onion_layer(hooks, calls, "tracked", {.track = std::weak_ptr<const void>(owner)});
  owner.reset();
  (void)hooks.run_step(call_of("bash"), EchoTool());
  EXPECT_THAT(calls, IsEmpty());
}

TEST(Wrap, AWrapperIsTheEnginesOwnCodeSoOneWithALayerIsRefusedAtRegistration) {
  Hooks hooks;
  const auto pass = [](const ToolCallEvent& call, const Next<ToolCallEvent>& next) { return next(call); };
  try {
    auto project = hooks.wrap<ToolCallEvent>(pass, {.layer = Layer::project});
    FAIL() << "a wrapper with a layer was registered";
  } catch (const std::invalid_argument& refused) {
    EXPECT_THAT(refused.what(), HasSubstr("a wrapper of 'tool_call' was given a layer (project)"));
  }
  EXPECT_THROW(auto queued = hooks.wrap<ToolCallEvent>(pass, {.queued = DeliveryQueue{}}), std::invalid_argument);
  EXPECT_THROW(auto empty = hooks.wrap<ToolCallEvent>(Wrapper<ToolCallEvent>()), std::invalid_argument);
  EXPECT_THROW(auto matcher = hooks.wrap<BeforeModelCallEvent>(
                   [](const BeforeModelCallEvent& r, const Next<BeforeModelCallEvent>& next) { return next(r); },
                   {.tools = "bash"}),
               std::invalid_argument);
  EXPECT_THAT(hooks.wrappers("tool_call"), IsEmpty());
}

// ---------------------------------------------------------------- tracing

TEST_F(WrapRecorded, ARunThroughAWrapperIsOneRecordOfTheStepsEventNumberedWithTheEmits) {
  std::vector<std::string> calls;
  auto onion = onion_layer(hooks, calls, "onion");
  (void)hooks.emit(call_of("bash"));
  (void)hooks.run_step(call_of("bash", "make"), EchoTool());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_FALSE(records[0].step);
  const EmissionRecord& run = records[1];
  ASSERT_TRUE(run.step);
  EXPECT_EQ(run.seq, records[0].seq + 1);
  EXPECT_EQ(run.payload, HookEvent(call_of("bash", "make")));
  EXPECT_THAT(run.handlers, IsEmpty());
  EXPECT_TRUE(std::holds_alternative<std::monostate>(run.result));
  EXPECT_FALSE(run.decided_by);
  EXPECT_THAT(levels(1), ElementsAre(Level{"onion", {}, 1}, Level{"step", 0}));
}

TEST_F(WrapRecorded, ARunWithNoWrapperOrOnlyWrappersThatPassTheToolByRecordsNoWrapper) {
  (void)hooks.run_step(call_of("bash"), EchoTool());
  EXPECT_THAT(records, IsEmpty()) << "no wrapper: the engine called its own code";
  std::vector<std::string> calls;
  auto reads = onion_layer(hooks, calls, "reads-only", {.tools = "read"});
  (void)hooks.run_step(call_of("bash"), EchoTool());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_THAT(levels(), ElementsAre(Level{"step", {}}));
}

TEST_F(WrapRecorded, EachAttemptOfARetryingWrapperIsItsChildWithItsOwnTimeAndOutcome) {
  auto retry = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
        try {
          return next(call);
        } catch (const std::runtime_error&) {
          return next(call);
        }
      },
      {.label = "retry"});
  int runs = 0;
  (void)hooks.run_step(call_of("bash"), [&](const ToolCallEvent&) {
    if (++runs == 1) throw std::runtime_error("flaky");
    return text_output("done");
  });
  EXPECT_THAT(levels(), ElementsAre(Level{"retry", {}, 2}, Level{"step", 0, 0, StepOutcome::threw, "flaky"},
                                    Level{"step", 0}));
  const auto& recorded = records[0].step->levels;
  const EmissionRecord& run = records[0];
  EXPECT_LE(recorded[1].start_offset + recorded[1].duration, recorded[2].start_offset) << "one attempt after the other";
  for (const StepLevelRecord& attempt : {recorded[1], recorded[2]}) {
    EXPECT_GE(attempt.start_offset, recorded[0].start_offset);
    EXPECT_LE(attempt.start_offset + attempt.duration, recorded[0].start_offset + recorded[0].duration);
  }
  EXPECT_LE(recorded[0].start_offset + recorded[0].duration, run.duration);
}

TEST_F(WrapRecorded, NestedWrappersAreLevelsOutermostFirstEachTheChildOfTheOneAroundIt) {
  std::vector<std::string> calls;
  auto outer = onion_layer(hooks, calls, "outer");
  auto inner = onion_layer(hooks, calls, "inner");
  (void)hooks.run_step(call_of("bash"), EchoTool());
  EXPECT_THAT(levels(), ElementsAre(Level{"outer", {}, 1}, Level{"inner", 0, 1}, Level{"step", 1}));
}

TEST_F(WrapRecorded, AWrapperThatAnswersItselfHasNoAttemptAndTheStepIsNotALevel) {
  auto cached = hooks.wrap<BeforeModelCallEvent>(
      [](const BeforeModelCallEvent&, const Next<BeforeModelCallEvent>&) { return Message::assistant("cached"); },
      {.label = "cache"});
  (void)hooks.run_step(BeforeModelCallEvent{.model = "m"}, [](const BeforeModelCallEvent&) {
    return Message::assistant("from the model");
  });
  EXPECT_EQ(event_name(records.at(0).payload), "before_model_call");
  EXPECT_THAT(levels(), ElementsAre(Level{"cache", {}, 0}));
}

TEST_F(WrapRecorded, WhatTheStepThrewIsRecordedAtEveryLevelItPassedOutThrough) {
  std::vector<std::string> calls;
  auto onion = onion_layer(hooks, calls, "onion");
  EXPECT_THROW((void)hooks.run_step(call_of("bash"),
                                    [](const ToolCallEvent&) -> ToolOutput { throw std::out_of_range("no such tool"); }),
               std::out_of_range);
  EXPECT_THAT(levels(), ElementsAre(Level{"onion", {}, 1, StepOutcome::threw, "no such tool"},
                                    Level{"step", 0, 0, StepOutcome::threw, "no such tool"}));
  EXPECT_FALSE(records[0].decided_by);
}

TEST_F(WrapRecorded, AFailOpenWrapperIsRecordedAsFailedAndTheRunItLetThroughIsItsChild) {
  auto broken = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent&, const Next<ToolCallEvent>&) -> ToolOutput { throw std::runtime_error("bug"); },
      {.label = "broken"});
  (void)hooks.run_step(call_of("bash"), EchoTool());
  EXPECT_THAT(levels(), ElementsAre(Level{"broken", {}, 0, StepOutcome::failed, "bug"}, Level{"step", 0}));
}

TEST_F(WrapRecorded, ARefusedRunNamesItsRefuserAndTheWrappersAroundItSawTheRefusalThrown) {
  std::vector<std::string> calls;
  auto outer = onion_layer(hooks, calls, "outer");
  auto guard = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent&, const Next<ToolCallEvent>&) -> ToolOutput { throw std::runtime_error("no policy"); },
      {.label = "guard", .failure = FailurePolicy::fail_closed, .source = "guard.cpp"});
  EXPECT_THROW((void)hooks.run_step(call_of("bash"), EchoTool()), StepRefusedError);
  EXPECT_THAT(levels(), ElementsAre(Level{"outer", {}, 1, StepOutcome::threw, "hook 'guard' failed: no policy"},
                                    Level{"guard", 0, 0, StepOutcome::refused, "no policy"}));
  EXPECT_EQ(records[0].decided_by, (Decider{"guard", "guard.cpp"}));
  EXPECT_EQ(records[0].step->levels[1].source, "guard.cpp");
}

TEST_F(WrapRecorded, ARefusalOfARunNestedInTheStepIsThatRunsNotTheOuterOnes) {
  std::vector<std::string> calls;
  auto outer = onion_layer(hooks, calls, "outer", {.tools = "bash"});
  auto guard = hooks.wrap<ToolCallEvent>(
      [](const ToolCallEvent&, const Next<ToolCallEvent>&) -> ToolOutput { throw std::runtime_error("no policy"); },
      {.label = "guard", .failure = FailurePolicy::fail_closed, .tools = "read", .source = "guard.cpp"});
  const auto nested_step = [&](const ToolCallEvent&) { return hooks.run_step(call_of("read"), EchoTool()); };
  EXPECT_THROW((void)hooks.run_step(call_of("bash"), nested_step), StepRefusedError);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].decided_by, (Decider{"guard", "guard.cpp"})) << "the nested run, finished first";
  EXPECT_EQ(records[1].decided_by, std::nullopt) << "no wrapper of the outer run refused";
  EXPECT_EQ(records[1].step->levels[0].outcome, StepOutcome::threw);
}

TEST_F(WrapRecorded, AnEmitInsideAWrapperIsItsOwnRecordFinishedBeforeTheRun) {
  auto auditing = hooks.wrap<ToolCallEvent>([&](const ToolCallEvent& call, const Next<ToolCallEvent>& next) {
    hooks.emit(TurnStartEvent{});
    return next(call);
  });
  (void)hooks.run_step(call_of("bash"), EchoTool());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(event_name(records[0].payload), "turn_start");
  EXPECT_GT(records[0].seq, records[1].seq) << "numbered when it started, after the run";
  EXPECT_TRUE(records[1].step);
  EXPECT_GE(records[0].start, records[1].start);
  EXPECT_LE(records[0].start + records[0].duration, records[1].start + records[1].duration);
}

}  // namespace
}  // namespace hookbus
