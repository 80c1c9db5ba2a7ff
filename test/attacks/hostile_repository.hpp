#pragma once
// The attack suite's fixture: the repository is the attacker. An upstream
// repository (the attacker's) is cloned into the user's checkout (the
// project); the attacker commits whatever git can carry (any file name but
// NUL and '/', modes, links) and the user pulls it, before or after
// `hookctl trust`. The user has the example guard `block-rm-rf` in their own
// hook directory. Each attack is acted out end to end, through hookctl as a
// program (HookctlFixture) and through setup() on a bus in this process, with
// the same directories.
#include "hookctl_fixture.hpp"
#include "log_capture.hpp"
#include "script_fixture.hpp"

#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/reflect.hpp>
#include <hookbus/process.hpp>
#include <hookbus/setup.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookbus::testing {

class HostileRepository : public HookctlFixture {
 protected:
  void SetUp() override {
    HookctlFixture::SetUp();
    if (IsSkipped()) return;
    git(upstream_.path(), {"init", "-q", "-b", "main"});
    attacker_commits("an empty start");
    std::filesystem::remove(project_.path());
    git(upstream_.path().parent_path(), {"clone", "-q", upstream_.path().string(), project_.path().string()});
  }

  // The user's directories, as hookctl sees them (HookctlFixture::environment()).
  Locations locations() const {
    return {.managed = home_.path() / "managed",
            .user = user_config_.path() / "hookbus",
            .project = project_.path(),
            .state = home_.path() / "state" / "hookbus",
            .cache = home_.path() / "cache" / "hookbus",
            .claude = home_.path() / ".claude",
            .codex = home_.path() / ".codex",
            .qwen = home_.path() / ".qwen",
            .gemini = home_.path() / ".gemini",
            .cursor = home_.path() / ".cursor",
            .copilot = home_.path() / ".copilot",
            .cline = home_.path() / "Documents" / "Cline" / "Hooks"};
  }

  // A file of the attacker's upstream work tree (committed by attacker_commits).
  std::filesystem::path upstream(const std::string& relative) const { return upstream_.path() / relative; }
  std::filesystem::path in_project(const std::string& relative) const { return project_.path() / relative; }

  // Commits everything in the upstream work tree (additions, changes, removals).
  void attacker_commits(const std::string& message) const {
    git(upstream_.path(), {"add", "-A"});
    git(upstream_.path(), {"commit", "-q", "--allow-empty", "-m", message});
  }
  // The user's `git pull`: what the attacker committed lands in the project.
  void user_pulls() const { git(project_.path(), {"pull", "-q", "--ff-only"}); }

  // A file outside the project that a hook of the attacker's creates when it
  // runs (touch_marker(), a shell command): its existence says the hook ran.
  std::filesystem::path marker() const { return home_.path() / "pwned"; }
  std::string touch_marker() const { return "touch '" + marker().string() + "'"; }

  // The user reads the hook files of `agent` (its key under agent_hooks) in
  // the layers named, by default those of the projects they trust.
  void user_reads_agent_hooks(std::string_view agent, std::initializer_list<std::string_view> layers = {"project"}) const {
    boost::json::array settings;
    for (const std::string_view layer : layers) settings.emplace_back(layer);
    write_file(locations().config_file(Layer::user),
               write_json(boost::json::object{{"agent_hooks", {{agent, {{"settings", std::move(settings)}}}}}}));
  }

  // Neither hookctl nor setup() runs the project's hook (touch_marker()),
  // and the user's guard still decides.
  void nothing_of_the_project_runs() const {
    EXPECT_EQ(hookctl_decides("ls"), "none");
    EXPECT_EQ(setup_decides("ls"), "none");
    EXPECT_FALSE(std::filesystem::exists(marker()));
    EXPECT_EQ(hookctl_decides("rm -rf /"), "deny");
    EXPECT_EQ(setup_decides("rm -rf /"), "deny");
  }

  // The user's own guard (examples/hooks/block-rm-rf) in their hook directory.
  void install_users_guard() const {
    write_file(locations().hook_directory(Layer::user) / "block-rm-rf", read_file(kExamples / "block-rm-rf"), 0755);
  }

  // `hookctl emit tool_call` for a bash command, the agent working in `cwd`
  // (empty: the project): the decision it prints in JSON ("allow", "ask",
  // "deny"), or "exit N: stderr" when hookctl failed.
  std::string hookctl_decides(const std::string& command, const std::filesystem::path& cwd = {}) const {
    const ProcessResult r = hookctl({"emit", "tool_call", bash_call_json(command, cwd), "--json"});
    if (r.exit_code != 0) return "exit " + std::to_string(r.exit_code.value_or(-1)) + ": " + r.stderr_text;
    return decision_in(r.stdout_text);
  }

  // setup() on a fresh bus with the user's directories, in hookctl's working
  // directory (working_directory_), then one emit of a bash tool_call: the
  // decision's wire name ("allow", "ask", "deny").
  std::string setup_decides(const std::string& command, const std::filesystem::path& cwd = {}) const {
    const std::filesystem::path before = std::filesystem::current_path();
    if (!working_directory_.empty()) std::filesystem::current_path(working_directory_);
    Hooks hooks;
    const Installation installed = setup(hooks, {.project_dir = project_.path(), .locations = locations()});
    const ToolCallResult result = hooks.emit(bash_call(command, cwd));
    std::filesystem::current_path(before);
    return std::string(reflect::enum_wire_name(result.decision).value_or("?"));
  }

  // setup() refuses the project's config: a ConfigError naming `file` and the JSON `path` in it.
  void setup_refuses(const std::string& file, const std::string& path) const {
    Hooks bus;
    try {
      (void)setup(bus, {.project_dir = project_.path(), .locations = locations()});
      ADD_FAILURE() << "setup() read it";
    } catch (const ConfigError& error) {
      EXPECT_THAT(error.what(), ::testing::AllOf(::testing::HasSubstr(file), ::testing::HasSubstr(path)));
    }
  }

  ToolCallEvent bash_call(const std::string& command, const std::filesystem::path& cwd = {}) const {
    return {.context = {.cwd = (cwd.empty() ? project_.path() : cwd).string()},
            .tool_call_id = "c1",
            .tool_name = "bash",
            .input = {{"command", command}}};
  }

  TempDir upstream_;
  LogCapture setup_log_;  // what setup() warned about (setup_decides)

 private:
  static std::string bash_call_json(const std::string& command, const std::filesystem::path& cwd) {
    boost::json::object call{{"tool_call_id", "c1"},
                             {"tool_name", "bash"},
                             {"input", boost::json::object{{"command", command}}}};
    if (!cwd.empty()) call["context"] = boost::json::object{{"cwd", cwd.string()}};
    return write_json(call);
  }
  // `hookctl emit --json`'s result.decision ("none" when the result has none).
  static std::string decision_in(const std::string& emit_json) {
    const boost::json::value printed = boost::json::parse(emit_json);
    const boost::json::value* decision = printed.at("result").as_object().if_contains("decision");
    return decision != nullptr && decision->is_string() ? std::string(decision->get_string()) : "none";
  }

  static void git(const std::filesystem::path& where, std::vector<std::string> args) {
    std::vector<std::string> all{"-C", where.string(), "-c", "user.name=attacker", "-c", "user.email=a@example.com",
                                 "-c", "core.symlinks=true", "-c", "init.defaultBranch=main"};
    all.insert(all.end(), std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
    const ProcessResult r = run_process({.program = "/usr/bin/git",
                                         .arguments = std::move(all),
                                         .extra_environment = {{"GIT_CONFIG_NOSYSTEM", "1"}, {"HOME", "/nonexistent"}},
                                         .timeout = std::chrono::seconds(30)});
    ASSERT_EQ(r.exit_code, 0) << "git failed: " << r.stderr_text;
  }
};

}  // namespace hookbus::testing
