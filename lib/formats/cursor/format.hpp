#pragma once
// Internal: Cursor's hook format (formats/hook_format.hpp; cursor.com/docs/hooks):
// hooks.json of "version": 1, a flat list of commands per event, Cursor's
// payload (cursor/payload.cpp) and its flat answer (cursor/answer.cpp).

#include "formats/hook_format.hpp"

namespace hookbus::detail {

const HookFormat& cursor_format();

// Cursor's name of a tool whose Claude Code name is `claude_name`: MCP tools
// are "MCP:<tool>" (Claude Code's "mcp__<server>__<tool>"); others as the
// format's tool-name map gave them.
std::string cursor_tool_name(std::string_view claude_name);

// Cursor's payload for E: its common fields and the event's own, per
// Cursor event. Instantiated for every event.
template <class E>
boost::json::object cursor_payload(const E& event, std::string_view format_event, const ClaudeCodeToolNames& tool_names,
                                   std::string_view transcript_path, const std::filesystem::path& project_dir);
// Cursor's answer for E: exit 2 denies, another exit, a timeout or stdout
// that is not JSON is a failed run (ExternalHookError); on exit 0 the flat
// fields of the event. Instantiated for every event.
template <class E>
HookAnswer<E> cursor_answer(const ClaudeCodeCommand& command, const E& event, const ProcessResult& run,
                            const ClaudeCodeToolNames& tool_names);
const FormatRuns& cursor_runs();

}  // namespace hookbus::detail
