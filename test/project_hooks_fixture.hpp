#pragma once
// Test fixture for external hooks installed on a bus from a project's hook
// directory with one config (the execution protocol, persistent, background
// and cancellation tests): the bus, its error reports, the log, and the check
// that nothing is left behind once the installation is dropped.
#include "log_capture.hpp"
#include "script_fixture.hpp"

#include <hookbus/external.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus::testing {

// Hang detection only: far above what any of these tests takes.
inline constexpr auto kHangBound = std::chrono::seconds(10);

class ProjectHooks : public NothingLeftBehind {
 protected:
  void SetUp() override {
    NothingLeftBehind::SetUp();
    config_.project_dir = project_.path();
    listener_ = hooks_.on_handler_error([this](const HandlerFailure& e) {
      const std::lock_guard lock(errors_mutex_);
      errors_.push_back(e);
    });
  }
  // The hooks' processes and background threads end with the installation:
  // before the check that nothing is left.
  void TearDown() override {
    installed_ = {};
    NothingLeftBehind::TearDown();
  }

  std::filesystem::path hook(const std::string& name) const { return project_.path() / ".hookbus" / "hooks" / name; }

  // Discovers the project's hooks (the events config declares are not asked)
  // and installs them with config_ as the project layer's config.
  void install(const ExternalInstallOptions& options = {}) {
    HookDirectories dirs;
    dirs.add(project_.path() / ".hookbus" / "hooks", "project");
    const LayeredConfig config({config_});
    report_ = discover_hooks(dirs, {.declared = [&](Layer layer, std::string_view name) -> std::optional<HookDeclaration> {
                                      const ResolvedHookSettings settings = config.hook_settings(layer, name);
                                      if (settings.events.value.empty()) return std::nullopt;
                                      return HookDeclaration{settings.protocol.value, settings.events.value};
                                    }});
    ExternalInstallOptions with_project = options;
    with_project.project_dir = project_.path();
    installed_ = install_external_hooks(hooks_, report_, config, with_project);
  }

  // A persistent hook in sh answering `hook` with `events`. Under `serve` it
  // runs `setup`, appends its pid to the file "pids", then for each request
  // line sets $line and $id (the request's id) and runs `body`, which prints
  // the answer line.
  std::filesystem::path write_server(const std::string& name, const std::string& events, const std::string& body,
                                     const std::string& setup = "") const {
    return write_script(hook(name), "if [ \"$1\" = hook ]; then printf '%s\\n' " + events + "; exit 0; fi\n"
                                    "[ \"$1\" = serve ] || exit 1\n" + setup +
                                    "echo $$ >> '" + file("pids") + "'\n"
                                    "while IFS= read -r line; do\n"
                                    "  id=${line#'{\"id\":'}; id=${id%%,*}\n" +
                                        body + "done\n");
  }

  // The pids the servers wrote into "pids", in start order.
  std::vector<pid_t> pids() const {
    std::vector<pid_t> started;
    std::istringstream lines(read_file(dir_ / "pids"));
    for (std::string line; std::getline(lines, line);) started.push_back(std::stoi(line));
    return started;
  }

  ToolCallEvent tool_call(std::string command = "ls") const {
    return ToolCallEvent{.context = {.session_id = "session-1", .cwd = project_.path().string()},
                         .tool_call_id = "call-1",
                         .tool_name = "bash",
                         .input = {{"command", std::move(command)}}};
  }

  std::vector<HandlerFailure> errors() {
    const std::lock_guard lock(errors_mutex_);
    return errors_;
  }
  // The message of the last error reported, "" when there is none.
  std::string last_error() {
    const std::lock_guard lock(errors_mutex_);
    return errors_.empty() ? "" : errors_.back().message;
  }

  LogCapture log_;
  TempDir project_;
  Config config_;
  Hooks hooks_;
  DiscoveryReport report_;
  InstalledHooks installed_;

  // What the bus reported, in order; errors() and last_error() read it under the lock.
  std::mutex errors_mutex_;
  std::vector<HandlerFailure> errors_;

 private:
  Connection listener_;
};

// A server body: allows, answering only its id.
inline constexpr auto kAllow = "  echo \"{\\\"id\\\":$id}\"\n";
// A server body: denies with the reason "request <id> by <pid>".
inline constexpr auto kDenyNamingTheRequest =
    "  echo \"{\\\"id\\\":$id,\\\"decision\\\":\\\"deny\\\",\\\"reason\\\":\\\"request $id by $$\\\"}\"\n";

}  // namespace hookbus::testing
