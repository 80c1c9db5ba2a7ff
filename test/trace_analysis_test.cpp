// What `hookctl replay` compares (trace_analysis.hpp, compare_replay): a
// recorded emit against the same event emitted again, each record written
// here as the bus would record it.

#include <hookbus/json.hpp>
#include <hookbus/trace_analysis.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hookbus {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::Optional;

HandlerRecord external(std::string label, HandlerAction action, std::string reason = {}) {
  return {.label = std::move(label),
          .kind = RecordedKind::external,
          .source = "/p/.hookbus/hooks/guard",
          .protocol = "hookbus",
          .action = action,
          .reason = std::move(reason)};
}

HandlerRecord in_process(std::string label, HandlerAction action) {
  return {.label = std::move(label), .kind = RecordedKind::in_process, .action = action};
}

EmissionRecord tool_call(std::vector<HandlerRecord> handlers, ToolCallResult result) {
  return {.payload = ToolCallEvent{.tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls -la"}}},
          .handlers = std::move(handlers),
          .result = std::move(result)};
}

ToolCallResult with_input(const char* command) {
  return ToolCallResult{.input = boost::json::object{{"command", command}}};
}

TEST(CompareReplay, TheSameAnswersAndResultAreNoDifference) {
  const EmissionRecord recorded = tool_call({external("guard", HandlerAction::deny, "no")},
                                            ToolCallResult{.decision = Decision::deny, .reason = "no"});
  const ReplayDifference difference = compare_replay(recorded, recorded);
  EXPECT_TRUE(difference.result_compared);
  EXPECT_TRUE(difference.empty());
}

TEST(CompareReplay, APatchThatChangedIsAResultThatDiffers) {
  const EmissionRecord recorded = tool_call({external("rewrite", HandlerAction::patch)}, with_input("ls"));
  const EmissionRecord now = tool_call({external("rewrite", HandlerAction::patch)}, with_input("ls -a"));
  const ReplayDifference difference = compare_replay(recorded, now);
  EXPECT_TRUE(difference.result_changed);
  EXPECT_THAT(difference.handlers, IsEmpty());  // it patched then and patches now: the patch is what changed
}

TEST(CompareReplay, AReasonThatChangedIsAHandlerThatDiffers) {
  const EmissionRecord recorded = tool_call({external("guard", HandlerAction::deny, "no")}, {});
  const EmissionRecord now = tool_call({external("guard", HandlerAction::deny, "never")}, {});
  EXPECT_THAT(compare_replay(recorded, now).handlers,
              ElementsAre(AllOf(Field(&HandlerChange::label, "guard"),
                                Field(&HandlerChange::recorded, Optional(Field(&HandlerRecord::reason, "no"))),
                                Field(&HandlerChange::now, Optional(Field(&HandlerRecord::reason, "never"))))));
}

// A replay outside the engine cannot run the engine's own handlers: what they
// answered is not compared, and a result they changed cannot be either.
TEST(CompareReplay, AnInProcessHandlerThatChangedTheResultLeavesTheResultUncompared) {
  const EmissionRecord recorded = tool_call({in_process("engine-policy", HandlerAction::deny)},
                                            ToolCallResult{.decision = Decision::deny, .reason = "engine says no"});
  const EmissionRecord now = tool_call({}, ToolCallResult{});
  const ReplayDifference difference = compare_replay(recorded, now);
  EXPECT_FALSE(difference.result_compared);
  EXPECT_FALSE(difference.result_changed);
  EXPECT_THAT(difference.handlers, IsEmpty());
}

TEST(CompareReplay, AnInProcessHandlerThatChangedNothingLeavesTheResultCompared) {
  const EmissionRecord recorded = tool_call(
      {in_process("engine-log", HandlerAction::no_change), external("guard", HandlerAction::deny, "no")},
      ToolCallResult{.decision = Decision::deny, .reason = "no"});
  const EmissionRecord now = tool_call({external("guard", HandlerAction::allow)}, ToolCallResult{});
  const ReplayDifference difference = compare_replay(recorded, now);
  EXPECT_TRUE(difference.result_compared);
  EXPECT_TRUE(difference.result_changed);
}

TEST(CompareReplay, CatchAllSubscribersAreLeftOut) {
  HandlerRecord watcher{.label = "watcher", .kind = RecordedKind::subscriber};
  const EmissionRecord recorded = tool_call({watcher}, {});
  const EmissionRecord now = tool_call({}, {});
  EXPECT_TRUE(compare_replay(recorded, now).empty());
}

// A handler that answers again (docs/semantics.md section 3) has an entry per
// answer; each is compared with the same answer of the replay.
TEST(CompareReplay, AHandlerThatAnswersAgainIsComparedAnswerByAnswer) {
  const EmissionRecord recorded =
      tool_call({external("guard", HandlerAction::allow), external("guard", HandlerAction::allow)}, {});
  const EmissionRecord now =
      tool_call({external("guard", HandlerAction::allow), external("guard", HandlerAction::deny, "changed")}, {});
  EXPECT_THAT(compare_replay(recorded, now).handlers,
              ElementsAre(AllOf(Field(&HandlerChange::recorded, Optional(Field(&HandlerRecord::action, HandlerAction::allow))),
                                Field(&HandlerChange::now, Optional(Field(&HandlerRecord::action, HandlerAction::deny))))));
}

TEST(CompareReplay, AnAnswerGivenOnlyInTheRecordingIsNowNotRun) {
  const EmissionRecord recorded =
      tool_call({external("guard", HandlerAction::allow), external("guard", HandlerAction::allow)}, {});
  const EmissionRecord now = tool_call({external("guard", HandlerAction::allow)}, {});
  EXPECT_THAT(compare_replay(recorded, now).handlers,
              ElementsAre(AllOf(Field(&HandlerChange::recorded, Optional(Field(&HandlerRecord::action, HandlerAction::allow))),
                                Field(&HandlerChange::now, std::nullopt))));
}

TEST(CompareReplay, AHandlerThatRunsOnlyNowWasNotRunInTheRecording) {
  const EmissionRecord recorded = tool_call({}, {});
  const EmissionRecord now = tool_call({external("new-guard", HandlerAction::ask, "sure?")}, {});
  EXPECT_THAT(compare_replay(recorded, now).handlers,
              ElementsAre(AllOf(Field(&HandlerChange::label, "new-guard"), Field(&HandlerChange::recorded, std::nullopt),
                                Field(&HandlerChange::now, Optional(Field(&HandlerRecord::action, HandlerAction::ask))))));
}

TEST(CompareReplay, HandlersOfOneLabelFromTwoFilesAreTwoHandlers) {
  HandlerRecord users = external("guard", HandlerAction::deny, "no");
  users.source = "/home/dev/.config/hookbus/hooks/guard";
  const EmissionRecord recorded = tool_call({users}, {});
  const EmissionRecord now = tool_call({external("guard", HandlerAction::deny, "no")}, {});
  EXPECT_THAT(compare_replay(recorded, now).handlers,
              ElementsAre(Field(&HandlerChange::source, "/home/dev/.config/hookbus/hooks/guard"),
                          Field(&HandlerChange::source, "/p/.hookbus/hooks/guard")));
}

}  // namespace
}  // namespace hookbus
