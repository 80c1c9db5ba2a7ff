#pragma once
// Internal: Gemini CLI's hook format (formats/hook_format.hpp): its payload
// (gemini_cli/payload.cpp) and its answer (gemini_cli/answer.cpp), which
// differ from Claude Code's where Gemini's do.

#include "formats/hook_format.hpp"

namespace hookbus::detail {

const HookFormat& gemini_cli_format();

// Claude Code's payload with Gemini's fields: its timestamp, AfterTool's
// tool_response {llmContent, returnDisplay, error}, AfterAgent's prompt and
// prompt_response, SessionEnd's reasons, Notification's ToolPermission.
// Instantiated for every event.
template <class E>
boost::json::object gemini_cli_payload(const E& event, std::string_view format_event,
                                       const ClaudeCodeToolNames& tool_names, std::string_view transcript_path,
                                       const std::filesystem::path& project_dir);
// A run read as Gemini CLI reads it (its hookRunner): stdout, else stderr, on
// any exit code; JSON is the answer, other text a systemMessage on exit 0 and
// 1 and a deny on any other; "deny" and "block" block, BeforeTool's
// tool_input is merged into the arguments, AfterTool's deny replaces the
// result, AfterAgent's deny goes on with its reason; then Claude Code's
// reader. A timeout or a crash is a failed run. Instantiated for every event.
template <class E>
HookAnswer<E> gemini_cli_answer(const ClaudeCodeCommand& command, const E& event, const ProcessResult& run,
                                const ClaudeCodeToolNames& tool_names);
// Gemini CLI's runs: its payload and answer.
const FormatRuns& gemini_cli_runs();

}  // namespace hookbus::detail
