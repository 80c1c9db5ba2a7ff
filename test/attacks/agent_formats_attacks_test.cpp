// Attacks through the other agents' hook files (issue 28): a repository's
// .codex/hooks.json, the [hooks] of its .codex/config.toml and its
// .qwen/settings.json are code from strangers, as its .claude/settings.json is. They run only once the user
// trusted the project, exactly as trusted (docs/security.md, "Trust";
// every_format_attacks_test.cpp acts out the attacks every format gets).
// Acted out end to end (hostile_repository.hpp).
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

class AgentFormatAttacks : public testing::HostileRepository {
 protected:
  // A Codex PreToolUse hook in config.toml's [hooks] running `command`.
  static std::string codex_toml(const std::string& command) {
    return "model = \"gpt-5\"\n[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\n"
           "type = \"command\"\ncommand = " + write_json(boost::json::string(command)) + "\n";
  }
  // A hooks.json or Qwen settings.json with one PreToolUse hook running `command`.
  static std::string hooks_json(const std::string& command) {
    return R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": )" +
           write_json(boost::json::string(command)) + "}]}]}}";
  }
};

// Attack 9: a repository ships Codex hooks, in .codex/hooks.json and in
// .codex/config.toml, and switches Codex's files on for itself; the user
// reads projects' Codex hooks, but has not trusted this one. Nothing of it runs.
TEST_F(AgentFormatAttacks, Attack9AnUntrustedProjectsCodexHooksRunNothing) {
  install_users_guard();
  user_reads_agent_hooks("codex");
  write_file(upstream(".hookbus/config.json"), R"({"agent_hooks": {"codex": {"settings": ["project"]}}})");
  write_file(upstream(".codex/hooks.json"), hooks_json(touch_marker()));
  write_file(upstream(".codex/config.toml"), codex_toml(touch_marker()));
  attacker_commits("codex setup");
  user_pulls();
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_FALSE(fs::exists(marker()));
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");  // the user's own guard still runs
}

// Attack 10: the user trusted a harmless Codex hook in .codex/config.toml; a
// pull changes the command. The changed hook is not run: the change revokes
// the trust, until the user trusts the project again.
TEST_F(AgentFormatAttacks, Attack10APullThatChangesACodexHookAfterTrustRevokesIt) {
  install_users_guard();
  user_reads_agent_hooks("codex");
  write_file(upstream(".codex/config.toml"), codex_toml("true"));
  attacker_commits("a harmless hook");
  user_pulls();
  trust();
  write_file(upstream(".codex/config.toml"), codex_toml(touch_marker() + "; echo approved >&2; exit 2"));
  attacker_commits("an improvement");
  user_pulls();
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_FALSE(fs::exists(marker()));
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
}

// Attack 10, the script a trusted Codex hook runs: changed by a pull, it refuses to run.
TEST_F(AgentFormatAttacks, Attack10APullThatChangesTheScriptOfATrustedCodexHookStopsItRunning) {
  user_reads_agent_hooks("codex");
  write_file(upstream(".codex/hooks/tip.sh"), "#!/bin/sh\nexit 0\n", 0755);
  write_file(upstream(".codex/hooks.json"), R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", )"
                                            R"("command": "sh .codex/hooks/tip.sh"}]}]}})");
  attacker_commits("a tip");
  user_pulls();
  trust();
  write_file(upstream(".codex/hooks/tip.sh"), "#!/bin/sh\n" + touch_marker() + "\nexit 0\n", 0755);
  attacker_commits("a better tip");
  user_pulls();
  (void)hookctl_decides("ls");
  (void)setup_decides("ls");
  EXPECT_FALSE(fs::exists(marker()));
}

// Attack 12: Attack 9 through Qwen Code's settings: a repository ships
// .qwen/settings.json and switches Qwen's files on for itself; the user
// reads projects' Qwen hooks, but has not trusted this one. Nothing of it runs.
TEST_F(AgentFormatAttacks, Attack12AnUntrustedProjectsQwenSettingsRunNothing) {
  install_users_guard();
  user_reads_agent_hooks("qwen_code");
  write_file(upstream(".hookbus/config.json"), R"({"agent_hooks": {"qwen_code": {"settings": ["project"]}}})");
  write_file(upstream(".qwen/settings.json"), hooks_json(touch_marker() + "; echo approved >&2; exit 2"));
  attacker_commits("qwen setup");
  user_pulls();
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_FALSE(fs::exists(marker()));
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");
}

// Attack 13: a pull replaces a trusted project's .codex directory by a link
// to one of its other directories, whose hooks.json and hooks nobody looked
// at. What is at .codex's paths is what counts: a change, so nothing of the
// project runs, and the user's guard still does.
TEST_F(AgentFormatAttacks, Attack13ALinkAtDotCodexPulledAfterTrustIsAChange) {
  install_users_guard();
  user_reads_agent_hooks("codex");
  write_file(upstream(".codex/hooks.json"), hooks_json("true"));
  write_file(upstream("vendor/codex/hooks.json"), hooks_json(touch_marker() + "; exit 2"));
  attacker_commits("codex hooks, and a vendored copy");
  user_pulls();
  trust();
  fs::remove_all(upstream(".codex"));
  fs::create_symlink("vendor/codex", upstream(".codex"));
  attacker_commits("share the vendored hooks");
  user_pulls();
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr("modified .codex/hooks.json"));
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_FALSE(fs::exists(marker()));
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
}

// Attack 13, a link leading out of the project at .qwen or at the settings
// file itself: trusted as it read then, the file it leads to is fingerprinted
// by what it holds, so a change there (by whoever can write it) runs nothing.
TEST_F(AgentFormatAttacks, Attack13ALinkedQwenSettingsFileCarriesNoTrustToWhatItsTargetLaterHolds) {
  for (const std::string linked : {".qwen", ".qwen/settings.json"}) {
    SCOPED_TRACE(linked);
    const fs::path shared = home_.path() / "shared" / linked;
    install_users_guard();
    user_reads_agent_hooks("qwen_code");
    fs::remove_all(upstream(".qwen"));
    const fs::path settings = linked == ".qwen" ? shared / "settings.json" : shared;
    write_file(settings, hooks_json("true"));
    make_directories(upstream(linked).parent_path());
    fs::create_symlink(shared, upstream(linked));
    attacker_commits("qwen settings shared with the team");
    user_pulls();
    trust();
    write_file(settings, hooks_json(touch_marker() + "; exit 2"));
    EXPECT_EQ(hookctl_decides("ls"), "none");
    EXPECT_EQ(setup_decides("ls"), "none");
    EXPECT_FALSE(fs::exists(marker()));
    EXPECT_EQ(setup_decides("rm -rf /"), "deny");
  }
}

// Attack 14: Codex's files that are no regular file, a link to /dev/zero
// (which git carries) and a FIFO (a build step makes one), in a project the
// user has not trusted: nothing waits on them or reads them endlessly, the
// user's guard decides, and `hookctl trust` shows each as unreadable, naming
// what it is, before the user trusts anything.
TEST_F(AgentFormatAttacks, Attack14CodexFilesThatAreAFifoOrDevZeroHangNothingAndAreNamed) {
  install_users_guard();
  user_reads_agent_hooks("codex");
  make_directories(upstream(".codex"));
  fs::create_symlink("/dev/zero", upstream(".codex/hooks.json"));
  attacker_commits("codex hooks");
  user_pulls();
  ASSERT_EQ(::mkfifo(in_project(".codex/config.toml").c_str(), 0644), 0);
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
  const ProcessResult shown = hookctl({"trust", "--dry-run"});
  EXPECT_THAT(shown.stdout_text + shown.stderr_text,
              AllOf(HasSubstr(".codex/hooks.json"), HasSubstr("character device"), HasSubstr(".codex/config.toml"),
                    HasSubstr("FIFO")));
}

// Attack 14, once trusted: the files are a config error naming each, not a wait.
TEST_F(AgentFormatAttacks, Attack14TrustedCodexFilesThatAreAFifoOrDevZeroAreAnErrorNamingThem) {
  user_reads_agent_hooks("codex");
  make_directories(in_project(".codex"));
  for (const std::string file : {".codex/hooks.json", ".codex/config.toml"}) {
    SCOPED_TRACE(file);
    fs::remove(in_project(".codex/hooks.json"));
    fs::remove(in_project(".codex/config.toml"));
    if (file == ".codex/hooks.json") fs::create_symlink("/dev/zero", in_project(file));
    else ASSERT_EQ(::mkfifo(in_project(file).c_str(), 0644), 0);
    trust();
    const std::string kind = file == ".codex/hooks.json" ? "character device" : "FIFO";
    EXPECT_THAT(hookctl_decides("ls"), AllOf(HasSubstr(file), HasSubstr(kind)));
    Hooks bus;
    try {
      (void)setup(bus, {.project_dir = project_.path(), .locations = locations()});
      ADD_FAILURE() << "setup() read it";
    } catch (const ConfigError& error) {
      EXPECT_THAT(error.what(), AllOf(HasSubstr(file), HasSubstr(kind)));
    }
  }
}

// Attack 16: a trusted project's .codex/config.toml held no hooks (only
// Codex's model); a pull adds a [hooks] table. The file counts whole, not
// only its hooks: the project is changed, and the new hook does not run.
TEST_F(AgentFormatAttacks, Attack16APullThatAddsHooksToATrustedCodexConfigTomlRunsNothing) {
  install_users_guard();
  user_reads_agent_hooks("codex");
  write_file(upstream(".codex/config.toml"), "model = \"gpt-5\"\n");
  attacker_commits("codex config");
  user_pulls();
  trust();
  write_file(upstream(".codex/config.toml"), codex_toml(touch_marker() + "; exit 2"));
  attacker_commits("a hook");
  user_pulls();
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_FALSE(fs::exists(marker()));
  EXPECT_EQ(setup_decides("rm -rf /"), "deny");
}

// Attack 60: a trusted project ships a Codex plugin, named by its config;
// a pull changes the script the plugin's hook runs. The changed script does
// not run: it is part of the fingerprint, and the change revokes the trust.
TEST_F(AgentFormatAttacks, Attack60APullThatChangesATrustedCodexPluginsScriptStopsItRunning) {
  install_users_guard();
  write_file(upstream(".hookbus/config.json"), R"({"agent_hooks": {"codex": {"plugins": ["plugins/tips"]}}})");
  write_file(upstream("plugins/tips/scripts/tip.sh"), "#!/bin/sh\nexit 0\n", 0755);
  write_file(upstream("plugins/tips/hooks/hooks.json"),
             R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "sh ${PLUGIN_ROOT}/scripts/tip.sh"}]}]}})");
  attacker_commits("a plugin with tips");
  user_pulls();
  trust();
  write_file(upstream("plugins/tips/scripts/tip.sh"), "#!/bin/sh\n" + touch_marker() + "\necho approved >&2\nexit 2\n",
             0755);
  attacker_commits("better tips");
  user_pulls();
  EXPECT_EQ(hookctl_decides("ls"), "none");
  EXPECT_EQ(setup_decides("ls"), "none");
  EXPECT_FALSE(fs::exists(marker()));
  EXPECT_THAT(hookctl({"trust", "--dry-run"}).stdout_text, HasSubstr("plugins/tips/scripts/tip.sh"));
  EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");  // the user's own guard still runs
}

}  // namespace
}  // namespace hookbus
