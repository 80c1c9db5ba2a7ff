// Installing Claude Code command hooks on the bus: one handler per command,
// parallel runs per settings file and event, `once`, `async`, and the
// transcript hookbus keeps for hooks that read one (include/hookbus/claude_code.hpp).
#include <hookbus/claude_code.hpp>
#include <hookbus/external.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>

#include "bus/recording/handler_report.hpp"
#include "external/background.hpp"
#include "external/claude_code_files.hpp"
#include "external/claude_code_installer.hpp"
#include "support/file_safety.hpp"
#include "external/run_log.hpp"
#include "support/files.hpp"
#include "support/logging.hpp"
#include "support/sha256.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <stop_token>
#include <system_error>
#include <thread>
#include <tuple>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// ------------------------------------------------------------ transcript

// Appends `text` to a transcript file of `directory` (made 0700 when it is
// created), creating the file (0600) when it is missing, also for no text: a
// hook that opens transcript_path finds a file, empty before the session's
// first message.
void append_to_transcript(const fs::path& directory, const fs::path& file, std::string_view text) {
  std::error_code ec;
  if (!fs::is_directory(directory, ec)) {
    fs::create_directories(directory, ec);
    ::chmod(directory.c_str(), 0700);
  }
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    detail::log(spdlog::level::warn, "transcript {} not written: {}", file.string(), std::generic_category().message(errno));
    return;
  }
  if (!text.empty() && ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    detail::log(spdlog::level::warn, "transcript {} not fully written", file.string());
  ::close(fd);
}

// A Claude-Code-format JSONL transcript of the messages seen on the bus, one
// file per session, for hooks that read `transcript_path` (Stop hooks do).
class Transcript {
 public:
  explicit Transcript(fs::path directory, ClaudeCodeToolNames names)
      : directory_(std::move(directory)), names_(std::move(names)) {}

  void record(const MessageEndEvent& event) {
    const std::lock_guard lock(mutex_);
    std::string& parent = last_uuid_[event.context.session_id];
    const std::string uuid = fmt::format("{:016x}{:016x}", random_(), random_());
    json::object line{{"parentUuid", parent.empty() ? json::value(nullptr) : json::value(parent)},
                      {"sessionId", event.context.session_id},
                      {"cwd", event.context.cwd},
                      {"uuid", uuid},
                      {"timestamp", fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", std::chrono::floor<std::chrono::milliseconds>(
                                                                              std::chrono::system_clock::now()))}};
    const Message& message = event.message;
    json::array content;
    for (const auto& part : message.content) {
      if (const auto* text = std::get_if<TextPart>(&part)) content.push_back(json::object{{"type", "text"}, {"text", text->text}});
    }
    if (message.role == Role::assistant) {
      for (const auto& call : message.tool_calls)
        content.push_back(json::object{{"type", "tool_use"}, {"id", call.id}, {"name", names_.to_claude(call.name)}, {"input", call.input}});
      line["type"] = "assistant";
      line["message"] = json::object{{"role", "assistant"}, {"content", std::move(content)}};
    } else if (message.role == Role::tool) {
      json::array result{json::object{{"type", "tool_result"}, {"tool_use_id", message.tool_call_id.value_or("")},
                                      {"content", std::move(content)}}};
      line["type"] = "user";
      line["message"] = json::object{{"role", "user"}, {"content", std::move(result)}};
    } else {
      line["type"] = message.role == Role::system ? "system" : "user";
      line["message"] = json::object{{"role", message.role == Role::system ? "system" : "user"}, {"content", std::move(content)}};
    }
    append_to_transcript(directory_, claude_code_transcript_path(directory_, event.context.session_id),
                         write_json(line) + "\n");
    parent = uuid;
  }

 private:
  fs::path directory_;
  ClaudeCodeToolNames names_;
  std::mutex mutex_;
  std::map<std::string, std::string> last_uuid_;  // per session
  std::mt19937_64 random_{std::random_device{}()};
};

// ----------------------------------------------------------------- runs

// One installed command.
struct Hook {
  ClaudeCodeCommand command;
  ClaudeCodeMatcher matcher;  // matches everything on events whose matcher Claude Code ignores
  // Those of its install call: the tool names its layer's commands see, the project, the transcripts.
  std::shared_ptr<const ClaudeCodeOptions> options;
  std::mutex once_mutex;
  std::set<std::string> sessions_run;  // for `once`
};

// What a matcher is matched against: the tool name, or the event's source,
// reason, trigger, notification type or agent type ("" for events without a matcher).
std::string matcher_value(const HookEvent& event, const ClaudeCodeToolNames& names) {
  return std::visit(
      [&]<class E>(const E& e) -> std::string {
        if constexpr (requires { e.tool_name; }) return names.to_claude(e.tool_name);
        else if constexpr (std::is_same_v<E, SessionStartEvent>)
          return std::string(claude_code_payload(event, "SessionStart", names, "", "").at("source").as_string());
        else if constexpr (std::is_same_v<E, SessionShutdownEvent>)
          return std::string(claude_code_payload(event, "SessionEnd", names, "", "").at("reason").as_string());
        else if constexpr (std::is_same_v<E, SessionBeforeCompactEvent>)
          return e.trigger == CompactTrigger::manual ? "manual" : "auto";
        else if constexpr (std::is_same_v<E, NotificationEvent>) return e.kind;
        else if constexpr (std::is_same_v<E, SubagentStartEvent> || std::is_same_v<E, SubagentEndEvent>) return e.label;
        else return "";
      },
      event);
}

bool matches(const Hook& hook, const HookEvent& event) {
  if (!claude_code_event_applies(hook.command.event, event)) return false;
  return hook.matcher.matches(matcher_value(event, hook.options->tool_names));
}

// `once`: true the first time for a session, false afterwards.
bool first_run_in_session(Hook& hook, const HookEvent& event) {
  if (!hook.command.once) return true;
  const std::lock_guard lock(hook.once_mutex);
  return hook.sessions_run.insert(context_of(event).session_id).second;
}

// What running a hook for an event is: two hooks with the same invocation
// are one run (Claude Code runs identical commands once), whatever settings
// file or plugin declares them. The same command text in two plugins is two
// runs: CLAUDE_PLUGIN_ROOT differs; so is one that two layers see under other
// tool names: the payload differs.
struct Invocation {
  fs::path program;
  std::vector<std::string> arguments;
  std::vector<std::pair<std::string, std::string>> environment;
  fs::path working_directory;
  std::string input;
  fs::path transcript;  // the transcript file hookbus keeps for the session, or empty

  bool operator<(const Invocation& other) const {
    return std::tie(program, arguments, environment, working_directory, input) <
           std::tie(other.program, other.arguments, other.environment, other.working_directory, other.input);
  }
};

Invocation invocation_of(const Hook& hook, const HookEvent& event) {
  const ClaudeCodeCommand& c = hook.command;
  const ClaudeCodeOptions& options = *hook.options;
  const fs::path project = options.project_dir.empty() ? fs::current_path() : options.project_dir;
  Invocation invocation{.program = c.program.empty() ? fs::path("/bin/sh") : c.program,
                        .arguments = c.program.empty() ? std::vector<std::string>{"-c", c.command} : std::vector<std::string>{},
                        .environment = {{"CLAUDE_PROJECT_DIR", project.string()}},
                        .working_directory = project,
                        .input = {},
                        .transcript = {}};
  if (!c.plugin_root.empty()) invocation.environment.emplace_back("CLAUDE_PLUGIN_ROOT", c.plugin_root.string());
  std::string transcript = context_of(event).transcript_path;
  if (transcript.empty() && !options.transcript_dir.empty()) {
    invocation.transcript = claude_code_transcript_path(options.transcript_dir, context_of(event).session_id);
    transcript = invocation.transcript.string();
  }
  invocation.input = write_json(claude_code_payload(event, c.event, options.tool_names, transcript, project));
  return invocation;
}

ProcessResult run(const Hook& hook, Invocation invocation, std::stop_token stop = {}) {
  const ClaudeCodeCommand& c = hook.command;
  const fs::path& project = invocation.working_directory;
  // What it runs, resolved now as its project's fingerprint resolved it
  // (claude_code_files.hpp): every file gets the hook files' checks again,
  // whatever its layer, and those of a trusted project must be as trusted
  // (docs/security.md, "Checked again before each run").
  std::vector<fs::path> named{c.program};
  std::vector<fs::path> projects{c.program};
  if (c.program.empty()) {
    const detail::ProjectDirectory directory(project);
    const detail::ShellCommandFiles found = detail::resolve_claude_code_command(c, directory);
    named.clear();
    for (const auto& file : found.files) named.push_back(file.path);
    projects = detail::files_inside(found, directory);
  }
  for (const auto& file : named)
    if (auto why = detail::unsafe_path_reason(file))
      throw ExternalHookError(fmt::format("{} ({}): refused: {}", c.label, c.source, *why));
  if (c.trusted)
    for (const auto& file : projects)
      if (auto why = c.trusted->why_not_run(file))
        throw ExternalHookError(fmt::format("{} ({}): {}", c.label, c.source, *why));
  // A Stop hook opens transcript_path before the session's first message, too.
  if (!invocation.transcript.empty()) append_to_transcript(hook.options->transcript_dir, invocation.transcript, "");
  ProcessSpec spec{.program = std::move(invocation.program),
                   .arguments = std::move(invocation.arguments),
                   .extra_environment = std::move(invocation.environment),
                   .working_directory = project,
                   .input = std::move(invocation.input),
                   .timeout = c.timeout,
                   .stop = std::move(stop),
                   .detached_may_outlive = hook.options->detached_processes == DetachedProcesses::allow};
  const std::size_t bytes_in = spec.input.size();
  try {
    ProcessResult result = run_process(spec);
    detail::log_hook_run(c.label, c.program.empty() ? fs::path(c.source) : c.program, c.event, bytes_in, result);
    return result;
  } catch (const ProcessError& error) {
    throw ExternalHookError(fmt::format("{} ({}): {}", c.label, c.source, error.what()));
  }
}

using RunOutcome = std::variant<ProcessResult, std::exception_ptr>;

// One command's run: how it ended, and when it ran (its trace entry's times:
// a group's commands run at once, in the call of its first member).
struct Ran {
  RunOutcome outcome;
  detail::HandlerReport::Run times;
};

Ran run_catching(const Hook& hook, Invocation invocation, const std::stop_token& stop) {
  const detail::TraceTicks start = detail::trace_ticks();
  RunOutcome outcome = [&]() -> RunOutcome {
    try {
      return run(hook, std::move(invocation), stop);
    } catch (...) {
      return std::current_exception();
    }
  }();
  return {std::move(outcome), {start, detail::trace_ticks()}};
}

// Runs every hook at once, one on this thread and each other on a thread of
// its own, and returns when all have finished: no run outlives the call. The
// emit's stop token (hooks.hpp) stops them all.
std::vector<Ran> run_together(const std::vector<std::shared_ptr<Hook>>& hooks, std::vector<Invocation> invocations) {
  std::vector<Ran> outcomes(hooks.size());
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

// Whether the bus ends the emit's chain of handlers on this outcome: a refusal (deny, cancel, reject, handled).
bool ends_the_chain(const HookOutcome& outcome) {
  return std::visit(
      []<class R>(const R& result) {
        if constexpr (std::is_same_v<R, std::monostate>) return false;
        else return result_rules<R>::refusal(result).has_value();
      },
      outcome);
}

// Every installed command of one Claude Code event, across the install calls
// of one installer (each call a group, in call order), and the emits each
// thread is in. On an emit, the bus calls the members' handlers one after the
// other (in registration order, or its reverse for closing events under
// nested ordering). The first member of a group called in an emit runs all
// its matching members together and keeps their outcomes for the others; a
// run that another member already made in this emit (of any group) is made
// once.
//
// Nothing tells a handler which emit it is in, so each thread keeps a stack
// of its emits: a member belongs to the innermost emit that has not called it
// yet, and one that every emit on the stack has called begins a new emit (an
// emit that a handler of this one makes of the same event, nested in it, or
// the next one). An emit leaves the stack once every member was called, once
// one of them ended the chain, or once an emit below it is called again (it
// was nested, and is over); a chain that another handler ended leaves its
// emit behind, which the bound on the stack's depth drops in time.
class EventHooks {
 public:
  explicit EventHooks(std::shared_ptr<detail::BackgroundPool> background) : background_(std::move(background)) {}

  std::size_t add(std::shared_ptr<Hook> hook, std::size_t group) {
    const std::lock_guard lock(mutex_);
    members_.push_back({std::move(hook), group});
    return members_.size() - 1;
  }

  HookOutcome call(std::size_t index, const HookEvent& event) {
    const std::shared_ptr<Emit> emit = enter(index);
    const std::shared_ptr<Hook> hook = member(index).hook;
    Slot slot{Slot::State::skipped, {}};
    if (matches(*hook, event)) {
      if (hook->command.async) {
        leave(*emit, false);
        return run_in_background(hook, event);
      }
      if (emit->slots[index].state == Slot::State::not_run) run_group(member(index).group, event, *emit);
      slot = std::exchange(emit->slots[index], Slot{Slot::State::taken, {}});
    } else if (detail::HandlerReport* report = detail::handler_report()) {
      report->skipped = true;
    }
    if (slot.state != Slot::State::finished) {  // not matching, a duplicate, or `once` done
      leave(*emit, false);
      return std::monostate{};
    }
    // Its trace entry shows its own process's run, whichever member's call ran the group.
    if (detail::HandlerReport* report = detail::handler_report()) report->ran = slot.ran.times;
    if (const auto* error = std::get_if<std::exception_ptr>(&slot.ran.outcome)) {
      leave(*emit, false);
      std::rethrow_exception(*error);
    }
    HookOutcome outcome;
    try {
      outcome = claude_code_outcome(hook->command, event, std::get<ProcessResult>(slot.ran.outcome),
                                    hook->options->tool_names);
    } catch (...) {
      leave(*emit, false);
      throw;
    }
    leave(*emit, ends_the_chain(outcome));
    return outcome;
  }

 private:
  struct Member {
    std::shared_ptr<Hook> hook;
    std::size_t group;
  };
  struct Slot {
    enum class State { not_run, skipped, finished, taken };
    State state = State::not_run;
    Ran ran;
  };
  struct Emit {
    std::vector<bool> called;
    std::vector<Slot> slots;
    std::set<Invocation> started;  // the runs made in this emit
  };
  using Stack = std::vector<std::shared_ptr<Emit>>;  // innermost last
  // Emits of one event nested deeper than this on one thread are not
  // expected; past it, the outermost is dropped (one that another handler's
  // refusal cut short, holding runs nobody will take).
  static constexpr std::size_t kMaxNesting = 8;

  Member member(std::size_t index) {
    const std::lock_guard lock(mutex_);
    return members_[index];
  }

  // The emit of this thread that the call of `index` belongs to, with `index` marked called.
  std::shared_ptr<Emit> enter(std::size_t index) {
    const std::lock_guard lock(mutex_);
    Stack& stack = emits_[std::this_thread::get_id()];
    auto owner = std::find_if(stack.rbegin(), stack.rend(), [&](const std::shared_ptr<Emit>& emit) {
      return index >= emit->called.size() || !emit->called[index];
    });
    if (owner == stack.rend()) {
      if (stack.size() == kMaxNesting) stack.erase(stack.begin());
      stack.push_back(std::make_shared<Emit>());
    } else {
      stack.erase(owner.base(), stack.end());  // emits nested in it, which are over
    }
    Emit& emit = *stack.back();
    emit.called.resize(members_.size());
    emit.slots.resize(members_.size());
    emit.called[index] = true;
    return stack.back();
  }

  // After a member's call: the emit leaves this thread's stack when it is over.
  void leave(const Emit& emit, bool chain_ended) {
    const std::lock_guard lock(mutex_);
    const bool all_called = std::all_of(emit.called.begin(), emit.called.end(), [](bool called) { return called; });
    if (!chain_ended && !all_called) return;
    const auto found = emits_.find(std::this_thread::get_id());
    if (found == emits_.end()) return;
    Stack& stack = found->second;
    if (!stack.empty() && stack.back().get() == &emit) stack.pop_back();
    if (stack.empty()) emits_.erase(found);
  }

  void run_group(std::size_t group, const HookEvent& event, Emit& emit) {
    std::vector<std::size_t> candidates;
    {
      const std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < emit.slots.size(); ++i)  // members added since this emit began are not in it
        if (members_[i].group == group && emit.slots[i].state == Slot::State::not_run && !members_[i].hook->command.async)
          candidates.push_back(i);
    }
    std::vector<std::size_t> indexes;
    std::vector<std::shared_ptr<Hook>> hooks;
    std::vector<Invocation> invocations;
    for (const std::size_t i : candidates) {
      const std::shared_ptr<Hook> hook = member(i).hook;
      if (!matches(*hook, event)) continue;
      Invocation invocation = invocation_of(*hook, event);
      if (!emit.started.insert(invocation).second || !first_run_in_session(*hook, event)) {
        emit.slots[i].state = Slot::State::skipped;
        continue;
      }
      indexes.push_back(i);
      hooks.push_back(hook);
      invocations.push_back(std::move(invocation));
    }
    std::vector<Ran> outcomes = run_together(hooks, std::move(invocations));
    for (std::size_t k = 0; k < indexes.size(); ++k) emit.slots[indexes[k]] = {Slot::State::finished, std::move(outcomes[k])};
  }

  HookOutcome run_in_background(const std::shared_ptr<Hook>& hook, const HookEvent& event) {
    if (!first_run_in_session(*hook, event)) return std::monostate{};
    const ClaudeCodeCommand& c = hook->command;
    background_->submit(fmt::format("Claude Code hook {} ({}) on {}", c.label, c.source, c.event),
                        [hook, event](std::stop_token stop) {
                          const ClaudeCodeCommand& c = hook->command;
                          try {
                            const ProcessResult result = run(*hook, invocation_of(*hook, event), std::move(stop));
                            if (result.cancelled)
                              detail::log(spdlog::level::debug,
                                          "Claude Code async hook {} ({}) cancelled: its hooks were uninstalled",
                                          c.label, c.source);
                            else if (!result.succeeded() && result.exit_code != 2)
                              detail::log(spdlog::level::warn, "Claude Code async hook {} ({}) failed: {}", c.label,
                                          c.source, result.status());
                          } catch (const std::exception& error) {
                            detail::log(spdlog::level::warn, "Claude Code async hook {} failed: {}", c.label,
                                        error.what());
                          }
                        });
    return std::monostate{};
  }

  std::shared_ptr<detail::BackgroundPool> background_;
  std::mutex mutex_;
  std::vector<Member> members_;
  std::map<std::thread::id, Stack> emits_;  // only threads in an emit have an entry
};

}  // namespace

namespace detail {

struct ClaudeCodeInstaller::State {
  std::shared_ptr<BackgroundPool> background{};
  std::map<std::string, std::shared_ptr<EventHooks>, std::less<>> events{};  // by Claude Code event
  std::size_t calls = 0;
};

ClaudeCodeInstaller::ClaudeCodeInstaller(Hooks& hooks, std::shared_ptr<BackgroundPool> background)
    : hooks_(hooks), state_(std::make_unique<State>(State{.background = std::move(background)})) {}

ClaudeCodeInstaller::~ClaudeCodeInstaller() = default;

ConnectionGroup ClaudeCodeInstaller::install(const std::vector<ClaudeCodeCommand>& commands,
                                             const ClaudeCodeOptions& options) {
  const std::size_t group = state_->calls++;
  const auto shared_options = std::make_shared<const ClaudeCodeOptions>(options);
  ConnectionGroup installed;
  for (const auto& command : commands) {
    auto& event_hooks = state_->events[command.event];
    if (!event_hooks) event_hooks = std::make_shared<EventHooks>(state_->background);
    const bool has_matcher = claude_code_event_has_matcher(command.event);
    const std::size_t index = event_hooks->add(
        std::make_shared<Hook>(command, ClaudeCodeMatcher(has_matcher ? command.matcher : ""), shared_options), group);
    const HandlerOptions handler_options{.label = command.label,
                                         .failure = command.failure,
                                         .kind = HandlerKind::external,
                                         .source = command.source,
                                         .layer = command.layer,
                                         .protocol = "claude_code"};
    for (const std::size_t target : claude_code_event_targets(command.event))
      installed.add(hooks_.on(
          event_name(target),
          [event_hooks, index](const HookEvent& event) { return event_hooks->call(index, event); }, handler_options));
  }
  return installed;
}

}  // namespace detail

namespace {

// A session id as a file name (claude_code.hpp): percent-encoded, hashed when very long.
std::string transcript_file_name(std::string_view session_id) {
  if (session_id.empty()) return "session";
  constexpr std::size_t kMaxName = 200;  // well under NAME_MAX with ".jsonl"
  std::string name;
  for (const char c : session_id) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 && byte < 0x80) name += c;
    else if (c == '-' || c == '_') name += c;
    else name += fmt::format("%{:02X}", byte);
  }
  if (name.size() > kMaxName) name = name.substr(0, kMaxName - 65) + "-" + detail::sha256_hex(session_id);
  return name;
}

}  // namespace

std::filesystem::path claude_code_transcript_path(const std::filesystem::path& transcript_dir, std::string_view session_id) {
  return transcript_dir / (transcript_file_name(session_id) + ".jsonl");
}

Connection record_claude_code_transcript(Hooks& hooks, const std::filesystem::path& transcript_dir,
                                         const ClaudeCodeToolNames& tool_names) {
  auto transcript = std::make_shared<Transcript>(transcript_dir, tool_names);
  return hooks.on<MessageEndEvent>([transcript](const MessageEndEvent& event) { transcript->record(event); },
                                   {.label = "claude_code:transcript", .priority = std::numeric_limits<int>::min()});
}

ConnectionGroup install_claude_code_hooks(Hooks& hooks, const std::vector<ClaudeCodeCommand>& commands,
                                          const ClaudeCodeOptions& options) {
  return detail::ClaudeCodeInstaller(hooks, std::make_shared<detail::BackgroundPool>(BackgroundOptions{}))
      .install(commands, options);
}

}  // namespace hookbus
