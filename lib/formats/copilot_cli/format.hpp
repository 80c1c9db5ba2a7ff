#pragma once
// Internal: GitHub Copilot CLI's hooks (formats/hook_format.hpp;
// docs.github.com/copilot/reference/hooks-reference): the "version": 1
// files of .github/hooks and of Copilot's user hooks directory, camelCase
// events with their PascalCase aliases, bash commands, timeouts in seconds,
// Copilot's payload (copilot_cli/payload.cpp) and its flat answer
// (copilot_cli/answer.cpp).

#include "formats/hook_format.hpp"

namespace hookbus::detail {

const HookFormat& copilot_cli_format();

// Whether a Copilot event is named in Claude Code's dialect (PreToolUse):
// its payload is then Claude Code's, with Claude Code's tool names.
bool copilot_pascal_case(std::string_view format_event);
// Claude Code's name of a Copilot tool ("bash" is Bash), or the name itself.
std::string copilot_claude_tool_name(std::string_view copilot_name);

// Copilot's payload for E: sessionId, timestamp (Unix milliseconds), cwd and
// the event's own camelCase fields (toolArgs a JSON string); for a
// PascalCase event Claude Code's payload, Claude Code's tool name and an ISO
// 8601 timestamp. Instantiated for every event.
template <class E>
boost::json::object copilot_cli_payload(const E& event, std::string_view format_event,
                                        const ClaudeCodeToolNames& tool_names, std::string_view transcript_path,
                                        const std::filesystem::path& project_dir);
// A run read as Copilot CLI reads it: on exit 0 the flat answer of the event
// (permissionDecision, behavior, decision, additionalContext), said in
// Claude Code's words and read by Claude Code's reader; exit 2 denies a tool
// call or a permission, is context on a failed tool, and a warning elsewhere;
// any other end is a failed run (preToolUse's fail closed). Instantiated for
// every event.
template <class E>
HookAnswer<E> copilot_cli_answer(const ClaudeCodeCommand& command, const E& event, const ProcessResult& run,
                                 const ClaudeCodeToolNames& tool_names);
const FormatRuns& copilot_cli_runs();

}  // namespace hookbus::detail
