#pragma once
// Internal: the files a shell command runs or loads, found as /bin/sh will
// run it, for the trust fingerprint and the checks before each run of a
// Claude Code command (docs/security.md, "Trust"). The command is parsed as
// POSIX sh parses it, for the part of the language that decides what runs:
// quotes and backslashes, lists and pipelines (`;` `&&` `||` `|` `&`,
// newlines), `( )` and `{ }`, if, while, until, for and case, assignments
// (`A=b cmd`), redirections and here-documents. It follows `cd`, `sh -c`,
// what `source` reads, command prefixes (env, exec, nice, nohup, time,
// timeout, ...), interpreters and their script, `python3 -m` and `make`.
// What cannot be known before the command runs (another variable, $(...),
// backticks, eval, a glob, inline code, a package manager's scripts, what a
// makefile's rules run) is reported with why, never guessed. Paths are
// resolved physically, as the kernel resolves them: a `..` after a link goes
// to the link target's parent.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus::detail {

// What the command starts with.
struct ShellStart {
  std::filesystem::path working_directory{};  // absolute, physical: its $PWD
  // The variables whose values are known before it runs (CLAUDE_PROJECT_DIR,
  // CLAUDE_PLUGIN_ROOT, HOME, PATH); the rest of its environment is not.
  std::map<std::string, std::string> variables{};
};

enum class CommandFileRole {
  named,     // an argument or an input redirection: named, not known to run
  makefile,  // what make reads
  module,    // what `python3 -m` runs
  script,    // an interpreter's script, or what `source` and `.` read
  program,   // a simple command's program
};

// Whether a file of that role is what the command runs: its program, or an interpreter's script.
constexpr bool runs(CommandFileRole role) noexcept {
  return role == CommandFileRole::program || role == CommandFileRole::script;
}

struct CommandFile {
  // As the command reaches it: its directories resolved physically, its own
  // name as written (a link stays the link, so a link repointed is a change).
  std::filesystem::path path{};
  std::filesystem::path resolved{};  // every link followed: what is opened
  CommandFileRole role = CommandFileRole::named;
};

struct UnresolvedConstruct {
  std::string construct{};  // as written: "$(cat .hookrc)", "tools/*.sh", "npx prettier"
  std::string why{};        // why what it runs is not known before it runs
  bool operator==(const UnresolvedConstruct&) const = default;
};

struct ShellCommandFiles {
  std::vector<CommandFile> files{};  // existing regular files, each once, in the order met
  // Where the helpers of what the command runs or loads lie: the directory of
  // each program, script and makefile (both the link's and its target's), and
  // for a module its top package (or the directory it is in).
  std::vector<std::filesystem::path> directories{};
  std::vector<UnresolvedConstruct> unresolved{};  // each once
};

ShellCommandFiles resolve_shell_command(std::string_view command, const ShellStart& start);

}  // namespace hookbus::detail
