#pragma once
// Internal: one Claude Code command's run for an event: whether it matches,
// the process it starts (program, arguments, environment, payload), the
// checks of what it runs right before, and several commands run at once.
// The installer (installer.cpp) decides which commands run when.

#include <hookbus/claude_code.hpp>
#include <hookbus/process.hpp>
#include <hookbus/results.hpp>

#include "bus/recording/handler_report.hpp"
#include "formats/claude_code/permission_rule.hpp"
#include "formats/hook_format.hpp"
#include "net/http_client.hpp"

#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hookbus::detail {

// One installed command.
struct InstalledCommand {
  const HookFormat* format;  // its agent's: its events, payload and answer
  ClaudeCodeCommand command;
  ClaudeCodeMatcher matcher;  // matches everything on events whose matcher Claude Code ignores
  std::optional<PermissionRule> rule;  // its "if"
  // Those of its install call: the tool names its layer's commands see, the project, the transcripts.
  std::shared_ptr<const ClaudeCodeOptions> options;
  // An HTTP handler's client (one per install call, sending where
  // options->network allows); null for a command.
  std::shared_ptr<HttpClient> http;
  std::mutex once_mutex;
  std::set<std::string> sessions_run;  // for `once`
  std::mutex follow_up_mutex;
  std::map<std::string, std::uint32_t> follow_ups_in_a_row;  // for follow_up_limit: by session (and subagent)
};

// Whether the command runs on this emit of E: its event applies, its
// matcher matches, and its "if" matches the tool call. Instantiated for
// every event, as is invocation_of.
template <class E>
bool matches(const InstalledCommand& hook, const E& event);

// `once`: true the first time for a session, false afterwards.
bool first_run_in_session(InstalledCommand& hook, const EventContext& context);

// follow_up_limit (Cursor's loop_limit): counts the follow-ups the command
// asked for in a row, since an end that no follow-up started (of the
// session, or of the same subagent), and drops one past its limit, with a
// warning naming the command.
void limit_follow_ups(InstalledCommand& hook, const AgentEndEvent& event, std::optional<AgentEndResult>& answer);
void limit_follow_ups(InstalledCommand& hook, const SubagentEndEvent& event, std::optional<SubagentEndResult>& answer);

// What running a hook for an event is: two hooks with the same invocation
// are one run (Claude Code runs identical commands once), whatever settings
// file or plugin declares them. The same command text in two plugins is two
// runs: CLAUDE_PLUGIN_ROOT differs; so is one that two layers see under other
// tool names: the payload differs. A command runs as `/bin/sh -c COMMAND`,
// a hook file directly, in the project (or its own directory), with its
// format's variables and its own.
struct CommandInvocation {
  std::filesystem::path program;  // empty for an HTTP handler
  std::vector<std::string> arguments;
  // An HTTP handler's request as written: its URL and headers, one per line.
  std::string request;
  std::vector<std::pair<std::string, std::string>> environment;
  std::filesystem::path working_directory;
  std::string input;
  std::filesystem::path transcript;  // the transcript file hookbus keeps for the session, or empty
  bool env_file = false;  // whether it gets a file of its own to export variables in (its format's env_file_variable)

  bool operator<(const CommandInvocation& other) const;
};
template <class E>
CommandInvocation invocation_of(const InstalledCommand& hook, const E& event);

// Whether the format's event `format_event` fires for `event`: it stands for
// it (a failed tool's result for Cursor's postToolUseFailure) and, for a
// tool event of one kind of tool, the tool is of that kind (a shell command
// for Cursor's beforeShellExecution).
bool format_event_fires(const HookFormat& format, std::string_view format_event, const HookEvent& event,
                        const ClaudeCodeToolNames& tool_names);

// The event of `format` an emit of `event` is to one of its commands run on
// its own (hookctl run-hook): the first of the format's events, in its
// order, that stands for `event` and fires for it, one that fires for the
// tool's own kind only before one that fires for every tool (Cursor's
// beforeShellExecution, not its preToolUse, for a shell command); nullopt
// when none does.
std::optional<std::string_view> format_event_of(const HookFormat& format, const HookEvent& event,
                                                const ClaudeCodeToolNames& tool_names);

// Runs the invocation once what it runs passed the checks again (the hook
// files' checks, and a trusted project's fingerprint); throws
// ExternalHookError, naming the command, for one that did not or that
// cannot start. With `exported`, the variables it exported in its env file
// (invocation.env_file) are put there; a line it cannot read, or a variable
// it may not set (environment_refusal), is a warning naming the command.
ProcessResult run_command(const InstalledCommand& hook, CommandInvocation invocation, std::stop_token stop = {},
                          std::vector<EnvironmentVariable>* exported = nullptr);

// One command's run: how it ended, and when it ran (its trace entry's times:
// a group's commands run at once, in the call of its first member).
struct FinishedRun {
  std::variant<ProcessResult, std::exception_ptr> outcome;
  HandlerReport::Run times;
  std::vector<EnvironmentVariable> environment;  // what it exported for the engine's later tools
};

// The additionalContext and systemMessage of the JSON answer of a run that
// ended with exit 0, for an event whose result cannot carry them (an async
// run's, kept for a later event: answer.cpp).
struct AnswerTexts {
  std::vector<std::string> context;   // hookSpecificOutput.additionalContext
  std::vector<std::string> messages;  // systemMessage
};
AnswerTexts answer_texts(const ProcessResult& run);

// Runs every hook at once, one on this thread and each other on a thread of
// its own, and returns when all have finished: no run outlives the call. The
// emit's stop token (hooks.hpp) stops them all.
std::vector<FinishedRun> run_together(const std::vector<std::shared_ptr<InstalledCommand>>& hooks,
                                      std::vector<CommandInvocation> invocations);

}  // namespace hookbus::detail
