#pragma once
// Test fixture for hookctl run as the real binary (HOOKCTL_PATH) against a
// project written into a temporary directory, with managed, user, state and
// cache directories of its own: the hookctl tests and the attack suite
// (test/attacks/) act through it as a user does.
#include "claude_code_hooks.hpp"
#include "needs_root.hpp"
#include "script_fixture.hpp"

#include <hookbus/process.hpp>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace hookbus::testing {

inline const std::filesystem::path kHookctl = HOOKCTL_PATH;
inline const std::filesystem::path kExamples = HOOKBUS_EXAMPLE_HOOKS;
inline const std::string kCall = R"({"tool_call_id": "c1", "tool_name": "bash"})";

// Every test ends by checking that nothing hookctl or its hooks started is left
// (testing::NothingLeftBehind): no process, however detached, no descriptor.
class HookctlFixture : public NothingLeftBehind {
 protected:
  void SetUp() override {
    NothingLeftBehind::SetUp();
    HOOKBUS_NEEDS_ISOLATED_MANAGED_DIR();
  }

  std::filesystem::path hook(const std::string& name) const { return project_.path() / ".hookbus" / "hooks" / name; }

  // hookctl ARGS --project <project>, with empty managed, user, state and
  // cache directories of its own, and the system's python3 first in PATH (for
  // `#!/usr/bin/env python3`): a PATH shim such as pyenv's can take seconds to start.
  ProcessResult hookctl(std::vector<std::string> args, std::string input = "",
                        std::vector<std::pair<std::string, std::string>> extra = {}) const {
    args.insert(args.end(), {"--project", project_.path().string()});
    std::vector<std::pair<std::string, std::string>> variables = environment();
    for (auto& [name, value] : extra) {  // replacing a variable of the same name
      const auto same = std::ranges::find(variables, name, &std::pair<std::string, std::string>::first);
      if (same != variables.end()) same->second = std::move(value);
      else variables.emplace_back(std::move(name), std::move(value));
    }
    return run_process({.program = kHookctl,
                        .arguments = std::move(args),
                        .extra_environment = std::move(variables),
                        .working_directory = working_directory_,
                        .input = std::move(input),
                        .timeout = std::chrono::seconds(20)});
  }
  // Hermetic: HOME (so ~/.claude, ~/.codex, ~/.qwen, ~/.gemini, ~/.cursor,
  // ~/.copilot, ~/Documents/Cline) and every XDG directory are scratch ones, and each agent's
  // variable for its directory is empty (unset for hookbus), whatever the
  // test runner's are.
  std::vector<std::pair<std::string, std::string>> environment() const {
    return {{"HOME", home_.path().string()},
            {"XDG_CONFIG_HOME", user_config_.path().string()},
            {"XDG_STATE_HOME", (home_.path() / "state").string()},
            {"XDG_CACHE_HOME", (home_.path() / "cache").string()},
            {"XDG_DATA_HOME", (home_.path() / "data").string()},
            {"CLAUDE_CONFIG_DIR", ""},
            {"CODEX_HOME", ""},
            {"QWEN_HOME", ""},
            {"GEMINI_CLI_HOME", ""},
            {"COPILOT_HOME", ""},
            {"XDG_DOCUMENTS_DIR", ""},
            {"HOOKBUS_MANAGED_DIR", (home_.path() / "managed").string()},
            {"PATH", "/usr/bin:/bin"}};
  }
  // The project as it is now is trusted (hookctl trust), so its hooks and config run.
  void trust() const {
    const ProcessResult r = hookctl({"trust"});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  }

  // hookctl under a pseudo-terminal (util-linux `script`), stdout and stderr
  // both on it, with NO_COLOR as given; returns what the terminal received.
  std::string on_a_terminal(const std::vector<std::string>& hookctl_arguments, const std::string& no_color) const {
    std::string command = "exec " + kHookctl.string();
    for (const std::string& argument : hookctl_arguments) command += " '" + argument + "'";
    std::vector<std::pair<std::string, std::string>> variables = environment();
    variables.insert(variables.end(), {{"TERM", "xterm"}, {"NO_COLOR", no_color}});
    return run_process({.program = "/usr/bin/script",
                        .arguments = {"-qec", command, "/dev/null"},
                        .extra_environment = std::move(variables),
                        .timeout = std::chrono::seconds(20)})
        .stdout_text;
  }

  void add_hook(const std::string& name, const std::string& events, const std::string& body) const {
    write_script(hook(name), "if [ \"$1\" = hook ]; then printf '%s\\n' " + events + "; exit 0; fi\n" + body);
  }

  void use_example(const std::string& name) const {
    write_file(hook(name), read_file(kExamples / name), 0755);
  }

  // A Claude Code hook written like a published one (claude_code_hooks.hpp),
  // installed as such hooks' READMEs say: its script in .claude/hooks/, its
  // entry in .claude/settings.json; then .hookbus/config.json imports the
  // project's settings, and the project is trusted.
  void install_published(const PublishedHook& published, const std::string& tool_names = "{}") const {
    write_published_hook(project_.path(), published);
    write_file(project_.path() / ".claude" / "settings.json", R"({"hooks": )" + hooks_block({published}) + "}");
    write_file(project_.path() / ".hookbus" / "config.json",
               R"({"claude_code": {"settings": ["project"], "tool_names": )" + tool_names + "}}");
    trust();
  }

  // The result of `hookctl emit EVENT JSON --json`.
  boost::json::value emitted(const std::string& event, const std::string& json) const {
    const ProcessResult r = hookctl({"emit", event, json, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    return r.exit_code == 0 ? boost::json::parse(r.stdout_text).at("result") : boost::json::value();
  }


  // The event a hook that writes its payload to stderr was given for partial
  // JSON by `hookctl run-hook` (which reads event JSON as emit does).
  boost::json::value payload_for(const std::string& event, const std::string& partial_json) const {
    add_hook("dump", event, "cat >&2\n");
    const ProcessResult r = hookctl({"run-hook", hook("dump").string(), event, partial_json, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    if (r.exit_code != 0) return nullptr;
    return boost::json::parse(boost::json::parse(r.stdout_text).at("stderr").as_string());
  }

  TempDir project_;
  TempDir user_config_;
  TempDir home_;
  // Where hookctl runs (empty: this test's own working directory).
  std::filesystem::path working_directory_{};
};

}  // namespace hookbus::testing
