#pragma once
// Internal: OpenAI Codex's hook format (formats/hook_format.hpp), and its
// answer, which Codex reads more strictly than Claude Code (codex/answer.cpp).

#include "formats/hook_format.hpp"

namespace hookbus::detail {

const HookFormat& codex_format();

// claude_code_answer, after Codex's own checks: an answer with a key Codex
// does not know, PreToolUse's "ask", an "allow" without updatedInput, a deny
// without a reason, exit 2 without stderr, or stdout that begins as JSON and
// is none, is a failed run (ExternalHookError: the tool runs, as in Codex);
// updatedInput applies only with "allow". Instantiated for every event.
template <class E>
HookAnswer<E> codex_answer(const ClaudeCodeCommand& command, const E& event, const ProcessResult& run,
                           const ClaudeCodeToolNames& tool_names);
// Codex's runs: Claude Code's payload with Codex's model and turn_id, its own answer.
const FormatRuns& codex_runs();

}  // namespace hookbus::detail
