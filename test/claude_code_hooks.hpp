#pragma once
// Hooks written in the style of published Claude Code hooks (bash + jq,
// Python, Node), each with the settings entry that installs it, shared by the
// tests that run them through Hooks::emit (claude_code_test.cpp) and through
// `hookctl emit` (hookctl_hooks_test.cpp): the same scripts must decide the
// same way on both paths.
#include "script_fixture.hpp"

#include <filesystem>
#include <initializer_list>
#include <string>

namespace hookbus::testing {

struct PublishedHook {
  const char* file;     // its script, under <project>/.claude/hooks/
  const char* script;   // the script's text, #! line included
  const char* event;    // the Claude Code event it is declared for
  const char* matcher;
  const char* command;  // the settings entry's command
};

// Blocks `rm -rf /` with exit 2, stderr as the reason.
inline const PublishedHook kBlockDangerous{
    "block-dangerous.sh",
    "#!/bin/sh\n"
    "command=$(jq -r '.tool_input.command // empty')\n"
    "if echo \"$command\" | grep -qE 'rm -rf /'; then\n"
    "  echo \"Dangerous command blocked: $command\" >&2\n  exit 2\nfi\nexit 0\n",
    "PreToolUse", "Bash", "$CLAUDE_PROJECT_DIR/.claude/hooks/block-dangerous.sh"};

// Denies reading or writing a .env file with a JSON answer.
inline const PublishedHook kProtectEnv{
    "protect_env.py",
    "#!/usr/bin/python3\nimport json, sys\n"
    "data = json.load(sys.stdin)\n"
    "path = data.get('tool_input', {}).get('file_path', '')\n"
    "if data['tool_name'] in ('Read', 'Edit', 'Write') and path.endswith('.env'):\n"
    "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
    "        'permissionDecision': 'deny', 'permissionDecisionReason': 'secrets stay private: ' + path}}))\n"
    "sys.exit(0)\n",
    "PreToolUse", "Read|Edit|Write", "python3 .claude/hooks/protect_env.py"};

// Allows `npm test` (adding --silent), asks before `git push`.
inline const PublishedHook kApprove{
    "approve.js",
    "#!/usr/bin/env node\n"
    "let input = '';\n"
    "process.stdin.on('data', c => input += c);\n"
    "process.stdin.on('end', () => {\n"
    "  const data = JSON.parse(input);\n"
    "  const command = data.tool_input.command || '';\n"
    "  const out = {hookSpecificOutput: {hookEventName: 'PreToolUse'}};\n"
    "  if (command.startsWith('npm test')) {\n"
    "    out.hookSpecificOutput.permissionDecision = 'allow';\n"
    "    out.hookSpecificOutput.permissionDecisionReason = 'tests are safe';\n"
    "    out.hookSpecificOutput.updatedInput = {command: command + ' --silent'};\n"
    "  } else if (command.startsWith('git push')) {\n"
    "    out.hookSpecificOutput.permissionDecision = 'ask';\n"
    "    out.hookSpecificOutput.permissionDecisionReason = 'pushing needs a human';\n"
    "  }\n"
    "  console.log(JSON.stringify(out));\n"
    "});\n",
    "PreToolUse", "Bash", "node .claude/hooks/approve.js"};

// After an edit of a Python file, strips trailing whitespace from it.
inline const PublishedHook kFormatter{
    "format.sh",
    "#!/bin/sh\n"
    "file=$(jq -r '.tool_input.file_path')\n"
    "case \"$file\" in *.py) sed -i 's/[[:space:]]*$//' \"$file\" ;; esac\n",
    "PostToolUse", "Edit|Write", "$CLAUDE_PROJECT_DIR/.claude/hooks/format.sh"};

// Prints the branch as plain text: context for the model.
inline const PublishedHook kPromptContext{
    "context.sh", "#!/bin/sh\ncat >/dev/null; echo \"Current branch: main\"\n", "UserPromptSubmit", "",
    ".claude/hooks/context.sh"};

// Prints recent commits at startup: context for the model.
inline const PublishedHook kSessionContext{
    "session.sh", "#!/bin/sh\ncat >/dev/null; echo 'Recent commits: fix parser'\n", "SessionStart", "startup",
    ".claude/hooks/session.sh"};

// Reads the transcript, blocks the stop once when the agent left a TODO, and
// honours stop_hook_active so that it never loops.
inline const PublishedHook kFinishTodos{
    "finish-todos.py",
    "#!/usr/bin/python3\nimport json, sys\n"
    "data = json.load(sys.stdin)\n"
    "if data['stop_hook_active']:\n    sys.exit(0)\n"
    "last = json.loads(open(data['transcript_path']).read().splitlines()[-1])\n"
    "text = ''.join(p.get('text', '') for p in last['message']['content'])\n"
    "if last['type'] == 'assistant' and 'TODO' in text:\n"
    "    print(json.dumps({'decision': 'block', 'reason': 'You left a TODO: finish it before stopping.'}))\n",
    "Stop", "", "python3 .claude/hooks/finish-todos.py"};

// Redacts AWS access keys from what any tool returned, answering with
// updatedToolOutput in the shape the tool gave (Bash's {stdout, stderr, ...}).
inline const PublishedHook kRedactSecrets{
    "redact.py",
    "#!/usr/bin/python3\nimport json, re, sys\n"
    "data = json.load(sys.stdin)\n"
    "text = json.dumps(data.get('tool_response'))\n"
    "redacted = re.sub(r'AKIA[0-9A-Z]{16}', '[REDACTED]', text)\n"
    "if redacted != text:\n"
    "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PostToolUse',\n"
    "        'updatedToolOutput': json.loads(redacted)}}))\n",
    "PostToolUse", "", "python3 $CLAUDE_PROJECT_DIR/.claude/hooks/redact.py"};

// Writes the hook's script into the project's .claude/hooks/, executable.
inline void write_published_hook(const std::filesystem::path& project, const PublishedHook& hook) {
  write_file(project / ".claude" / "hooks" / hook.file, hook.script, 0755);
}

// A settings file's `hooks` block declaring these hooks, one group each.
inline std::string hooks_block(std::initializer_list<PublishedHook> hooks) {
  std::string block = "{";
  for (const PublishedHook& hook : hooks) {
    if (block.size() > 1) block += ", ";
    block += std::string(R"(")") + hook.event + R"(": [{"matcher": ")" + hook.matcher +
             R"(", "hooks": [{"type": "command", "command": ")" + hook.command + R"("}]}])";
  }
  return block + "}";
}

}  // namespace hookbus::testing
