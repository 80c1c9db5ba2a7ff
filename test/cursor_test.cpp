// Hooks written for Cursor run unchanged (docs/agent-formats.md, "Cursor"):
// its hooks.json of "version": 1 in .cursor/ and ~/.cursor/, switched on by
// config's "agent_hooks", a flat list of commands per event, Cursor's
// payload and its flat answer. The hooks are written here from Cursor's
// documented payload and answer (cursor.com/docs/hooks), in bash + jq,
// Python and Node, and run through setup() and Hooks::emit.
#include "agent_hooks_fixture.hpp"
#include "scoped_environment.hpp"

#include "formats/claude_code/settings.hpp"
#include "formats/cursor/format.hpp"

#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trust.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::read_file;
using testing::TempDir;
using testing::write_file;
using namespace std::chrono_literals;

class CursorHooks : public testing::AgentHooksFixture {
 protected:
  // The project's .cursor/hooks.json with `hooks` (the "hooks" object's
  // members), switched on by its config, and trusted.
  void projects_hooks(const std::string& hooks) {
    switch_on("cursor");
    write_file(in_project(".cursor/hooks.json"), R"({"version": 1, "hooks": {)" + hooks + "}}");
    trust_project();
  }
  // One tool call on what setup() installs now.
  ToolCallResult emit_tool(const std::string& tool, boost::json::object input) {
    install();
    return hooks_.emit(
        ToolCallEvent{.context = context(), .tool_call_id = "c1", .tool_name = tool, .input = std::move(input)});
  }
  ClaudeCodeSettings read(const std::string& text) const {
    return detail::read_format_settings(detail::cursor_format(), write_file(root_ / "hooks.json", text), Layer::user);
  }
  std::string read_error(const std::string& text) const {
    try {
      (void)read(text);
    } catch (const ConfigError& error) {
      return error.what();
    }
    return "read without an error";
  }
};

// ------------------------------------------------------------ the file

TEST_F(CursorHooks, AHooksFileWithoutAVersionIsAnErrorNamingTheFile) {
  EXPECT_THAT(read_error(R"({"hooks": {"stop": [{"command": "./a.sh"}]}})"),
              AllOf(HasSubstr((root_ / "hooks.json").string()), HasSubstr("no \"version\""),
                    HasSubstr("declares \"version\": 1")));
}

TEST_F(CursorHooks, AnUnknownVersionIsAnErrorNamingItsJsonPath) {
  EXPECT_THAT(read_error(R"({"version": 2, "hooks": {}})"),
              AllOf(HasSubstr((root_ / "hooks.json").string()), HasSubstr("version: expected 1, got 2"),
                    HasSubstr("Cursor reads hooks files of version 1 only")));
}

TEST_F(CursorHooks, EachCommandOfAnEventIsAHandlerWithItsOwnMatcherTimeoutAndFailClosed) {
  const ClaudeCodeSettings settings = read(R"({"version": 1, "hooks": {"beforeShellExecution": [
      {"command": ".cursor/hooks/guard.sh", "matcher": "rm |curl", "timeout": 10, "failClosed": true},
      {"command": "./audit.sh", "type": "command"}]}})");
  ASSERT_EQ(settings.commands.size(), 2U);
  EXPECT_EQ(settings.commands[0].matcher, "rm |curl");
  EXPECT_EQ(settings.commands[0].timeout, 10s);
  EXPECT_EQ(settings.commands[0].failure, FailurePolicy::fail_closed);
  EXPECT_EQ(settings.commands[0].source, (root_ / "hooks.json").string() + ": hooks.beforeShellExecution[0]");
  EXPECT_EQ(settings.commands[1].failure, FailurePolicy::fail_open);
  EXPECT_EQ(settings.commands[1].protocol, HookProtocol::cursor);
  EXPECT_THAT(settings.skipped, IsEmpty());
}

// Cursor events without a counterpart and prompt hooks are noted with file and JSON path.
TEST_F(CursorHooks, WhatHookbusDoesNotRunIsNotedWithFileAndJsonPath) {
  const ClaudeCodeSettings settings = read(R"({"version": 1, "hooks": {
      "afterAgentThought": [{"command": "./think.sh"}],
      "stop": [{"type": "prompt", "prompt": "done?"}, {"command": "./check.sh", "loop_limit": 3}]}})");
  EXPECT_EQ(settings.commands.size(), 1U);
  const std::string file = (root_ / "hooks.json").string();
  EXPECT_THAT(settings.skipped,
              ElementsAre(AllOf(HasSubstr(file + ": hooks.afterAgentThought"),
                                HasSubstr("no equivalent of the Cursor event 'afterAgentThought'")),
                          AllOf(HasSubstr(file + ": hooks.stop[0]"), HasSubstr("hook type \"prompt\""))));
}

// loop_limit caps a stop or subagentStop command's follow-ups: 5 when it gives none, none when null.
TEST_F(CursorHooks, AStopOrSubagentStopCommandsLoopLimitIsItsFollowUpLimit) {
  const ClaudeCodeSettings settings = read(R"({"version": 1, "hooks": {
      "stop": [{"command": "./a.sh", "loop_limit": 2}, {"command": "./b.sh"}, {"command": "./c.sh", "loop_limit": null}],
      "subagentStop": [{"command": "./d.sh"}], "preToolUse": [{"command": "./e.sh"}]}})");
  ASSERT_EQ(settings.commands.size(), 5U);
  EXPECT_EQ(settings.commands[0].follow_up_limit, 2U);
  EXPECT_EQ(settings.commands[1].follow_up_limit, 5U);
  EXPECT_EQ(settings.commands[2].follow_up_limit, std::nullopt);
  EXPECT_EQ(settings.commands[3].follow_up_limit, 5U);
  EXPECT_EQ(settings.commands[4].follow_up_limit, std::nullopt) << "a preToolUse command asks for no follow-up";
  EXPECT_THAT(settings.skipped, IsEmpty());
}

TEST_F(CursorHooks, ALoopLimitThatIsNoCountIsAnErrorNamingItsJsonPath) {
  EXPECT_THAT(read_error(R"({"version": 1, "hooks": {"stop": [{"command": "./a.sh", "loop_limit": -1}]}})"),
              HasSubstr("hooks.stop[0].loop_limit"));
  EXPECT_THAT(read_error(R"({"version": 1, "hooks": {"stop": [{"command": "./a.sh", "loop_limit": "3"}]}})"),
              HasSubstr("hooks.stop[0].loop_limit"));
}

TEST_F(CursorHooks, AMatcherThatIsNoRegularExpressionIsAnErrorNamingItsJsonPath) {
  EXPECT_THAT(read_error(R"({"version": 1, "hooks": {"preToolUse": [{"command": "./a.sh", "matcher": "Shell("}]}})"),
              AllOf(HasSubstr("hooks.preToolUse[0].matcher"), HasSubstr("not a valid regular expression")));
}

TEST_F(CursorHooks, TheUsersCursorHooksAreInDotCursor) {
  const testing::ScopedEnvironment env{{"HOME", root_.path().string()}};
  EXPECT_EQ(Locations::from_environment(project_.path()).cursor, root_ / ".cursor");
  write_file(root_ / "cursor" / "hooks.json",
             R"({"version": 1, "hooks": {"beforeShellExecution": [{"command": "echo nope >&2; exit 2"}]}})");
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"cursor": {"settings": ["user"]}}})");
  EXPECT_EQ(emit_bash("ls").decision, Decision::deny);
  EXPECT_THAT(warnings_, IsEmpty());
}

// The enterprise hooks.json (/etc/cursor on Linux) is the administrator's: asked for by the
// managed config, its commands are the managed layer's, run first, and a project's allow
// does not undo its deny.
TEST_F(CursorHooks, TheEnterpriseHooksAreTheManagedLayersAndAProjectsAllowDoesNotUndoThem) {
  write_file(root_ / "etc-cursor" / "hooks.json",
             R"({"version": 1, "hooks": {"beforeShellExecution": [{"command": )"
             R"("echo '{\"permission\": \"deny\", \"agent_message\": \"not on this machine\"}'", "matcher": "curl"}]}})");
  write_file(locations().config_file(Layer::managed), R"({"agent_hooks": {"cursor": {"settings": ["managed"]}}})");
  projects_hooks(R"("beforeShellExecution": [{"command": "echo '{\"permission\": \"allow\"}'"}])");
  install();
  const ToolCallResult result = hooks_.emit(
      ToolCallEvent{.context = context(), .tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "curl x"}}});
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "not on this machine");
  std::vector<std::pair<Layer, std::string>> layers;
  for (const auto& hook : installed_->report.hooks.installed) layers.emplace_back(hook.layer, hook.source.substr(0, hook.source.find(':')));
  EXPECT_THAT(layers, ElementsAre(std::pair{Layer::managed, (root_ / "etc-cursor" / "hooks.json").string()},
                                  std::pair{Layer::project, in_project(".cursor/hooks.json").string()}));
}

// A user's config may read the enterprise file too, in its own layer; where no administrator's
// file is known, "managed" is an error naming the key, never silently nothing.
TEST_F(CursorHooks, TheEnterpriseHooksAskedForByTheUserAreTheUsersAndUnknownOnesAreAnError) {
  write_file(root_ / "etc-cursor" / "hooks.json", R"({"version": 1, "hooks": {"stop": [{"command": "true"}]}})");
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"cursor": {"settings": ["managed"]}}})");
  install();
  ASSERT_EQ(installed_->report.hooks.installed.size(), 1U);
  EXPECT_EQ(installed_->report.hooks.installed[0].layer, Layer::user);
  Locations nowhere = locations();
  nowhere.cursor_enterprise.clear();
  Hooks bus;
  EXPECT_THAT([&] { (void)setup(bus, {.project_dir = project_.path(), .locations = nowhere}); },
              ::testing::ThrowsMessage<ConfigError>(AllOf(HasSubstr("agent_hooks.cursor.settings"),
                                                          HasSubstr("no administrator's hooks file of Cursor"))));
}

TEST_F(CursorHooks, CursorHooksAreNotReadWithoutTheConfigThatAsksForThem) {
  write_file(root_ / "cursor" / "hooks.json",
             R"({"version": 1, "hooks": {"preToolUse": [{"command": "echo no >&2; exit 2"}]}})");
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
}

// --------------------------------------------------------- tool calls

// A bash + jq guard of Cursor's documented kind: the command is a top-level field.
TEST_F(CursorHooks, ABeforeShellExecutionGuardDeniesWithItsUserAndAgentMessages) {
  write_file(in_project(".cursor/hooks/guard.sh"),
             "#!/bin/sh\n"
             "command=$(jq -r '.command')\n"
             "case \"$command\" in *'rm -rf'*)\n"
             "  jq -n --arg c \"$command\" '{permission: \"deny\", user_message: (\"Blocked \" + $c), "
             "agent_message: \"Do not delete recursively\"}'; exit 0 ;;\n"
             "esac\n"
             "echo '{\"permission\": \"allow\"}'\n",
             0755);
  projects_hooks(R"("beforeShellExecution": [{"command": ".cursor/hooks/guard.sh"}])");
  const ToolCallResult denied = emit_bash("rm -rf /");
  EXPECT_EQ(denied.decision, Decision::deny);
  EXPECT_EQ(denied.reason, "Do not delete recursively");
  EXPECT_THAT(denied.system_messages, ElementsAre("Blocked rm -rf /"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::allow);
}

// beforeShellExecution fires for the shell only, its matcher searched for in the command line.
TEST_F(CursorHooks, ABeforeShellExecutionMatcherSearchesTheCommandLineOfShellCallsOnly) {
  projects_hooks(R"("beforeShellExecution": [{"command": "echo no network >&2; exit 2", "matcher": "curl|wget"},)"
                 R"({"command": "echo '{\"permission\": \"ask\"}'"}])");
  EXPECT_EQ(emit_bash("ls && curl -s example.com").decision, Decision::deny);
  EXPECT_EQ(emit_bash("ls").decision, Decision::ask);
  EXPECT_EQ(emit_tool("read", {{"command", "curl"}, {"file_path", "a"}}).decision, Decision::none);
}

// A Python preToolUse hook matches Cursor's tool name and rewrites the input with updated_input.
TEST_F(CursorHooks, APreToolUseHookSeesCursorsToolNameAndRewritesTheInput) {
  write_file(in_project(".cursor/hooks/quiet.py"),
             "import json, sys\n"
             "call = json.load(sys.stdin)\n"
             "assert call['hook_event_name'] == 'preToolUse' and call['conversation_id'] == 's1'\n"
             "command = call['tool_input']['command'] + ' --quiet'\n"
             "print(json.dumps({'permission': 'allow', 'updated_input': {'command': command}}))\n");
  projects_hooks(R"("preToolUse": [{"command": "python3 .cursor/hooks/quiet.py", "matcher": "Shell"}])");
  const ToolCallResult result = emit_bash("make");
  EXPECT_EQ(result.decision, Decision::allow);
  ASSERT_TRUE(result.input);
  EXPECT_EQ(result.input->at("command"), "make --quiet");
  EXPECT_EQ(emit_tool("read", {{"file_path", "a"}}).input, std::nullopt);
}

// generation_id is the engine's id of the user's turn (EventContext::turn_id), model its model: as the
// engine gives them, empty strings when it gives none (Cursor sends both on every agent hook).
TEST_F(CursorHooks, AHookSeesTheEnginesTurnAsGenerationIdAndItsModel) {
  projects_hooks(R"("preToolUse": [{"command": "jq -c '{permission: \"deny\", agent_message: ([.generation_id, .model] | @json)}'"}])");
  install();
  ToolCallEvent call{.context = context(), .tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls"}}};
  call.context.turn_id = "g7";
  call.context.model = "claude-opus-4-7";
  EXPECT_EQ(hooks_.emit(call).reason, R"(["g7","claude-opus-4-7"])");
  call.context = context();
  EXPECT_EQ(hooks_.emit(call).reason, R"(["",""])");
}

// A Node beforeMCPExecution hook reads the bare tool name and the input as a JSON string, and asks.
TEST_F(CursorHooks, ABeforeMCPExecutionHookSeesTheToolInputAsAStringAndAsks) {
  write_file(in_project(".cursor/hooks/mcp.js"),
             "let input = '';\n"
             "process.stdin.on('data', c => input += c);\n"
             "process.stdin.on('end', () => {\n"
             "  const call = JSON.parse(input);\n"
             "  const args = JSON.parse(call.tool_input);\n"
             "  console.log(JSON.stringify({permission: 'ask', user_message: call.tool_name + ' on ' + args.repo}));\n"
             "});\n");
  projects_hooks(R"("beforeMCPExecution": [{"command": "node .cursor/hooks/mcp.js"}])");
  const ToolCallResult result = emit_tool("mcp__github__create_issue", {{"repo", "acme/x"}});
  EXPECT_EQ(result.decision, Decision::ask);
  EXPECT_EQ(result.reason, "create_issue on acme/x");
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
}

// beforeReadFile carries the file's path and content, so a hook can keep a secret from the model.
TEST_F(CursorHooks, ABeforeReadFileHookSeesTheFilesContentAndDenies) {
  write_file(in_project(".env"), "API_KEY=sk-live-123\n");
  write_file(in_project(".cursor/hooks/secrets.sh"),
             "#!/bin/sh\n"
             "jq -e '.content | test(\"sk-live-\")' >/dev/null && echo '{\"permission\": \"deny\"}' || true\n", 0755);
  projects_hooks(R"("beforeReadFile": [{"command": ".cursor/hooks/secrets.sh"}])");
  EXPECT_EQ(emit_tool("read", {{"file_path", ".env"}}).decision, Decision::deny);
  write_file(in_project("README"), "hello\n");
  EXPECT_EQ(emit_tool("read", {{"file_path", "README"}}).decision, Decision::none);
}

TEST_F(CursorHooks, ExitTwoDeniesWithWhatTheHookPrintedOnStderr) {
  projects_hooks(R"("preToolUse": [{"command": "echo 'not on main' >&2; exit 2"}])");
  const ToolCallResult result = emit_bash("git push");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "not on main");
}

// Cursor's failure rule: a crash, a timeout or an answer that is not JSON lets
// the action go on, unless the hook says failClosed.
TEST_F(CursorHooks, AFailedRunLetsTheCallGoOnUnlessTheHookFailsClosed) {
  const struct {
    std::string_view why, command;
  } failures[] = {{"a crash", "exit 1"}, {"an answer that is not JSON", "echo allow"},
                  {"a permission Cursor does not know", "echo '{\"permission\": \"maybe\"}'"},
                  {"a timeout", "exec sleep 5"}};
  for (const auto& failure : failures) {
    SCOPED_TRACE(failure.why);
    for (const bool closed : {false, true}) {
      projects_hooks(fmt::format(R"("preToolUse": [{{"command": {}, "timeout": 1, "failClosed": {}}}])",
                                 write_json(boost::json::string(failure.command)), closed));
      EXPECT_EQ(emit_bash("ls").decision, closed ? Decision::deny : Decision::none) << "failClosed " << closed;
    }
  }
}

// --------------------------------------------------------- other events

TEST_F(CursorHooks, BeforeSubmitPromptWithContinueFalseRejectsThePrompt) {
  projects_hooks(R"("beforeSubmitPrompt": [{"command": "jq -c 'if (.prompt | test(\"password\")) then )"
                 R"({continue: false, user_message: \"no secrets\"} else {continue: true} end'"}])");
  install();
  const InputResult rejected = hooks_.emit(InputEvent{.context = context(), .text = "my password is x"});
  EXPECT_EQ(rejected.action, InputAction::reject);
  EXPECT_EQ(rejected.reason, "no secrets");
  EXPECT_EQ(hooks_.emit(InputEvent{.context = context(), .text = "hi"}).action, InputAction::continue_);
}

TEST_F(CursorHooks, AStopHooksFollowupMessageKeepsTheAgentGoing) {
  projects_hooks(R"("stop": [{"command": "jq -c 'if .loop_count == 0 then {followup_message: \"run the tests\"} )"
                 R"(else {} end'"}])");
  install();
  EXPECT_THAT(hooks_.emit(AgentEndEvent{.context = context()}).follow_up_messages, ElementsAre("run the tests"));
  EXPECT_THAT(hooks_.emit(AgentEndEvent{.context = context(), .after_follow_up = true}).follow_up_messages, IsEmpty());
}

// Why the run ended, in Cursor's words: completed, aborted (the user stopped
// it), error.
TEST_F(CursorHooks, AStopHookReadsWhyTheRunEndedAsItsStatus) {
  projects_hooks(R"("stop": [{"command": "jq -r .status >> statuses"}])");
  install();
  for (const RunStatus status : {RunStatus::completed, RunStatus::cancelled, RunStatus::failed})
    (void)hooks_.emit(AgentEndEvent{.context = context(), .status = status});
  EXPECT_EQ(read_file(in_project("statuses")), "completed\naborted\nerror\n");
}

// A stop hook that always asks for more is cut off at its loop_limit, counted
// again from the user's next prompt; without a limit it gets 5, with null no cap.
TEST_F(CursorHooks, AStopHooksFollowUpsInARowStopAtItsLoopLimit) {
  projects_hooks(R"("stop": [{"command": "echo '{\"followup_message\": \"two\"}'", "loop_limit": 2},)"
                 R"({"command": "echo '{\"followup_message\": \"five\"}'"},)"
                 R"({"command": "echo '{\"followup_message\": \"always\"}'", "loop_limit": null}])");
  install();
  const auto follow_ups_in_a_row = [&] {
    std::vector<std::vector<std::string>> sent;
    for (int end = 0; end < 7; ++end)
      sent.push_back(hooks_.emit(AgentEndEvent{.context = context(), .after_follow_up = end > 0}).follow_up_messages);
    return sent;
  };
  const std::vector<std::vector<std::string>> expected = {
      {"two", "five", "always"}, {"two", "five", "always"}, {"five", "always"}, {"five", "always"},
      {"five", "always"},        {"always"},                {"always"}};
  EXPECT_EQ(follow_ups_in_a_row(), expected);
  EXPECT_EQ(follow_ups_in_a_row(), expected) << "the user's next prompt starts the count again";
  EXPECT_THAT(log_.text(), HasSubstr("its follow-up is not sent: it asked for 2 in a row, its loop_limit"));
}

TEST_F(CursorHooks, ASessionStartHookAddsContextAndEnvironment) {
  projects_hooks(R"("sessionStart": [{"command": "echo '{\"additional_context\": \"use pnpm\", \"env\": {\"STAGE\": \"dev\"}}'"}])");
  install();
  const SessionStartResult result = hooks_.emit(SessionStartEvent{.context = context()});
  EXPECT_THAT(result.additional_context, ElementsAre("use pnpm"));
  ASSERT_EQ(result.environment.size(), 1U);
  EXPECT_EQ(result.environment[0].name, "STAGE");
  EXPECT_EQ(result.environment[0].value, "dev");
}

TEST_F(CursorHooks, APostToolUseHooksAdditionalContextGoesToTheModelWithTheResult) {
  projects_hooks(R"("postToolUse": [{"command": "jq -c '{additional_context: (\"checked \" + .tool_name)}'"}],)"
                 R"("afterShellExecution": [{"command": "jq -c '{additional_context: .output}'"}])");
  install();
  const ToolResultResult result = hooks_.emit(ToolResultEvent{.context = context(),
                                                              .tool_call_id = "c1",
                                                              .tool_name = "bash",
                                                              .input = {{"command", "ls"}},
                                                              .content = {TextPart{"a.txt"}}});
  EXPECT_THAT(result.additional_context, ElementsAre("checked Shell"));
}

}  // namespace
}  // namespace hookbus
