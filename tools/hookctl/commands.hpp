#pragma once
// hookctl's commands: each is a function from its Invocation (cli.hpp) to an
// exit code, listed once in main.cpp's table with its arguments, options and
// help. Helpers every command file may use are declared here too.

#include "cli.hpp"

#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/setup.hpp>

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookctl {

// ---- support.cpp

// JSON indented by two spaces per level, keys in document order, for people to
// read; written by hookbus::write_json (valid UTF-8, no non-finite number).
std::string pretty_json(const boost::json::value& value);

// What hookbus::unknown_fields found in event JSON from outside (a misspelt
// "tool_nme"), each as its message: a warning on stderr each, or with
// --strict a usage error naming them all and `hookctl schema SCHEMA` (the
// event's name, or NAME). Nothing when there are none.
void check_unknown_fields(const Invocation& invocation, const std::vector<std::string>& messages,
                          std::string_view schema);

// ---- partial_event.cpp

// The event at `event_index` from JSON that may leave out any member, at any
// depth (in the elements of arrays too): what it leaves out takes the
// catalogue's default. A value of the wrong type is a hookbus::JsonError
// naming its path, as from hookbus::event_from_json.
hookbus::HookEvent event_with_defaults(std::size_t event_index, const boost::json::value& given);

// ---- catalogue_commands.cpp

int events_command(const Invocation& invocation);  // events [--json]
int schema_command(const Invocation& invocation);  // schema NAME

// ---- hooks_commands.cpp (hooks, layers and trust; each reads a project: --project DIR)

// --project-trust POLICY (default require).
hookbus::ProjectTrustPolicy trust_policy(const Invocation& invocation);

// The bus set up for the project as an engine would, with the workspace that
// --workspace names active. A bad config file is a ConfigError: exit_config.
// `trace` false: config's "trace" installs no tracer, which would create the
// trace files' directories (list and config, which only read, and replay).
struct SetUp {
  hookbus::Installation project;
  std::optional<hookbus::Installation> workspace;
};
SetUp set_up(hookbus::Hooks& hooks, const Invocation& invocation, hookbus::ProjectTrustPolicy policy, bool trace = true);

// "denied by block-rm-rf: rm -rf is not allowed", "allowed", "result", "observed (no result)"
std::string verdict(const hookbus::HookEvent& event, const hookbus::HookOutcome& outcome);

int list_command(const Invocation& invocation);      // list
int emit_command(const Invocation& invocation);      // emit NAME [JSON|-]
int run_hook_command(const Invocation& invocation);  // run-hook PATH NAME [JSON|-] [--force]
int trust_command(const Invocation& invocation);     // trust [--dry-run | --revoke | --list]
int config_command(const Invocation& invocation);    // config

// ---- trace_commands.cpp (a recording: docs/tracing.md, "Using a recording")

int replay_command(const Invocation& invocation);         // replay FILE
int trace_view_command(const Invocation& invocation);     // trace view FILE -o HTML
int trace_summary_command(const Invocation& invocation);  // trace summary FILE

}  // namespace hookctl
