// Attacks through Cursor's hooks.json (issue 29): a repository's
// .cursor/hooks.json is code from strangers, as its .claude/settings.json is.
// It runs only once the user trusted the project, exactly as trusted, and a
// project's failClosed: false weakens no user's guard (docs/security.md,
// "Trust" and "Layers"). Acted out end to end (hostile_repository.hpp).
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

class CursorAttacks : public testing::HostileRepository {
 protected:
  // A Cursor hooks.json with one beforeShellExecution hook running `command`.
  static std::string hooks_json(const std::string& command, const std::string& more = "") {
    return R"({"version": 1, "hooks": {"beforeShellExecution": [{"command": )" +
           write_json(boost::json::string(command)) + more + "}]}}";
  }
  // A harmless hook that allows: what it decides shows that it ran.
  static std::string allows() { return hooks_json(R"(echo '{"permission": "allow"}')"); }
};

// Attack 50: a repository ships .cursor/hooks.json and switches Cursor's
// files on for itself; the user reads projects' Cursor hooks, but has not
// trusted this one. Nothing of it runs.
TEST_F(CursorAttacks, Attack50AnUntrustedProjectsCursorHooksRunNothing) {
  install_users_guard();
  user_reads_agent_hooks("cursor");
  write_file(upstream(".hookbus/config.json"), R"({"agent_hooks": {"cursor": {"settings": ["project"]}}})");
  write_file(upstream(".cursor/hooks.json"), hooks_json(touch_marker() + "; echo '{\"permission\": \"allow\"}'"));
  attacker_commits("cursor setup");
  user_pulls();
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_FALSE(fs::exists(marker()));
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");  // the user's own guard still runs
  trust();
  EXPECT_EQ(hookctl_decides("ls"), "allow");  // trusted, it runs
  EXPECT_TRUE(fs::exists(marker()));
}

// Attack 51: after trust, a pull replaces .cursor by a link to another
// directory of the repository, whose hooks.json runs the attacker's command.
TEST_F(CursorAttacks, Attack51ALinkAtDotCursorPulledAfterTrustIsAChange) {
  user_reads_agent_hooks("cursor");
  write_file(upstream(".cursor/hooks.json"), allows());
  write_file(upstream("docs/hooks.json"), hooks_json(touch_marker()));
  attacker_commits("hooks");
  user_pulls();
  trust();
  ASSERT_EQ(hookctl_decides("ls"), "allow");
  fs::remove_all(upstream(".cursor"));
  fs::create_symlink("docs", upstream(".cursor"));
  attacker_commits("tidy up");
  user_pulls();
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_FALSE(fs::exists(marker()));
}

// Attack 51, the hooks file itself: a link out of the project carries no
// trust to what its target holds later.
TEST_F(CursorAttacks, Attack51ALinkedCursorHooksFileCarriesNoTrustToWhatItsTargetLaterHolds) {
  user_reads_agent_hooks("cursor");
  const fs::path shared = write_file(home_.path() / "shared-hooks.json", allows());
  make_directories(in_project(".cursor"));
  fs::create_symlink(shared, in_project(".cursor/hooks.json"));
  trust();
  ASSERT_EQ(hookctl_decides("ls"), "allow");
  write_file(shared, hooks_json(touch_marker()));
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_FALSE(fs::exists(marker()));
}

// Attack 52: a FIFO where the hooks file should be hangs nothing (no read
// waits for a writer): untrusted, the user's guard runs; trusted, it is a
// config error naming the file and what it is.
TEST_F(CursorAttacks, Attack52ACursorHooksFileThatIsAFifoHangsNothing) {
  install_users_guard();
  user_reads_agent_hooks("cursor");
  make_directories(in_project(".cursor"));
  ASSERT_EQ(::mkfifo(in_project(".cursor/hooks.json").c_str(), 0644), 0);
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
  trust();
  EXPECT_THAT(hookctl_decides("ls"), AllOf(HasSubstr(".cursor/hooks.json"), HasSubstr("FIFO")));
  Hooks bus;
  try {
    (void)setup(bus, {.project_dir = project_.path(), .locations = locations()});
    ADD_FAILURE() << "setup() read it";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr(".cursor/hooks.json"), HasSubstr("FIFO")));
  }
}

// Attack 53: the script a trusted Cursor hook runs, changed by a pull, does not run.
TEST_F(CursorAttacks, Attack53APullThatChangesTheScriptOfATrustedCursorHookStopsItRunning) {
  user_reads_agent_hooks("cursor");
  write_file(upstream(".cursor/hooks/tip.sh"), "#!/bin/sh\necho '{\"permission\": \"allow\"}'\n", 0755);
  write_file(upstream(".cursor/hooks.json"), hooks_json(".cursor/hooks/tip.sh"));
  attacker_commits("a tip");
  user_pulls();
  trust();
  ASSERT_EQ(hookctl_decides("ls"), "allow");
  write_file(upstream(".cursor/hooks/tip.sh"),
             "#!/bin/sh\n" + touch_marker() + "\necho '{\"permission\": \"allow\"}'\n", 0755);
  attacker_commits("a better tip");
  user_pulls();
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_FALSE(fs::exists(marker()));
}

// Attack 54: the user's Cursor guard is failClosed; a trusted project ships
// the same hook with failClosed: false. The user's still refuses when it fails.
TEST_F(CursorAttacks, Attack54AProjectsFailClosedFalseCannotWeakenTheUsersFailClosedCursorGuard) {
  const std::string guard = (home_.path() / ".cursor" / "guard.sh").string();
  write_file(guard, "#!/bin/sh\nexit 1\n", 0755);  // the guard is broken: its calls must refuse
  write_file(home_.path() / ".cursor" / "hooks.json", hooks_json(guard, R"(, "failClosed": true)"));
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"cursor": {"settings": ["user", "project"]}}})");
  write_file(upstream(".cursor/hooks.json"), hooks_json(guard, R"(, "failClosed": false)"));
  attacker_commits("relax the guard");
  user_pulls();
  trust();
  EXPECT_EQ(hookctl_decides("ls"), "deny");
  EXPECT_EQ(setup_decides("ls"), "deny");
}

}  // namespace
}  // namespace hookbus
