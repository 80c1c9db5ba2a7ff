#pragma once
// hookctl's commands: each is a function from its Invocation (cli.hpp) to an
// exit code, listed once in main.cpp's table with its arguments, options and
// help. Helpers every command file may use are declared here too.

#include "cli.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace hookctl {

// ---- support.cpp

// JSON indented by two spaces per level, keys in document order, for people to
// read; written by hookbus::write_json (valid UTF-8, no non-finite number).
std::string pretty_json(const boost::json::value& value);

// ---- catalogue_commands.cpp

int events_command(const Invocation& invocation);  // events [--json]
int schema_command(const Invocation& invocation);  // schema NAME

// ---- hooks_commands.cpp (hooks, layers and trust; each reads a project: --project DIR)

int list_command(const Invocation& invocation);      // list
int emit_command(const Invocation& invocation);      // emit NAME [JSON|-]
int run_hook_command(const Invocation& invocation);  // run-hook PATH NAME [JSON|-] [--force]
int trust_command(const Invocation& invocation);     // trust [--dry-run | --revoke | --list]
int config_command(const Invocation& invocation);    // config

}  // namespace hookctl
