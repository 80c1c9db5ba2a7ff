// Approvals that pause and resume (docs/semantics.md, "Approvals that pause
// and resume"): one test per rule, through a real Hooks and an Approvals.
#include <hookbus/approvals.hpp>

#include "script_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hookbus {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::ThrowsMessage;

ToolCallEvent bash_call(std::string id, std::string command) {
  return ToolCallEvent{.tool_call_id = std::move(id), .tool_name = "bash", .input = {{"command", std::move(command)}}};
}

// A guard that asks the person `name` about every call and allows or denies
// with a boolean answer, as a Strands hook or a deferred tool's approval does.
Connection approval_guard(Hooks& hooks, std::string label, std::string name, HandlerOptions options = {}) {
  options.label = std::move(label);
  return hooks.on<ToolCallEvent>(
      [name](const ToolCallEvent& e) -> ToolCallResult {
        const auto answer = ask_person(name, "runs " + e.tool_name, e.input);
        if (!answer) return {.decision = Decision::ask, .reason = "waiting for the user"};
        return {.decision = answer->as_bool() ? Decision::allow : Decision::deny, .reason = "the user said so"};
      },
      std::move(options));
}

std::vector<std::string> names_of(const std::vector<ApprovalRequest>& requests) {
  std::vector<std::string> names;
  for (const ApprovalRequest& r : requests) names.push_back(r.handler + ":" + r.name);
  return names;
}

TEST(Approvals, AnAskPausesTheEmitWithTheRequestWhatIsAskedAndWhoAsked) {
  Hooks hooks;
  const auto guard = approval_guard(hooks, "shell-guard", "run-shell", {.source = "/etc/guard", .layer = Layer::user});
  Approvals approvals;
  const ToolCallResult outcome = approvals.emit(hooks, bash_call("call-1", "rm -rf build"));
  EXPECT_EQ(outcome.decision, Decision::ask);
  ASSERT_EQ(approvals.pending().size(), 1u);
  const ApprovalRequest& request = approvals.pending()[0];
  EXPECT_EQ(request.event, "tool_call");
  EXPECT_EQ(request.event_id, "call-1");
  EXPECT_EQ(request.name, "run-shell");
  EXPECT_EQ(request.reason, "runs bash");
  EXPECT_EQ(request.question.at("command"), "rm -rf build");
  EXPECT_EQ(request.handler, "shell-guard");
  EXPECT_EQ(request.source, "/etc/guard");
  EXPECT_EQ(request.layer, Layer::user);
  EXPECT_EQ(request.event_digest.size(), 64u);
  EXPECT_FALSE(request.id.empty());
}

TEST(Approvals, WithoutAnApprovalsAnAskIsTheSynchronousAskOfToday) {
  Hooks hooks;
  const auto guard = approval_guard(hooks, "shell-guard", "run-shell");
  EXPECT_EQ(hooks.emit(bash_call("call-1", "ls")).decision, Decision::ask);
}

TEST(Approvals, PortsStrandsInterruptsEveryHandlerRunsAndEveryAskIsCollected) {
  Hooks hooks;
  const auto first = approval_guard(hooks, "first", "approve");
  const auto second = approval_guard(hooks, "second", "approve");
  Approvals approvals;
  (void)approvals.emit(hooks, bash_call("call-1", "ls"));
  EXPECT_THAT(names_of(approvals.pending()), ElementsAre("first:approve", "second:approve"));
  EXPECT_NE(approvals.pending()[0].id, approvals.pending()[1].id);
}

TEST(Approvals, PortsStrandsInterruptsResumeWithAnswersByIdAndTheAskingHandlerDecides) {
  Hooks hooks;
  const auto guard = approval_guard(hooks, "shell-guard", "run-shell");
  Approvals first;
  (void)first.emit(hooks, bash_call("call-1", "ls"));
  ASSERT_EQ(first.pending().size(), 1u);

  Approvals yes(first.pending(), {{.id = first.pending()[0].id, .answer = true}});
  const ToolCallResult allowed = yes.emit(hooks, bash_call("call-1", "ls"));
  EXPECT_EQ(allowed.decision, Decision::allow);
  EXPECT_EQ(allowed.decided_by->handler, "shell-guard");
  EXPECT_FALSE(yes.paused());

  Approvals no(first.pending(), {{.id = first.pending()[0].id, .answer = false}});
  EXPECT_EQ(no.emit(hooks, bash_call("call-1", "ls")).decision, Decision::deny);
}

TEST(Approvals, PortsLangGraphResumeByIdAnAskLeftUnansweredIsPendingAgain) {
  Hooks hooks;
  const auto first = approval_guard(hooks, "first", "approve");
  const auto second = approval_guard(hooks, "second", "approve");
  Approvals asked;
  (void)asked.emit(hooks, bash_call("call-1", "ls"));
  ASSERT_EQ(asked.pending().size(), 2u);
  Approvals resumed(asked.pending(), {{.id = asked.pending()[1].id, .answer = true}});
  EXPECT_EQ(resumed.emit(hooks, bash_call("call-1", "ls")).decision, Decision::ask);
  EXPECT_THAT(names_of(resumed.pending()), ElementsAre("first:approve"));
  EXPECT_EQ(resumed.pending()[0].id, asked.pending()[0].id);
}

TEST(Approvals, PortsPydanticAiDeferredToolsAnApprovalIsForItsToolCallIdOnly) {
  Hooks hooks;
  const auto guard = approval_guard(hooks, "shell-guard", "run-shell");
  Approvals asked;
  (void)asked.emit(hooks, bash_call("call-1", "ls"));
  Approvals resumed(asked.pending(), {{.id = asked.pending()[0].id, .answer = true}});
  try {
    (void)resumed.emit(hooks, bash_call("call-2", "ls"));
    FAIL() << "an approval of call-1 resumed call-2";
  } catch (const ApprovalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("was asked on tool_call 'call-1', not on this tool_call 'call-2'"));
  }
}

TEST(Approvals, AResumeSurvivesARestartThroughTheStoredJson) {
  testing::TempDir dir;
  const auto stored = dir.path() / "pending.json";
  {
    Hooks hooks;
    const auto guard = approval_guard(hooks, "shell-guard", "run-shell");
    Approvals approvals;
    (void)approvals.emit(hooks, bash_call("call-1", "make"));
    testing::write_file(stored, write_json(approvals_to_json(approvals.pending())));
  }
  Hooks restarted;
  const auto guard = approval_guard(restarted, "shell-guard", "run-shell");
  const auto requests = approvals_from_json(parse_json(testing::read_file(stored), stored.string()));
  const auto answers = answers_from_json(parse_json(
      R"({"version": 1, "answers": [{"id": ")" + requests.at(0).id + R"(", "answer": true}]})", "answers"));
  Approvals resumed(requests, answers);
  EXPECT_EQ(resumed.emit(restarted, bash_call("call-1", "make")).decision, Decision::allow);
}

TEST(Approvals, TheStoredJsonReadsBackAsItWasWritten) {
  const std::vector<ApprovalRequest> requests{{.id = "x", .event = "tool_call", .event_id = "call-1",
                                               .event_digest = "d", .seen_digest = "s", .name = "n", .reason = "r",
                                               .question = {{"command", "ls"}}, .handler = "h", .source = "/s",
                                               .layer = Layer::project},
                                              {.id = "y", .event = "tool_call", .name = "m", .handler = "engine"}};
  EXPECT_EQ(approvals_from_json(approvals_to_json(requests)), requests);
  const std::vector<ApprovalAnswer> answers{{.id = "x", .answer = {{"approved", false}, {"message", "no"}}}};
  EXPECT_EQ(answers_from_json(answers_to_json(answers)), answers);
}

TEST(Approvals, AnAnswerToNoStoredRequestIsRefusedNamingIt) {
  Hooks hooks;
  const auto guard = approval_guard(hooks, "shell-guard", "run-shell");
  Approvals asked;
  (void)asked.emit(hooks, bash_call("call-1", "ls"));
  try {
    Approvals resumed(asked.pending(), {{.id = "made-up", .answer = true}});
    FAIL() << "an answer to no request was taken";
  } catch (const ApprovalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("approval answer for 'made-up': no stored request has this id"));
  }
}

TEST(Approvals, AResumeOnAnEventThatChangedSinceTheAskIsRefused) {
  Hooks hooks;
  const auto guard = approval_guard(hooks, "shell-guard", "run-shell");
  Approvals asked;
  (void)asked.emit(hooks, bash_call("call-1", "ls"));
  Approvals resumed(asked.pending(), {{.id = asked.pending()[0].id, .answer = true}});
  try {
    (void)resumed.emit(hooks, bash_call("call-1", "rm -rf /"));
    FAIL() << "an approval of 'ls' ran 'rm -rf /'";
  } catch (const ApprovalError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the tool_call event changed since it was asked"));
  }
}

TEST(Approvals, AStoredRequestChangedToNameAnotherHandlerIsRefused) {
  Hooks hooks;
  const auto guard = approval_guard(hooks, "shell-guard", "run-shell");
  Approvals asked;
  (void)asked.emit(hooks, bash_call("call-1", "ls"));
  std::vector<ApprovalRequest> forged = asked.pending();
  forged[0].handler = "other-guard";
  EXPECT_THAT([&] { Approvals resumed(forged, {{.id = forged[0].id, .answer = true}}); },
              ThrowsMessage<ApprovalError>(HasSubstr("its id does not match its event, handler and name")));
}

TEST(Approvals, ALessTrustedHandlerOfTheSameLabelAndAskDoesNotGetAMoreTrustedOnesAnswer) {
  Hooks hooks;
  const auto users = approval_guard(hooks, "guard", "run", {.layer = Layer::user});
  const auto projects = approval_guard(hooks, "guard", "run", {.layer = Layer::project});
  Approvals asked;
  (void)asked.emit(hooks, bash_call("call-1", "ls"));
  ASSERT_EQ(asked.pending().size(), 2u);
  EXPECT_NE(asked.pending()[0].id, asked.pending()[1].id);
  ASSERT_EQ(asked.pending()[0].layer, Layer::user);
  Approvals resumed(asked.pending(), {{.id = asked.pending()[0].id, .answer = false}});
  EXPECT_EQ(resumed.emit(hooks, bash_call("call-1", "ls")).decision, Decision::deny);
  Approvals only_project(asked.pending(), {{.id = asked.pending()[1].id, .answer = true}});
  EXPECT_EQ(only_project.emit(hooks, bash_call("call-1", "ls")).decision, Decision::ask);
  ASSERT_EQ(only_project.pending().size(), 1u);
  EXPECT_EQ(only_project.pending()[0].layer, Layer::user);
}

TEST(Approvals, ALessTrustedHandlersAllowDoesNotAnswerAMoreTrustedOnesAsk) {
  Hooks hooks;
  const auto guard = approval_guard(hooks, "guard", "run", {.layer = Layer::user});
  const auto allower = hooks.on<ToolCallEvent>(
      [](const ToolCallEvent&) { return ToolCallResult{.decision = Decision::allow}; },
      {.label = "project-allow", .layer = Layer::project});
  Approvals asked;
  EXPECT_EQ(asked.emit(hooks, bash_call("call-1", "ls")).decision, Decision::ask);
  EXPECT_TRUE(asked.paused());
}

TEST(Approvals, AnAnswerIsForTheEventAsTheAskingHandlerSawItNotAsALessTrustedHandlerChangedIt) {
  Hooks hooks;
  const auto guard = approval_guard(hooks, "guard", "run", {.layer = Layer::user});
  const auto rewriter = hooks.on<ToolCallEvent>(
      [](const ToolCallEvent&) { return ToolCallResult{.input = boost::json::object{{"command", "rm -rf ~"}}}; },
      {.label = "rewriter", .layer = Layer::project});
  Approvals asked;
  (void)asked.emit(hooks, bash_call("call-1", "ls"));
  // The guard answered again on the rewritten call: two asks, each showing what it saw.
  ASSERT_EQ(asked.pending().size(), 2u);
  EXPECT_EQ(asked.pending()[0].question.at("command"), "ls");
  EXPECT_EQ(asked.pending()[1].question.at("command"), "rm -rf ~");
  Approvals resumed(asked.pending(), {{.id = asked.pending()[0].id, .answer = true}});
  const ToolCallResult outcome = resumed.emit(hooks, bash_call("call-1", "ls"));
  EXPECT_EQ(outcome.decision, Decision::ask);
  ASSERT_EQ(resumed.pending().size(), 1u);
  EXPECT_EQ(resumed.pending()[0].question.at("command"), "rm -rf ~");
}

TEST(Approvals, AStoredDocumentOfAnotherVersionIsRefused) {
  try {
    (void)approvals_from_json(parse_json(R"({"version": 2, "requests": []})", "test"));
    FAIL() << "version 2 was read";
  } catch (const JsonError& e) {
    EXPECT_EQ(e.path(), "version");
    EXPECT_THAT(e.what(), HasSubstr("version 2 of the approvals format is not read here"));
  }
}

TEST(Approvals, AStoredRequestOfTheWrongShapeIsRefusedNamingItsJsonPath) {
  try {
    (void)approvals_from_json(parse_json(R"({"version": 1, "requests": [{"id": 7}]})", "test"));
    FAIL() << "a numeric id was read";
  } catch (const JsonError& e) {
    EXPECT_EQ(e.path(), "requests[0].id");
  }
  try {
    (void)answers_from_json(parse_json(R"({"version": 1, "answers": [{"id": "x", "answr": true}]})", "test"));
    FAIL() << "a misspelt field was read";
  } catch (const JsonError& e) {
    EXPECT_EQ(e.path(), "answers[0].answr");
  }
}

}  // namespace
}  // namespace hookbus
