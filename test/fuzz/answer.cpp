// The external-hook answer reader: a finished run (exit status, stdout,
// stderr) turned into the event's result by hook_outcome (hookbus protocol)
// or claude_code_outcome (Claude Code's). Input: byte 0 picks the protocol and
// event, byte 1 the way the run ended, then stdout, a NUL byte, stderr.
#include "oracle.hpp"

#include <hookbus/claude_code.hpp>
#include <hookbus/external.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

#include <array>
#include <optional>

namespace {

using namespace hookbus;

constexpr std::array<std::string_view, 12> claude_events = {
    "PreToolUse",       "PermissionRequest", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Notification",
    "Stop",             "SubagentStart",     "SubagentStop", "PreCompact",        "SessionStart",     "SessionEnd"};

// The run as the process runner reports it; `how` picks exit 0, 2, 1, a
// signal, a timeout or output over the limit.
ProcessResult run_of(std::uint8_t how, std::string_view output) {
  ProcessResult run;
  const auto nul = output.find('\0');
  run.stdout_text = std::string(output.substr(0, nul));
  if (nul != std::string_view::npos) run.stderr_text = std::string(output.substr(nul + 1));
  switch (how % 8) {
    case 0: case 1: case 2: run.exit_code = 0; break;
    case 3: case 4: run.exit_code = 2; break;
    case 5: run.exit_code = 1 + (how >> 3); break;
    case 6: run.signal = 9; run.timed_out = (how & 8) != 0; break;
    case 7: run.exit_code = 0; run.stdout_truncated = true; break;
  }
  return run;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const bool claude = data[0] & 1;
  const ProcessResult run = run_of(data[1], fuzz::text_of(data + 2, size - 2));
  // A file name that is not UTF-8, as odd hook names are: messages quoting it must still be.
  const std::string name = "guard\xff";
  std::optional<HookEvent> event;
  std::optional<HookOutcome> outcome;
  try {
    if (claude) {
      const std::string_view claude_event = claude_events[(data[0] >> 1) % claude_events.size()];
      event = make_event(claude_code_event_targets(claude_event).front());
      const ClaudeCodeCommand hook{.event = std::string(claude_event), .command = "./" + name, .label = name,
                                   .source = "/project/.claude/settings.json: hooks." + std::string(claude_event)};
      outcome = claude_code_outcome(hook, *event, run, {});
    } else {
      event = make_event((data[0] >> 1) % event_count);
      outcome = hook_outcome(ExternalHook{.name = name, .path = "/project/.hookbus/hooks/" + name}, *event, run);
    }
  } catch (const ExternalHookError& error) {
    fuzz::expect_valid_utf8(error.what(), "a hook failure's message");
    return 0;
  }
  // Whatever a hook printed enters the result as valid UTF-8: the result
  // written and read back is the same result. (monostate: no change, nothing to write.)
  if (std::holds_alternative<std::monostate>(*outcome)) return 0;
  const std::size_t index = event->index();
  fuzz::expect_round_trip(*outcome, [&](const boost::json::value& json) { return outcome_from_json(index, json); });
  return 0;
}
