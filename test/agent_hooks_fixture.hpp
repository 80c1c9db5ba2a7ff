#pragma once
// The fixture of the tests of each agent's hook format (VS Code's, Gemini
// CLI's, ...): a project, and every agent's user directories in a scratch
// root; the project's files of an agent switched on and trusted as a user
// would; setup() on the test's bus; and what setup() logged.

#include "log_capture.hpp"
#include "script_fixture.hpp"

#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trust.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus::testing {

class AgentHooksFixture : public NothingLeftBehind {
 protected:
  Locations locations() const {
    return {.managed = root_ / "etc",
            .user = root_ / "user",
            .project = project_.path(),
            .state = root_ / "state",
            .cache = root_ / "cache",
            .claude = root_ / "claude",
            .codex = root_ / "codex",
            .qwen = root_ / "qwen",
            .gemini = root_ / "gemini",
            .cursor = root_ / "cursor",
            .copilot = root_ / "copilot",
            .cline = root_ / "Documents" / "Cline" / "Hooks",
            .cursor_enterprise = root_ / "etc-cursor",
            .gemini_system_settings = root_ / "etc-gemini" / "settings.json"};
  }
  std::filesystem::path in_project(const std::string& relative) const { return project_ / relative; }

  // The project's config reads the project's own files of `agent` (its key under agent_hooks).
  void switch_on(std::string_view agent) const {
    write_file(locations().config_file(Layer::project),
               R"({"agent_hooks": {")" + std::string(agent) + R"(": {"settings": ["project"]}}})");
  }
  // The user trusts the project as it is now.
  void trust_project() const {
    Hooks scratch;
    const Installation looked = setup(scratch, {.project_dir = project_.path(), .locations = locations()});
    TrustStore::at(locations()).trust(project_.path(), looked.report.trust.now);
  }
  // setup() on the test's bus, in place of what it installed before; what it
  // installs stays until the test ends.
  void install() {
    installed_.reset();
    installed_.emplace(setup(hooks_, {.project_dir = project_.path(), .locations = locations()}));
    warnings_ = installed_->report.warnings;
  }
  EventContext context() const { return {.session_id = "s1", .cwd = project_.path().string()}; }
  // One call of a shell tool (bash), on what setup() installs now.
  ToolCallResult emit_bash(const std::string& command, const std::string& tool = "bash") {
    install();
    return hooks_.emit(
        ToolCallEvent{.context = context(), .tool_call_id = "c1", .tool_name = tool, .input = {{"command", command}}});
  }

  TempDir root_;
  TempDir project_;
  LogCapture log_;
  Hooks hooks_;
  std::optional<Installation> installed_;
  std::vector<std::string> warnings_;
};

}  // namespace hookbus::testing
