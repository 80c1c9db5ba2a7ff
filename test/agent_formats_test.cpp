// Hooks written for OpenAI Codex and Qwen Code run unchanged
// (docs/agent-formats.md): installed where each agent's docs say, switched
// on by config's "agent_hooks", read with each agent's events, timeout unit
// and tool names, and answered as each agent reads answers. The hooks are
// written here, from each agent's documented payload and answer, in the
// styles people publish (bash + jq, Python, Node), and run through setup()
// and Hooks::emit.
#include "agent_hooks_fixture.hpp"
#include "scoped_environment.hpp"

#include "formats/claude_code/settings.hpp"
#include "formats/codex/format.hpp"
#include "formats/gemini_cli/format.hpp"
#include "formats/hook_format.hpp"
#include "formats/qwen_code/format.hpp"

#include <hookbus/claude_code.hpp>
#include <hookbus/events.hpp>
#include <hookbus/external_hook_error.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trust.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <variant>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::make_directories;
using testing::read_file;
using testing::TempDir;
using testing::write_file;
using namespace std::chrono_literals;

// A Codex PreToolUse guard in bash + jq: denies `rm -rf` with the reason
// Codex requires.
constexpr const char* kCodexGuard =
    "#!/bin/sh\n"
    "command=$(jq -r '.tool_input.command // empty')\n"
    "case \"$command\" in *'rm -rf'*)\n"
    "  jq -n --arg c \"$command\" '{hookSpecificOutput: {hookEventName: \"PreToolUse\", "
    "permissionDecision: \"deny\", permissionDecisionReason: (\"blocked: \" + $c)}}'\n"
    "esac\n"
    "exit 0\n";

class AgentFormats : public testing::AgentHooksFixture {
 protected:
  // The project's own hooks of `agent`, switched on by its config, and trusted.
  void projects_hooks(const std::string& agent, const std::string& file, const std::string& settings) {
    switch_on(agent);
    write_file(in_project(file), settings);
    trust_project();
  }
  // A Codex PreToolUse hook of the project whose answer is `answer` (a JSON text).
  void codex_answers(const std::string& answer) {
    write_file(in_project(".codex/hooks/answer.sh"), "#!/bin/sh\ncat >/dev/null\necho '" + answer + "'\n", 0755);
    projects_hooks("codex", ".codex/hooks.json",
                   R"({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", )"
                   R"("command": "sh .codex/hooks/answer.sh"}]}]}})");
  }
};

// ------------------------------------------------------------------ Codex

// Which ends of the agent's run (agent_end's status) each agent's hook of
// it runs on: Claude Code's Stop when the run completed (not on an interrupt,
// nor an error: StopFailure), Cline's TaskComplete and TaskCancel each on
// their own; the others' docs do not say, and their hook runs on every end.
TEST(AgentEnds, EachAgentsHookOfTheRunsEndRunsOnTheEndsItsAgentDocuments) {
  const struct {
    HookProtocol protocol;
    std::string_view event;
    bool completed, cancelled, failed;
  } cases[] = {
      {HookProtocol::claude_code, "Stop", true, false, false}, {HookProtocol::codex, "Stop", true, true, true},
      {HookProtocol::qwen_code, "Stop", true, true, true},     {HookProtocol::vscode, "Stop", true, true, true},
      {HookProtocol::copilot, "agentStop", true, true, true},  {HookProtocol::copilot, "Stop", true, true, true},
      {HookProtocol::gemini_cli, "AfterAgent", true, true, true}, {HookProtocol::cursor, "stop", true, true, true},
      {HookProtocol::cline, "TaskComplete", true, false, false}, {HookProtocol::cline, "TaskCancel", false, true, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(hook_protocol_name(c.protocol)) + " " + std::string(c.event));
    const detail::HookFormat& format = *detail::find_hook_format(c.protocol);
    const auto runs_on = [&](RunStatus status) {
      return detail::event_applies(format, c.event, AgentEndEvent{.status = status});
    };
    EXPECT_EQ(runs_on(RunStatus::completed), c.completed);
    EXPECT_EQ(runs_on(RunStatus::cancelled), c.cancelled);
    EXPECT_EQ(runs_on(RunStatus::failed), c.failed);
  }
}

TEST_F(AgentFormats, ACodexProjectHooksJsonGuardDeniesAsInCodex) {
  write_file(in_project(".codex/hooks/guard.sh"), kCodexGuard, 0755);
  projects_hooks("codex", ".codex/hooks.json",
                 R"({"description": "repo guards", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [)"
                 R"({"type": "command", "command": "sh .codex/hooks/guard.sh", "timeout": 30}]}]}})");
  const ToolCallResult result = emit_bash("rm -rf /");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "blocked: rm -rf /");
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
}

// Codex sends the model on every event and the turn_id on those a turn scopes: a PreToolUse
// hook sees the engine's, empty strings when it gives none; SessionStart has no turn_id.
TEST_F(AgentFormats, ACodexHookSeesTheEnginesModelAndTurnId) {
  projects_hooks("codex", ".codex/hooks.json",
                 R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": )"
                 R"("jq -c '{hookSpecificOutput: {hookEventName: \"PreToolUse\", permissionDecision: \"deny\", )"
                 R"(permissionDecisionReason: ([.turn_id, .model] | @json)}}'"}]}],)"
                 R"("SessionStart": [{"hooks": [{"type": "command", "command": )"
                 R"("jq -c '{hookSpecificOutput: {hookEventName: \"SessionStart\", )"
                 R"(additionalContext: ([.model, has(\"turn_id\")] | @json)}}'"}]}]}})");
  const Installation installed = setup(hooks_, {.project_dir = project_.path(), .locations = locations()});
  ToolCallEvent call{.context = {.session_id = "s1", .cwd = project_.path().string(), .turn_id = "turn-3", .model = "gpt-5-codex"},
                     .tool_call_id = "c1",
                     .tool_name = "bash",
                     .input = {{"command", "ls"}}};
  EXPECT_EQ(hooks_.emit(call).reason, R"(["turn-3","gpt-5-codex"])");
  call.context = {.session_id = "s1", .cwd = project_.path().string()};
  EXPECT_EQ(hooks_.emit(call).reason, R"(["",""])");
  EXPECT_THAT(hooks_.emit(SessionStartEvent{.context = {.session_id = "s1", .model = "gpt-5-codex"}}).additional_context,
              ElementsAre(R"(["gpt-5-codex",false])"));
}

TEST_F(AgentFormats, TheHooksTablesOfTheUsersCodexConfigTomlRunAsItsHooksJson) {
  write_file(root_ / "codex" / "guard.py",
             "import json, sys\n"
             "call = json.load(sys.stdin)\n"
             "if 'rm -rf' in call['tool_input'].get('command', ''):\n"
             "    print('no recursive deletes here', file=sys.stderr)\n"
             "    sys.exit(2)\n");
  write_file(root_ / "codex" / "config.toml", "model = \"gpt-5\"\n\n"
                                             "[[hooks.PreToolUse]]\n"
                                             "matcher = \"Bash\"\n"
                                             "[[hooks.PreToolUse.hooks]]\n"
                                             "type = \"command\"\n"
                                             "command = \"python3 " + (root_ / "codex" / "guard.py").string() + "\"\n");
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"codex": {"settings": ["user"]}}})");
  const ToolCallResult result = emit_bash("rm -rf /");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "no recursive deletes here");
}

TEST_F(AgentFormats, CodexHooksAreNotReadWithoutTheConfigThatAsksForThem) {
  write_file(root_ / "codex" / "hooks.json",
             R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]}})");
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
}

TEST_F(AgentFormats, CodexsAskIsAFailedRunAndTheToolRuns) {
  codex_answers(R"({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}})");
  EXPECT_EQ(emit_bash("git push").decision, Decision::none);
  EXPECT_THAT(log_.text(), HasSubstr("\"ask\", which Codex does not support"));
}

TEST_F(AgentFormats, CodexsAllowWithoutUpdatedInputIsAFailedRun) {
  codex_answers(R"({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})");
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_THAT(log_.text(), HasSubstr("\"allow\" without \"updatedInput\""));
}

TEST_F(AgentFormats, CodexsUpdatedInputAppliesWithAllow) {
  codex_answers(R"({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", )"
                R"("updatedInput": {"command": "ls -a"}}})");
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::allow);
  ASSERT_TRUE(result.input);
  EXPECT_EQ(result.input->at("command"), "ls -a");
}

TEST_F(AgentFormats, CodexsUpdatedInputWithoutAllowChangesNothing) {
  codex_answers(R"({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "ls -a"}}})");
  const ToolCallResult result = emit_bash("ls");
  EXPECT_FALSE(result.input);
}

TEST_F(AgentFormats, CodexsDenyWithoutAReasonIsAFailedRunAndTheToolRuns) {
  codex_answers(R"({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}})");
  EXPECT_EQ(emit_bash("rm -rf /").decision, Decision::none);
  EXPECT_THAT(log_.text(), HasSubstr("denies without a \"permissionDecisionReason\""));
}

TEST_F(AgentFormats, ACodexAnswerWithAKeyCodexDoesNotKnowIsAFailedRun) {
  codex_answers(R"({"suppressOutput": true, "updatedToolOutput": "x", "hookSpecificOutput": )"
                R"({"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}})");
  EXPECT_EQ(emit_bash("rm -rf /").decision, Decision::none);
  EXPECT_THAT(log_.text(), HasSubstr("\"updatedToolOutput\", which Codex does not know"));
}

TEST_F(AgentFormats, ACodexAnswerThatBeginsAsJsonAndIsNoneIsAFailedRun) {
  codex_answers(R"({"hookSpecificOutput": {"permissionDecision": "deny")");
  EXPECT_EQ(emit_bash("rm -rf /").decision, Decision::none);
  EXPECT_THAT(log_.text(), HasSubstr("its answer is not valid JSON"));
}

TEST_F(AgentFormats, CodexsExitTwoWithoutAReasonOnStderrIsAFailedRun) {
  // It leaves a mark, so that "the tool runs" cannot pass for "the hook never ran".
  write_file(in_project(".codex/hooks/quiet.sh"), "#!/bin/sh\ncat >/dev/null\ntouch \"$1\"\nexit 2\n", 0755);
  const fs::path ran = root_ / "quiet-ran";
  projects_hooks("codex", ".codex/hooks.json",
                 R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "sh .codex/hooks/quiet.sh )" +
                     ran.string() + R"("}]}]}})");
  EXPECT_EQ(emit_bash("rm -rf /").decision, Decision::none);
  EXPECT_TRUE(fs::exists(ran));
  EXPECT_THAT(log_.text(), HasSubstr("exited with code 2 and no reason on stderr"));
}

// Codex runs every matching hook, identical ones too; Claude Code runs identical commands once.
TEST_F(AgentFormats, IdenticalCodexCommandsEachRun) {
  const std::string count = "echo ran >> " + (root_ / "runs").string();
  projects_hooks("codex", ".codex/hooks.json",
                 R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": ")" + count +
                     R"("}]}, {"hooks": [{"type": "command", "command": ")" + count + R"("}]}]}})");
  (void)emit_bash("ls");
  EXPECT_EQ(read_file(root_ / "runs"), "ran\nran\n");
}

TEST_F(AgentFormats, CodexHooksDefaultToSixHundredSecondsAndNoteWhatDoesNothingHere) {
  const fs::path file = write_file(
      root_ / "hooks.json",
      R"({"hooks": {"PreToolUse": [{"hooks": [
           {"type": "command", "command": "./guard.sh", "commandWindows": "guard.cmd", "additionalContextLimit": 100},
           {"type": "mcp_tool", "server": "s", "tool": "t"},
           {"type": "prompt", "prompt": "is it safe?"},
           {"type": "agent", "prompt": "review"}]}]}})");
  const ClaudeCodeSettings settings = detail::read_format_settings(detail::codex_format(), file, Layer::user);
  ASSERT_EQ(settings.commands.size(), 1U);
  EXPECT_EQ(settings.commands[0].timeout, 600s);
  EXPECT_EQ(settings.commands[0].protocol, HookProtocol::codex);
  EXPECT_THAT(settings.skipped,
              AllOf(Contains(HasSubstr("hooks.PreToolUse[0].hooks[0].commandWindows: Codex runs it instead of "
                                       "\"command\" on Windows only; ignored here")),
                    Contains(HasSubstr("hooks.PreToolUse[0].hooks[0].additionalContextLimit: Codex's limit on the "
                                       "context a hook adds; hookbus passes the context whole")),
                    Contains(HasSubstr("hook type \"mcp_tool\" is not supported")),
                    Contains(HasSubstr("hook type \"prompt\" is not supported")),
                    Contains(HasSubstr("hook type \"agent\" is not supported"))));
}

TEST_F(AgentFormats, CodexsSessionEndHooksDefaultToOneSecond) {
  const fs::path file = write_file(root_ / "hooks.json", R"({"hooks": {
      "SessionEnd": [{"hooks": [{"type": "command", "command": "./bye.sh"}, {"type": "command", "command": "./a.sh", "timeout": 2}]}],
      "SessionStart": [{"hooks": [{"type": "command", "command": "./hi.sh"}]}]}})");
  const ClaudeCodeSettings settings = detail::read_format_settings(detail::codex_format(), file, Layer::user);
  ASSERT_EQ(settings.commands.size(), 3U);
  EXPECT_EQ(settings.commands[0].timeout, 1s);
  EXPECT_EQ(settings.commands[1].timeout, 2s);
  EXPECT_EQ(settings.commands[2].timeout, 600s);
}

// Codex clamps a SessionEnd handler's timeout to 3 s and runs SessionEnd's handlers in the foreground.
TEST_F(AgentFormats, CodexsSessionEndHooksGetThreeSecondsAtMostAndRunInTheForeground) {
  const fs::path file = write_file(root_ / "hooks.json", R"({"hooks": {
      "SessionEnd": [{"hooks": [{"type": "command", "command": "./a.sh", "timeout": 5, "async": true}]}],
      "SessionStart": [{"hooks": [{"type": "command", "command": "./b.sh", "timeout": 5, "async": true}]}]}})");
  const ClaudeCodeSettings settings = detail::read_format_settings(detail::codex_format(), file, Layer::user);
  ASSERT_EQ(settings.commands.size(), 2U);
  EXPECT_EQ(settings.commands[0].timeout, 3s);
  EXPECT_FALSE(settings.commands[0].async);
  EXPECT_EQ(settings.commands[1].timeout, 5s);
  EXPECT_TRUE(settings.commands[1].async);
  EXPECT_THAT(settings.skipped,
              AllOf(Contains(HasSubstr("hooks.SessionEnd[0].hooks[0].timeout: Codex gives a SessionEnd handler at most "
                                       "3 seconds, and so does hookbus")),
                    Contains(HasSubstr("hooks.SessionEnd[0].hooks[0]: Codex runs its SessionEnd handlers in the "
                                       "foreground"))));
}

// Codex's spawn_agent is matched by "spawn_agent" and "Agent" alike.
TEST_F(AgentFormats, ACodexMatcherTestsSpawnAgentAndAgentAlike) {
  const struct {
    std::string_view matcher, tool;
    bool matches;
  } cases[] = {{"spawn_agent", "Agent", true}, {"Agent", "spawn_agent", true}, {"Agent", "Bash", false},
               {"spawn_agent", "Edit", false}};
  for (const auto& c : cases)
    EXPECT_EQ(detail::format_matcher_matches(detail::codex_format(), ClaudeCodeMatcher(c.matcher), c.tool), c.matches)
        << c.matcher << " on " << c.tool;
}

// A Codex plugin's commands find its directory as Codex gives it, in PLUGIN_ROOT and CLAUDE_PLUGIN_ROOT.
TEST_F(AgentFormats, ACodexPluginsCommandsFindItsDirectoryUnderBothNames) {
  const fs::path plugin = root_ / "plugins" / "guard";
  write_file(plugin / "scripts" / "guard.py",
             "import json, os, sys\n"
             "call = json.load(sys.stdin)\n"
             "if call['tool_input'].get('command') == sys.argv[1]:\n"
             "    print(os.environ['PLUGIN_ROOT'] + ' ' + os.environ['CLAUDE_PLUGIN_ROOT'], file=sys.stderr)\n"
             "    sys.exit(2)\n");
  write_file(plugin / "hooks" / "hooks.json",
             R"({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [)"
             R"({"type": "command", "command": "python3 \"${PLUGIN_ROOT}/scripts/guard.py\" one"},)"
             R"({"type": "command", "command": "python3 \"$CLAUDE_PLUGIN_ROOT/scripts/guard.py\" two"}]}]}})");
  write_file(locations().config_file(Layer::user),
             R"({"agent_hooks": {"codex": {"plugins": [")" + plugin.string() + R"("]}}})");
  const ToolCallResult one = emit_bash("one");
  EXPECT_EQ(one.decision, Decision::deny);
  EXPECT_EQ(one.reason, plugin.string() + " " + plugin.string());
  EXPECT_EQ(emit_bash("two").decision, Decision::deny);
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
}

// Codex's edit tool, apply_patch, is matched by "apply_patch", "Edit" and "Write" alike.
TEST_F(AgentFormats, ACodexMatcherTestsTheOtherNamesOfApplyPatch) {
  const struct {
    std::string_view matcher, tool;
    bool matches;
  } cases[] = {{"apply_patch", "Edit", true},  {"apply_patch", "Write", true}, {"Edit", "apply_patch", true},
               {"Write", "Edit", true},         {"Edit", "Write", true},        {"apply_patch", "Bash", false},
               {"Bash", "apply_patch", false},  {"Edit", "Read", false}};
  for (const auto& c : cases)
    EXPECT_EQ(detail::format_matcher_matches(detail::codex_format(), ClaudeCodeMatcher(c.matcher), c.tool), c.matches)
        << c.matcher << " on " << c.tool;
  EXPECT_FALSE(detail::format_matcher_matches(detail::claude_code_format(), ClaudeCodeMatcher("apply_patch"), "Edit"));
}

// A Codex hook on apply_patch guards the engine's edits.
TEST_F(AgentFormats, ACodexApplyPatchHookRunsOnTheEnginesEdits) {
  projects_hooks("codex", ".codex/hooks.json",
                 R"({"hooks": {"PreToolUse": [{"matcher": "apply_patch", "hooks": [)"
                 R"({"type": "command", "command": "echo no edits >&2; exit 2"}]}]}})");
  EXPECT_EQ(emit_bash("x", "edit").decision, Decision::deny);
  EXPECT_EQ(emit_bash("x", "write").decision, Decision::deny);
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
}

TEST_F(AgentFormats, CodexsConfigTomlReadsAsItsHooksJsonWithTomlPathsInErrors) {
  const fs::path file = write_file(root_ / "config.toml", "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n"
                                                          "[[hooks.PreToolUse.hooks]]\ntype = \"command\"\n"
                                                          "command = \"./guard.sh\"\ntimeout = \"soon\"\n");
  try {
    (void)detail::read_format_settings(detail::codex_format(), file, Layer::user);
    FAIL() << "a timeout that is no number was read";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr(file.string()), HasSubstr("hooks.PreToolUse[0].hooks[0].timeout")));
  }
}

TEST_F(AgentFormats, CodexsUserFilesAreInCodexHome) {
  const testing::ScopedEnvironment env{{"CODEX_HOME", (root_ / "elsewhere").string()}, {"HOME", root_.path().string()}};
  EXPECT_EQ(Locations::from_environment(project_.path()).codex, root_ / "elsewhere");
  const testing::ScopedEnvironment unset{{"CODEX_HOME", std::nullopt}};
  EXPECT_EQ(Locations::from_environment(project_.path()).codex, root_ / ".codex");
}

// A relative CODEX_HOME or CLAUDE_CONFIG_DIR would name a directory of the
// project the engine runs in, whose files would then count as the user's.
TEST_F(AgentFormats, ARelativeAgentDirectoryVariableIsIgnoredWithAWarningNamingIt) {
  const testing::ScopedEnvironment env{{"CODEX_HOME", ".codex-home"},
                                       {"CLAUDE_CONFIG_DIR", "./.claude-here"},
                                       {"HOME", root_.path().string()}};
  const Locations where = Locations::from_environment(project_.path());
  EXPECT_EQ(where.codex, root_ / ".codex");
  EXPECT_EQ(where.claude, root_ / ".claude");
  EXPECT_THAT(log_.text(), AllOf(HasSubstr("CODEX_HOME=.codex-home is ignored: it is no absolute path"),
                                 HasSubstr("CLAUDE_CONFIG_DIR=./.claude-here is ignored")));
}

TEST_F(AgentFormats, QwenCodesUserSettingsAreInQwenHome) {
  const testing::ScopedEnvironment env{{"QWEN_HOME", (root_ / "elsewhere").string()}, {"HOME", root_.path().string()}};
  EXPECT_EQ(Locations::from_environment(project_.path()).qwen, root_ / "elsewhere");
  const testing::ScopedEnvironment unset{{"QWEN_HOME", std::nullopt}};
  EXPECT_EQ(Locations::from_environment(project_.path()).qwen, root_ / ".qwen");
}

// ------------------------------------------------- both: trust and files

// Read as Claude Code's settings are: what is no regular file is refused unopened, naming what it is.
TEST_F(AgentFormats, AnAgentsHookFileThatIsNoRegularFileIsAnErrorNamingWhatItIsNotAWait) {
  const fs::path dev_zero = root_ / "codex" / "hooks.json";
  make_directories(dev_zero.parent_path());
  fs::create_symlink("/dev/zero", dev_zero);
  const fs::path fifo = root_ / "codex" / "config.toml";
  const fs::path qwen_fifo = root_ / "qwen" / "settings.json";
  make_directories(qwen_fifo.parent_path());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo(qwen_fifo.c_str(), 0644), 0);
  const struct {
    const detail::HookFormat& format;
    fs::path file;
    std::string_view kind;
  } cases[] = {{detail::codex_format(), dev_zero, "is a character device, not a regular file"},
               {detail::codex_format(), fifo, "is a FIFO, not a regular file"},
               {detail::qwen_code_format(), qwen_fifo, "is a FIFO, not a regular file"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    try {
      (void)detail::read_format_settings(c.format, c.file, Layer::user);
      ADD_FAILURE() << "it was read";
    } catch (const ConfigError& error) {
      EXPECT_THAT(error.what(), AllOf(HasSubstr(c.file.string()), HasSubstr(c.kind)));
    }
  }
}

// A settings file linked out of the project is trusted as what it held: a change there is a change.
TEST_F(AgentFormats, AProjectsSettingsFileLinkedOutOfItCountsByWhatItHolds) {
  const fs::path shared = write_file(root_ / "shared.json", R"({"hooks": {}})");
  make_directories(in_project(".qwen"));
  fs::create_symlink(shared, in_project(".qwen/settings.json"));
  write_file(locations().config_file(Layer::project), R"({"agent_hooks": {"qwen_code": {"settings": ["project"]}}})");
  trust_project();
  write_file(shared, R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]}})");
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_THAT(warnings_, Contains(HasSubstr("modified .qwen/settings.json (content)")));
}

// Codex's config.toml counts whole: a [hooks] table added to a trusted one is a change.
TEST_F(AgentFormats, ATrustedProjectsCodexConfigTomlCountsWholeNotOnlyItsHooks) {
  projects_hooks("codex", ".codex/config.toml", "model = \"gpt-5\"\n");
  write_file(in_project(".codex/config.toml"), "model = \"gpt-5\"\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\n"
                                               "type = \"command\"\ncommand = \"echo no >&2; exit 2\"\n");
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_THAT(warnings_, Contains(HasSubstr("modified .codex/config.toml (content)")));
}

// --------------------------------------------------------------- Qwen Code

TEST_F(AgentFormats, QwenCodeTimeoutsAreMilliseconds) {
  const fs::path file = write_file(
      root_ / "settings.json",
      R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./a.sh", "timeout": 10000},
                                               {"type": "command", "command": "./b.sh"}]}]}})");
  const ClaudeCodeSettings settings = detail::read_format_settings(detail::qwen_code_format(), file, Layer::user);
  ASSERT_EQ(settings.commands.size(), 2U);
  EXPECT_EQ(settings.commands[0].timeout, 10s);
  EXPECT_EQ(settings.commands[1].timeout, 60s);
}

TEST_F(AgentFormats, AQwenHandlersFailModeSaysWhetherItsFailedRunsRefuse) {
  const fs::path file = write_file(root_ / "settings.json", R"({"hooks": {"PreToolUse": [{"hooks": [
      {"type": "command", "command": "./a.sh", "failMode": "closed"},
      {"type": "command", "command": "./b.sh", "failMode": "open"},
      {"type": "command", "command": "./c.sh"}]}]}})");
  const ClaudeCodeSettings settings = detail::read_format_settings(detail::qwen_code_format(), file, Layer::user);
  ASSERT_EQ(settings.commands.size(), 3U);
  EXPECT_EQ(settings.commands[0].failure, FailurePolicy::fail_closed);
  EXPECT_EQ(settings.commands[1].failure, FailurePolicy::fail_open);
  EXPECT_EQ(settings.commands[2].failure, FailurePolicy::fail_open);
  EXPECT_THAT(settings.skipped, IsEmpty());
  write_file(file, R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./a.sh", "failMode": "shut"}]}]}})");
  try {
    (void)detail::read_format_settings(detail::qwen_code_format(), file, Layer::user);
    ADD_FAILURE() << "failMode \"shut\" was read";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("hooks.PreToolUse[0].hooks[0].failMode"),
                                    HasSubstr("expected \"open\" or \"closed\", got \"shut\"")));
  }
}

// Qwen runs a group's hooks together, or, with "sequential": true, one
// after another, each seeing what those before it changed: here the second
// hook sees the first's rewrite of the command only when they run in turn.
TEST_F(AgentFormats, AQwenSequentialGroupsHooksRunOneAfterAnotherEachSeeingWhatTheOnesBeforeChanged) {
  write_file(in_project(".qwen/hooks/rewrite.sh"),
             "#!/bin/sh\ncat >/dev/null\n"
             "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", "
             "\"updatedInput\": {\"command\": \"ls -a\"}}}'\n",
             0755);
  write_file(in_project(".qwen/hooks/record.py"),
             "import json, sys\n"
             "call = json.load(sys.stdin)\n"
             "with open(sys.argv[1], 'a') as seen:\n"
             "    seen.write(call['tool_input']['command'] + '\\n')\n");
  const std::string seen = (root_ / "seen").string();
  const struct {
    std::string_view sequential, record_sees;
  } cases[] = {{R"("sequential": true, )", "ls -a\n"}, {"", "ls\n"}, {R"("sequential": false, )", "ls\n"}};
  for (const auto& c : cases) {
    projects_hooks("qwen_code", ".qwen/settings.json",
                   R"({"hooks": {"PreToolUse": [{)" + std::string(c.sequential) + R"("hooks": [)"
                   R"({"type": "command", "command": "sh .qwen/hooks/rewrite.sh"},)"
                   R"({"type": "command", "command": "python3 .qwen/hooks/record.py )" + seen + R"("}]}]}})");
    fs::remove(seen);
    Hooks hooks;
    const Installation installed = setup(hooks, {.project_dir = project_.path(), .locations = locations()});
    const ToolCallResult result = hooks.emit(ToolCallEvent{.context = {.session_id = "s1", .cwd = project_.path().string()},
                                                           .tool_call_id = "c1",
                                                           .tool_name = "bash",
                                                           .input = {{"command", "ls"}}});
    ASSERT_TRUE(result.input) << c.sequential;
    EXPECT_EQ(result.input->at("command"), "ls -a") << c.sequential;
    EXPECT_EQ(read_file(seen), c.record_sees) << c.sequential;
  }
}

TEST_F(AgentFormats, SequentialIsAGroupKeyOfQwenCodeAndGeminiCliOnly) {
  const fs::path file = write_file(
      root_ / "settings.json",
      R"({"hooks": {"PreToolUse": [{"sequential": true, "hooks": [{"type": "command", "command": "./a.sh"}]}],)"
      R"( "BeforeTool": [{"sequential": true, "hooks": [{"type": "command", "command": "./a.sh"}]}]}})");
  const ClaudeCodeSettings qwen = detail::read_format_settings(detail::qwen_code_format(), file, Layer::user);
  ASSERT_EQ(qwen.commands.size(), 1U);
  EXPECT_TRUE(qwen.commands[0].sequential);
  const ClaudeCodeSettings gemini = detail::read_format_settings(detail::gemini_cli_format(), file, Layer::user);
  ASSERT_EQ(gemini.commands.size(), 1U);
  EXPECT_TRUE(gemini.commands[0].sequential);
  EXPECT_THAT(qwen.skipped, Not(Contains(HasSubstr("sequential"))));
  EXPECT_THAT(gemini.skipped, Not(Contains(HasSubstr("sequential"))));
  const ClaudeCodeSettings claude = detail::read_format_settings(detail::claude_code_format(), file, Layer::user);
  ASSERT_EQ(claude.commands.size(), 1U);
  EXPECT_FALSE(claude.commands[0].sequential);
  EXPECT_THAT(claude.skipped, Contains(HasSubstr("hooks.PreToolUse[0].sequential: not a key hookbus knows; ignored")));
}

// Qwen reads text a hook prints on exit 0 as a message for the user, not as context for the model.
TEST_F(AgentFormats, AQwenHooksPlainTextOnExitZeroIsAMessageForTheUser) {
  projects_hooks("qwen_code", ".qwen/settings.json",
                 R"({"hooks": {"PreToolUse": [{"hooks": [)"
                 R"({"type": "command", "command": "cat >/dev/null; echo remember the style guide"}]}]}})");
  const ToolCallResult result = emit_bash("ls");
  EXPECT_THAT(result.system_messages, ElementsAre("remember the style guide"));
  EXPECT_THAT(result.additional_context, IsEmpty());
  EXPECT_EQ(result.decision, Decision::none);
}

// A Python guard of Qwen's kind that crashes: with failMode "closed", the call is refused.
TEST_F(AgentFormats, AQwenGuardWithFailModeClosedThatCrashesRefusesTheCall) {
  write_file(in_project(".qwen/hooks/guard.py"), "import json, sys\ncall = json.load(sys.stdin)\nraise SystemExit(1)\n");
  projects_hooks("qwen_code", ".qwen/settings.json",
                 R"({"hooks": {"PreToolUse": [{"matcher": "run_shell_command", "hooks": [)"
                 R"({"type": "command", "command": "python3 .qwen/hooks/guard.py", "failMode": "closed"}]}]}})");
  EXPECT_EQ(emit_bash("ls").decision, Decision::deny);
}

// A Node hook of Qwen Code's docs' kind: it matches Qwen's tool id and reads it in the payload.
TEST_F(AgentFormats, AQwenCodeHookSeesAndMatchesQwensToolNames) {
  write_file(in_project(".qwen/hooks/guard.js"),
             "let input = '';\n"
             "process.stdin.on('data', c => input += c);\n"
             "process.stdin.on('end', () => {\n"
             "  const call = JSON.parse(input);\n"
             "  if (/rm -rf/.test(call.tool_input.command)) {\n"
             "    console.log(JSON.stringify({hookSpecificOutput: {hookEventName: 'PreToolUse',\n"
             "      permissionDecision: 'deny', permissionDecisionReason: 'denied ' + call.tool_name}}));\n"
             "  }\n"
             "});\n");
  projects_hooks("qwen_code", ".qwen/settings.json",
                 R"({"hooks": {"PreToolUse": [{"matcher": "run_shell_command", "hooks": [)"
                 R"({"type": "command", "command": "node .qwen/hooks/guard.js", "timeout": 10000}]}]}})");
  const ToolCallResult result = emit_bash("rm -rf /");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "denied run_shell_command");
}

TEST_F(AgentFormats, TheUsersQwenCodeHooksAreInDotQwen) {
  write_file(root_ / "qwen" / "settings.json",
             R"({"hooks": {"PreToolUse": [{"matcher": "run_shell_command", "hooks": [)"
             R"({"type": "command", "command": "echo nope >&2; exit 2"}]}]}})");
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"qwen_code": {"settings": ["user"]}}})");
  EXPECT_EQ(emit_bash("ls").decision, Decision::deny);
  EXPECT_THAT(warnings_, IsEmpty());
}

// ------------------------------------------------- one command run on its own

// Cursor's shell guard, from its documented payload and answer: it denies
// only when its stdin is Cursor's beforeShellExecution payload.
constexpr const char* kCursorShellGuard =
    "#!/bin/sh\n"
    "case \"$(cat)\" in *'\"hook_event_name\":\"beforeShellExecution\"'*'\"command\":\"rm -rf /\"'*)\n"
    "  echo '{\"permission\": \"deny\", \"agent_message\": \"no rm -rf\"}' ;;\n"
    "esac\n";

ToolCallEvent rm_call(const fs::path& project) {
  return {.context = {.session_id = "s1", .cwd = project.string()},
          .tool_call_id = "c1",
          .tool_name = "bash",
          .input = {{"command", "rm -rf /"}}};
}

TEST_F(AgentFormats, RunClaudeCodeCommandRunsACommandAsItsAgentAndItsOutcomeIsReadAsThatAgentReadsIt) {
  write_file(in_project(".cursor/hooks/guard.sh"), kCursorShellGuard, 0755);
  const ClaudeCodeCommand command{.event = "beforeShellExecution",
                                  .program = in_project(".cursor/hooks/guard.sh"),
                                  .label = "guard.sh",
                                  .source = in_project(".cursor/hooks/guard.sh").string(),
                                  .protocol = HookProtocol::cursor};
  const ToolCallEvent call = rm_call(project_.path());
  const ProcessResult run = run_claude_code_command(command, call, {.project_dir = project_.path()});
  ASSERT_TRUE(run.succeeded()) << run.status();
  const HookOutcome outcome = claude_code_outcome(command, call, run, {});
  ASSERT_TRUE(std::holds_alternative<ToolCallResult>(outcome)) << run.stdout_text;
  EXPECT_EQ(std::get<ToolCallResult>(outcome).decision, Decision::deny);
  EXPECT_EQ(std::get<ToolCallResult>(outcome).reason, "no rm -rf");
}

// As before every run on the bus: a file others may write is not run.
TEST_F(AgentFormats, RunClaudeCodeCommandRefusesAProgramThatFailsTheHookFilesChecks) {
  const fs::path witness = root_.path() / "ran";
  write_file(in_project(".cursor/hooks/open.sh"), "#!/bin/sh\ntouch '" + witness.string() + "'\n", 0777);
  const ClaudeCodeCommand command{.event = "beforeShellExecution",
                                  .program = in_project(".cursor/hooks/open.sh"),
                                  .label = "open.sh",
                                  .source = in_project(".cursor/hooks/open.sh").string(),
                                  .protocol = HookProtocol::cursor};
  EXPECT_THROW((void)run_claude_code_command(command, rm_call(project_.path()), {.project_dir = project_.path()}),
               ExternalHookError);
  EXPECT_FALSE(fs::exists(witness));
}

TEST_F(AgentFormats, RunClaudeCodeCommandOfAProtocolOfNoAgentIsAnInvalidArgument) {
  const ClaudeCodeCommand command{.event = "tool_call", .program = "/bin/true", .protocol = HookProtocol::hookbus};
  EXPECT_THROW((void)run_claude_code_command(command, rm_call(project_.path()), {.project_dir = project_.path()}),
               std::invalid_argument);
}

}  // namespace
}  // namespace hookbus
