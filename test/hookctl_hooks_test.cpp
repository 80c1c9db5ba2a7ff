// `hookctl list`, `emit` and `run-hook`, run as the real binary against
// projects written into temporary directories; and the example hooks of
// examples/hooks/, run the way a hook author would debug them.
#include "script_fixture.hpp"

#include <hookbus/process.hpp>

#include <boost/json/parse.hpp>
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

  // hookctl ARGS --project <project>, with an empty user config directory,
  // and the system's python3 first in PATH (for `#!/usr/bin/env python3`): a
  // PATH shim such as pyenv's can take seconds to start.
  ProcessResult hookctl(std::vector<std::string> args, std::string input = "") const {
    args.insert(args.end(), {"--project", project_.path().string()});
    return run_process({.program = kHookctl,
                        .arguments = std::move(args),
                        .extra_environment = {{"XDG_CONFIG_HOME", user_config_.path().string()},
                                              {"PATH", "/usr/bin:/bin"}},
                        .input = std::move(input),
                        .timeout = std::chrono::seconds(20)});
  }

  void add_hook(const std::string& name, const std::string& events, const std::string& body) const {
    write_script(hook(name), "if [ \"$1\" = hook ]; then printf '%s\\n' " + events + "; exit 0; fi\n" + body);
  }

  void use_example(const std::string& name) const {
    write_file(hook(name), testing::read_file(kExamples / name), 0755);
  }

  TempDir project_;
  TempDir user_config_;
};

// -------------------------------------------------------------------- list

TEST_F(Hookctl, ListShowsEachHookWithItsEventsPathAndSource) {
  add_hook("guard", "before_tool_call agent_end", "");
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("guard: before_tool_call (= tool_call), agent_end"),
                                   HasSubstr(hook("guard").string() + "  (project)")));
}

TEST_F(Hookctl, ListShowsSkippedAndShadowedFilesAndWhy) {
  add_hook("notes", "tool_call", "");
  fs::permissions(hook("notes"), fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::remove);
  add_hook("guard", "tool_call", "");
  write_script(user_config_.path() / "hookbus" / "hooks" / "guard", "echo tool_call\n");
  const ProcessResult r = hookctl({"list"});
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("ignored notes: not executable"),
                                   HasSubstr("shadowed guard: shadowed by " + hook("guard").string())));
}

TEST_F(Hookctl, ListShowsWhatTheConfigChangesAboutAHook) {
  add_hook("guard", "tool_call", "");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hooks": {"guard": {"disabled": true, "timeout_ms": 500, "failure": "fail_closed"}}})");
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr("[disabled in config, timeout 500 ms, fail-closed]"));
}

// -------------------------------------------------------------------- emit

TEST_F(Hookctl, EmitRunsTheEventThroughTheHooksAndPrintsTheOutcome) {
  use_example("block-rm-rf");
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
  const ProcessResult r = hookctl({"emit", "agent_start"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("config.json"), HasSubstr("timeout_ms")));
}

TEST_F(Hookctl, ProjectOptionMayComeBeforeTheCommand) {
  add_hook("guard", "tool_call", "");
  const ProcessResult r = run_process({.program = kHookctl,
                                       .arguments = {"--project", project_.path().string(), "list"},
                                       .extra_environment = {{"XDG_CONFIG_HOME", user_config_.path().string()}}});
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

TEST_F(Hookctl, RunHookOfAMissingFileFailsNamingIt) {
  const ProcessResult r = hookctl({"run-hook", hook("missing").string(), "agent_start"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.stderr_text, HasSubstr(hook("missing").string()));
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
