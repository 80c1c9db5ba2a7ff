#pragma once
// Internal: a hook format, one agent's way of declaring hooks, feeding them
// an event and reading their answer (docs/hook-formats.md). lib/formats/ has
// a folder per format:
//
//   kodelet/      hookbus's own HOOK protocol, which is kodelet's: the
//                 payload a hook file reads and its answer read as the
//                 event's result (lib/external/ runs such a hook, once per
//                 event or as persistent instances);
//   claude_code/  Claude Code's command hooks: its settings files and
//                 plugins and how they are read, its payload and answer, a
//                 command's run, the installer, and what setup() imports.
//
// A format that declares its hooks as Claude Code does (Codex, Qwen Code,
// VS Code, ...) is a HookFormat: the data that tells it from Claude Code,
// and the two functions where it may answer otherwise (its payload, its
// answer), each typed per event. claude_code/'s reader, run and installer take any HookFormat. What
// setup() asks of a format whose hooks its agent's own files declare is
// FormatImports, below.

#include <hookbus/claude_code.hpp>
#include <hookbus/config.hpp>
#include <hookbus/discovery.hpp>
#include <hookbus/events.hpp>
#include <hookbus/external_hook_error.hpp>
#include <hookbus/external_install.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/process.hpp>
#include <hookbus/trust.hpp>

#include "catalogue/hook_answer.hpp"

#include <boost/json/object.hpp>
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace hookbus::detail {

// Which tool results a format's event stands for (tool_result's is_error).
enum class ToolResults { any, succeeded, failed };
// How a handler's matcher is read (format_matcher).
enum class MatcherSyntax {
  claude_code,  // Claude Code's: "*", exact tool names ("Bash|Edit"), or else a regular expression searched for
  searched,     // a regular expression searched for, plain names too (Cursor's "curl|wget" matches a command with either)
  whole,        // a regular expression the whole value must match (Copilot's: ^(?:matcher)$)
};
// Which session starts a format's event stands for (session_start's reason):
// Cline's TaskStart is a new task, its TaskResume a resumed one.
enum class SessionStarts { any, fresh, resumed };

// One of a format's event names, and what it stands for on the bus.
struct FormatEvent {
  std::string_view name;                    // the agent's: "PostToolUseFailure"
  std::array<std::string_view, 2> targets;  // catalogue wire names; "" unused
  bool has_matcher = true;                  // false: the agent ignores a matcher on it (UserPromptSubmit)
  ToolResults tool_results = ToolResults::any;  // on tool_result, only these
  Duration default_timeout{};                   // a handler's without one; zero: the format's (Codex's SessionEnd: 1 s)
  std::optional<MatcherSyntax> matchers{};     // its own, where not the format's (Gemini's tool events: searched)
  Duration max_timeout{};                       // the most a handler gets, a longer timeout cut to it; zero: no cap
  bool runs_async = true;                       // false: the agent runs its handlers in the foreground, "async" or not
  bool fails_closed = false;                    // true: a failed run of its handlers refuses (Copilot's preToolUse)
  SessionStarts session_starts = SessionStarts::any;  // on session_start, only these
  std::optional<RunStatus> run_status{};  // on agent_end, only runs that ended so; nullopt: every run
};

// A format's two functions for an event of type E: the JSON its hook reads
// on stdin for `event`, asked for as `format_event`; and one finished run
// read as E's result (nullopt: no change; nothing for an event without a
// result), throwing ExternalHookError for a failure, naming the command.
// The installer takes E's when it registers a command's handler of E, so a
// run never looks for E again.
template <class E>
struct FormatRun {
  boost::json::object (*payload)(const E& event, std::string_view format_event, const ClaudeCodeToolNames& tool_names,
                                 std::string_view transcript_path, const std::filesystem::path& project_dir);
  HookAnswer<E> (*answer)(const ClaudeCodeCommand& command, const E& event, const ProcessResult& run,
                          const ClaudeCodeToolNames& tool_names);
};
// A FormatRun for every event.
using FormatRuns = boost::mp11::mp_rename<boost::mp11::mp_transform<FormatRun, HookEvent>, std::tuple>;

// The FormatRuns of payload_of(std::type_identity<E>{}) and answer_of(...),
// each giving the address of a function (template) typed for E.
template <class Payloads, class Answers>
FormatRuns format_runs(Payloads payload_of, Answers answer_of) {
  return [&]<class... E>(std::type_identity<std::variant<E...>>) {
    return FormatRuns{FormatRun<E>{payload_of(std::type_identity<E>{}), answer_of(std::type_identity<E>{})}...};
  }(std::type_identity<HookEvent>{});
}

// Claude Code's payload and answer for E (claude_code/payload.cpp,
// answer.cpp), which another format's may call and add to. Instantiated
// for every event.
template <class E>
boost::json::object claude_code_payload_of(const E& event, std::string_view format_event,
                                           const ClaudeCodeToolNames& tool_names, std::string_view transcript_path,
                                           const std::filesystem::path& project_dir);
template <class E>
HookAnswer<E> claude_code_answer(const ClaudeCodeCommand& command, const E& event, const ProcessResult& run,
                                 const ClaudeCodeToolNames& tool_names);
// Claude Code's runs: its payload and answer for every event.
const FormatRuns& claude_code_runs();

// How a format's event lists its handlers. A handler of a list (not of a
// group) is a command unless its "type" says otherwise.
enum class HandlerLists {
  groups,            // Claude Code's matcher groups: {"matcher", "hooks": [handlers]}
  handlers,          // the handlers, each with its own "matcher" (Cursor's)
  matchers_ignored,  // the handlers, Claude Code's groups among them, every matcher ignored and noted (VS Code's)
};

class FormatImports;

// A Claude-Code-like hook format: settings files with a `hooks` block of
// matcher groups of command handlers (ClaudeCodeCommand), run with a JSON
// payload on stdin.
struct HookFormat {
  // Its protocol, which names it in config ("protocol": "claude_code"),
  // reports and traces (HandlerOptions::protocol); the agent's name in
  // messages; the page that documents it.
  HookProtocol protocol;
  std::string_view agent;
  std::string_view documentation;
  // Where its files are, per layer: the settings file of a scope (empty:
  // none in that scope), and a plugin's hooks file below the plugin's directory.
  std::filesystem::path (*settings_file)(const Locations& locations, Layer scope);
  std::string_view plugin_hooks_file;
  // Its events: what each stands for on the bus (its event map).
  std::span<const FormatEvent> events;
  // Its built-in tool names: an engine's tool named like one of them,
  // ignoring case, is that tool (ClaudeCodeToolNames, its tool-name map).
  std::span<const std::string_view> tool_names;
  // A handler's "timeout": the unit it counts (and its name in messages),
  // and what a handler without one gets.
  Duration timeout_unit;
  std::string_view timeout_unit_name;
  Duration default_timeout;
  // The variables a command finds: the project directory, a plugin's directory.
  std::string_view project_dir_variable;
  std::string_view plugin_root_variable;
  // Its payload and answer, per event (FormatRun): Claude Code's
  // (claude_code_runs()), or its own where it differs.
  const FormatRuns* runs;
  // A second file of a scope whose hooks are read too (Codex's config.toml
  // beside its hooks.json; empty: none in that scope), or null.
  std::filesystem::path (*second_settings_file)(const Locations& locations, Layer scope) = nullptr;
  // Its names of Claude Code's built-in tools where they differ (Qwen Code's
  // run_shell_command for Bash): what its hooks see and match by default.
  std::span<const std::pair<std::string_view, std::string_view>> claude_tool_names{};
  // Whether identical commands that match one event run once (Claude Code,
  // Qwen Code) or each of them (Codex).
  bool runs_identical_commands_once = true;
  // Handler keys it declares that do nothing here, with why: each is noted
  // where it is written (Codex's commandWindows, Windows' command).
  std::span<const std::pair<std::string_view, std::string_view>> inert_handler_keys{};
  // Other names of one of its tools that a matcher also tests, as (the
  // tool's name, an alias): Codex's apply_patch is matched by "Edit" and
  // "Write", and is the edit that reaches its hooks as Edit or Write.
  std::span<const std::pair<std::string_view, std::string_view>> tool_aliases{};
  // A handler key whose "closed" makes the handler's failed runs refuse
  // (FailurePolicy::fail_closed) and "open" leaves them failing open: Qwen
  // Code's failMode. Empty: the format has none.
  std::string_view fail_mode_key{};
  // The variable naming the file a command of an event whose result takes
  // variables (session_start) appends `export` lines to (Claude Code's
  // CLAUDE_ENV_FILE, env_file.hpp); empty: the agent has none.
  std::string_view env_file_variable{};
  // Other names of the variable giving a plugin's directory, set beside
  // plugin_root_variable (Codex sets CLAUDE_PLUGIN_ROOT too).
  std::span<const std::string_view> plugin_root_aliases{};
  // A matcher group key whose true makes the group's commands run one after
  // another (ClaudeCodeCommand::sequential): Qwen Code's "sequential". Empty: none.
  std::string_view sequential_key{};
  // The "version" its files must declare (Cursor's hooks.json: 1); 0: they declare none.
  int required_version = 0;
  // How an event lists its handlers (HandlerLists).
  HandlerLists handler_lists = HandlerLists::groups;
  // How its handlers' matchers are read, where an event does not say otherwise.
  MatcherSyntax matchers = MatcherSyntax::claude_code;
  // A boolean handler key whose true makes the handler's failed runs refuse
  // (FailurePolicy::fail_closed): Cursor's failClosed. Empty: the format has none.
  std::string_view fail_closed_key{};
  // What a handler of the format's tool event matches for a call of `tool`
  // (the format's name of it) with `input`: the tool's name, or a field of
  // the call (Cursor's beforeShellExecution matches the command line);
  // nullopt when the event does not fire for that tool (beforeShellExecution
  // for a read). Null: each tool event fires for every tool and matches its name.
  std::optional<std::string> (*tool_event_subject)(std::string_view format_event, std::string_view tool,
                                                   const boost::json::object& input) = nullptr;
  // A directory of a scope whose every `*.json` file is a settings file,
  // read in name order (VS Code's .github/hooks; empty: none in that scope),
  // or null. A project's is fingerprinted whole, as a hook tree.
  std::filesystem::path (*settings_directory)(const Locations& locations, Layer scope) = nullptr;
  // The handler key whose command runs here instead of "command" (VS Code's
  // "linux"), and those of other systems' commands with the system's name: a
  // handler with only those is skipped with a warning naming the system.
  std::string_view os_command_key{};
  std::span<const std::pair<std::string_view, std::string_view>> other_os_command_keys{};
  // The handler keys of a program run without a shell and of its arguments
  // (Copilot CLI's "exec" and "args"; ClaudeCodeCommand::exec): never in one
  // handler with a command key.
  std::string_view exec_key{};
  std::string_view exec_arguments_key{};
  // The format whose files share its settings directory, told apart by a
  // top-level "version": a file with one is the format's with a
  // required_version, one without is the other's (VS Code reads a
  // .github/hooks file with a "version" as Copilot CLI's). A file of the
  // other's is not read, and is noted as such; nullopt: every file is its own.
  std::optional<HookProtocol> shares_settings_directory_with{};
  // The handler key of its timeout, read before "timeout" (Copilot's
  // "timeoutSec"); empty: "timeout" only.
  std::string_view timeout_key{};
  // A handler key of its agent_end and subagent_end events capping the
  // follow-ups one command asks for in a row (ClaudeCodeCommand::follow_up_limit):
  // Cursor's loop_limit, a count or null for no cap; a handler without it gets
  // default_loop_limit. Empty: the format's follow-ups are not capped.
  std::string_view loop_limit_key{};
  std::uint32_t default_loop_limit = 0;
  // A top-level key of its settings files that switches hooks off
  // (ClaudeCodeSettings::hooks_config_disabled): Gemini CLI's "hooksConfig",
  // with "enabled" and "disabled", and the handler key that names a hook
  // there ("name"). Empty: none.
  std::string_view hooks_config_key{};
  std::string_view hook_name_key{};
  // Whether an event's handlers run one after another in the order its
  // files list them (ClaudeCodeCommand::sequential), each seeing what the
  // ones before it changed, and one whose answer stops the agent
  // (`"continue": false`) skips those after it: VS Code's.
  bool handlers_run_in_order = false;
  // The handler key naming the directory a handler runs in
  // (ClaudeCodeCommand::working_directory, handler_directory.hpp: VS Code's
  // "cwd"), and the one whose object of strings is added to its environment
  // (ClaudeCodeCommand::environment: VS Code's "env"). Empty: it has none.
  std::string_view working_directory_key{};
  std::string_view environment_key{};
  // What setup() imports of a format of its own kind, which declares its
  // hooks otherwise (Cline's one executable per event, named by its file):
  // its own FormatImports. Null: Claude Code's settings reader.
  std::unique_ptr<FormatImports> (*imports)(const HookFormat& format, const Locations& locations) = nullptr;
  // The shell its agent starts a hook file through (Cline's /bin/sh: Node's
  // spawn with shell: true): a file the kernel does not run itself (no '#!'
  // line, no ELF binary) runs as a script of that shell, as the shell runs it
  // (ClaudeCodeCommand::program). Empty: such a file fails to start, its
  // error naming the missing '#!' line.
  std::string_view script_shell{};
  // Whether its handlers may be HTTP requests ("type": "http",
  // ClaudeCodeCommand::url): Claude Code's, Qwen Code's, Copilot CLI's. Their
  // "timeout" counts `http_timeout_unit` where it is not zero (Qwen Code's
  // seconds, against its commands' milliseconds), and one without gets
  // `http_default_timeout` where that is not zero.
  bool http_handlers = false;
  Duration http_timeout_unit{};
  std::string_view http_timeout_unit_name{};
  Duration http_default_timeout{};
};

// The formats hookbus reads: Claude Code's and those declared as it
// declares hooks (codex/, qwen_code/, gemini_cli/, cursor/, vscode/).
const HookFormat& claude_code_format();
// Every one of them, Claude Code's last.
std::span<const HookFormat* const> hook_formats();
// The tool names a format's commands see, given the engine's names and
// config's (`engine_to_agent`): its own names of Claude Code's built-in tools.
ClaudeCodeToolNames format_tool_names(const HookFormat& format, std::map<std::string, std::string> engine_to_agent);
// The format of a protocol, or null: hookbus's own protocol, and kodelet's,
// are no HookFormat.
const HookFormat* find_hook_format(HookProtocol protocol);
// The format of an agent's protocol; throws std::invalid_argument for
// hookbus's and kodelet's, which have none (a public function given a
// command of theirs).
const HookFormat& hook_format_of(HookProtocol protocol);

// ------------------------------------------------------- its event map

// The format's event named `name`, or null.
const FormatEvent* find_format_event(const HookFormat& format, std::string_view name);
// The catalogue events a format's event stands for; empty when it has none.
std::vector<std::size_t> event_targets(const HookFormat& format, std::string_view event);
// False for an event whose matcher the agent ignores: it runs on every occurrence.
bool event_has_matcher(const HookFormat& format, std::string_view event);
// The matcher a handler of `event` with the matcher `pattern` is installed
// with, read as the event (FormatEvent::matchers) or else the format
// (HookFormat::matchers) reads it; one that matches everything on an event
// whose matcher the agent ignores. `event` empty: as the format reads it.
// Throws ConfigError (without a location) for one that is not valid.
ClaudeCodeMatcher format_matcher(const HookFormat& format, std::string_view event, std::string_view pattern);
// The timeout of a handler of `event` that gives none.
Duration event_default_timeout(const HookFormat& format, std::string_view event);
// Whether `matcher` matches `value` (a tool name, a source, ...), or one of
// the names the format gives the same tool (HookFormat::tool_aliases).
bool format_matcher_matches(const HookFormat& format, const ClaudeCodeMatcher& matcher, std::string_view value);
// Whether an emit of the event at `index` is `format_event` for a hook
// registered on one of its targets (a tool_result is PostToolUse without an
// error, PostToolUseFailure with one: `tool_error`, its is_error; a
// session_start is Cline's TaskResume when `resumed`, else its TaskStart; an
// agent_end that ended with `run_status` is Cline's TaskCancel when cancelled).
bool event_applies(const HookFormat& format, std::string_view format_event, std::size_t index, bool tool_error,
                   bool resumed = false, RunStatus run_status = RunStatus::completed);
template <class E>
bool event_applies(const HookFormat& format, std::string_view format_event, const E& event) {
  if constexpr (std::is_same_v<E, ToolResultEvent>) return event_applies(format, format_event, event_index<E>, event.is_error);
  else if constexpr (std::is_same_v<E, SessionStartEvent>)
    return event_applies(format, format_event, event_index<E>, false, event.reason == SessionStartReason::resume);
  else if constexpr (std::is_same_v<E, AgentEndEvent>)
    return event_applies(format, format_event, event_index<E>, false, false, event.status);
  else return event_applies(format, format_event, event_index<E>, false);
}
// Throws ConfigError at `where` for a name that is not one of the format's
// events hookbus runs hooks on, listing them, with the format's name of a
// hookbus event name ("tool_call" is PreToolUse) or of another case.
void check_event(const HookFormat& format, std::string_view name, const ConfigLocation& where);

// ------------------------------------------------- what setup() asks of it

// What setup() asks, step by step, of a format whose hooks its agent's own
// files declare (lib/setup/setup.cpp): made for one engine start, with the
// import the engine asks for in code.
class FormatImports {
 public:
  FormatImports() = default;
  FormatImports(const FormatImports&) = delete;
  FormatImports& operator=(const FormatImports&) = delete;
  virtual ~FormatImports() = default;

  // 1. Trust: what the fingerprint covers of what the project layers import,
  //    by any importer (`importers`: the configs that always apply, then the
  //    project layers' read as data; null for a file that could not be read).
  virtual void add_to_fingerprint(const std::vector<const Config*>& importers, ProjectFiles& files) const = 0;
  // 2. Once trust is decided: the commands of the engine's and every applied
  //    layer's imports, read and checked; what is skipped is a warning (logged
  //    too). Those of the project layers of a project that may not run (`as
  //    data`: the project layers' configs read as data) are kept to be
  //    listed as not run. A trusted project's own files apply only as
  //    `trusted` fingerprinted them.
  virtual void read(const LayeredConfig& config, const std::vector<const Config*>& as_data, bool project_may_run,
                    const TrustedFiles* trusted, std::vector<std::string>& warnings) = 0;
  // 3. Discovery (DiscoveryOptions::run_elsewhere): why discovery leaves the
  //    hook file `file` of `layer` to the format, naming the command of that
  //    same layer that runs it (a less trusted layer never takes a hook away);
  //    nullopt when none does.
  virtual std::optional<std::string> runs(Layer layer, const std::filesystem::path& file) const = 0;
  // 4. Installation: its commands and their options into `install`, and what
  //    it keeps on the bus for them (a transcript) into `kept`.
  virtual void prepare(Hooks& hooks, const LayeredConfig& config, const DiscoveryReport& discovery,
                       ExternalInstallOptions& install, ConnectionGroup& kept) = 0;
  // 5. Once installed (`report`): the commands not run (`why`: the project
  //    may not run) into it, and what config asked of the format that
  //    changes nothing into `warnings` (logged too).
  virtual void report(const LayeredConfig& config, const std::string& why, InstallReport& report,
                      std::vector<std::string>& warnings) const = 0;
};

// The imports of every format setup() reads, for one engine start: the
// engine's in-code ask (SetupOptions::claude_code) adds to config's.
std::vector<std::unique_ptr<FormatImports>> format_imports(const Locations& locations,
                                                           const std::optional<ClaudeCodeSetup>& engine);

}  // namespace hookbus::detail
