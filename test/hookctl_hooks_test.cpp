// `hookctl list`, `emit` and `run-hook`, run as the real binary against
// projects written into temporary directories; and the example hooks of
// examples/hooks/, run the way a hook author would debug them.
#include "script_fixture.hpp"

#include <hookbus/process.hpp>

#include <boost/json/parse.hpp>
#include <sys/stat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

const fs::path kHookctl = HOOKCTL_PATH;
const fs::path kExamples = HOOKBUS_EXAMPLE_HOOKS;

class Hookctl : public ::testing::Test {
 protected:
  fs::path hook(const std::string& name) const { return project_.path() / ".hookbus" / "hooks" / name; }

  // hookctl ARGS --project <project>, with empty managed, user, state and
  // cache directories of its own, and the system's python3 first in PATH (for
  // `#!/usr/bin/env python3`): a PATH shim such as pyenv's can take seconds to start.
  ProcessResult hookctl(std::vector<std::string> args, std::string input = "") const {
    args.insert(args.end(), {"--project", project_.path().string()});
    return run_process({.program = kHookctl,
                        .arguments = std::move(args),
                        .extra_environment = environment(),
                        .input = std::move(input),
                        .timeout = std::chrono::seconds(20)});
  }
  std::vector<std::pair<std::string, std::string>> environment() const {
    return {{"XDG_CONFIG_HOME", user_config_.path().string()},
            {"XDG_STATE_HOME", (home_.path() / "state").string()},
            {"XDG_CACHE_HOME", (home_.path() / "cache").string()},
            {"HOOKBUS_MANAGED_DIR", (home_.path() / "managed").string()},
            {"PATH", "/usr/bin:/bin"}};
  }
  // The project as it is now is trusted (hookctl trust), so its hooks and config run.
  void trust() const {
    const ProcessResult r = hookctl({"trust"});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  }

  void add_hook(const std::string& name, const std::string& events, const std::string& body) const {
    write_script(hook(name), "if [ \"$1\" = hook ]; then printf '%s\\n' " + events + "; exit 0; fi\n" + body);
  }

  void use_example(const std::string& name) const {
    write_file(hook(name), testing::read_file(kExamples / name), 0755);
  }

  TempDir project_;
  TempDir user_config_;
  TempDir home_;
};

// -------------------------------------------------------------------- list

TEST_F(Hookctl, ListShowsEachHookWithItsEventsPathLayerAndProtocol) {
  add_hook("guard", "before_tool_call agent_end", "");
  trust();
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("project " + project_.path().string() + ": trusted"),
                                   HasSubstr("guard: before_tool_call (= tool_call), agent_end"),
                                   HasSubstr(hook("guard").string() + "  (project, hookbus protocol, events asked)")));
}

TEST_F(Hookctl, ListShowsAnUntrustedProjectsHooksAndWhyTheyDoNotRun) {
  add_hook("guard", "tool_call", "");
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr(": untrusted"), HasSubstr("hookctl trust --project"),
                                   HasSubstr("not run guard: the project is untrusted")));
}

TEST_F(Hookctl, ListShowsTheConfigFileOfEachLayerAndWhetherItApplied) {
  write_file(project_.path() / ".hookbus" / "config.json", "{}");
  const ProcessResult r = hookctl({"list"});
  EXPECT_THAT(r.stdout_text,
              AllOf(HasSubstr("managed  " + (home_.path() / "managed" / "config.json").string() + "  (absent)"),
                    HasSubstr("project  " + (project_.path() / ".hookbus" / "config.json").string() +
                              "  (not applied: untrusted)")));
}

TEST_F(Hookctl, ListShowsSkippedAndShadowedFilesAndWhy) {
  add_hook("notes", "tool_call", "");
  fs::permissions(hook("notes"), fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::remove);
  add_hook("guard", "tool_call", "");
  write_script(project_.path() / ".hookbus" / "plugins" / "acme" / "tools" / "hooks" / "guard", "echo tool_call\n");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hook_directories": [".hookbus/more-hooks"]})");
  add_hook("../more-hooks/guard", "tool_call", "");
  trust();
  const ProcessResult r = hookctl({"list"});
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("ignored notes: not executable"),
                                   HasSubstr("shadowed guard: shadowed by " +
                                             (project_.path() / ".hookbus" / "more-hooks" / "guard").string())));
}

TEST_F(Hookctl, ListShowsWhatTheConfigChangesAboutAHook) {
  add_hook("guard", "tool_call", "");
  add_hook("lint", "tool_call", "");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hooks": {"guard": {"timeout_ms": 500, "failure": "fail_closed"}, "lint": {"disabled": true}}})");
  trust();
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              AllOf(HasSubstr("[timeout 500 ms, fail-closed]"),
                    HasSubstr("lint (project): disabled by " + (project_.path() / ".hookbus" / "config.json").string() +
                              ": hooks.lint.disabled")));
}

// -------------------------------------------------------------------- emit

TEST_F(Hookctl, EmitRunsTheEventThroughTheHooksAndPrintsTheOutcome) {
  use_example("block-rm-rf");
  trust();
  const ProcessResult r =
      hookctl({"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "rm -rf /"}})"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const auto outcome = boost::json::parse(r.stdout_text);
  EXPECT_EQ(outcome.at("decision"), "deny");
  EXPECT_THAT(std::string(outcome.at("reason").as_string()), HasSubstr("rm -rf is not allowed"));
}

TEST_F(Hookctl, EmitReadsTheEventFromStdinForADash) {
  use_example("block-rm-rf");
  const ProcessResult r = hookctl({"emit", "before_tool_call", "-"},
                                  R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "ls"}})");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(boost::json::parse(r.stdout_text).at("decision"), "none");
}

TEST_F(Hookctl, EmitRunsTheConfiguredBuiltinsToo) {
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"builtins": {"tool_policy": {"deny": ["deploy"]}}})");
  trust();
  const ProcessResult r = hookctl({"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "deploy"})"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(boost::json::parse(r.stdout_text).at("decision"), "deny");
}

TEST_F(Hookctl, EmitOfAnObserveOnlyEventPrintsNull) {
  const ProcessResult r = hookctl({"emit", "agent_start"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stdout_text, "null\n");
}

TEST_F(Hookctl, EmitWithInvalidJsonExitsTwoWithTheError) {
  const ProcessResult r = hookctl({"emit", "tool_call", "{\"tool_name\": "});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("invalid JSON"));
}

TEST_F(Hookctl, EmitWithAnUnknownEventExitsTwoListingTheNames) {
  const ProcessResult r = hookctl({"emit", "tool_cal", "{}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("unknown event 'tool_cal'"), HasSubstr("tool_call")));
}

TEST_F(Hookctl, EmitWithABadConfigExitsTwoNamingTheFileAndPath) {
  write_file(project_.path() / ".hookbus" / "config.json", R"({"timeout_ms": "soon"})");
  trust();
  const ProcessResult r = hookctl({"emit", "agent_start"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("config.json"), HasSubstr("timeout_ms")));
}

TEST_F(Hookctl, ProjectOptionMayComeBeforeTheCommand) {
  add_hook("guard", "tool_call", "");
  const ProcessResult r = run_process({.program = kHookctl,
                                       .arguments = {"--project", project_.path().string(), "list"},
                                       .extra_environment = environment()});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr(hook("guard").string() + "  (project)"));
}

TEST_F(Hookctl, ProjectOptionWithoutACommandExitsTwoWithUsage) {
  const ProcessResult r = run_process({.program = kHookctl, .arguments = {"--project", project_.path().string()}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("--project needs a directory and then a command"),
                                   HasSubstr("usage: hookctl [--project DIR] COMMAND")));
}

TEST_F(Hookctl, AMissingProjectDirectoryExitsTwo) {
  const ProcessResult r = run_process({.program = kHookctl, .arguments = {"list", "--project", "/no/such/project"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("/no/such/project: not a directory"));
}

// ---------------------------------------------------------------- run-hook

TEST_F(Hookctl, RunHookShowsStdoutStderrStatusDurationAndTheParsedResult) {
  add_hook("guard", "tool_call", "echo 'looking' >&2; echo '{\"blocked\": true, \"reason\": \"no\"}'\n");
  const ProcessResult r = hookctl({"run-hook", hook("guard").string(), "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash"})"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("status:   exit code 0"), HasSubstr("duration: "),
                                   HasSubstr("stdout (34 bytes):\n  | {\"blocked\": true, \"reason\": \"no\"}"),
                                   HasSubstr("stderr (8 bytes):\n  | looking"), HasSubstr("\"decision\": \"deny\"")));
}

TEST_F(Hookctl, RunHookSaysNoChangeForAHookThatPrintsNothing) {
  add_hook("quiet", "tool_call", "true\n");
  const ProcessResult r = hookctl({"run-hook", hook("quiet").string(), "before_tool_call", R"({"tool_call_id": "c1", "tool_name": "bash"})"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("event:    tool_call (as before_tool_call)"), HasSubstr("result:   no change")));
}

TEST_F(Hookctl, RunHookReportsAFailedHookAndExitsOne) {
  add_hook("crashy", "tool_call", "echo boom >&2; exit 3\n");
  const ProcessResult r = hookctl({"run-hook", hook("crashy").string(), "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash"})"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("status:   exit code 3"), HasSubstr("result:   failure: "), HasSubstr("boom")));
}

TEST_F(Hookctl, RunHookOfAMissingFileIsAUsageErrorNamingIt) {
  const ProcessResult r = hookctl({"run-hook", hook("missing").string(), "agent_start"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr(hook("missing").string() + ": no such file"));
}

// Regression (review, issue 10 point 4): run-hook ran a world-writable file without a warning.
TEST_F(Hookctl, RunHookRefusesAnUnsafeFileUnlessForced) {
  add_hook("open", "tool_call", "echo ran >&2\n");
  ::chmod(hook("open").c_str(), 0777);
  const ProcessResult refused = hookctl({"run-hook", hook("open").string(), "agent_start"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.stderr_text, AllOf(HasSubstr("refusing to run"), HasSubstr("writable by group or others"),
                                         HasSubstr("--force")));
  EXPECT_THAT(refused.stdout_text, Not(HasSubstr("ran")));
  const ProcessResult forced = hookctl({"run-hook", "--force", hook("open").string(), "agent_start"});
  EXPECT_EQ(forced.exit_code, 0) << forced.stderr_text;
  EXPECT_THAT(forced.stderr_text, HasSubstr("warning"));
  EXPECT_THAT(forced.stdout_text, HasSubstr("| ran"));
}

// ------------------------------------------------------------------ trust

TEST_F(Hookctl, TrustPrintsWhatItRecordsAndTheHooksThenRun) {
  use_example("block-rm-rf");
  const std::string rm = R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "rm -rf /"}})";
  EXPECT_EQ(boost::json::parse(hookctl({"emit", "tool_call", rm}).stdout_text).at("decision"), "none");
  const ProcessResult trusted = hookctl({"trust"});
  EXPECT_EQ(trusted.exit_code, 0) << trusted.stderr_text;
  EXPECT_THAT(trusted.stdout_text, AllOf(HasSubstr("0755"), HasSubstr(".hookbus/hooks/block-rm-rf"),
                                         HasSubstr("recorded in " + (home_.path() / "state" / "hookbus" / "trust.json").string())));
  EXPECT_EQ(boost::json::parse(hookctl({"emit", "tool_call", rm}).stdout_text).at("decision"), "deny");
}

TEST_F(Hookctl, TrustDryRunRecordsNothing) {
  use_example("block-rm-rf");
  EXPECT_THAT(hookctl({"trust", "--dry-run"}).stdout_text, HasSubstr("trusting would record"));
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr(": untrusted"));
}

TEST_F(Hookctl, TrustRevokeAndList) {
  use_example("block-rm-rf");
  trust();
  EXPECT_THAT(hookctl({"trust", "--list"}).stdout_text, HasSubstr(project_.path().string() + "  (trusted "));
  EXPECT_THAT(hookctl({"trust", "--revoke"}).stdout_text, HasSubstr("is no longer trusted"));
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr(": untrusted"));
}

TEST_F(Hookctl, TrustShowsWhatChangedSinceTheLastTrust) {
  use_example("block-rm-rf");
  trust();
  add_hook("new-hook", "tool_call", "");
  const ProcessResult r = hookctl({"trust", "--dry-run"});
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("changed since it was last trusted"), HasSubstr("added .hookbus/hooks/new-hook")));
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr("changed since trusted"));
}

TEST_F(Hookctl, ConfigPrintsEveryValueWithTheFileItCameFrom) {
  add_hook("guard", "tool_call", "");
  const fs::path user_config = user_config_.path() / "hookbus" / "config.json";
  write_file(user_config, R"({"timeout_ms": 7000, "hooks": {"guard": {"failure": "fail_closed"}}})");
  trust();
  const ProcessResult r = hookctl({"config"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("timeout_ms for project hooks: 7000  <- " + user_config.string() + ": timeout_ms"),
                                   HasSubstr("hook guard (project): timeout 7000 ms"),
                                   HasSubstr("failure fail_closed <- " + user_config.string() + ": hooks.guard.failure")));
}

// ------------------------------------------------------------ Claude Code

TEST_F(Hookctl, ClaudeCodeHooksOfAProjectsSettingsRunThroughEmitAndShowInList) {
  write_script(project_.path() / ".claude" / "hooks" / "no-rm.sh",
               "jq -r '.tool_input.command' | grep -q 'rm -rf' && { echo 'rm -rf is not allowed' >&2; exit 2; }\nexit 0\n");
  write_file(project_.path() / ".claude" / "settings.json", R"({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/no-rm.sh"}]}]}})");
  write_file(project_.path() / ".hookbus" / "config.json", R"({"claude_code": {"settings": ["project"]}})");
  trust();
  const ProcessResult emitted =
      hookctl({"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "rm -rf /"}})"});
  ASSERT_EQ(emitted.exit_code, 0) << emitted.stderr_text;
  const auto outcome = boost::json::parse(emitted.stdout_text);
  EXPECT_EQ(outcome.at("decision"), "deny");
  EXPECT_EQ(outcome.at("reason"), "rm -rf is not allowed");
  EXPECT_EQ(outcome.at("decided_by").at("handler"), "no-rm.sh");
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              AllOf(HasSubstr("no-rm.sh: PreToolUse (matcher Bash)"),
                    HasSubstr((project_.path() / ".claude" / "settings.json").string() +
                              ": hooks.PreToolUse[0].hooks[0]: $CLAUDE_PROJECT_DIR/.claude/hooks/no-rm.sh"),
                    HasSubstr("(project layer, claude_code protocol)")));
}

// ------------------------------------------------------- example hooks

TEST_F(Hookctl, ExampleBlockRmRfBlocksRmRfInAnyFlagOrder) {
  for (const std::string command : {"rm -rf /", "sudo rm -fr /tmp/x", "/bin/rm -r -f x", "rm --recursive --force x"}) {
    const ProcessResult r = hookctl({"run-hook", (kExamples / "block-rm-rf").string(), "tool_call",
                                     R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": ")" +
                                         command + R"("}})"});
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.stdout_text;
    EXPECT_THAT(r.stdout_text, HasSubstr("\"decision\": \"deny\"")) << command;
  }
}

TEST_F(Hookctl, ExampleBlockRmRfAllowsOtherCommands) {
  for (const std::string command : {"ls -la", "rm -r build", "rm -f a.out", "echo farm -rf"}) {
    const ProcessResult r = hookctl({"run-hook", (kExamples / "block-rm-rf").string(), "tool_call",
                                     R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": ")" +
                                         command + R"("}})"});
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.stdout_text;
    EXPECT_THAT(r.stdout_text, Not(HasSubstr("\"decision\": \"deny\""))) << command;
  }
}

TEST_F(Hookctl, ExampleAuditLogAppendsOneJsonLinePerEvent) {
  use_example("audit-log");
  trust();
  hookctl({"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "ls"}})"});
  hookctl({"emit", "agent_end"});
  std::istringstream lines(testing::read_file(project_.path() / ".hookbus" / "audit.jsonl"));
  std::vector<boost::json::value> records;
  for (std::string line; std::getline(lines, line);) records.push_back(boost::json::parse(line));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].at("event"), "tool_call");
  EXPECT_EQ(records[0].at("tool"), "bash");
  EXPECT_EQ(records[0].at("input").at("command"), "ls");
  EXPECT_EQ(records[1].at("event"), "agent_end");
}

}  // namespace
}  // namespace hookbus
