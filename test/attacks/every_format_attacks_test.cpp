// Attacks that each newer hook format must hold against as the older ones
// do (docs/security.md): a command naming its script through /proc, file
// and script names made to forge what hookctl shows, and a project that
// imports the user's own hook files of an agent. Each is acted out for
// Codex's, Qwen Code's, Cursor's, Gemini CLI's, VS Code's and Copilot CLI's files, end to
// end (hostile_repository.hpp).
#include "hostile_repository.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::write_file;

// One agent's hook files: its key under agent_hooks, its project file, its
// user file below $HOME, and a file of it with one hook of its tool-call
// event running a command.
struct AgentFiles {
  std::string key;
  std::string project_file;
  std::string user_file;
  std::string (*with_tool_hook)(const std::string& command);
};

// Shown by its key in test names and failures, not as bytes.
void PrintTo(const AgentFiles& agent, std::ostream* out) { *out << agent.key; }

std::string json_string(const std::string& text) { return write_json(boost::json::string(text)); }

std::string claude_code_shape(const std::string& event, const std::string& command) {
  return R"({"hooks": {")" + event + R"(": [{"matcher": ".*", "hooks": [{"type": "command", "command": )" +
         json_string(command) + "}]}]}}";
}

const AgentFiles kAgents[] = {
    {.key = "codex",
     .project_file = ".codex/hooks.json",
     .user_file = ".codex/hooks.json",
     .with_tool_hook = [](const std::string& command) { return claude_code_shape("PreToolUse", command); }},
    {.key = "qwen_code",
     .project_file = ".qwen/settings.json",
     .user_file = ".qwen/settings.json",
     .with_tool_hook = [](const std::string& command) { return claude_code_shape("PreToolUse", command); }},
    {.key = "cursor",
     .project_file = ".cursor/hooks.json",
     .user_file = ".cursor/hooks.json",
     .with_tool_hook =
         [](const std::string& command) {
           return R"({"version": 1, "hooks": {"preToolUse": [{"command": )" + json_string(command) + "}]}}";
         }},
    {.key = "gemini_cli",
     .project_file = ".gemini/settings.json",
     .user_file = ".gemini/settings.json",
     .with_tool_hook = [](const std::string& command) { return claude_code_shape("BeforeTool", command); }},
    {.key = "vscode",
     .project_file = ".github/hooks/guard.json",
     .user_file = ".copilot/hooks/guard.json",
     .with_tool_hook =
         [](const std::string& command) {
           return R"({"hooks": {"PreToolUse": [{"type": "command", "command": )" + json_string(command) + "}]}}";
         }},
    {.key = "copilot",
     .project_file = ".github/hooks/guard.json",
     .user_file = ".copilot/hooks/guard.json",
     .with_tool_hook =
         [](const std::string& command) {
           return R"({"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": )" + json_string(command) +
                  "}]}}";
         }},
};

class EveryFormatAttacks : public testing::HostileRepository, public ::testing::WithParamInterface<AgentFiles> {
 protected:
  void attacker_writes_hook(const std::string& command) const {
    write_file(upstream(GetParam().project_file), GetParam().with_tool_hook(command));
  }
};

INSTANTIATE_TEST_SUITE_P(Formats, EveryFormatAttacks, ::testing::ValuesIn(kAgents),
                         [](const auto& info) { return info.param.key; });

// Attack 90: a project's hook runs its script through /proc/self/cwd.
// Where trust looks, that names the reviewed script; what the path names
// depends on the process that opens it, so no fingerprint can cover it, and
// a pull can change what it runs. Before the user trusts the project,
// `hookctl trust` names the construct as not covered and why, and `hookctl
// list` marks the command (docs/security.md: paths through /proc are
// constructs hookbus cannot resolve).
TEST_P(EveryFormatAttacks, Attack90AHookRunningItsScriptThroughProcSelfIsNamedAsNotCoveredBeforeTrust) {
  install_users_guard();
  user_reads_agent_hooks(GetParam().key);
  write_file(upstream("tools/check.sh"), "#!/bin/sh\nexit 0\n", 0755);
  attacker_writes_hook("/proc/self/cwd/tools/check.sh");
  attacker_commits("a check");
  user_pulls();
  EXPECT_THAT(hookctl({"trust", "--dry-run"}).stdout_text,
              AllOf(HasSubstr("/proc/self/cwd/tools/check.sh"), HasSubstr("a per-process path (/proc, /dev/fd)")));
  trust();
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              HasSubstr("not fully resolved: /proc/self/cwd/tools/check.sh: a per-process path (/proc, /dev/fd)"));
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
}

// Attack 91: a hook script named with a newline and a terminal's escape,
// so that what hookctl shows could forge a line or clear the screen over
// what the user should read. hookctl shows the name escaped, and the file
// is fingerprinted under its own name: a pull that changes it runs nothing.
TEST_P(EveryFormatAttacks, Attack91AHookScriptNamedWithANewlineAndAnEscapeIsShownEscapedAndFingerprinted) {
  user_reads_agent_hooks(GetParam().key);
  const std::string name = "tools/tip\n[hookbus] all good\x1b[2J.sh";
  write_file(upstream(name), "#!/bin/sh\nexit 0\n", 0755);
  attacker_writes_hook("sh '" + name + "'");
  attacker_commits("a tip");
  user_pulls();
  EXPECT_THAT(hookctl({"trust", "--dry-run"}).stdout_text,
              AllOf(HasSubstr("tip\\n[hookbus] all good\\x1b[2J.sh"), Not(HasSubstr("\x1b"))));
  trust();
  EXPECT_THAT(hookctl({"list"}).stdout_text, Not(HasSubstr("\x1b")));
  write_file(upstream(name), "#!/bin/sh\n" + touch_marker() + "\nexit 0\n", 0755);
  attacker_commits("a better tip");
  user_pulls();
  (void)hookctl_decides("ls");
  (void)setup_decides("ls");
  EXPECT_FALSE(fs::exists(marker()));
}

// Attack 92: a trusted project's config imports the user's own hook file of
// the agent, which the user never imported into hookbus. Its commands run
// as the project's handlers, not the user's: never ahead of the user's
// guard or answered as the user's own.
TEST_P(EveryFormatAttacks, Attack92AProjectImportingTheUsersHookFileGetsItsHooksAsItsOwn) {
  write_file(home_.path() / GetParam().user_file, GetParam().with_tool_hook("true"));
  write_file(upstream(".hookbus/config.json"),
             R"({"agent_hooks": {")" + GetParam().key + R"(": {"settings": ["user"]}}})");
  attacker_commits("use the user's hooks");
  user_pulls();
  trust();
  const auto listing = boost::json::parse(hookctl({"list", "--json"}).stdout_text);
  const auto& hooks = listing.at("hooks").as_array();
  ASSERT_EQ(hooks.size(), 1U) << listing;
  EXPECT_EQ(hooks[0].at("protocol").as_string(), GetParam().key);
  EXPECT_EQ(hooks[0].at("layer"), "project");
  Hooks bus;
  const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations()});
  ASSERT_EQ(installed.report.hooks.installed.size(), 1U);
  EXPECT_EQ(installed.report.hooks.installed[0].layer, Layer::project);
}

// Attack 93: a .github/hooks file named with a newline and an escape. VS
// Code reads every *.json file of the directory; hookctl shows the name
// escaped, and after trust a pull that changes the file runs nothing.
using GithubHooksFileAttacks = testing::HostileRepository;

TEST_F(GithubHooksFileAttacks, Attack93AGithubHooksFileNamedWithANewlineAndAnEscapeIsShownEscapedAndFingerprinted) {
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"vscode": {"settings": ["project"]}}})");
  const std::string name = ".github/hooks/x\n[hookbus] all good\x1b[2J.json";
  write_file(upstream(name), R"({"hooks": {"PreToolUse": [{"type": "command", "command": "true"}]}})");
  attacker_commits("hooks");
  user_pulls();
  EXPECT_THAT(hookctl({"trust", "--dry-run"}).stdout_text,
              AllOf(HasSubstr("x\\n[hookbus] all good\\x1b[2J.json"), Not(HasSubstr("\x1b"))));
  trust();
  EXPECT_THAT(hookctl({"list"}).stdout_text, AllOf(HasSubstr("x\\n[hookbus] all good\\x1b[2J.json"), Not(HasSubstr("\x1b"))));
  write_file(upstream(name), R"({"hooks": {"PreToolUse": [{"type": "command", "command": )" +
                                 json_string(touch_marker()) + "}]}}");
  attacker_commits("better hooks");
  user_pulls();
  (void)hookctl_decides("ls");
  (void)setup_decides("ls");
  EXPECT_FALSE(fs::exists(marker()));
}

}  // namespace
}  // namespace hookbus
