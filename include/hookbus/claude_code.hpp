#pragma once
// Claude Code's command hooks, run unchanged: hooks declared in Claude Code
// settings files (~/.claude/settings.json, <project>/.claude/settings.json,
// .claude/settings.local.json) and plugins (<plugin>/hooks/hooks.json), or hook
// files that .hookbus/config.json declares with "protocol": "claude_code".
// hookbus gives each the payload Claude Code would (its event and field names,
// its tool names), reads its answer as Claude Code does (exit 2, the JSON
// answer with decision, continue, systemMessage and hookSpecificOutput), and
// folds it into the event's result. docs/claude-code.md has the tables.
//
// setup.hpp installs them from config ("claude_code" in any layer's config)
// and from what the engine asks for in code (SetupOptions::claude_code, a
// ClaudeCodeSetup below):
//
//   hookbus::setup(hooks, {.claude_code = hookbus::ClaudeCodeSetup{
//                              .import = {.settings = {hookbus::Layer::user, hookbus::Layer::project},
//                                         .tool_names = {{"read_file", "Read"}}}}});
//
// The pieces are here for engines that assemble their own:
//
//   const auto file = hookbus::claude_code_settings_file(locations, hookbus::Layer::user);
//   const auto settings = hookbus::read_claude_code_settings(file, hookbus::Layer::user);
//   const std::map<std::string, std::string> names{{"read_file", "Read"}};
//   const hookbus::ClaudeCodeOptions options{.tool_names = hookbus::ClaudeCodeToolNames(names),
//                                            .project_dir = project, .transcript_dir = state / "transcripts"};
//   auto transcript = hookbus::record_claude_code_transcript(hooks, options.transcript_dir, options.tool_names);
//   auto installed = hookbus::install_claude_code_hooks(hooks, settings.commands, options);

#include <hookbus/config.hpp>
#include <hookbus/connection.hpp>
#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/process.hpp>
#include <hookbus/trust.hpp>

#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookbus {

// Claude Code's documented default timeout of a command hook.
inline constexpr Duration claude_code_default_timeout = std::chrono::seconds(600);

// One Claude Code command hook: what a settings file declares (or config, for a hook file).
struct ClaudeCodeCommand {
  std::string event{};      // Claude Code's event name: "PreToolUse"
  std::string matcher{};    // as written; "" and "*" match everything
  std::string command{};    // run as `/bin/sh -c COMMAND`; empty when `program` is set
  std::filesystem::path program{};  // a hook file run directly (declared in .hookbus/config.json)
  // Copilot CLI's "exec" and "args" (`command` and `program` are empty): a
  // program run with exactly these arguments, without a shell. A name with
  // a '/' is found from its working directory, one without on PATH (its
  // `environment`'s, else the engine's), as /bin/sh finds a command's program.
  std::string exec{};
  std::vector<std::string> arguments{};
  // Claude Code's "http" handler (Qwen Code's, Copilot CLI's): the payload
  // is POSTed to `url` (`command`, `program` and `exec` are empty), and the
  // response's body is read as a command's stdout (docs/fleet.md). The
  // request goes only to an origin the user's or the managed config allows
  // (NetworkAllowance). `headers` are sent as written, but for `$NAME` and
  // `${NAME}`, which become the engine's variable when `allowed_env_vars`
  // lists it, and "" otherwise. No header value is ever logged, traced or
  // listed: they may hold secrets.
  std::string url{};
  std::vector<std::pair<std::string, std::string>> headers{};
  std::vector<std::string> allowed_env_vars{};
  Duration timeout = claude_code_default_timeout;
  // Claude Code's "async": runs in the background; the context and messages
  // of its answer go to the model at the next event that takes them
  // (docs/claude-code.md), the rest of it is ignored.
  bool async = false;
  // Claude Code's "asyncRewake" (with `async`): what its exit 2 prints goes
  // to the model, at the next event that takes it (hookbus cannot wake an idle agent).
  bool async_rewake = false;
  FailurePolicy failure = FailurePolicy::fail_open;  // Claude Code's: a failing hook is a non-blocking error
  bool once = false;      // Claude Code's "once": runs at most once per session
  // Qwen Code's "sequential" (its matcher group's): when one of an event's
  // matching commands has it, they run one after another, each seeing what
  // the ones before it changed, instead of together.
  bool sequential = false;
  // Claude Code's "if": one permission rule (`Bash(git push *)`,
  // `Edit(src/**)`; docs/claude-code-rules.md); the command runs only on the
  // tool calls it matches, decided before any process starts. Empty: every call.
  std::string if_rule{};
  // Where the rule's `/path` patterns start: the directory of the settings
  // source (the project for its .claude/settings*.json, ~/.claude for the
  // user's, the plugin's directory); empty: the project.
  std::filesystem::path rule_root{};
  std::string status_message{};  // Claude Code's "statusMessage": the agent's UI shows it; hookctl list too
  std::string name{};            // Gemini CLI's "name": what its hooksConfig.disabled calls it
  // Cursor's "loop_limit" (a stop or subagentStop command's): the follow-ups
  // it asks for in a row, since the user's last prompt, past which its
  // follow-up is dropped with a warning. Empty: no cap.
  std::optional<std::uint32_t> follow_up_limit{};
  std::string label{};      // the bus label: the script's file name, or the command
  std::string source{};     // where it is declared: "/home/u/.claude/settings.json: hooks.PreToolUse[0].hooks[1]"
  Layer layer = Layer::user;
  std::filesystem::path plugin_root{};  // CLAUDE_PLUGIN_ROOT for a plugin's hooks; empty otherwise
  // The agent whose hook this is: its event names, payload and answer
  // (docs/agent-formats.md); Claude Code's, or another that declares hooks as it does.
  HookProtocol protocol = HookProtocol::claude_code;
  // For a project's command: its trusted files; the program, or the project
  // files the command names, are checked against them before every run.
  std::shared_ptr<const TrustedFiles> trusted{};
  // A handler's own working directory (VS Code's "cwd"), as written:
  // relative to the project, or absolute; a project's stays inside it
  // (docs/security.md, "Trust"). Empty: the project.
  std::string working_directory{};
  // Variables set for its process on top of the engine's environment (VS
  // Code's "env"), never a loader's or a shell's start-up variable
  // (environment_refusal, results.hpp) nor one hookbus sets for it.
  std::vector<std::pair<std::string, std::string>> environment{};

  bool operator==(const ClaudeCodeCommand&) const = default;
};

// What one settings file or plugin declares.
struct ClaudeCodeSettings {
  std::filesystem::path file{};
  std::vector<ClaudeCodeCommand> commands{};  // in declaration order
  // What is not imported, each naming the file, the JSON path and why: events
  // hookbus has no equivalent for, hook types other than "command", keys that
  // are not Claude Code's.
  std::vector<std::string> skipped{};
  bool disable_all_hooks = false;  // the file's own "disableAllHooks": none of its hooks is imported
  // SHA-256 of the bytes read (empty for a missing file): a project's
  // settings apply only when these are the bytes its trust fingerprinted.
  std::string sha256{};
  // The format a file of a directory two formats share is written for, when
  // not the one it was read as (a .github/hooks file with a "version" read as
  // VS Code's is Copilot CLI's): nothing of it is read.
  std::optional<HookProtocol> other_format{};
  // Gemini CLI's "hooksConfig": "enabled": false, or the hooks "disabled"
  // names (a hook's "name", else its command), do not run, in the file's
  // layer and the less trusted ones only (a project never stops the user's hook).
  bool hooks_config_disables_all = false;
  std::vector<std::string> hooks_config_disabled{};

  bool operator==(const ClaudeCodeSettings&) const = default;
};

// Claude Code's settings file of a scope: Layer::user is
// `<Locations::claude>/settings.json` (empty when there is no such
// directory), project `<project>/.claude/settings.json`, local
// `<project>/.claude/settings.local.json`; managed has none.
std::filesystem::path claude_code_settings_file(const Locations& locations, Layer scope);

// Reads the `hooks` block of a Claude Code settings file (other keys are
// Claude Code's own and ignored), or of a plugin's hooks/hooks.json (then
// `plugin_root` is the plugin directory). A missing file declares nothing.
// Throws ConfigError naming the file and the JSON path for a file that is not
// valid JSON, a `hooks` block of the wrong shape, or a value of the wrong type.
ClaudeCodeSettings read_claude_code_settings(const std::filesystem::path& file, Layer layer,
                                             const std::filesystem::path& plugin_root = {});

// The files inside `project_dir` that a command runs or names, found as
// /bin/sh will run it there (docs/security.md, "Trust": quotes, `cd`, `sh -c`,
// interpreters and their script, $CLAUDE_PROJECT_DIR, $PWD, $HOME, ~; paths
// resolved as the kernel resolves them), each named below `project_dir`:
// the files of a project's command that its trust fingerprint covers and
// that are checked again before each run. A link inside the project counts
// with its target when that is inside the project too.
std::vector<std::filesystem::path> claude_code_command_files(std::string_view command,
                                                             const std::filesystem::path& project_dir);

// Every existing file a command runs or names, inside the project or not, as
// the command reaches it (a plugin's $CLAUDE_PLUGIN_ROOT expanded too): the
// files that get the hook files' checks before each run.
std::vector<std::filesystem::path> claude_code_named_files(const ClaudeCodeCommand& command,
                                                           const std::filesystem::path& project_dir);

// Engine tool names as Claude Code knows them: the map's entry, else a
// Claude Code built-in tool name that equals it ignoring case (bash -> Bash),
// else the name unchanged. hookbus needs only to_claude (the payload's
// tool_name, matchers, the transcript's tool_use parts): nothing in a Claude
// Code hook's answer names a tool (updatedInput replaces the input of the
// call being decided, whatever its name; PermissionRequest's
// updatedPermissions is not read). to_engine is for engines that read
// Claude-named data themselves.
class ClaudeCodeToolNames {
 public:
  ClaudeCodeToolNames() = default;
  explicit ClaudeCodeToolNames(std::map<std::string, std::string> engine_to_claude);
  // For an agent that names Claude Code's built-in tools otherwise (Qwen
  // Code's run_shell_command for Bash): to_claude gives its name of a
  // built-in tool, `claude_to_agent` maps them.
  ClaudeCodeToolNames(std::map<std::string, std::string> engine_to_agent,
                      std::map<std::string, std::string> claude_to_agent);
  [[nodiscard]] std::string to_claude(std::string_view engine_name) const;
  [[nodiscard]] std::string to_engine(std::string_view claude_name) const;

 private:
  std::map<std::string, std::string, std::less<>> to_claude_{};
  std::map<std::string, std::string, std::less<>> to_engine_{};
  std::map<std::string, std::string, std::less<>> claude_to_agent_{};
};

// Claude Code's built-in tool names (Bash, Read, Write, Edit, ...).
std::span<const std::string_view> claude_code_tool_names() noexcept;

// Whether a Claude Code matcher matches `value` (a tool name, or for
// SessionStart, SessionEnd, PreCompact, Notification, SubagentStart and
// SubagentStop their source, reason, trigger, notification type or agent
// type), by Claude Code's rules (its hooks reference, "Matcher patterns"):
// "" and "*" match everything; a matcher of only letters, digits, '_', '-',
// spaces, ',' and '|' is a list of exact names separated by '|' or ','
// ("Bash", "Edit|Write", "Edit, Write"); anything else is a regular
// expression searched for anywhere in the value, unanchored ("^Notebook",
// "mcp__memory__.*"; "^Bash$" for exactly Bash). Throws ConfigError for an
// invalid expression, or a list that names nothing ("|").
class ClaudeCodeMatcher {
 public:
  explicit ClaudeCodeMatcher(std::string_view pattern);
  [[nodiscard]] bool matches(std::string_view value) const;

 private:
  struct Expression;
  std::vector<std::string> names_{};                 // the exact names; none: everything (unless expression_)
  std::shared_ptr<const Expression> expression_{};
};

// The hookbus events a Claude Code event name stands for (PostToolUseFailure:
// tool_result with an error and tool_execution_failure), or empty when
// hookbus has no equivalent.
std::vector<std::size_t> claude_code_event_targets(std::string_view claude_event);

// Checks an event name that config declares for a claude_code hook file
// (`"hooks": {"NAME": {"protocol": "claude_code", "events": [...]}}`): throws
// ConfigError at `where` for a name that is not one of the Claude Code events
// hookbus runs hooks on, listing them, with the Claude Code name of a hookbus
// event name ("tool_call" is PreToolUse).
void check_claude_code_event(std::string_view name, const ConfigLocation& where);

// False for the events whose matcher Claude Code ignores (UserPromptSubmit,
// Stop): their hooks run on every occurrence, whatever matcher they give.
bool claude_code_event_has_matcher(std::string_view claude_event);

// Whether this emit is `claude_event` for a hook registered on one of its
// targets: a tool_result is PostToolUse without an error, PostToolUseFailure with one.
bool claude_code_event_applies(std::string_view claude_event, const HookEvent& event);

// How install_claude_code_hooks runs the commands it is given.
struct ClaudeCodeOptions {
  ClaudeCodeToolNames tool_names{};
  std::filesystem::path project_dir{};     // CLAUDE_PROJECT_DIR and the hooks' working directory; empty: the current directory
  // Where hookbus keeps a Claude-Code-format transcript of what it saw on the
  // bus, one file per session, for events whose context has no
  // transcript_path; empty: none is kept (transcript_path is then "").
  std::filesystem::path transcript_dir{};
  // What becomes of the processes a command leaves running, fully detached,
  // once it exits on its own (ExternalHook::detached_processes).
  DetachedProcesses detached_processes = DetachedProcesses::allow;
  // Where its HTTP handlers may send requests (ClaudeCodeCommand::url): setup()
  // gives LayeredConfig::network_allowance(). Empty: nowhere; each such
  // handler's run fails, naming the origin to allow.
  NetworkAllowance network{};
};

// What an engine asks of setup() in code (SetupOptions::claude_code): which
// Claude Code hooks to import, how its tools are named, where transcripts go.
// It adds to what config's "claude_code" asks for in every layer that applies.
struct ClaudeCodeSetup {
  // As config's "claude_code": `settings` (Layer::user, project, local; the
  // project's files run only in a trusted project and count in its
  // fingerprint), `plugins` (plugin directories, whose hooks belong to the
  // user layer) and `tool_names` (config adds names the engine does not map,
  // each layer's for the commands of its own and less trusted layers only:
  // LayeredConfig::claude_code_tool_names; the engine's own entries win).
  ClaudeCodeImport import{};
  // Where hookbus keeps transcripts (ClaudeCodeOptions::transcript_dir):
  // unset: <Locations::state>/transcripts; an empty path: none is kept, for
  // an engine that gives EventContext::transcript_path on every event.
  std::optional<std::filesystem::path> transcript_dir{};
};

// The JSON a Claude Code hook reads on stdin for this event.
boost::json::object claude_code_payload(const HookEvent& event, std::string_view claude_event,
                                        const ClaudeCodeToolNames& tool_names, std::string_view transcript_path,
                                        const std::filesystem::path& project_dir);

// What one finished run means for the event, read as the command's agent
// reads its hook's answer (ClaudeCodeCommand::protocol: Claude Code's rules
// are exit 0 with JSON or text, exit 2, other exit codes; Cursor's flat
// permission, Cline's cancel, ...), as the event's result; monostate for no
// change. Throws ExternalHookError for a failure (another exit code, a
// timeout, an answer of the wrong shape), naming the hook's source, and
// std::invalid_argument for a protocol of no agent (hookbus's, kodelet's).
HookOutcome claude_code_outcome(const ClaudeCodeCommand& hook, const HookEvent& event, const ProcessResult& run,
                                const ClaudeCodeToolNames& tool_names);

// Runs the command once for `event`, outside any bus, as
// install_claude_code_hooks runs it when it matches (its matcher, "if" and
// "once" are not consulted): its agent's payload for its `event` name on
// stdin, its agent's variables and its own, its working directory, its
// timeout, what it runs checked first as before every run. Read the run
// with claude_code_outcome; `hookctl run-hook --protocol` shows both.
// Throws ExternalHookError, naming the command, for one refused or that
// cannot start, and std::invalid_argument for a protocol of no agent.
ProcessResult run_claude_code_command(const ClaudeCodeCommand& command, const HookEvent& event,
                                      const ClaudeCodeOptions& options);

// The transcript file hookbus keeps for a session under `transcript_dir`:
// the session id made a safe file name (bytes other than ASCII letters,
// digits, '-' and '_' percent-encoded, so no id escapes the directory and
// distinct ids stay distinct; a very long id ends in its SHA-256 instead),
// then ".jsonl". An empty id is "session".
std::filesystem::path claude_code_transcript_path(const std::filesystem::path& transcript_dir, std::string_view session_id);

// Keeps a Claude-Code-format JSONL transcript (one file per session under
// `transcript_dir`, mode 0600) of every message_end seen on the bus, for the
// hooks that read `transcript_path` (Stop hooks check what the agent did).
// The files stay when the connection is dropped: a resumed session goes on
// in the same file.
Connection record_claude_code_transcript(Hooks& hooks, const std::filesystem::path& transcript_dir,
                                         const ClaudeCodeToolNames& tool_names);

// Registers each command for the hookbus events its Claude Code event stands
// for, in declaration order, labelled `label`, with `source` naming it in
// decided_by and failure reports. On each emit, the commands of one Claude
// Code event that match start together, in parallel, when the first of them
// is called, and the emit goes on once all have finished (as Claude Code
// runs them: so a deny that stops the chain leaves no run behind); identical
// runs (the same `command` or `program`, with the same CLAUDE_PLUGIN_ROOT,
// project directory and payload) run once, so the same command text in two
// plugins runs twice; results fold in declaration order. Give all the
// commands of one layer in one call: setup() does, and installs the layers'
// calls so that a command that another layer already ran in the same emit
// runs once too. `async` commands run in the background, on a pool of this
// call's (external.hpp, BackgroundOptions' defaults); those still queued or
// running when the last handler of the call is gone (at the latest with the
// bus) are cancelled and waited for. An emit's stop token (hooks.hpp) stops
// its runs. Dropping the group unregisters them.
ConnectionGroup install_claude_code_hooks(Hooks& hooks, const std::vector<ClaudeCodeCommand>& commands,
                                          const ClaudeCodeOptions& options);

}  // namespace hookbus
