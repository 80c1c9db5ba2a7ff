// VS Code's agent hooks run unchanged (docs/agent-formats.md, "VS Code"):
// every *.json file of the project's .github/hooks and of Copilot's user
// hooks directory, switched on by config's "agent_hooks": {"vscode": ...},
// each event a flat list of command handlers whose matchers VS Code ignores,
// the Linux command where a handler has one, and VS Code's payload and
// answer. The hooks are written here from VS Code's documented payload and
// answer (bash + jq, Python, Node) and run through setup() and Hooks::emit.
#include "agent_hooks_fixture.hpp"

#include "formats/claude_code/settings.hpp"
#include "formats/vscode/format.hpp"

#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
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
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::read_file;
using testing::TempDir;
using testing::write_file;
using namespace std::chrono_literals;

// A VS Code PreToolUse guard in bash + jq, as VS Code's docs write one: it
// checks the tool itself (VS Code runs it on every tool) and denies `rm -rf`.
constexpr const char* kVsCodeGuard =
    "#!/bin/sh\n"
    "input=$(cat)\n"
    "[ \"$(echo \"$input\" | jq -r .tool_name)\" = run_in_terminal ] || exit 0\n"
    "case \"$(echo \"$input\" | jq -r .tool_input.command)\" in *'rm -rf'*)\n"
    "  jq -n '{hookSpecificOutput: {hookEventName: \"PreToolUse\", permissionDecision: \"deny\", "
    "permissionDecisionReason: \"no recursive deletes\"}}'\n"
    "esac\n";

class VsCodeHooks : public testing::AgentHooksFixture {
 protected:
  // The project's VS Code hooks file `name` in .github/hooks, switched on by its config, and trusted.
  void projects_hooks(const std::string& name, const std::string& hooks) {
    switch_on("vscode");
    write_file(in_project(".github/hooks/" + name), hooks);
    trust_project();
  }
  // A handler list of one event with one command.
  static std::string one_hook(const std::string& event, const std::string& handler) {
    return R"({"hooks": {")" + event + R"(": [)" + handler + "]}}";
  }
};

TEST_F(VsCodeHooks, AProjectsGithubHooksGuardDeniesAsInVsCode) {
  write_file(in_project(".github/hooks/scripts/guard.sh"), kVsCodeGuard, 0755);
  projects_hooks("security.json",
                 one_hook("PreToolUse",
                          R"({"type": "command", "command": "./.github/hooks/scripts/guard.sh", "timeout": 15})"));
  const ToolCallResult result = emit_bash("rm -rf /");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "no recursive deletes");
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_THAT(warnings_, IsEmpty());
}

TEST_F(VsCodeHooks, EveryJsonFileOfGithubHooksIsReadInNameOrder) {
  write_file(in_project(".github/hooks/README.md"), "not hooks: {");
  write_file(in_project(".github/hooks/b.json"), one_hook("PreToolUse", R"({"command": "echo from b >&2; exit 2"})"));
  projects_hooks("a.json", one_hook("PreToolUse", R"({"command": "touch ran-a"})"));
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "from b");
  EXPECT_TRUE(fs::exists(in_project("ran-a")));
  const auto& installed = installed_->report.hooks.installed;
  ASSERT_EQ(installed.size(), 2U);
  EXPECT_THAT(installed[0].source, HasSubstr(".github/hooks/a.json: hooks.PreToolUse[0]"));
  EXPECT_THAT(installed[1].source, HasSubstr(".github/hooks/b.json: hooks.PreToolUse[0]"));
}

TEST_F(VsCodeHooks, TheUsersVsCodeHooksAreInCopilotsHooksDirectory) {
  write_file(root_ / "copilot" / "hooks" / "guard.json",
             one_hook("PreToolUse", R"({"command": "echo nope >&2; exit 2"})"));
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"vscode": {"settings": ["user"]}}})");
  EXPECT_EQ(emit_bash("ls").decision, Decision::deny);
  EXPECT_THAT(warnings_, IsEmpty());
}

// VS Code runs a handler's command for the system it runs on ("linux" here,
// else "command"); one for another system only is skipped, and said so.
TEST_F(VsCodeHooks, TheLinuxCommandRunsAndAHookForAnotherSystemOnlyIsSkippedNamingIt) {
  const struct {
    std::string handler;
    Decision decision;
    std::string warning;
  } cases[] = {
      {R"({"command": "exit 2", "linux": "exit 0", "osx": "exit 2", "windows": "exit 2"})", Decision::none, ""},
      {R"({"command": "exit 0", "linux": "echo linux >&2; exit 2"})", Decision::deny, ""},
      {R"({"command": "echo default >&2; exit 2", "windows": "exit 0"})", Decision::deny, ""},
      {R"({"osx": "exit 2"})", Decision::none, "hooks.PreToolUse[0].osx: a command for macOS only"},
      {R"({"windows": "exit 2", "osx": "exit 2"})", Decision::none,
       "hooks.PreToolUse[0].osx: a command for macOS only"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.handler);
    projects_hooks("os.json", one_hook("PreToolUse", c.handler));
    Hooks bus;
    const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations()});
    const ToolCallResult result =
        bus.emit(ToolCallEvent{.tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls"}}});
    EXPECT_EQ(result.decision, c.decision);
    if (c.warning.empty()) EXPECT_THAT(installed.report.warnings, IsEmpty());
    else
      EXPECT_THAT(installed.report.warnings,
                  Contains(AllOf(HasSubstr(in_project(".github/hooks/os.json").string()), HasSubstr(c.warning))));
  }
}

// VS Code drops a matcher, so a hook written for Claude Code's Edit runs on
// every tool there; it does here, and the user is told.
TEST_F(VsCodeHooks, AMatcherIsIgnoredAsVsCodeIgnoresItAndTheUserIsTold) {
  for (const std::string hooks :
       {R"({"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "exit 2"}]}]}})",
        R"({"hooks": {"PreToolUse": [{"type": "command", "matcher": "Edit", "command": "exit 2"}]}})"}) {
    SCOPED_TRACE(hooks);
    projects_hooks("edits.json", hooks);
    EXPECT_EQ(emit_bash("ls").decision, Decision::deny);
    EXPECT_THAT(warnings_, Contains(AllOf(HasSubstr(in_project(".github/hooks/edits.json").string() +
                                                    ": hooks.PreToolUse[0].matcher"),
                                          HasSubstr("VS Code ignores a matcher"))));
  }
}

// The payload as VS Code's docs give it: sessionId and hookEventName in
// camelCase, a timestamp, VS Code's tool name.
TEST_F(VsCodeHooks, AHookReadsVsCodesPayloadFieldsAndToolName) {
  write_file(in_project(".github/hooks/dump.py"),
             "import json, sys\n"
             "payload = json.load(sys.stdin)\n"
             "json.dump(payload, open('payload.json', 'w'))\n");
  projects_hooks("dump.json", one_hook("PreToolUse", R"({"command": "python3 .github/hooks/dump.py"})"));
  (void)emit_bash("ls");
  const boost::json::object payload = parse_json(read_file(in_project("payload.json")), "payload").as_object();
  EXPECT_EQ(payload.at("sessionId"), "s1");
  EXPECT_EQ(payload.at("hookEventName"), "PreToolUse");
  EXPECT_EQ(payload.at("tool_name"), "run_in_terminal");
  EXPECT_EQ(payload.at("tool_input").at("command"), "ls");
  EXPECT_EQ(payload.at("tool_use_id"), "c1");
  EXPECT_EQ(payload.at("cwd"), boost::json::value(project_.path().string()));
  EXPECT_TRUE(payload.at("timestamp").is_string());
  EXPECT_FALSE(payload.contains("session_id"));
  EXPECT_FALSE(payload.contains("hook_event_name"));
}

// VS Code reads a Stop hook's block in hookSpecificOutput (a Node hook); at
// the top, where Claude Code reads it, it does nothing.
TEST_F(VsCodeHooks, AStopHookBlocksWithTheDecisionNestedInHookSpecificOutputOnly) {
  const struct {
    std::string answer;
    std::vector<std::string> follow_ups;
  } cases[] = {
      {R"({hookSpecificOutput: {hookEventName: 'Stop', decision: 'block', reason: 'run the tests first'}})",
       {"run the tests first"}},
      {R"({decision: 'block', reason: 'run the tests first'})", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.answer);
    write_file(in_project(".github/hooks/stop.js"),
               "let input = '';\n"
               "process.stdin.on('data', c => input += c);\n"
               "process.stdin.on('end', () => {\n"
               "  if (JSON.parse(input).stop_hook_active) return;\n"
               "  console.log(JSON.stringify(" + c.answer + "));\n"
               "});\n");
    projects_hooks("stop.json", one_hook("Stop", R"({"command": "node .github/hooks/stop.js"})"));
    Hooks bus;
    const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations()});
    EXPECT_EQ(bus.emit(AgentEndEvent{}).follow_up_messages, c.follow_ups);
  }
}

TEST_F(VsCodeHooks, VsCodeTimeoutsAreSecondsThirtyByDefault) {
  write_file(in_project("hooks.json"),
             one_hook("PreToolUse", R"({"command": "true"}, {"command": "true", "timeout": 5})"));
  const auto settings = detail::read_format_settings(detail::vscode_format(), in_project("hooks.json"), Layer::project);
  ASSERT_EQ(settings.commands.size(), 2U);
  EXPECT_EQ(settings.commands[0].timeout, 30s);
  EXPECT_EQ(settings.commands[1].timeout, 5s);
}

// A handler's "cwd" is where it runs, relative to the project: a script it
// names relative to that is found there.
TEST_F(VsCodeHooks, AHookRunsInItsOwnCwdRelativeToTheProject) {
  write_file(in_project("tools/guard.sh"), "#!/bin/sh\npwd > ran-in\necho from tools >&2\nexit 2\n", 0755);
  projects_hooks("cwd.json", one_hook("PreToolUse", R"({"command": "./guard.sh", "cwd": "tools"})"));
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "from tools");
  EXPECT_EQ(read_file(in_project("tools/ran-in")), fs::canonical(in_project("tools")).string() + "\n");
  EXPECT_THAT(warnings_, IsEmpty());
}

// A handler's "env" is added to its environment.
TEST_F(VsCodeHooks, AHookGetsTheVariablesOfItsEnv) {
  projects_hooks("env.json", one_hook("PreToolUse", R"({"command": "echo \"$MODE $LEVEL\" >&2; exit 2", )"
                                                     R"("env": {"MODE": "strict", "LEVEL": "2"}})"));
  EXPECT_EQ(emit_bash("ls").reason, "strict 2");
  EXPECT_THAT(warnings_, IsEmpty());
}

// A project's hook runs inside its project: a "cwd" that leads out of it
// ("..", an absolute path elsewhere, a link at any component, /proc) is an
// error naming the file and JSON path; one that stays inside is read.
TEST_F(VsCodeHooks, AProjectHooksCwdThatLeadsOutOfTheProjectIsAnErrorNamingFileAndPath) {
  testing::make_directories(in_project("sub/inner"));
  fs::create_symlink(root_.path(), in_project("out"));
  fs::create_symlink("sub", in_project("inside"));
  const fs::path file = in_project(".github/hooks/cwd.json");
  const struct {
    std::string cwd;
    bool leaves;
  } cases[] = {
      {"..", true},          {"sub/../..", true},    {"/tmp", true},          {"out", true},
      {"out/x", true},       {"/proc/self/cwd", true}, {"sub", false},        {"sub/..", false},
      {"inside/inner", false}, {project_.path().string() + "/sub", false}, {"not-yet", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.cwd);
    write_file(file, one_hook("PreToolUse", R"({"command": "true", "cwd": )" +
                                                write_json(boost::json::string(c.cwd)) + "}"));
    const auto read = [&] {
      return detail::read_format_settings(detail::vscode_format(), file, Layer::project, {}, project_.path());
    };
    if (!c.leaves) {
      EXPECT_EQ(read().commands.at(0).working_directory, c.cwd);
      continue;
    }
    try {
      (void)read();
      ADD_FAILURE() << "read";
    } catch (const ConfigError& error) {
      EXPECT_EQ(error.file(), file);
      EXPECT_EQ(error.path(), "hooks.PreToolUse[0].cwd");
    }
  }
}

// The user's own hooks may run anywhere they say, but never through /proc.
TEST_F(VsCodeHooks, AUsersHookMayRunOutsideTheProjectButNotThroughProc) {
  const fs::path file = root_ / "copilot/hooks/cwd.json";
  write_file(file, one_hook("PreToolUse", R"({"command": "true", "cwd": "/tmp"})"));
  EXPECT_EQ(detail::read_format_settings(detail::vscode_format(), file, Layer::user, {}, project_.path())
                .commands.at(0)
                .working_directory,
            "/tmp");
  write_file(file, one_hook("PreToolUse", R"({"command": "true", "cwd": "/proc/self/cwd"})"));
  EXPECT_THROW((void)detail::read_format_settings(detail::vscode_format(), file, Layer::user, {}, project_.path()),
               ConfigError);
}

// A link put at a trusted hook's "cwd" after it was read leads its run
// nowhere: the run checks the directory again, and refuses.
TEST_F(VsCodeHooks, AHookWhoseCwdBecameALinkOutOfTheProjectIsRefusedAtItsRun) {
  testing::make_directories(in_project("tools"));
  projects_hooks("cwd.json", one_hook("PreToolUse", R"({"command": "touch ran; exit 2", "cwd": "tools"})"));
  install();
  fs::remove_all(in_project("tools"));
  fs::create_symlink(root_.path(), in_project("tools"));
  const ToolCallResult result =
      hooks_.emit(ToolCallEvent{.tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls"}}});
  EXPECT_EQ(result.decision, Decision::none);
  EXPECT_FALSE(fs::exists(root_ / "ran"));
  EXPECT_THAT(log_.text(), AllOf(HasSubstr("refused"), HasSubstr("leads out of the project")));
}

// "env" never sets what makes the loader or a shell run code that no trust
// covers, nor a variable hookbus sets for the hook: an error naming the
// file and JSON path, as is a name that is no variable's.
TEST_F(VsCodeHooks, AnEnvOfALoaderOrShellStartUpVariableIsAnErrorNamingFileAndPath) {
  const fs::path file = in_project(".github/hooks/env.json");
  for (const std::string name : {"LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "CLAUDE_PROJECT_DIR", "A=B"}) {
    SCOPED_TRACE(name);
    write_file(file, one_hook("PreToolUse", R"({"command": "true", "env": {)" +
                                                write_json(boost::json::string(name)) + R"(: "x"}})"));
    try {
      (void)detail::read_format_settings(detail::vscode_format(), file, Layer::user, {}, project_.path());
      ADD_FAILURE() << "read";
    } catch (const ConfigError& error) {
      EXPECT_EQ(error.file(), file);
      EXPECT_THAT(error.path(), AllOf(HasSubstr("hooks.PreToolUse[0].env"), HasSubstr(name)));
    }
  }
}

// VS Code runs an event's hooks one after another, in the order of its files
// and of their lists, each seeing what the ones before it changed (a
// rewritten tool input).
TEST_F(VsCodeHooks, AnEventsHooksRunOneAfterAnotherInFileOrderEachSeeingWhatTheOnesBeforeChanged) {
  const std::string seen = R"({"command": "jq -r .tool_input.command >> seen"})";
  write_file(in_project(".github/hooks/b.json"), one_hook("PreToolUse", seen));
  projects_hooks("a.json", one_hook("PreToolUse", R"({"command": "echo a >> seen; echo '{\"hookSpecificOutput\": )"
                                                  R"({\"hookEventName\": \"PreToolUse\", \"permissionDecision\": )"
                                                  R"(\"allow\", \"updatedInput\": {\"command\": \"ls -l\"}}}'"}, )" +
                                                      seen));
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(read_file(in_project("seen")), "a\nls -l\nls -l\n");
  ASSERT_TRUE(result.input);
  EXPECT_EQ(result.input->at("command"), "ls -l");
}

// A hook that stops the agent ("continue": false) skips the event's hooks
// after it, as VS Code skips them.
TEST_F(VsCodeHooks, AHookThatStopsTheAgentSkipsTheEventsHooksAfterIt) {
  projects_hooks("stop.json", one_hook("PreToolUse", R"({"command": "echo '{\"continue\": false, )"
                                                     R"(\"stopReason\": \"halt\"}'"}, {"command": "touch after"})"));
  const ToolCallResult result = emit_bash("ls");
  ASSERT_TRUE(result.stop);
  EXPECT_EQ(result.stop->reason, "halt");
  EXPECT_FALSE(fs::exists(in_project("after")));
}

// Across an event's hooks deny wins over ask, ask over allow, each with the
// reason of the hook that decided it, as VS Code combines them.
TEST_F(VsCodeHooks, AnEventsHooksDecisionsCombineDenyOverAskOverAllow) {
  const auto answering = [](const std::string& decision) {
    const boost::json::object answer{{"hookSpecificOutput",
                                      {{"hookEventName", "PreToolUse"},
                                       {"permissionDecision", decision},
                                       {"permissionDecisionReason", "by " + decision}}}};
    return write_json(boost::json::object{{"command", "echo '" + write_json(answer) + "'"}});
  };
  const struct {
    std::vector<std::string> answers;
    Decision decision;
    std::string reason;
  } cases[] = {
      {{"allow", "ask"}, Decision::ask, "by ask"},
      {{"ask", "allow"}, Decision::ask, "by ask"},
      {{"allow", "deny", "ask"}, Decision::deny, "by deny"},
      {{"ask", "deny"}, Decision::deny, "by deny"},
      {{"allow", "allow"}, Decision::allow, "by allow"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.answers.size());
    std::string handlers;
    for (const auto& answer : c.answers) handlers += (handlers.empty() ? "" : ", ") + answering(answer);
    projects_hooks("decide.json", one_hook("PreToolUse", handlers));
    const ToolCallResult result = emit_bash("ls");
    EXPECT_EQ(result.decision, c.decision);
    EXPECT_EQ(result.reason, c.reason);
  }
}

// Exit codes as VS Code's docs read them, which is as Claude Code reads
// them: 2 blocks, stderr the reason; any other non-zero exit is a warning
// and the call goes on, what the hook printed unread (JSON is read on exit 0 only).
TEST_F(VsCodeHooks, ExitTwoBlocksWithStderrAndAnotherExitIsAWarningWhoseAnswerIsNotRead) {
  const std::string deny =
      R"(echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\"}}')";
  const struct {
    std::string command;
    Decision decision;
    std::string reason;
  } cases[] = {
      {"echo no rm >&2; exit 2", Decision::deny, "no rm"},
      {deny + "; exit 1", Decision::none, ""},
      {deny + "; echo broken >&2; exit 3", Decision::none, ""},
      {deny, Decision::deny, "Tool call denied by hook"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.command);
    projects_hooks("exit.json", one_hook("PreToolUse", R"({"command": ")" + c.command + R"("})"));
    const ToolCallResult result = emit_bash("ls");
    EXPECT_EQ(result.decision, c.decision);
    EXPECT_THAT(result.reason, HasSubstr(c.reason));
  }
}

// A PreToolUse answer whose hookEventName names another event is not
// applied, as VS Code ignores it; the warning names the hook and the field.
TEST_F(VsCodeHooks, APreToolUseAnswerNamingAnotherEventIsIgnored) {
  projects_hooks("other.json", one_hook("PreToolUse", R"({"command": "echo '{\"hookSpecificOutput\": )"
                                                      R"({\"hookEventName\": \"PostToolUse\", )"
                                                      R"(\"permissionDecision\": \"deny\"}}'"})"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_THAT(log_.text(), AllOf(HasSubstr(".github/hooks/other.json"), HasSubstr("hookEventName")));
}

// VS Code reads .claude/settings*.json too; hookbus leaves them to the
// claude_code format, so with both switched on a hook there runs once.
TEST_F(VsCodeHooks, AClaudeCodeHookRunsOnceWithBothClaudeCodeAndVsCodeSwitchedOn) {
  write_file(in_project(".claude/settings.json"),
             R"({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [)"
             R"({"type": "command", "command": "echo ran >> runs"}]}]}})");
  write_file(locations().config_file(Layer::project),
             R"({"agent_hooks": {"vscode": {"settings": ["project"]}, "claude_code": {"settings": ["project"]}}})");
  trust_project();
  (void)emit_bash("ls");
  EXPECT_EQ(read_file(in_project("runs")), "ran\n");
}

}  // namespace
}  // namespace hookbus
