#pragma once
// hookctl's commands. A command is a function from its arguments (those after
// the command name) to an exit code, declared here and listed once in main.cpp's
// table: adding one is a function plus a row.
//
// Commands print results to stdout. For bad arguments they throw UsageError (or
// let hookbus::UnknownEventError escape, for an unknown event name): main then
// prints the message and the command's usage to stderr and exits with exit_usage.
// Any other exception is a failure: message to stderr, exit_failure.

#include <boost/json/value.hpp>

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hookctl {

using Arguments = std::span<const std::string_view>;

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;
inline constexpr int exit_usage = 2;

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- support.cpp

// Throws UsageError unless there are exactly `count` arguments, naming what is
// missing ("missing event name") or the first extra one.
void expect_argument_count(Arguments args, std::size_t count, std::string_view missing_what);

// JSON indented by two spaces per level, keys in document order, for people to read.
std::string pretty_json(const boost::json::value& value);

// ---- catalogue_commands.cpp

int events_command(Arguments args);  // events [--json]
int schema_command(Arguments args);  // schema NAME

// ---- hooks_commands.cpp (external hooks; each also takes --project DIR)

int list_command(Arguments args);      // list
int emit_command(Arguments args);      // emit NAME [JSON|-]
int run_hook_command(Arguments args);  // run-hook PATH NAME [JSON] [--force]
int trust_command(Arguments args);     // trust [--dry-run | --revoke | --list]
int config_command(Arguments args);    // config

}  // namespace hookctl
