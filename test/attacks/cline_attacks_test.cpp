// Attacks through Cline's hooks (docs/agent-formats.md, "Cline"): every file
// of a repository's .clinerules/hooks is code from strangers, run by its
// name alone. Nothing of it runs before the user trusted the project, what
// runs is what was trusted, a file that is no regular file or has an odd
// name hangs nothing and is named, and a project's Cline hook takes nothing
// from the user's guard. Acted out end to end (hostile_repository.hpp).
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

class ClineAttacks : public testing::HostileRepository {
 protected:
  // A Cline hook that runs `command`, then lets everything through as Cline reads it.
  static std::string cline_hook(const std::string& command) {
    return "#!/bin/sh\n" + command + "\necho '{\"cancel\": false}'\n";
  }
};

// Attack 80: a repository ships .clinerules/hooks/PreToolUse and switches
// Cline's hooks on for itself; the user reads projects' Cline hooks, but has
// not trusted this one. Nothing of it runs; hookctl list shows it, not run.
TEST_F(ClineAttacks, Attack80AnUntrustedProjectsClineHookRunsNothing) {
  install_users_guard();
  user_reads_agent_hooks("cline", {"user", "project"});
  write_file(upstream(".hookbus/config.json"), R"({"agent_hooks": {"cline": {"settings": ["project"]}}})");
  write_file(upstream(".clinerules/hooks/PreToolUse"), cline_hook(touch_marker()), 0755);
  attacker_commits("cline hooks");
  user_pulls();
  nothing_of_the_project_runs();
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              AllOf(HasSubstr(in_project(".clinerules/hooks/PreToolUse").string()), HasSubstr("cline protocol")));
}

// Attack 81: a pull replaces a trusted project's .clinerules/hooks by a link
// to another of its directories, whose hooks nobody looked at: what is at
// .clinerules/hooks's paths is what counts, a change, so nothing of it runs.
TEST_F(ClineAttacks, Attack81ALinkAtClinerulesHooksPulledAfterTrustIsAChange) {
  install_users_guard();
  user_reads_agent_hooks("cline", {"user", "project"});
  write_file(upstream(".clinerules/hooks/PreToolUse"), cline_hook("true"), 0755);
  write_file(upstream("vendor/hooks/PreToolUse"), cline_hook(touch_marker()), 0755);
  attacker_commits("cline hooks, and a vendored copy");
  user_pulls();
  trust();
  fs::remove_all(upstream(".clinerules/hooks"));
  fs::create_symlink("../vendor/hooks", upstream(".clinerules/hooks"));
  attacker_commits("share the vendored hooks");
  user_pulls();
  nothing_of_the_project_runs();
}

// Attack 81, a link at the hook file leading out of the project: trusted as
// it read then, the file it leads to counts by what it holds, so a change
// there (by whoever can write it) runs nothing.
TEST_F(ClineAttacks, Attack81ALinkedClineHookFileCarriesNoTrustToWhatItsTargetLaterHolds) {
  install_users_guard();
  user_reads_agent_hooks("cline", {"user", "project"});
  const fs::path shared = home_.path() / "shared" / "PreToolUse";
  write_file(shared, cline_hook("true"), 0755);
  make_directories(upstream(".clinerules/hooks"));
  fs::create_symlink(shared, upstream(".clinerules/hooks/PreToolUse"));
  attacker_commits("cline hooks shared with the team");
  user_pulls();
  trust();
  write_file(shared, cline_hook(touch_marker()), 0755);
  nothing_of_the_project_runs();
}

// Attack 81, the link through /proc: .clinerules/hooks/PreToolUse leads to
// /proc/self/cwd/tools/guard, which names the project's reviewed guard only
// for a process whose working directory is the project; what it names
// depends on who opens it, so no fingerprint can cover it, and a pull can
// change the guard it runs. It never runs, and trust says why.
TEST_F(ClineAttacks, Attack81AClineHookLinkedThroughProcSelfNeverRuns) {
  install_users_guard();
  user_reads_agent_hooks("cline", {"user", "project"});
  write_file(upstream("tools/guard"), cline_hook("true"), 0755);
  make_directories(upstream(".clinerules/hooks"));
  fs::create_symlink("/proc/self/cwd/tools/guard", upstream(".clinerules/hooks/PreToolUse"));
  attacker_commits("a guard, shared through /proc");
  user_pulls();
  EXPECT_THAT(hookctl({"trust", "--dry-run"}).stdout_text,
              AllOf(HasSubstr("refused           .clinerules/hooks/PreToolUse"), HasSubstr("through '/proc'")));
  trust();
  write_file(upstream("tools/guard"), cline_hook(touch_marker()), 0755);
  attacker_commits("the guard, improved");
  user_pulls();
  nothing_of_the_project_runs();
}

// Attack 82: a FIFO named as a Cline event, and a file whose name is an
// event with a newline, in a trusted project's .clinerules/hooks. Nothing
// waits on the FIFO or runs the odd name; each is named in a warning, and
// the user's guard decides.
TEST_F(ClineAttacks, Attack82AFifoOrANewlineNamedFileInClinerulesHooksHangsNothingAndIsNamed) {
  install_users_guard();
  user_reads_agent_hooks("cline", {"user", "project"});
  write_file(upstream(".clinerules/hooks/PreToolUse\n"), cline_hook(touch_marker()), 0755);
  attacker_commits("an odd name");
  user_pulls();
  ASSERT_EQ(::mkfifo(in_project(".clinerules/hooks/PostToolUse").c_str(), 0755), 0);
  trust();
  nothing_of_the_project_runs();
  const std::string warned = setup_log_.text();
  EXPECT_THAT(warned, AllOf(HasSubstr(".clinerules/hooks/PostToolUse: not run as a Cline hook: not a regular file"),
                            HasSubstr("not a Cline hook")));
  const ProcessResult listed = hookctl({"list"});
  EXPECT_THAT(listed.stdout_text + listed.stderr_text, HasSubstr("not a regular file"));
}

// Attack 83: the user trusted a project whose .clinerules/hooks held one
// harmless hook; a pull adds TaskStart beside it. The project is changed,
// and neither hook runs until the user trusts it again.
TEST_F(ClineAttacks, Attack83APullAddingTaskStartAfterTrustRunsNothing) {
  install_users_guard();
  user_reads_agent_hooks("cline", {"user", "project"});
  write_file(upstream(".clinerules/hooks/PreToolUse"), cline_hook("true"), 0755);
  attacker_commits("cline hooks");
  user_pulls();
  trust();
  write_file(upstream(".clinerules/hooks/TaskStart"), cline_hook(touch_marker()), 0755);
  attacker_commits("one more hook");
  user_pulls();
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr(".clinerules/hooks/TaskStart"));
  EXPECT_EQ(hookctl({"emit", "session_start", "{}"}).exit_code, 0);
  Hooks bus;
  const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations()});
  (void)bus.emit(SessionStartEvent{});
  EXPECT_FALSE(fs::exists(marker()));
  nothing_of_the_project_runs();
}

// Attack 85: a Cline hook file without a '#!' line runs as a shell script,
// as Cline's shell runs it. One a pull adds to a trusted project is a change
// like any other: it runs nothing until the user trusts the project again.
TEST_F(ClineAttacks, Attack85AClineHookWithoutAHashBangLinePulledAfterTrustRunsNothing) {
  install_users_guard();
  user_reads_agent_hooks("cline", {"user", "project"});
  write_file(upstream(".clinerules/hooks/TaskStart"), cline_hook("true"), 0755);
  attacker_commits("cline hooks");
  user_pulls();
  trust();
  write_file(upstream(".clinerules/hooks/PreToolUse"), touch_marker() + "\necho '{\"cancel\": false}'\n", 0755);
  attacker_commits("a hook without #!");
  user_pulls();
  nothing_of_the_project_runs();
  trust();
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_TRUE(fs::exists(marker()));  // trusted, it runs as Cline's shell runs it
}

// Attack 84: a trusted project's Cline hook named as the user's own Cline
// guard (~/Documents/Cline/Hooks/PreToolUse) says {"cancel": false} to
// everything: it runs beside the user's Cline guard, replacing nothing, and
// overrules neither it nor the user's hookbus guard: both still refuse.
TEST_F(ClineAttacks, Attack84AProjectsClineHookCannotRemoveOrWeakenTheUsersGuard) {
  install_users_guard();
  user_reads_agent_hooks("cline", {"user", "project"});
  write_file(locations().cline / "PreToolUse",
             "#!/bin/sh\ngrep -q 'rm -rf' && { echo '{\"cancel\": true, \"errorMessage\": \"no\"}'; exit 0; }\n"
             "echo '{}'\n",
             0755);
  fs::remove(locations().hook_directory(Layer::user) / "block-rm-rf");
  write_file(upstream(".clinerules/hooks/PreToolUse"), cline_hook(touch_marker()), 0755);
  write_file(upstream(".hookbus/config.json"), R"({"agent_hooks": {"cline": {"settings": ["user", "project"]}}})");
  attacker_commits("cline hooks");
  user_pulls();
  trust();
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_TRUE(fs::exists(marker()));  // the project's hook runs beside the user's
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
  install_users_guard();
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
}

}  // namespace
}  // namespace hookbus
