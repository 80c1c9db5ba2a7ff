// The hook format interface (lib/formats/hook_format.hpp, docs/hook-formats.md):
// a format that declares its hooks as Claude Code does is a HookFormat, and
// Claude Code's reader, run and installer take it: its event names, its
// timeout unit, its variables and its payload, not Claude Code's. Here a
// format made up like Qwen Code's (timeouts in milliseconds, its own event
// and variable names, a field of its own in the payload).
#include "script_fixture.hpp"

#include "process/background.hpp"
#include "formats/claude_code/installer.hpp"
#include "formats/claude_code/settings.hpp"
#include "formats/hook_format.hpp"

#include <hookbus/claude_code.hpp>
#include <hookbus/hooks.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;
using testing::write_file;
using namespace std::chrono_literals;

constexpr detail::FormatEvent kEvents[] = {{"BeforeTool", {"tool_call", ""}}};

fs::path no_settings_file(const Locations&, Layer) { return {}; }

// Claude Code's payload, with a field Claude Code does not send.
template <class E>
boost::json::object payload_with_model(const E& event, std::string_view format_event,
                                       const ClaudeCodeToolNames& tool_names, std::string_view transcript_path,
                                       const fs::path& project_dir) {
  boost::json::object payload =
      detail::claude_code_payload_of(event, format_event, tool_names, transcript_path, project_dir);
  payload["model"] = "qwen3";
  return payload;
}

const detail::FormatRuns kRuns =
    detail::format_runs([]<class E>(std::type_identity<E>) { return &payload_with_model<E>; },
                        []<class E>(std::type_identity<E>) { return &detail::claude_code_answer<E>; });

const detail::HookFormat kFormat{.protocol = HookProtocol::claude_code,
                                 .agent = "Qwen Code",
                                 .documentation = "docs/qwen-code.md",
                                 .settings_file = &no_settings_file,
                                 .plugin_hooks_file = "hooks/hooks.json",
                                 .events = kEvents,
                                 .tool_names = {},
                                 .timeout_unit = 1ms,
                                 .timeout_unit_name = "milliseconds",
                                 .default_timeout = 60s,
                                 .project_dir_variable = "QWEN_PROJECT_DIR",
                                 .plugin_root_variable = "QWEN_PLUGIN_ROOT",
                                 .runs = &kRuns};

class HookFormat : public testing::NothingLeftBehind {
 protected:
  TempDir dir_;
};

TEST_F(HookFormat, ItsSettingsAreReadWithItsEventNamesAndTimeoutUnit) {
  const fs::path file = dir_ / "settings.json";
  write_file(file, R"({"hooks": {
    "BeforeTool": [{"hooks": [{"type": "command", "command": "./check.sh", "timeout": 1500},
                              {"type": "command", "command": "./audit.sh"}]}],
    "PreToolUse": [{"hooks": [{"type": "command", "command": "./claude.sh"}]}]}})");
  const ClaudeCodeSettings settings = detail::read_format_settings(kFormat, file, Layer::user);
  ASSERT_EQ(settings.commands.size(), 2U);
  EXPECT_EQ(settings.commands[0].event, "BeforeTool");
  EXPECT_EQ(settings.commands[0].timeout, 1500ms);
  EXPECT_EQ(settings.commands[1].timeout, 60s);  // the format's default, not Claude Code's
  EXPECT_THAT(settings.skipped, ElementsAre(HasSubstr("hookbus has no equivalent of the Qwen Code event 'PreToolUse'; "
                                                      "its 1 hook group(s) are not imported (docs/qwen-code.md lists "
                                                      "the events)")));
}

TEST_F(HookFormat, ATimeoutBeyondADayInItsUnitIsAnErrorNamingTheUnit) {
  const fs::path file = dir_ / "settings.json";
  write_file(file, R"({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "x", "timeout": 86400001}]}]}})");
  EXPECT_THAT([&] { (void)detail::read_format_settings(kFormat, file, Layer::user); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr(
                  "hooks.BeforeTool[0].hooks[0].timeout: expected a number of milliseconds from 0 to 86400000, got")));
}

// Its command is registered for what its event stands for, finds its
// variables, reads its payload, and is answered as Claude Code answers.
TEST_F(HookFormat, ItsCommandRunsOnItsEventWithItsVariablesAndPayload) {
  Hooks hooks;
  const std::string command =
      R"(payload=$(cat); case "$payload" in *'"model":"qwen3"'*) ;; *) exit 1 ;; esac; )"
      R"(printf '{"hookSpecificOutput": {"hookEventName": "BeforeTool", "permissionDecision": "deny", )"
      R"("permissionDecisionReason": "%s"}}' "$QWEN_PROJECT_DIR")";
  detail::ClaudeCodeInstaller installer(hooks, kFormat, std::make_shared<detail::BackgroundPool>(BackgroundOptions{}));
  const ConnectionGroup installed = installer.install(
      {ClaudeCodeCommand{.event = "BeforeTool", .command = command, .label = "guard", .source = "test"}},
      ClaudeCodeOptions{.project_dir = dir_.path()});
  const ToolCallResult result =
      hooks.emit(ToolCallEvent{.tool_call_id = "c1", .tool_name = "run_shell_command", .input = {{"command", "ls"}}});
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, dir_.path().string());
}

}  // namespace
}  // namespace hookbus
