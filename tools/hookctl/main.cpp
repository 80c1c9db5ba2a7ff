// hookctl: the hookbus catalogue and a project's external hooks from the
// command line. This file is the command table: one row per command, with
// everything `help`, `--help`, `--json` and completion need (cli.hpp). The
// commands live in *_commands.cpp; adding one is a function plus a row.

#include "cli.hpp"
#include "commands.hpp"

#include <string_view>
#include <vector>

namespace hookctl {
namespace {

const Argument event_name{"NAME", Value::event, false, "the event's wire name or an alias (hookctl events lists them)"};
const Argument event_json{"JSON", Value::json, true,
                          "the event as JSON (hookctl schema NAME shows one), or - to read it from stdin "
                          "(default: {})"};
const Argument trace_file{"FILE", Value::file, false, "a trace file (JSON Lines) a tracer wrote: docs/tracing.md"};
const Option workspace{"--workspace", Value::directory, "DIR",
                       "also load the workspace in DIR (its hooks/, plugins/ and config.json; docs/workspaces.md); "
                       "emit: an event without a context.workspace gets DIR's name"};
const Option exit_code{"--exit-code", Value::none, {}, "exit 1 when a hook refused the event (see exit codes)"};
const Option strict{"--strict", Value::none, {},
                    "refuse event JSON with a field the event does not have (default: a warning naming it)"};
const Option project_trust{"--project-trust", Value::text, "POLICY",
                           "require (default): the project's hooks and config run once trusted (hookctl trust); "
                           "trust_all; ignore: never (docs/security.md)"};

// One row per command, in the order `help` lists them.
const std::vector<Command> commands{
    {.name = "events",
     .summary = "list every event: its result type, reduction, aliases and fields with their C++ types",
     .json = R"(print {"events": [{"name", "reduction", "closing", "aliases", "fields", "result", "result_fields"}]})",
     .run = events_command},
    {.name = "schema",
     .summary = "print an example of an event and of its result, as JSON",
     .arguments = {event_name},
     .json = R"(the same JSON: {"event": {...}, "result": {...} or null})",
     .details = "Every field is set, so the example shows the whole shape; it reads back as the event.",
     .run = schema_command},
    {.name = "list",
     .summary = "list the hook directories, the hooks found and the files skipped or shadowed, and why",
     .options = {project_trust, workspace},
     .json = R"(print {"project", "trust", "config_files", "directories", "hooks", "refusing", )"
             R"("not_installed", "skipped", "plugins", "builtins", "warnings"}, and "workspace": the same for it)",
     .project = true,
     .details = "The project is set up as emit (and an engine's hookbus::setup) sets it up, so a\n"
                "config that emit would reject fails here too (exit 3).",
     .run = list_command},
    {.name = "emit",
     .summary = "emit an event through the project's built-ins and hooks; print the outcome",
     .arguments = {event_name, event_json},
     .options = {exit_code, strict, project_trust, workspace},
     .json = R"(print {"event": NAME, "refused": true|false, "result": {...} or null})",
     .project = true,
     .details = "Prints the outcome (allowed, or refused and why) and the event's reduced result.\n"
                "Hook failures are logged on stderr (silence them with -q).\n\n"
                "example:\n"
                "  hookctl emit tool_call '{\"tool_call_id\": \"c1\", \"tool_name\": \"bash\", \"input\": {\"command\": \"ls\"}}'",
     .run = emit_command},
    {.name = "run-hook",
     .summary = "run one hook file once: its stdout, stderr, status, duration and result",
     .arguments = {{"PATH", Value::file, false, "the hook file"},
                   {"NAME", Value::event, false,
                    "the event's wire name or an alias; with --protocol, also one of the agent's event names"},
                   event_json},
     .options = {exit_code, strict,
                 {"--protocol", Value::text, "AGENT",
                  "run it as AGENT runs a command that is the file (claude_code, codex, qwen_code, gemini_cli, "
                  "cursor, vscode, copilot, cline; default: hookbus's own protocol)"},
                 {"--raw", Value::none, {}, "show the hook's stdout and stderr bytes as they are, not escaped"},
                 {"--force", Value::none, {}, "run a file that fails discovery's permission checks (with a warning)"}},
     .json = R"(print {"hook", "event", "requested_as", "status", "exit_code", "signal", "timed_out", )"
             R"("duration_ms", "stdout", "stdout_truncated", "stderr", "stderr_truncated", "refused", "result", "failure"})",
     .project = true,
     .details = "The hook's stdout and stderr are shown escaped (control characters visible) unless\n"
                "--raw. A hook that fails (exit code other than 0 and 2, a signal, a timeout, output\n"
                "that is not a result) exits 4, and so does a file that fails the permission checks\n"
                "without --force. With -q only the result is printed. The hook runs with the timeout\n"
                "and detached_processes the config gives a hook of its name; the project's config\n"
                "counts only once the project is trusted, as in emit.\n\n"
                "With --protocol AGENT the file runs as AGENT runs a command that is that file:\n"
                "AGENT's payload for the event on stdin, its variables, in the project, with its\n"
                "default timeout (or the config's for a hook of its name), its answer read as\n"
                "AGENT reads it (docs/agent-formats.md). NAME is one of AGENT's events, or a\n"
                "catalogue event, run as the first of AGENT's events that stands for it and fires\n"
                "for it (a shell command's tool_call is Cursor's beforeShellExecution); the event\n"
                "line says which. The JSON is the catalogue event's, as emit takes it. --force\n"
                "does not apply: an agent's hook runs only once the file passed the checks.\n\n"
                "example:\n"
                "  hookctl run-hook --protocol cursor .cursor/hooks/guard.sh tool_call '{\"tool_name\": \"bash\", \"input\": {\"command\": \"ls\"}}'",
     .run = run_hook_command},
    {.name = "trust",
     .summary = "trust the project's hooks and config as they are now (prints what it records)",
     .options = {{"--dry-run", Value::none, {}, "show what trusting would record, record nothing"},
                 {"--revoke", Value::none, {}, "forget the project's trust"},
                 {"--list", Value::none, {}, "list the trusted projects"},
                 {"--workspace", Value::directory, "DIR", "trust (or revoke) the workspace in DIR instead of the project"}},
     .json = R"(print {"project", "state", "fingerprint", "files": [{"path", "mode", "sha256"}], "changes", )"
             R"("not_covered": {"data", "outside", "unresolved"}, "recorded", "store", "note", "warnings"}; )"
             R"(with --revoke {"project", "revoked"}; with --list {"projects": [...]})",
     .project = true,
     .details = "Typing the command is the consent: it asks nothing (docs/security.md). It records\n"
                "exactly what the engine fingerprints, whatever the trust policy; a project over\n"
                "the fingerprint limits is an error (exit 4) and nothing is recorded. It says what\n"
                "the fingerprint does not cover: the data files of the hook directories, the files\n"
                "outside the project its Claude Code commands name, and each construct of a command\n"
                "it could not resolve.",
     .run = trust_command},
    {.name = "config",
     .summary = "print the merged configuration of every layer, each value with its file",
     .options = {project_trust},
     .json = R"(print {"project", "trust", "config_files", "settings": [{"key", "applies_to", "value", "file", "path"}], )"
             R"("warnings"}; file and path are null for a value no file set)",
     .project = true,
     .details = "Every value that applies: project_trust, the default timeout of each layer's hooks,\n"
                "disable_all_hooks, allow_managed_hooks_only, each built-in with its settings, the\n"
                "hook directories, the claude_code import, and every setting of every hook a hook\n"
                "directory or a config entry names (installed or not), each with the file and key\n"
                "that set it. A project that is not trusted applies none of its config.",
     .run = config_command},
    {.name = "replay",
     .summary = "emit a recorded session again through the project's hooks; report every decision that differs",
     .arguments = {trace_file},
     .options = {{"--strict", Value::none, {},
                  "refuse a recording whose payloads or results have a field their type does not have "
                  "(default: a warning naming it)"},
                 project_trust, workspace},
     .json = R"(print {"file", "replayed", "steps_not_replayed", "differing", "differences": [{"line", "seq", "event", )"
             R"("result": {"recorded", "now", "recorded_verdict", "now_verdict"} or null, )"
             R"("handlers": [{"handler", "source", "recorded", "now"}]}]})",
     .project = true,
     .details = "The project (and the workspace) is set up as emit sets it up (its trace config\n"
                "records nothing), and each recorded event is emitted again. A handler whose\n"
                "action or reason differs, that did not run then or does not run now, is\n"
                "reported, and so is a result that differs (compared when no in-process handler\n"
                "of the engine changed the recorded one: those are not in the project). Exit 1\n"
                "when anything differs, so a recording is a regression test of the project's hooks.\n"
                "The hooks really run, with whatever they do besides answering (files they\n"
                "write, commands they start): replay a recording only where that is wanted. A\n"
                "recording of another project is replayed, with a warning. Runs of wrapped steps in\n"
                "the recording are not replayed: they ran the engine's own tool runner or model client.",
     .run = replay_command},
    {.name = "trace view",
     .summary = "write a trace file as one self-contained HTML page: a timeline of the session",
     .arguments = {trace_file},
     .options = {{"--output", Value::new_file, "FILE", "the HTML page to write (required), replaced whole or not at all"}},
     .details = "Events are rows in time, each with its handlers under it, and each run of a wrapped\n"
                "step with its wrappers under it, the attempts of a wrapper's next nested under the\n"
                "wrapper; blocks and failures are coloured; hover for details, click an event for its\n"
                "payload and result. The page loads nothing from the network.\n\n"
                "example:\n"
                "  hookctl trace view session.jsonl -o trace.html",
     .run = trace_view_command},
    {.name = "trace summary",
     .summary = "per event and per handler of a trace file: count, p50 / p99 duration, blocks, failures",
     .arguments = {trace_file},
     .json = R"(print {"emits", "steps", "events": [{"event", "count", "p50_ns", "p99_ns", "blocks", "failures"}], )"
             R"("handlers": [the same with "handler"]})",
     .details = "An event's blocks are the emits its result refused, its failures the emits in which\n"
                "a handler failed; a handler's are its own deny, cancel or reject and its failures.\n"
                "Skipped handlers (their tool matcher excluded the tool) are not counted. Runs of\n"
                "wrapped steps are counted apart (\"steps\"), not in the events' lines.",
     .run = trace_summary_command},
};

}  // namespace
}  // namespace hookctl

int main(int argc, char** argv) { return hookctl::run_hookctl(hookctl::commands, {argv + 1, argv + argc}); }
