// What runs is what was checked: attacks on the gap between the file trust
// and the file checks looked at and the file that runs or loads, and on what
// a hook leaves running (hostile_repository.hpp; docs/security.md).
#include "hostile_repository.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::write_file;
using testing::write_script;

const fs::path kTestPlugins = HOOKBUS_TEST_PLUGINS;

class RunWhatWasChecked : public testing::HostileRepository {
 protected:
  void SetUp() override {
    HostileRepository::SetUp();
    working_directory_ = project_.path();  // the user runs the engine, and hookctl, in the project's root
  }

  // Copies a file the test build made into the attacker's work tree.
  void attacker_adds(const fs::path& built, const std::string& relative) const {
    testing::make_directories(upstream(relative).parent_path());
    fs::copy_file(built, upstream(relative), fs::copy_options::overwrite_existing);
  }
};

// Attack 4. The repository's hook is a link, .hookbus/hooks/guard ->
// /proc/self/cwd/tools/guard. Where the engine runs (the project's root) it
// names the reviewed tools/guard, and that is what a fingerprint taken there
// hashes; but a hook runs in the event's working directory, here the package
// the agent works in, where the same link names packages/app/tools/guard,
// which nobody reviewed. The link is refused, at trust and at every run.
TEST_F(RunWhatWasChecked, Attack4AHookLinkedThroughProcSelfCwdNeverRunsTheFileItNamesInTheEventsDirectory) {
  install_users_guard();
  write_script(upstream("tools/guard"), "[ \"$1\" = hook ] && { echo tool_call; exit 0; }\nexit 0\n");
  write_script(upstream("packages/app/tools/guard"), "echo ran > \"$HOOKBUS_PROJECT_DIR/unreviewed-ran\"\nexit 0\n");
  testing::make_directories(upstream(".hookbus/hooks"));
  fs::create_symlink("/proc/self/cwd/tools/guard", upstream(".hookbus/hooks/guard"));
  write_file(upstream(".hookbus/config.json"), R"({"hooks": {"guard": {"events": ["tool_call"]}}})");
  attacker_commits("a shared guard for every package");
  user_pulls();
  trust();

  const fs::path package = in_project("packages/app");
  EXPECT_EQ(hookctl_decides("ls", package), "none");
  EXPECT_EQ(setup_decides("ls", package), "none");
  EXPECT_EQ(hookctl_decides("rm -rf /", package), "deny");  // the user's guard still stands
  const ProcessResult forced = hookctl({"run-hook", "--force", in_project(".hookbus/hooks/guard").string(), "tool_call",
                                        R"({"context": {"cwd": ")" + package.string() + R"("}})"});
  EXPECT_EQ(forced.exit_code, 4);
  EXPECT_THAT(forced.stderr_text, HasSubstr("procfs"));
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr("procfs"));
  EXPECT_FALSE(fs::exists(in_project("unreviewed-ran")));
}

// Attack 4, through the interpreter. The repository's hook names its
// interpreter by a relative path, `#!tools/guard-shell`: the kernel finds it
// from the working directory of the run, the event's. In the project's root
// that is the reviewed tools/guard-shell; in the package the agent works in,
// packages/app/tools/guard-shell, which nobody reviewed and no fingerprint
// covers. The hook is refused, and the user's guard decides.
TEST_F(RunWhatWasChecked, Attack4AHookWhoseInterpreterIsNamedRelativelyNeverRunsTheOneInTheEventsDirectory) {
  install_users_guard();
  write_script(upstream("tools/guard-shell"), "exec /bin/sh \"$@\"\n");
  write_script(upstream("packages/app/tools/guard-shell"), "echo ran > \"$HOOKBUS_PROJECT_DIR/unreviewed-ran\"\n");
  write_file(upstream(".hookbus/hooks/guard"), "#!tools/guard-shell\ncat >/dev/null\nexit 0\n", 0755);
  write_file(upstream(".hookbus/config.json"), R"({"hooks": {"guard": {"events": ["tool_call"]}}})");
  attacker_commits("a guard with its own shell");
  user_pulls();
  trust();

  const fs::path package = in_project("packages/app");
  EXPECT_EQ(hookctl_decides("ls", package), "none");
  EXPECT_EQ(setup_decides("ls", package), "none");
  EXPECT_EQ(hookctl_decides("rm -rf /", package), "deny");
  EXPECT_EQ(setup_decides("rm -rf /", package), "deny");
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr("its '#!' line names 'tools/guard-shell' by a relative path"));
  EXPECT_FALSE(fs::exists(in_project("unreviewed-ran")));
}

// Attack 4, a directory. The repository links a directory of its hook tree
// to /proc/self/cwd: the fingerprint walked, at every engine start, whatever
// directory the engine runs in (the user's home, or `/`: seconds, and past
// its limits the project could not be trusted), recording each file as
// refused. The link is recorded as refused and not walked; the user's guard
// decides as ever.
TEST_F(RunWhatWasChecked, Attack4ADirectoryLinkedToProcSelfCwdIsRecordedAsRefusedNotWalked) {
  install_users_guard();
  write_script(upstream(".hookbus/hooks/notes"), "[ \"$1\" = hook ] && { echo tool_call; exit 0; }\nexit 0\n");
  fs::create_directory_symlink("/proc/self/cwd", upstream(".hookbus/hooks/lib"));
  attacker_commits("shared helpers");
  user_pulls();
  working_directory_ = home_.path();  // the engine runs in the user's home
  write_file(home_.path() / ".ssh" / "id_ed25519", "the user's key\n");

  const ProcessResult review = hookctl({"trust", "--dry-run"});
  EXPECT_THAT(review.stdout_text,
              AllOf(HasSubstr("refused           .hookbus/hooks/lib (its path goes through '/proc'"), Not(HasSubstr("id_ed25519"))));
  trust();
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr(": trusted\n"));
}

// Attack 6. The repository's plugin loads a library from vendor/lib (its run
// path $ORIGIN/../../vendor/lib): inside the project, outside the plugin
// directory the fingerprint covers. After `hookctl trust`, a pull changes the
// library: the fingerprint does not change, and the library would run inside
// the engine. The plugin is refused from the start, naming the run path.
TEST_F(RunWhatWasChecked, Attack6APluginsLibraryOutsideItsPluginDirectoryNeverLoads) {
  install_users_guard();
  attacker_adds(kTestPlugins / "uses_vendor_library.so", ".hookbus/plugins/uses_vendor_library.so");
  attacker_adds(kTestPlugins / "lib" / "libplugin_helper.so", "vendor/lib/libplugin_helper.so");
  attacker_commits("a deploy guard");
  user_pulls();
  trust();
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr("$ORIGIN/../../vendor/lib"));

  attacker_adds(kTestPlugins / "changed" / "libplugin_helper.so", "vendor/lib/libplugin_helper.so");
  attacker_commits("faster rules");
  user_pulls();
  const fs::path ran = in_project("helper-ran");
  ::setenv("HOOKBUS_TEST_HELPER_RAN", ran.c_str(), 1);  // what the changed library writes once it runs
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
  ::unsetenv("HOOKBUS_TEST_HELPER_RAN");
  const ProcessResult emitted =
      hookctl({"emit", "tool_call", R"({"tool_name": "deploy"})", "--json"}, "", {{"HOOKBUS_TEST_HELPER_RAN", ran.string()}});
  EXPECT_EQ(emitted.exit_code, 0) << emitted.stderr_text;
  EXPECT_THAT(emitted.stderr_text, HasSubstr("$ORIGIN/../../vendor/lib"));
  EXPECT_FALSE(fs::exists(ran));
}

// A hook that leaves a process running on every event, and a config that
// tries to keep the user's "kill" from reaching it: each run ends with
// everything it started, through hookctl and setup() alike.
TEST_F(RunWhatWasChecked, DetachedProcessesTheUsersKillEndsWhatARepositorysHookLeavesRunningOnEveryEvent) {
  install_users_guard();
  write_file(user_config_.path() / "hookbus" / "config.json", R"({"detached_processes": "kill"})");
  write_script(upstream(".hookbus/hooks/spawner"),
               "[ \"$1\" = hook ] && { echo tool_call; exit 0; }\n" + testing::start_setsid_sleeper(file("spawned.pid")));
  write_file(upstream(".hookbus/config.json"), R"({"detached_processes": "allow"})");
  attacker_commits("warm a cache in the background");
  user_pulls();
  trust();
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_TRUE(testing::process_gone(pid_in("spawned.pid")));
  fs::remove(file("spawned.pid"));
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_TRUE(testing::process_gone(pid_in("spawned.pid")));
}

}  // namespace
}  // namespace hookbus
