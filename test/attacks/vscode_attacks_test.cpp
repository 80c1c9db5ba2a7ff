// Attacks through VS Code's agent hooks (docs/agent-formats.md, "VS Code"):
// every *.json file of a repository's .github/hooks is code from strangers,
// as its .claude/settings.json is. Nothing of it runs before the user
// trusted the project, what runs is what was trusted, and a file that is no
// regular file hangs nothing. Acted out end to end (hostile_repository.hpp).
#include "hostile_repository.hpp"

#include <sys/stat.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::make_directories;
using testing::write_file;

class VsCodeAttacks : public testing::HostileRepository {
 protected:
  // A VS Code hooks file with one PreToolUse handler running `command`, and more keys of it (`more`).
  static std::string hooks_json(const std::string& command, const std::string& more = "") {
    return R"({"hooks": {"PreToolUse": [{"type": "command", "command": )" + write_json(boost::json::string(command)) +
           more + "}]}}";
  }
};

// Attack 30: a repository ships .github/hooks/x.json and switches VS Code's
// files on for itself; the user reads projects' VS Code hooks, but has not
// trusted this one. Nothing of it runs.
TEST_F(VsCodeAttacks, Attack30AnUntrustedProjectsGithubHooksRunNothing) {
  install_users_guard();
  user_reads_agent_hooks("vscode");
  write_file(upstream(".hookbus/config.json"), R"({"agent_hooks": {"vscode": {"settings": ["project"]}}})");
  write_file(upstream(".github/hooks/x.json"), hooks_json(touch_marker() + "; exit 2"));
  attacker_commits("vscode hooks");
  user_pulls();
  nothing_of_the_project_runs();
  EXPECT_THAT(hookctl({"list"}).stdout_text, AllOf(HasSubstr(".github/hooks/x.json: hooks.PreToolUse[0]"),
                                                   HasSubstr("vscode protocol")));
}

// Attack 31: a pull replaces a trusted project's .github/hooks by a link to
// another of its directories, whose hooks nobody looked at: what is at
// .github/hooks's paths is what counts, a change, so nothing of the project runs.
TEST_F(VsCodeAttacks, Attack31ALinkAtGithubHooksPulledAfterTrustIsAChange) {
  install_users_guard();
  user_reads_agent_hooks("vscode");
  write_file(upstream(".github/hooks/x.json"), hooks_json("true"));
  write_file(upstream("vendor/hooks/x.json"), hooks_json(touch_marker() + "; exit 2"));
  attacker_commits("vscode hooks, and a vendored copy");
  user_pulls();
  trust();
  fs::remove_all(upstream(".github/hooks"));
  fs::create_symlink("../vendor/hooks", upstream(".github/hooks"));
  attacker_commits("share the vendored hooks");
  user_pulls();
  nothing_of_the_project_runs();
}

// Attack 31, a link at the hook file leading out of the project: trusted as
// it read then, the file it leads to counts by what it holds, so a change
// there (by whoever can write it) runs nothing.
TEST_F(VsCodeAttacks, Attack31ALinkedGithubHooksFileCarriesNoTrustToWhatItsTargetLaterHolds) {
  install_users_guard();
  user_reads_agent_hooks("vscode");
  const fs::path shared = home_.path() / "shared" / "x.json";
  write_file(shared, hooks_json("true"));
  make_directories(upstream(".github/hooks"));
  fs::create_symlink(shared, upstream(".github/hooks/x.json"));
  attacker_commits("vscode hooks shared with the team");
  user_pulls();
  trust();
  write_file(shared, hooks_json(touch_marker() + "; exit 2"));
  nothing_of_the_project_runs();
}

// Attack 32: a FIFO among .github/hooks's files (a build step makes one).
// Nothing waits on it: untrusted, the user's guard decides and `hookctl
// trust` names it; trusted, it is an error naming it.
TEST_F(VsCodeAttacks, Attack32AFifoAsAGithubHooksFileHangsNothingAndIsNamed) {
  install_users_guard();
  user_reads_agent_hooks("vscode");
  make_directories(in_project(".github/hooks"));
  ASSERT_EQ(::mkfifo(in_project(".github/hooks/x.json").c_str(), 0644), 0);
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
  const ProcessResult shown = hookctl({"trust", "--dry-run"});
  EXPECT_THAT(shown.stdout_text + shown.stderr_text, AllOf(HasSubstr(".github/hooks/x.json"), HasSubstr("FIFO")));
  trust();
  EXPECT_THAT(hookctl_decides("ls"), AllOf(HasSubstr(".github/hooks/x.json"), HasSubstr("FIFO")));
  Hooks bus;
  try {
    (void)setup(bus, {.project_dir = project_.path(), .locations = locations()});
    ADD_FAILURE() << "setup() read it";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr(".github/hooks/x.json"), HasSubstr("FIFO")));
  }
}

// Attack 33: the user trusted a project whose .github/hooks held one
// harmless hook; a pull adds a second file beside it. The project is
// changed, and neither hook runs until the user trusts it again.
TEST_F(VsCodeAttacks, Attack33APullAddingAGithubHooksFileAfterTrustRunsNothing) {
  install_users_guard();
  user_reads_agent_hooks("vscode");
  write_file(upstream(".github/hooks/format.json"), hooks_json("true"));
  attacker_commits("vscode hooks");
  user_pulls();
  trust();
  write_file(upstream(".github/hooks/zz.json"), hooks_json(touch_marker() + "; exit 2"));
  attacker_commits("one more hook");
  user_pulls();
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr(".github/hooks/zz.json"));
  nothing_of_the_project_runs();
}

// Attack 34: a trusted project's hook runs in a "cwd" out of the project, or
// through a link out of it: it never runs there, and the error names the
// file and JSON path.
TEST_F(VsCodeAttacks, Attack34AGithubHookWhoseCwdLeavesTheProjectNeverRunsThere) {
  for (const std::string cwd : {"..", "/tmp", "out", "/proc/self/cwd"}) {
    SCOPED_TRACE(cwd);
    install_users_guard();
    user_reads_agent_hooks("vscode");
    fs::remove(in_project("out"));
    fs::create_symlink(home_.path(), in_project("out"));
    write_file(in_project(".github/hooks/x.json"),
               hooks_json("touch pwned; exit 2", ", \"cwd\": " + write_json(boost::json::string(cwd))));
    trust();
    EXPECT_THAT(hookctl_decides("ls"), AllOf(HasSubstr(".github/hooks/x.json"), HasSubstr("hooks.PreToolUse[0].cwd")));
    setup_refuses(".github/hooks/x.json", "hooks.PreToolUse[0].cwd");
    EXPECT_FALSE(fs::exists(marker()));
    EXPECT_FALSE(fs::exists(project_.path().parent_path() / "pwned"));
  }
}

// Attack 35: a trusted hook runs ./guard.sh in its "cwd" sub; a pull changes
// sub/guard.sh. The fingerprint found the script where the command runs it,
// from its cwd, so the change is a change: nothing of the project runs.
TEST_F(VsCodeAttacks, Attack35APullChangingAScriptNamedFromTheHooksCwdRunsNothing) {
  install_users_guard();
  user_reads_agent_hooks("vscode");
  write_file(upstream(".github/hooks/x.json"), hooks_json("./guard.sh", ", \"cwd\": \"sub\""));
  write_file(upstream("sub/guard.sh"), "#!/bin/sh\nexit 0\n", 0755);
  attacker_commits("a guard in sub");
  user_pulls();
  trust();
  write_file(upstream("sub/guard.sh"), "#!/bin/sh\n" + touch_marker() + "\nexit 2\n", 0755);
  attacker_commits("tighten the guard");
  user_pulls();
  nothing_of_the_project_runs();
}

// Attack 36: a trusted hook's "env" sets BASH_ENV (or LD_PRELOAD) to a file
// of the repository that no trust covers, so that a later pull changes what
// its bash (or any program) loads. No hook may set such a variable, in VS
// Code's files or in Copilot CLI's beside them: an error naming the file and
// JSON path, and nothing runs.
TEST_F(VsCodeAttacks, Attack36AGithubHooksEnvCannotMakeItLoadUncheckedCode) {
  struct Agent {
    std::string key;
    std::string event;  // its tool-call event in the file
    std::string (*file)(const std::string& command, const std::string& more);
  };
  const Agent agents[] = {
      {"vscode", "PreToolUse", &hooks_json},
      {"copilot", "preToolUse", [](const std::string& command, const std::string& more) {
         return R"({"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": )" +
                write_json(boost::json::string(command)) + more + "}]}}";
       }}};
  for (const Agent& agent : agents)
    for (const std::string variable : {"BASH_ENV", "LD_PRELOAD"}) {
      SCOPED_TRACE(agent.key + " " + variable);
      install_users_guard();
      user_reads_agent_hooks(agent.key);
      write_file(in_project("init.sh"), touch_marker() + "\n");
      write_file(in_project(".github/hooks/x.json"),
                 agent.file("bash -c true", ", \"env\": {\"" + variable + "\": \"" + in_project("init.sh").string() + "\"}"));
      trust();
      const std::string path = "hooks." + agent.event + "[0].env." + variable;
      EXPECT_THAT(hookctl_decides("ls"), AllOf(HasSubstr(".github/hooks/x.json"), HasSubstr(path)));
      setup_refuses(".github/hooks/x.json", path);
      EXPECT_FALSE(fs::exists(marker()));
    }
}

// Attack 37: a trusted project's hook runs a reviewed script with
// "env": {"NODE_OPTIONS": "--require ./tools/preload.js"}: node loads the
// preload file too, which nothing the command names leads to. The
// variable is said, before trust and in the list, as a construct whose
// files are not covered, as `NODE_OPTIONS=... node guard.js` in the command is.
TEST_F(VsCodeAttacks, Attack37AnEnvThatMakesNodeLoadAFileIsNamedAsNotCovered) {
  user_reads_agent_hooks("vscode");
  write_file(upstream("tools/guard.js"), "process.exit(0);\n");
  write_file(upstream("tools/preload.js"), "\n");
  write_file(upstream(".github/hooks/x.json"),
             hooks_json("node tools/guard.js", R"(, "env": {"NODE_OPTIONS": "--require ./tools/preload.js"})"));
  attacker_commits("a node guard");
  user_pulls();
  const std::string why = "NODE_OPTIONS makes programs load or run what it names, which is not resolved";
  EXPECT_THAT(hookctl({"trust", "--dry-run"}).stdout_text,
              AllOf(HasSubstr("NODE_OPTIONS=--require ./tools/preload.js"), HasSubstr(why)));
  trust();
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr(why));
}

}  // namespace
}  // namespace hookbus
