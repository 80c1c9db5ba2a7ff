// One Claude Code command's run (formats/claude_code/run.hpp).
#include "formats/claude_code/run.hpp"

#include <hookbus/external_hook_error.hpp>
#include <hookbus/json.hpp>

#include "catalogue/instantiations.hpp"
#include "support/file_safety.hpp"
#include "support/file_descriptor.hpp"
#include "support/files.hpp"
#include "support/search_path.hpp"
#include "process/run_log.hpp"
#include "bus/reducers.hpp"
#include "formats/claude_code/command_files.hpp"
#include "formats/claude_code/env_file.hpp"
#include "formats/claude_code/transcript.hpp"
#include "formats/handler_directory.hpp"
#include "process/http_run.hpp"

#include <boost/json/parse.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

// Whether the kernel runs the hook file `program` itself: it starts with a
// '#!' line or is an ELF binary. A file that cannot be read is run as it is,
// for its run's error to say why.
bool cc_kernel_runs(const fs::path& program) {
  const FileDescriptor fd(::open(program.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  char magic[4] = {};
  ssize_t n = -1;
  if (fd.get() >= 0) {
    do n = ::read(fd.get(), magic, sizeof magic);
    while (n < 0 && errno == EINTR);
  }
  if (n < 0) return true;
  const std::string_view start(magic, static_cast<std::size_t>(n));
  return start.starts_with("#!") || start == "\x7f" "ELF";
}

// An HTTP handler's run, made the run of a command (process/http_run.hpp) that
// its agent's answer reads (claude_code_outcome): a 2xx response's body is
// its stdout, an empty body no answer. Anything else fails the run, for its
// failure policy to decide (a fail-closed guard refuses), as does a body
// that is not a JSON object (its agent's rule for HTTP hooks).
ProcessResult run_http(const InstalledCommand& hook, std::string payload, std::stop_token stop) {
  const ClaudeCodeCommand& c = hook.command;
  const auto failed = [&](std::string_view why) {
    return ExternalHookError(fmt::format("{} ({}): {}", c.label, c.source, why));
  };
  ProcessResult run;
  try {
    run = post_hook_payload(*hook.http, {.url = c.url, .headers = c.headers, .allowed_env_vars = c.allowed_env_vars},
                            std::move(payload), c.timeout, std::move(stop));
  } catch (const Error& error) {
    throw failed(error.what());
  }
  if (!run.stdout_text.empty()) {
    boost::system::error_code error;
    if (const boost::json::value answer = boost::json::parse(run.stdout_text, error); error || !answer.is_object())
      throw failed(fmt::format("{} answered with a body that is not a JSON object (an HTTP hook answers with the "
                               "JSON a command prints, or nothing): {}",
                               c.url, printable(std::string_view(run.stdout_text).substr(0, 300))));
  }
  return run;
}

// The project a hook of these options runs for: the engine's, else the working directory.
fs::path project_of(const ClaudeCodeOptions& options) {
  return options.project_dir.empty() ? fs::current_path() : options.project_dir;
}

// What a matcher is matched against: the tool name, or the event's source,
// reason, trigger, notification type or agent type ("" for events without a
// matcher), as the format's payload names them.
template <class E>
std::string matcher_value(const HookFormat& format, const E& e, const ClaudeCodeToolNames& names) {
  const auto payload_field = [&](std::string_view format_event, std::string_view field) {
    return std::string(std::get<FormatRun<E>>(*format.runs).payload(e, format_event, names, "", "").at(field).as_string());
  };
  if constexpr (requires { e.tool_name; }) return names.to_claude(e.tool_name);
  else if constexpr (std::is_same_v<E, SessionStartEvent>) return payload_field("SessionStart", "source");
  else if constexpr (std::is_same_v<E, SessionShutdownEvent>) return payload_field("SessionEnd", "reason");
  else if constexpr (std::is_same_v<E, SessionBeforeCompactEvent>)
    return e.trigger == CompactTrigger::manual ? "manual" : "auto";
  else if constexpr (std::is_same_v<E, SessionCompactEvent>) return payload_field("PostCompact", "trigger");
  else if constexpr (std::is_same_v<E, AgentErrorEvent>) return payload_field("StopFailure", "error");
  else if constexpr (std::is_same_v<E, ModelSelectEvent>) return e.model;
  else if constexpr (std::is_same_v<E, NotificationEvent>) return e.kind;
  else if constexpr (std::is_same_v<E, SubagentStartEvent> || std::is_same_v<E, SubagentEndEvent>) return e.label;
  else return "";
}

// A tool event's input: the call's arguments (permission_denied's parameters).
template <class E>
const boost::json::object& tool_input(const E& e) {
  if constexpr (requires { e.input; }) return e.input;
  else return e.parameters;
}

// Whether the tool call of the event is one the command's "if" matches; an
// event without a tool call (the reader keeps "if" to tool events) never is.
template <class E>
bool rule_matches(const InstalledCommand& hook, const E& e) {
  if constexpr (requires { e.tool_name; e.input; } || requires { e.tool_name; e.parameters; }) {
    const ClaudeCodeOptions& options = *hook.options;
    const fs::path project = project_of(options);
    const char* home = std::getenv("HOME");
    const RuleContext context{.settings_root = hook.command.rule_root.empty() ? project : hook.command.rule_root,
                              .working_directory = e.context.cwd.empty() ? project : fs::path(e.context.cwd),
                              .home = home != nullptr ? fs::path(home) : fs::path()};
    return detail::matches(*hook.rule, options.tool_names.to_claude(e.tool_name), boost::json::value(tool_input(e)),
                           context);
  } else {
    return false;
  }
}

FinishedRun run_catching(const InstalledCommand& hook, CommandInvocation invocation, const std::stop_token& stop) {
  const TraceTicks start = trace_ticks();
  std::vector<EnvironmentVariable> environment;
  decltype(FinishedRun::outcome) outcome = [&]() -> decltype(FinishedRun::outcome) {
    try {
      return run_command(hook, std::move(invocation), stop, &environment);
    } catch (...) {
      return std::current_exception();
    }
  }();
  return {std::move(outcome), {start, trace_ticks()}, std::move(environment)};
}

// The variables a command's env file exports, as bash would read them with
// the environment the command ran with; each line it cannot read, and each
// variable it may not set, is a warning naming the command.
std::vector<EnvironmentVariable> exported_variables(const InstalledCommand& hook, const EnvFileForRun& file,
                                                    const std::vector<std::pair<std::string, std::string>>& extra) {
  const ClaudeCodeCommand& c = hook.command;
  const std::string who = fmt::format("{} hook {} ({}): its {}", hook.format->agent, c.label, c.source,
                                      hook.format->env_file_variable);
  std::string text;
  try {
    text = file.read();
  } catch (const FileReadError& error) {
    log(spdlog::level::warn, "{} {}: nothing it exports is passed on", who, error.what());
    return {};
  }
  std::map<std::string, std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view pair(*entry);
    const std::size_t equals = pair.find('=');
    if (equals != std::string_view::npos) environment.emplace(pair.substr(0, equals), pair.substr(equals + 1));
  }
  for (const auto& [name, value] : extra) environment[name] = value;
  EnvFile read = parse_env_file(text, environment);
  for (const auto& warning : read.warnings) log(spdlog::level::warn, "{}, line {}: {}", who, warning.line, warning.message);
  std::vector<EnvironmentVariable> exported;
  for (auto& [name, value] : read.variables) {
    if (const auto why = environment_refusal(name))
      log(spdlog::level::warn, "{} exports {}, which is not passed on: {}", who, name, *why);
    else exported.push_back({std::move(name), std::move(value)});
  }
  return exported;
}

}  // namespace

template <class E>
bool matches(const InstalledCommand& hook, const E& event) {
  if (!event_applies(*hook.format, hook.command.event, event)) return false;
  // An event without a matcher is matched against nothing (its payload may not have the field).
  std::string value = event_has_matcher(*hook.format, hook.command.event)
                          ? matcher_value(*hook.format, event, hook.options->tool_names)
                          : std::string();
  if constexpr (requires { event.tool_name; event.input; } || requires { event.tool_name; event.parameters; })
    if (hook.format->tool_event_subject != nullptr) {
      auto subject = hook.format->tool_event_subject(hook.command.event, value, tool_input(event));
      if (!subject) return false;
      value = std::move(*subject);
    }
  if (!format_matcher_matches(*hook.format, hook.matcher, value)) return false;
  return !hook.rule || rule_matches(hook, event);
}

namespace {
// Whether a tool event of the format fires for one kind of tool only: then
// it does not fire for a tool of no name, which is of no kind.
bool run_fires_for_one_kind(const HookFormat& format, std::string_view format_event) {
  return format.tool_event_subject != nullptr && !format.tool_event_subject(format_event, "", {});
}
}  // namespace

bool format_event_fires(const HookFormat& format, std::string_view format_event, const HookEvent& event,
                        const ClaudeCodeToolNames& tool_names) {
  return std::visit(
      [&]<class E>(const E& e) {
        if (!event_applies(format, format_event, e)) return false;
        if constexpr (requires { e.tool_name; e.input; } || requires { e.tool_name; e.parameters; })
          if (format.tool_event_subject != nullptr)
            return format.tool_event_subject(format_event, tool_names.to_claude(e.tool_name), tool_input(e)).has_value();
        return true;
      },
      event);
}

std::optional<std::string_view> format_event_of(const HookFormat& format, const HookEvent& event,
                                                const ClaudeCodeToolNames& tool_names) {
  std::optional<std::string_view> first;
  for (const FormatEvent& candidate : format.events) {
    if (!format_event_fires(format, candidate.name, event, tool_names)) continue;
    if (run_fires_for_one_kind(format, candidate.name)) return candidate.name;
    if (!first) first = candidate.name;
  }
  return first;
}

bool first_run_in_session(InstalledCommand& hook, const EventContext& context) {
  if (!hook.command.once) return true;
  const std::lock_guard lock(hook.once_mutex);
  return hook.sessions_run.insert(context.session_id).second;
}

namespace {

template <class E>
void limit_follow_ups_of(InstalledCommand& hook, const E& event, std::string key,
                         std::optional<result_t<E>>& answer) {
  const ClaudeCodeCommand& c = hook.command;
  if (!c.follow_up_limit) return;
  const std::lock_guard lock(hook.follow_up_mutex);
  std::uint32_t& in_a_row = hook.follow_ups_in_a_row[std::move(key)];
  if (!event.after_follow_up) in_a_row = 0;
  if (!answer || answer->follow_up_messages.empty()) return;
  if (in_a_row < *c.follow_up_limit) {
    ++in_a_row;
    return;
  }
  log(spdlog::level::warn, "{} ({}): its follow-up is not sent: it asked for {} in a row, its loop_limit", c.label,
      c.source, in_a_row);
  answer->follow_up_messages.clear();
}

// The file an exec handler runs: its program from its working directory or,
// named without a '/', the first executable file of that name in a directory
// of the PATH it gets (its own "env"'s, else the engine's), as /bin/sh would
// find it and trust resolved it; never one reached through procfs, whose
// names (/proc/self/cwd, /dev/fd/N) mean another file in the process started.
fs::path exec_handler_program(const ClaudeCodeCommand& c, const fs::path& working_directory) {
  fs::path program = working_directory / c.exec;
  if (c.exec.find('/') == std::string::npos) {
    const auto own = std::find_if(c.environment.begin(), c.environment.end(),
                                  [](const auto& variable) { return variable.first == "PATH"; });
    const char* engines = std::getenv("PATH");
    const std::string path = own != c.environment.end() ? own->second : engines != nullptr ? engines : "";
    const auto listed = search_path(path, working_directory);
    const auto found = std::find_if(listed.begin(), listed.end(),
                                    [&](const SearchPathEntry& entry) { return is_executable_file(entry.directory / c.exec); });
    if (found == listed.end())
      throw Error(fmt::format("its program \"{}\" is in no directory of its PATH ({})", c.exec, path));
    program = found->directory / c.exec;
  }
  if (auto why = per_process_path_reason(program)) throw Error(*why);
  return program;
}

}  // namespace

void limit_follow_ups(InstalledCommand& hook, const AgentEndEvent& event, std::optional<AgentEndResult>& answer) {
  limit_follow_ups_of(hook, event, event.context.session_id, answer);
}

void limit_follow_ups(InstalledCommand& hook, const SubagentEndEvent& event, std::optional<SubagentEndResult>& answer) {
  limit_follow_ups_of(hook, event, event.context.session_id + '\n' + event.task_id, answer);
}

bool CommandInvocation::operator<(const CommandInvocation& other) const {
  return std::tie(program, arguments, request, environment, working_directory, input) <
         std::tie(other.program, other.arguments, other.request, other.environment, other.working_directory, other.input);
}

template <class E>
CommandInvocation invocation_of(const InstalledCommand& hook, const E& event) {
  const HookFormat& format = *hook.format;
  const ClaudeCodeCommand& c = hook.command;
  const ClaudeCodeOptions& options = *hook.options;
  const fs::path project = project_of(options);
  const bool http = !c.url.empty();
  CommandInvocation invocation{
      .program = http               ? fs::path()
                 : !c.exec.empty()  ? fs::path(c.exec)
                 : c.program.empty() ? fs::path("/bin/sh")
                                     : c.program,
      .arguments = http || !c.exec.empty() ? c.arguments
                   : c.program.empty()     ? std::vector<std::string>{"-c", c.command}
                                           : std::vector<std::string>{},
      .request = {},
      .environment = {},
      .working_directory = c.working_directory.empty() ? project : (project / c.working_directory).lexically_normal(),
      .input = {},
      .transcript = {}};
  if (!format.project_dir_variable.empty())  // Cline sets none
    invocation.environment.emplace_back(std::string(format.project_dir_variable), project.string());
  if (!c.plugin_root.empty()) {
    invocation.environment.emplace_back(std::string(format.plugin_root_variable), c.plugin_root.string());
    for (const std::string_view alias : format.plugin_root_aliases)
      invocation.environment.emplace_back(std::string(alias), c.plugin_root.string());
  }
  invocation.environment.insert(invocation.environment.end(), c.environment.begin(), c.environment.end());
  std::string transcript = event.context.transcript_path;
  if (transcript.empty() && !options.transcript_dir.empty()) {
    invocation.transcript = claude_code_transcript_path(options.transcript_dir, event.context.session_id);
    transcript = invocation.transcript.string();
  }
  if (http) {
    invocation.request = c.url;
    for (const auto& [name, value] : c.headers) invocation.request += fmt::format("\n{}: {}", name, value);
  }
  invocation.input =
      write_json(std::get<FormatRun<E>>(*format.runs).payload(event, c.event, options.tool_names, transcript, project));
  invocation.env_file = !format.env_file_variable.empty() && sets_environment<E>;
  return invocation;
}

namespace {
[[gnu::used]] constexpr auto command_runs_instantiated = addresses_for<HookEvent>(
    []<class E>(std::type_identity<E>) { return std::tuple{&matches<E>, &invocation_of<E>}; });
}  // namespace

ProcessResult run_command(const InstalledCommand& hook, CommandInvocation invocation, std::stop_token stop,
                          std::vector<EnvironmentVariable>* exported) {
  const ClaudeCodeCommand& c = hook.command;
  if (!c.url.empty()) return run_http(hook, std::move(invocation.input), std::move(stop));
  const ProjectDirectory directory(project_of(*hook.options));
  // Its own directory, where the links on its way lead now: inside its
  // project, and there (handler_directory.hpp).
  fs::path working_directory = directory.given();
  if (!c.working_directory.empty()) {
    try {
      HandlerDirectory own = handler_directory(c.working_directory, directory, is_project_layer(c.layer));
      if (own.not_there) throw Error(*own.not_there);
      working_directory = std::move(own.physical);
    } catch (const Error& error) {
      throw ExternalHookError(fmt::format("{} ({}): refused: {}", c.label, c.source, error.what()));
    }
  }
  // What it runs, resolved now as its project's fingerprint resolved it
  // (command_files.hpp): every file gets the hook files' checks again,
  // whatever its layer, and those of a trusted project must be as trusted
  // (docs/security.md, "Checked again before each run").
  std::vector<fs::path> named{c.program};
  std::vector<fs::path> projects{c.program};
  if (c.program.empty()) {
    const ShellCommandFiles found = resolve_command(*hook.format, c, directory);
    named.clear();
    for (const auto& file : found.files) named.push_back(file.path);
    projects = files_inside(found, directory);
  }
  for (const auto& file : named)
    if (auto why = unsafe_path_reason(file))
      throw ExternalHookError(fmt::format("{} ({}): refused: {}", c.label, c.source, *why));
  if (c.trusted)
    for (const auto& file : projects)
      if (auto why = c.trusted->why_not_run(file))
        throw ExternalHookError(fmt::format("{} ({}): {}", c.label, c.source, *why));
  // A file its agent's shell would read as a script runs so, once checked:
  // the shell reads what was checked (docs/security.md).
  if (!c.program.empty() && !hook.format->script_shell.empty() && !cc_kernel_runs(c.program)) {
    invocation.arguments.insert(invocation.arguments.begin(), c.program.string());
    invocation.program = hook.format->script_shell;
  }
  // A Stop hook opens transcript_path before the session's first message, too.
  if (!invocation.transcript.empty()) append_to_transcript(hook.options->transcript_dir, invocation.transcript, "");
  ProcessSpec spec{.program = std::move(invocation.program),
                   .arguments = std::move(invocation.arguments),
                   .extra_environment = std::move(invocation.environment),
                   .working_directory = std::move(working_directory),
                   .input = std::move(invocation.input),
                   .timeout = c.timeout,
                   .stop = std::move(stop),
                   .detached_may_outlive = hook.options->detached_processes == DetachedProcesses::allow};
  const std::size_t bytes_in = spec.input.size();
  if (!c.exec.empty()) {
    try {
      spec.program = exec_handler_program(c, spec.working_directory);
    } catch (const Error& error) {
      throw ExternalHookError(fmt::format("{} ({}): refused: {}", c.label, c.source, error.what()));
    }
  }
  try {
    std::optional<EnvFileForRun> env_file;
    if (invocation.env_file) {
      env_file.emplace();
      spec.extra_environment.emplace_back(hook.format->env_file_variable, env_file->path().string());
    }
    ProcessResult result = run_process(spec);
    log_hook_run(c.label, c.program.empty() ? fs::path(c.source) : c.program, c.event, bytes_in, result);
    if (env_file && exported != nullptr) *exported = exported_variables(hook, *env_file, spec.extra_environment);
    return result;
  } catch (const Error& error) {  // the process's, or its env file's
    throw ExternalHookError(fmt::format("{} ({}): {}", c.label, c.source, error.what()));
  }
}

std::vector<FinishedRun> run_together(const std::vector<std::shared_ptr<InstalledCommand>>& hooks,
                                      std::vector<CommandInvocation> invocations) {
  std::vector<FinishedRun> outcomes(hooks.size());
  const std::stop_token stop = emit_stop_token();
  const auto run_one = [&](std::size_t i) { outcomes[i] = run_catching(*hooks[i], std::move(invocations[i]), stop); };
  std::vector<std::jthread> threads;
  for (std::size_t i = 1; i < hooks.size(); ++i) {
    try {
      threads.emplace_back(run_one, i);
    } catch (const std::system_error&) {  // no thread to be had: this one runs it
      run_one(i);
    }
  }
  if (!hooks.empty()) run_one(0);
  threads.clear();  // joins, before `outcomes` is returned
  return outcomes;
}

}  // namespace hookbus::detail

namespace hookbus {

ProcessResult run_claude_code_command(const ClaudeCodeCommand& command, const HookEvent& event,
                                      const ClaudeCodeOptions& options) {
  const auto hook = std::make_shared<const detail::InstalledCommand>(
      &detail::hook_format_of(command.protocol), command, ClaudeCodeMatcher(""), std::nullopt,
      std::make_shared<const ClaudeCodeOptions>(options),
      command.url.empty() ? nullptr
                          : std::make_shared<detail::HttpClient>(detail::HttpClientOptions{.allowance = options.network}));
  return std::visit([&](const auto& e) { return detail::run_command(*hook, detail::invocation_of(*hook, e)); }, event);
}

}  // namespace hookbus
