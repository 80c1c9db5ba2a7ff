// GitHub Copilot CLI's hooks run unchanged (docs/agent-formats.md, "Copilot
// CLI"): the "version": 1 files of the project's .github/hooks and of
// $COPILOT_HOME/hooks, switched on by config's "agent_hooks": {"copilot":
// ...}, told apart from VS Code's files in the same directory by that
// "version"; camelCase events and their PascalCase aliases, "bash" commands,
// timeoutSec, Copilot's payload and flat answer, preToolUse failing closed.
// The hooks are written here from Copilot's documented payload and answer
// (bash + jq, Python) and run through setup() and Hooks::emit.
#include "agent_hooks_fixture.hpp"

#include "formats/claude_code/settings.hpp"
#include "formats/copilot_cli/format.hpp"

#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trust.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::read_file;
using testing::TempDir;
using testing::write_file;
using namespace std::chrono_literals;

// A Copilot preToolUse guard in bash + jq, as Copilot's hooks reference
// writes one: toolArgs is a JSON string; it denies `rm -rf` with the flat answer.
constexpr const char* kCopilotGuard =
    "#!/bin/sh\n"
    "input=$(cat)\n"
    "[ \"$(echo \"$input\" | jq -r .toolName)\" = bash ] || exit 0\n"
    "case \"$(echo \"$input\" | jq -r '.toolArgs | fromjson | .command')\" in *'rm -rf'*)\n"
    "  jq -n '{permissionDecision: \"deny\", permissionDecisionReason: \"no recursive deletes\"}'\n"
    "esac\n";

class CopilotHooks : public testing::AgentHooksFixture {
 protected:
  // The project's hooks file `name` in .github/hooks, read by the rooms `agents` names, and trusted.
  void projects_hooks(const std::string& name, const std::string& hooks,
                      const std::string& agents = R"("copilot": {"settings": ["project"]})") {
    write_file(locations().config_file(Layer::project), R"({"agent_hooks": {)" + agents + "}}");
    write_file(in_project(".github/hooks/" + name), hooks);
    trust_project();
  }
  // A version-1 file with one event's handler list.
  static std::string one_hook(const std::string& event, const std::string& handlers) {
    return R"({"version": 1, "hooks": {")" + event + R"(": [)" + handlers + "]}}";
  }
};

TEST_F(CopilotHooks, AProjectsVersionOneGuardDeniesAsInCopilot) {
  write_file(in_project(".github/hooks/scripts/guard.sh"), kCopilotGuard, 0755);
  projects_hooks("security.json", one_hook("preToolUse", R"({"type": "command", "bash": )"
                                                         R"("./.github/hooks/scripts/guard.sh", "timeoutSec": 10})"));
  const ToolCallResult result = emit_bash("rm -rf /");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "no recursive deletes");
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_THAT(warnings_, IsEmpty());
}

TEST_F(CopilotHooks, TheUsersCopilotHooksAreInCopilotsHooksDirectory) {
  write_file(root_ / "copilot" / "hooks" / "guard.json", one_hook("preToolUse", R"({"bash": "exit 2"})"));
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"copilot": {"settings": ["user"]}}})");
  EXPECT_EQ(emit_bash("ls").decision, Decision::deny);
  EXPECT_THAT(warnings_, IsEmpty());
}

// .github/hooks holds VS Code's files and Copilot CLI's: a file with a
// top-level "version" is Copilot's, one without VS Code's (as VS Code tells
// them apart). Each runs once, under its own rules, in its own room; with one
// room on, the other's file runs nothing, and the user is told.
TEST_F(CopilotHooks, GithubHooksFilesAreToldApartByTheirVersionSoEachRunsOnceUnderItsOwnRules) {
  const struct {
    std::string agents;
    std::string runs;
    std::string warning;
  } cases[] = {
      {R"("copilot": {"settings": ["project"]}, "vscode": {"settings": ["project"]})", "vscode\ncopilot\n", ""},
      {R"("vscode": {"settings": ["project"]})", "vscode\n", "copilot.json: it declares a top-level \"version\", so it "
                                                            "is a Copilot CLI hooks file"},
      {R"("copilot": {"settings": ["project"]})", "copilot\n",
       "vscode.json: it declares no top-level \"version\", so it is a VS Code hooks file"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.agents);
    fs::remove(in_project("runs"));
    write_file(in_project(".github/hooks/vscode.json"),
               R"({"hooks": {"PreToolUse": [{"type": "command", "command": "echo vscode >> runs"}]}})");
    projects_hooks("copilot.json", one_hook("preToolUse", R"({"type": "command", "bash": "echo copilot >> runs"})"),
                   c.agents);
    (void)emit_bash("ls");
    EXPECT_EQ(read_file(in_project("runs")), c.runs);
    if (c.warning.empty()) EXPECT_THAT(warnings_, IsEmpty());
    else EXPECT_THAT(warnings_, Contains(HasSubstr(c.warning)));
  }
}

TEST_F(CopilotHooks, AFileOfAnotherVersionIsAnErrorNamingItAndItsSiblingsStillLoad) {
  write_file(in_project(".github/hooks/a.json"), R"({"version": 2, "hooks": {"preToolUse": [{"bash": "exit 0"}]}})");
  projects_hooks("b.json", one_hook("preToolUse", R"({"bash": "exit 2"})"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::deny);
  EXPECT_THAT(warnings_, Contains(AllOf(HasSubstr(in_project(".github/hooks/a.json").string() + ": version"),
                                        HasSubstr("expected 1, got 2"), HasSubstr("none of its hooks is imported"))));
}

// Copilot's events and the PascalCase aliases it documents stand for the
// catalogue's; one with no counterpart is named with its file and JSON path.
TEST_F(CopilotHooks, ItsEventsAndTheirAliasesMapOntoTheCatalogueAndOneWithoutIsNamed) {
  const detail::HookFormat& format = detail::copilot_cli_format();
  const struct {
    std::string copilot;
    std::string alias;
    std::string catalogue;
  } cases[] = {
      {"sessionStart", "SessionStart", "session_start"},   {"sessionEnd", "SessionEnd", "session_shutdown"},
      {"userPromptSubmitted", "UserPromptSubmit", "input"}, {"preToolUse", "PreToolUse", "tool_call"},
      {"postToolUse", "PostToolUse", "tool_result"},        {"postToolUseFailure", "PostToolUseFailure", "tool_result"},
      {"permissionRequest", "PermissionRequest", "permission_request"},
      {"preCompact", "PreCompact", "session_before_compact"}, {"agentStop", "Stop", "agent_end"},
      {"subagentStart", "subagentStart", "subagent_start"}, {"subagentStop", "SubagentStop", "subagent_end"},
      {"errorOccurred", "ErrorOccurred", "agent_error"},    {"notification", "notification", "notification"},
  };
  for (const auto& c : cases)
    for (const std::string& name : {c.copilot, c.alias}) {
      SCOPED_TRACE(name);
      const auto targets = detail::event_targets(format, name);
      ASSERT_FALSE(targets.empty());
      EXPECT_EQ(event_name(targets[0]), c.catalogue);
    }
  write_file(in_project("hooks.json"), one_hook("userPromptTransformed", R"({"bash": "true"})"));
  const auto settings = detail::read_format_settings(format, in_project("hooks.json"), Layer::project);
  EXPECT_TRUE(settings.commands.empty());
  EXPECT_THAT(settings.skipped, Contains(AllOf(HasSubstr(in_project("hooks.json").string() + ": hooks.userPromptTransformed"),
                                               HasSubstr("'userPromptTransformed'"))));
}

// The camelCase payload of Copilot's hooks reference: sessionId, a timestamp
// in Unix milliseconds, cwd, toolName and toolArgs as a JSON string.
TEST_F(CopilotHooks, ACamelCaseHookReadsCopilotsPayloadWithToolArgsAsAJsonString) {
  write_file(in_project(".github/hooks/dump.py"),
             "import json, sys\n"
             "json.dump(json.load(sys.stdin), open('payload.json', 'w'))\n");
  projects_hooks("dump.json", one_hook("preToolUse", R"({"bash": "python3 .github/hooks/dump.py"})"));
  (void)emit_bash("ls");
  const boost::json::object payload = parse_json(read_file(in_project("payload.json")), "payload").as_object();
  EXPECT_EQ(payload.at("sessionId"), "s1");
  EXPECT_TRUE(payload.at("timestamp").is_int64());
  EXPECT_EQ(payload.at("cwd"), boost::json::value(project_.path().string()));
  EXPECT_EQ(payload.at("toolName"), "bash");
  ASSERT_TRUE(payload.at("toolArgs").is_string());
  EXPECT_EQ(parse_json(payload.at("toolArgs").get_string(), "toolArgs").at("command"), "ls");
  EXPECT_FALSE(payload.contains("hook_event_name"));
}

// A PascalCase event is Copilot's Claude Code dialect: Claude Code's fields
// and tool names, and an ISO 8601 timestamp.
TEST_F(CopilotHooks, APascalCaseHookReadsClaudeCodesPayloadAndToolName) {
  write_file(in_project(".github/hooks/dump.py"),
             "import json, sys\n"
             "json.dump(json.load(sys.stdin), open('payload.json', 'w'))\n");
  projects_hooks("dump.json", one_hook("PreToolUse", R"({"bash": "python3 .github/hooks/dump.py"})"));
  (void)emit_bash("ls");
  const boost::json::object payload = parse_json(read_file(in_project("payload.json")), "payload").as_object();
  EXPECT_EQ(payload.at("session_id"), "s1");
  EXPECT_EQ(payload.at("hook_event_name"), "PreToolUse");
  EXPECT_EQ(payload.at("tool_name"), "Bash");
  EXPECT_EQ(payload.at("tool_input").at("command"), "ls");
  EXPECT_TRUE(payload.at("timestamp").is_string());
}

// preToolUse fails closed as Copilot's does: an exit other than 0 denies;
// exit 2 denies with stderr; an "allow" lets the call through.
TEST_F(CopilotHooks, APreToolUseHookThatFailsDeniesAndExitTwoDenies) {
  const struct {
    std::string command;
    Decision decision;
  } cases[] = {
      {"exit 1", Decision::deny},
      {"echo no >&2; exit 2", Decision::deny},
      {"sleep 5", Decision::deny},
      {R"(echo '{"permissionDecision": "allow"}')", Decision::allow},
      {"echo not json", Decision::none},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.command);
    projects_hooks("guard.json",
                   one_hook("preToolUse", R"({"bash": )" + write_json(boost::json::string(c.command)) +
                                              (c.command.starts_with("sleep") ? R"(, "timeoutSec": 1})" : "}")));
    EXPECT_EQ(emit_bash("ls").decision, c.decision);
  }
}

// Elsewhere a failed run is logged and skipped, and exit 2 is a warning: a
// prompt goes on.
TEST_F(CopilotHooks, ExitTwoOnAPromptIsAWarningAndTheFailureOfAnotherEventFailsOpen) {
  projects_hooks("prompt.json", R"({"version": 1, "hooks": {"userPromptSubmitted": [{"bash": "echo careful >&2; exit 2"}],)"
                                R"( "postToolUse": [{"bash": "exit 1"}]}})");
  install();
  const InputResult input = hooks_.emit(InputEvent{.text = "hello"});
  EXPECT_EQ(input.action, InputAction::continue_);
  EXPECT_THAT(log_.text(), HasSubstr("careful"));
  const ToolResultResult result = hooks_.emit(ToolResultEvent{.tool_call_id = "c1", .tool_name = "bash"});
  EXPECT_FALSE(result.stop.has_value());
}

// The flat answers of agentStop and permissionRequest, as Copilot reads them.
TEST_F(CopilotHooks, AnAgentStopBlockGoesOnWithTheReasonAndAPermissionRequestIsDecidedByBehavior) {
  projects_hooks("answers.json",
                 R"({"version": 1, "hooks": {"agentStop": [{"bash": "echo '{\"decision\": \"block\", \"reason\": \"run the tests\"}'"}],)"
                 R"( "permissionRequest": [{"bash": "echo '{\"behavior\": \"deny\", \"message\": \"not here\"}'"}]}})");
  install();
  EXPECT_EQ(hooks_.emit(AgentEndEvent{}).follow_up_messages, std::vector<std::string>{"run the tests"});
  const PermissionRequestResult permission =
      hooks_.emit(PermissionRequestEvent{.tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls"}}});
  EXPECT_EQ(permission.decision, Decision::deny);
  EXPECT_EQ(permission.reason, "not here");
}

TEST_F(CopilotHooks, TimeoutSecIsSecondsThirtyByDefaultAndTimeoutItsAlias) {
  write_file(in_project("hooks.json"), one_hook("preToolUse", R"({"bash": "true"}, {"bash": "true", "timeoutSec": 5},)"
                                                              R"( {"bash": "true", "timeout": 7, "timeoutSec": 6},)"
                                                              R"( {"bash": "true", "timeout": 7})"));
  const auto settings =
      detail::read_format_settings(detail::copilot_cli_format(), in_project("hooks.json"), Layer::project);
  ASSERT_EQ(settings.commands.size(), 4U);
  EXPECT_EQ(settings.commands[0].timeout, 30s);
  EXPECT_EQ(settings.commands[1].timeout, 5s);
  EXPECT_EQ(settings.commands[2].timeout, 6s);
  EXPECT_EQ(settings.commands[3].timeout, 7s);
}

// A matcher must match the whole tool name (Copilot compiles ^(?:matcher)$);
// Claude Code's name of the tool matches too.
TEST_F(CopilotHooks, AMatcherMatchesTheWholeToolNameOrItsClaudeCodeName) {
  const struct {
    std::string matcher;
    Decision decision;
  } cases[] = {{"bas", Decision::none}, {"bash|edit", Decision::deny}, {"Bash", Decision::deny},
               {"b.*", Decision::deny}, {"as.*", Decision::none}, {"view", Decision::none}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.matcher);
    projects_hooks("m.json", one_hook("preToolUse", R"({"bash": "exit 2", "matcher": ")" + c.matcher + "\"}"));
    EXPECT_EQ(emit_bash("ls").decision, c.decision);
  }
}

// A handler with only Windows' command, or one run without a shell
// (exec), is not imported, and a warning names its JSON path.
TEST_F(CopilotHooks, AHookForWindowsOnlyIsNotImportedAndTheUserIsTold) {
  projects_hooks("own.json", one_hook("preToolUse", R"({"powershell": "exit 2"})"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_THAT(warnings_, Contains(AllOf(HasSubstr("hooks.preToolUse[0].powershell: a command for Windows only"),
                                        HasSubstr("not imported"))));
}

// "exec" runs its program with exactly "args", without a shell: nothing is
// split, globbed or expanded; in its "cwd", with its "env", as a command.
TEST_F(CopilotHooks, AnExecHookRunsItsProgramWithItsArgsAsWrittenWithoutAShell) {
  write_file(in_project("tools/guard"), "#!/bin/sh\nprintf '%s\\n' \"$@\" > seen\necho \"$MODE\" >&2\nexit 2\n", 0755);
  projects_hooks("exec.json", one_hook("preToolUse", R"({"exec": "./guard", "args": ["$HOME", "*", "a  b", "; touch x"],
                                                         "cwd": "tools", "env": {"MODE": "strict"}})"));
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "strict");
  EXPECT_EQ(read_file(in_project("tools/seen")), "$HOME\n*\na  b\n; touch x\n");
  EXPECT_FALSE(fs::exists(in_project("tools/x")));
}

// A program named without a '/' is found on PATH, the hook's own "env"
// PATH first, as /bin/sh finds a command's; one found nowhere is a failed
// run, which a preToolUse guard turns into a deny naming it.
TEST_F(CopilotHooks, AnExecProgramWithoutASlashIsFoundOnItsPathAndOneFoundNowhereFails) {
  write_file(root_ / "bin" / "guard", "#!/bin/sh\necho own >&2\nexit 2\n", 0755);
  const std::string own_path = write_json(boost::json::string((root_ / "bin").string()));
  const struct {
    std::string handler;
    std::string reason;
  } cases[] = {
      {R"({"exec": "sh", "args": ["-c", "echo engines >&2; exit 2"]})", "engines"},
      {R"({"exec": "guard", "env": {"PATH": )" + own_path + "}}", "own"},
      {R"({"exec": "no-such-guard"})", "its program \"no-such-guard\" is in no directory of its PATH"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.handler);
    projects_hooks("exec.json", one_hook("preToolUse", c.handler));
    const ToolCallResult result = emit_bash("ls");
    EXPECT_EQ(result.decision, Decision::deny);
    EXPECT_THAT(result.reason, HasSubstr(c.reason));
  }
}

// What trust covers of an exec hook is what it would of the same command
// run by a shell: its program, an interpreter's script, and their
// directories' trees, so a change to any of them is a change to the project.
TEST_F(CopilotHooks, AnExecHooksProgramAndScriptAndTheirTreesAreInTheProjectsFingerprint) {
  write_file(in_project("tools/check"), "#!/bin/sh\nexit 0\n", 0755);
  write_file(in_project("tools/helper.sh"), "exit 0\n");
  write_file(in_project("scripts/hook.py"), "import helper\n");
  write_file(in_project("scripts/helper.py"), "");
  projects_hooks("exec.json", one_hook("preToolUse", R"({"exec": "tools/check"},
                                                         {"exec": "python3", "args": ["scripts/hook.py"]})"));
  install();
  std::vector<std::string> fingerprinted;
  for (const auto& file : installed_->report.trust.now.files) fingerprinted.push_back(file.path);
  for (const std::string file : {"tools/check", "tools/helper.sh", "scripts/hook.py", "scripts/helper.py"})
    EXPECT_THAT(fingerprinted, Contains(file));
}

// Copilot rejects "exec" beside a command; "args" is a list of strings,
// given with an "exec": each otherwise is an error naming the file and JSON path.
TEST_F(CopilotHooks, AnExecBesideACommandOrArgsThatAreNoListOfStringsIsAnErrorNamingFileAndPath) {
  const fs::path file = in_project(".github/hooks/exec.json");
  const struct {
    std::string handler;
    std::string path;
    std::string what;
  } cases[] = {
      {R"({"exec": "./guard", "bash": "./guard"})", "hooks.preToolUse[0].exec", "\"bash\" a command with one"},
      {R"({"exec": "./guard", "command": "./guard"})", "hooks.preToolUse[0].exec", "\"command\" a command with one"},
      {R"({"exec": "./guard", "powershell": "./guard.ps1"})", "hooks.preToolUse[0].exec", "\"powershell\""},
      {R"({"exec": "./guard", "args": "--strict"})", "hooks.preToolUse[0].args", "array"},
      {R"({"exec": "./guard", "args": ["--strict", 1]})", "hooks.preToolUse[0].args[1]", "string"},
      {R"({"exec": ""})", "hooks.preToolUse[0].exec", "empty"},
      {R"({"bash": "./guard", "args": ["--strict"]})", "hooks.preToolUse[0].args", "add the program as \"exec\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.handler);
    write_file(file, one_hook("preToolUse", c.handler));
    try {
      (void)detail::read_format_settings(detail::copilot_cli_format(), file, Layer::user, {}, project_.path());
      ADD_FAILURE() << "read";
    } catch (const ConfigError& error) {
      EXPECT_EQ(error.file(), file);
      EXPECT_EQ(error.path(), c.path);
      EXPECT_THAT(error.what(), HasSubstr(c.what));
    }
  }
}

// A handler's "cwd" (relative to the project) is where its command runs, and
// its "env" is added to its environment, as VS Code's (handler_directory.hpp).
TEST_F(CopilotHooks, AHookRunsInItsOwnCwdWithItsEnv) {
  write_file(in_project("tools/guard.sh"), "#!/bin/sh\npwd > ran-in\necho \"$MODE\" >&2\nexit 2\n", 0755);
  projects_hooks("cwd.json", one_hook("preToolUse", R"({"bash": "./guard.sh", "cwd": "tools", "env": {"MODE": "strict"}})"));
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "strict");
  EXPECT_EQ(read_file(in_project("tools/ran-in")), fs::canonical(in_project("tools")).string() + "\n");
}

}  // namespace
}  // namespace hookbus
