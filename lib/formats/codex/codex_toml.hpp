#pragma once
// Internal: the [hooks] tables of OpenAI Codex's config.toml
// (developers.openai.com/codex/hooks), which hold what a Codex hooks.json
// holds under "hooks", written as TOML:
//
//   [[hooks.PreToolUse]]           # one matcher group of the event
//   matcher = "Bash"
//   [[hooks.PreToolUse.hooks]]     # one handler of that group
//   type = "command"
//   command = "python3 .codex/hooks/guard.py"
//   timeout = 30
//
// They come back as that JSON, so one reader serves both files. Everything
// outside [hooks] is Codex's own settings and is not read; [hooks.state] is
// Codex's record of each hook's trust and enablement, returned apart.
// docs/claude-code-rules.md says what is checked here and what is left to
// the hooks reader.

#include <boost/json/object.hpp>

#include <filesystem>
#include <string_view>

namespace hookbus::detail {

struct CodexTomlHooks {
  boost::json::object hooks;  // each event's matcher groups, as hooks.json's "hooks"; empty without [hooks]
  boost::json::object state;  // [hooks.state]: per hook, Codex's `enabled` and `trusted_hash`
};

// The [hooks] of `text`, the content of `file`. Throws ConfigError naming the
// file, the TOML path of the value at fault (hooks.PreToolUse[0].hooks[1].timeout),
// its line and column, and how to fix it: TOML that does not parse, a value
// of the wrong type where Codex reads one (an event that is not an array of
// tables, a timeout that is not a whole number, ...), and what JSON cannot
// hold (a date or time, a float that is not finite). What the keys mean (an
// unknown event, a handler type) is the hooks reader's to judge.
CodexTomlHooks parse_codex_toml_hooks(std::string_view text, const std::filesystem::path& file);

// The same for the file at `file`, read as the config reader reads config
// files: a regular file (through links) of at most max_config_file_size
// bytes, never a FIFO or a device; nothing at the path reads as no hooks.
CodexTomlHooks read_codex_toml_hooks(const std::filesystem::path& file);

}  // namespace hookbus::detail
