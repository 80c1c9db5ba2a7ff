#pragma once
// hookctl's command framework. A command is a function plus one row of the
// command table (main.cpp): its name, arguments, options, help text and what
// `--json` prints. From the row, the framework
//   - parses the command line: `hookctl [GLOBAL OPTIONS] COMMAND [ARGUMENTS] [OPTIONS]`
//     (options may come before or after the command and between arguments;
//     before it, the table says which ones take the next word as their value;
//     `--` ends options; `--name=value` and `--name value` both work);
//   - gives every command -h/--help and -q/--quiet, --json when the row says
//     what it prints, --project DIR when the command reads a project;
//   - answers `hookctl help`, `hookctl help COMMAND`, `hookctl COMMAND --help`
//     and shell completion;
//   - validates path arguments and path options (a usage error, never a filesystem exception);
//   - maps errors to the exit codes below and checks that stdout and stderr were written.
//
// A command reads its Invocation, prints its result to stdout (fmt::print),
// and returns an exit code; it throws UsageError for bad input and lets
// hookbus::ConfigError, hookbus::UnknownEventError escape (main maps them).

#include <hookbus/log.hpp>

#include <boost/json/value.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookctl {

// The exit codes, documented in `hookctl help` and README.md.
inline constexpr int exit_ok = 0;       // done; for emit and run-hook, also a refusal without --exit-code
inline constexpr int exit_refused = 1;  // a hook refused the event, and --exit-code asked to be told
inline constexpr int exit_differs = 1;  // replay: a decision differs from the recording
inline constexpr int exit_usage = 2;    // usage or input error: arguments, event JSON, paths
inline constexpr int exit_config = 3;   // config error: .hookbus/config.json or a built-in's settings
inline constexpr int exit_failure = 4;  // a hook failed (run-hook), stdout or stderr could not be written, any other error

// Bad arguments or input: the message, then the command's usage line, on
// stderr; exit_usage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a command-line value is: how it is validated and completed.
enum class Value {
  none,       // an option without a value (a flag)
  text,       // anything
  event,      // an event name or alias: completed from the catalogue
  command,    // a command name
  file,       // an existing file (not a directory)
  new_file,   // a file to write: need not exist, not a directory
  directory,  // an existing directory
  json,       // JSON text, or - for stdin
};

struct Argument {
  std::string_view name;  // as the synopsis shows it: NAME, PATH
  Value value = Value::text;
  bool optional = false;
  std::string_view help;  // what it is; "missing NAME: <help>" when left out
};

struct Option {
  std::string_view name;          // --exit-code
  Value value = Value::none;      // none: a flag
  std::string_view value_name{};  // DIR, for an option with a value
  std::string_view help{};
};

class Invocation;

struct Command {
  std::string_view name;
  std::string_view summary;  // one line for `hookctl help`
  std::vector<Argument> arguments{};
  std::vector<Option> options{};   // the command's own; -h, -q, --json and --project come from the flags below
  std::string_view json{};         // what --json prints; empty: the command has no --json
  bool project = false;            // reads a project: takes --project DIR
  std::string_view details{};      // more of `COMMAND --help`: output, exit codes, examples
  int (*run)(const Invocation&) = nullptr;
  bool hidden = false;             // not listed by `help` (the completion helper)
};

// A parsed command line, as the command's function gets it.
class Invocation {
 public:
  Invocation(const Command& command, std::vector<std::string_view> arguments,
             std::map<std::string_view, std::string_view> options,
             std::map<std::string_view, std::filesystem::path> paths, std::filesystem::path project_dir);

  [[nodiscard]] const Command& command() const noexcept { return *command_; }
  // The positional arguments given, in order (the optional ones may be absent).
  [[nodiscard]] const std::vector<std::string_view>& arguments() const noexcept { return arguments_; }
  [[nodiscard]] std::optional<std::string_view> argument(std::size_t index) const;
  // A flag or an option given on the command line ("--exit-code", "--json").
  [[nodiscard]] bool has(std::string_view option) const { return options_.contains(option); }
  [[nodiscard]] std::optional<std::string_view> value(std::string_view option) const;
  // The value of an option that names a file or a directory, checked to exist
  // and be of that kind, made absolute; nullopt when the option is not given.
  [[nodiscard]] std::optional<std::filesystem::path> path(std::string_view option) const;
  // Positional argument `index` (a file or directory the parse checked), made
  // absolute naming what the kernel resolves it to: "." steps dropped, ".."
  // kept (after a symlink it climbs from the link's target, where
  // lexically_normal() would drop the link and its "..").
  [[nodiscard]] std::filesystem::path argument_path(std::size_t index) const;
  [[nodiscard]] bool json() const { return has("--json"); }
  [[nodiscard]] bool quiet() const { return has("--quiet"); }
  // --project DIR made absolute, or the current directory (commands that read a project).
  [[nodiscard]] const std::filesystem::path& project_dir() const noexcept { return project_dir_; }

 private:
  const Command* command_;
  std::vector<std::string_view> arguments_;
  std::map<std::string_view, std::string_view> options_;
  std::map<std::string_view, std::filesystem::path> paths_;
  std::filesystem::path project_dir_;
};

// Text from outside hookctl (names, paths, a hook's output, reasons, library
// error messages) is shown through the library's escaping.
using hookbus::printable;

// Prints to stderr and never throws: a write that fails is left in stderr's
// error flag, and makes hookctl exit non-zero once the command is done.
template <class... Args>
void print_to_stderr(fmt::format_string<Args...> format, Args&&... args) {
  const std::string text = fmt::format(format, std::forward<Args>(args)...);
  std::fwrite(text.data(), 1, text.size(), stderr);
}

// Runs hookctl: argv without the program name. Returns the exit code.
int run_hookctl(const std::vector<Command>& commands, std::vector<std::string_view> args);

}  // namespace hookctl
