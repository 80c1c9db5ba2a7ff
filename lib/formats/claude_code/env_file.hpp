#pragma once
// Internal: the file Claude Code names in CLAUDE_ENV_FILE for a SessionStart
// (or Setup) hook, to which the hook appends `export NAME=value` lines for
// the commands the agent runs later. Claude Code sources it in bash before
// each Bash command; hookbus reads it instead, as bash would evaluate the
// forms it accepts, and runs nothing (docs/claude-code-rules.md):
//
//   export NAME=value            export NAME="value" / 'value' / $'value'
//   export A=1 B=2 NAME          NAME=value (exported when NAME already is)
//   declare -x NAME="value"      (bash's `export -p`, which Claude Code's
//                                docs suggest diffing before and after)
//
// with `$NAME` and `${NAME}` expanded from what the file set before and the
// environment the hook ran with, `~` from HOME, `#` comments, `;` between
// statements. A statement it cannot read is skipped with a warning naming
// its line: a command, `$(...)` or backticks (never run), `${NAME:-x}` and
// other expansions, `unset`, `&&` and the like.

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus::detail {

struct EnvFileVariable {
  std::string name;
  std::string value;
  bool operator==(const EnvFileVariable&) const = default;
};

struct EnvFileWarning {
  std::size_t line = 0;  // where the statement starts, from 1
  std::string message;   // what it is and why it was skipped; quotes the statement (valid UTF-8, control bytes as read)
  bool operator==(const EnvFileWarning&) const = default;
};

struct EnvFile {
  // Each variable the file sets and exports, once, with its last value, in
  // the order the file first set it.
  std::vector<EnvFileVariable> variables;
  std::vector<EnvFileWarning> warnings;
};

// A hook's CLAUDE_ENV_FILE for one run: a fresh, empty file (0600) in a
// directory of its own (0700) in the system's temporary directory, outside
// any project; both are removed with it, whatever the hook put there.
class EnvFileForRun {
 public:
  EnvFileForRun();  // throws Error naming what it could not create
  ~EnvFileForRun();
  EnvFileForRun(const EnvFileForRun&) = delete;
  EnvFileForRun& operator=(const EnvFileForRun&) = delete;

  const std::filesystem::path& path() const noexcept { return file_; }
  // What the hook wrote: the file at the path, never through a link, never a
  // FIFO or a device, at most kMaxEnvFileSize bytes; throws FileReadError
  // saying why not.
  std::string read() const;

 private:
  std::filesystem::path directory_;
  std::filesystem::path file_;
};

inline constexpr std::size_t kMaxEnvFileSize = 1 << 20;

// `environment`: the variables the hook ran with, which `$NAME` expands to
// when the file has not set NAME, and which are exported already (so
// `PATH=/x:$PATH` is exported, as in bash).
EnvFile parse_env_file(std::string_view text, const std::map<std::string, std::string>& environment);

}  // namespace hookbus::detail
