// Installing Claude Code command hooks on the bus: one handler per command,
// parallel runs per settings file and event (one after another when
// `sequential`), `once`, `async` and what async
// runs answer (include/hookbus/claude_code.hpp); each command's run is run.cpp's.
#include "formats/claude_code/installer.hpp"

#include <hookbus/claude_code.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>

#include "bus/recording/handler_report.hpp"
#include "bus/reducers.hpp"
#include "formats/claude_code/run.hpp"
#include "process/background.hpp"
#include "support/logging.hpp"
#include "support/text.hpp"
#include "support/utf8.hpp"

#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace hookbus {
namespace {

using detail::CommandInvocation;
using detail::FinishedRun;
using detail::InstalledCommand;

// Whether the bus ends the emit's chain of handlers on this answer: a refusal (deny, cancel, reject, handled).
template <class R>
bool ends_the_chain(const std::optional<R>& answer) {
  return answer && result_rules<R>::refusal(*answer).has_value();
}

// The variables a run exported (its CLAUDE_ENV_FILE), in the event's result.
template <class E>
void add_environment(std::optional<result_t<E>>& result, std::vector<EnvironmentVariable>&& variables) {
  if constexpr (sets_environment<E>) {
    if (variables.empty()) return;
    if (!result) result.emplace();
    result->environment.insert(result->environment.end(), std::make_move_iterator(variables.begin()),
                               std::make_move_iterator(variables.end()));
  }
}

// The events whose results give the model text once the action happened:
// the next of them emitted takes what async runs answered for the model (not
// tool_call, whose context a deny or a defer drops).
constexpr std::array<std::string_view, 4> kEventsTakingAsyncAnswers = {"input", "tool_result", "tool_execution_failure",
                                                                       "session_start"};

// Whether E's result carries text for the model.
template <class E>
constexpr bool takes_context = [] {
  if constexpr (EventWithResult<E>) return requires(result_t<E>& r) { r.additional_context; };
  else return false;
}();

// Whether E's result carries messages (systemMessage).
template <class E>
constexpr bool takes_messages = [] {
  if constexpr (EventWithResult<E>) return requires(result_t<E>& r) { r.system_messages; };
  else return false;
}();

// How many async runs' answers may wait for such an event; a run's answer
// beyond them is dropped, counted and warned about.
constexpr std::size_t kPendingAsyncAnswers = 32;

// What the async runs of one installer answered for the model, kept until
// the next emit of an event that takes them (kEventsTakingAsyncAnswers), by
// the install call and layer of the command that answered.
class AsyncAnswers {
 public:
  void keep(std::size_t group, Layer layer, std::string_view who, std::vector<std::string> texts) {
    if (texts.empty()) return;
    const std::lock_guard lock(mutex_);
    if (pending_.size() >= kPendingAsyncAnswers) {
      ++dropped_;
      detail::log(spdlog::level::warn,
                  "the answer of {} is dropped: {} answers of async hooks already wait for an event that takes them "
                  "({} dropped so far)",
                  who, pending_.size(), dropped_);
      return;
    }
    pending_.push_back({group, layer, std::move(texts)});
  }

  // The kept texts of this install call's layer, in the order their runs ended, as the event's result.
  HookOutcome take(std::size_t group, Layer layer, const HookEvent& event) {
    std::vector<std::string> texts;
    {
      const std::lock_guard lock(mutex_);
      std::erase_if(pending_, [&](Pending& pending) {
        if (pending.group != group || pending.layer != layer) return false;
        texts.insert(texts.end(), std::make_move_iterator(pending.texts.begin()),
                     std::make_move_iterator(pending.texts.end()));
        return true;
      });
    }
    if (texts.empty()) return std::monostate{};
    return std::visit(
        [&]<class E>(const E&) -> HookOutcome {
          if constexpr (takes_context<E>) {
            result_t<E> result;
            result.additional_context = std::move(texts);
            return result;
          } else {
            return std::monostate{};
          }
        },
        event);
  }

 private:
  struct Pending {
    std::size_t group;
    Layer layer;
    std::vector<std::string> texts;
  };
  std::mutex mutex_;
  std::deque<Pending> pending_;
  std::uint64_t dropped_ = 0;
};

// What an async run answered that the model is to get: its answer read as
// its event's answer would be, the context and messages of it (Claude Code
// gives both to the model, not to the user). What would have changed the
// event (a decision, a replacement, a stop, a follow-up) is logged as
// ignored: the event was over before the run ended. An asyncRewake run's
// exit 2 is its stderr, or its stdout when stderr is empty, as Claude Code
// wakes the model with it.
template <class E>
std::vector<std::string> answer_for_the_model(const InstalledCommand& hook, const E& event, const ProcessResult& run,
                                              std::string_view who) {
  const ClaudeCodeCommand& c = hook.command;
  if (c.async_rewake && !run.timed_out && run.exit_code == 2) {
    std::string text = run.stderr_tail(10000);
    if (text.empty()) text = detail::valid_utf8(detail::trim(run.stdout_text));
    if (text.empty()) return {};
    return {std::move(text)};
  }
  const auto answer = [&] {
    return std::get<detail::FormatRun<E>>(*hook.format->runs).answer(c, event, run, hook.options->tool_names);
  };
  std::vector<std::string> texts;
  std::vector<std::string_view> ignored;
  if constexpr (EventWithResult<E>) {
    if (auto rest = answer()) {
      using R = result_t<E>;
      if constexpr (takes_context<E>) {
        texts.insert(texts.end(), rest->additional_context.begin(), rest->additional_context.end());
        rest->additional_context.clear();
      }
      if constexpr (takes_messages<E>) {
        texts.insert(texts.end(), rest->system_messages.begin(), rest->system_messages.end());
        rest->system_messages.clear();
      }
      const R unchanged{};
      boost::mp11::mp_for_each<boost::describe::describe_members<R, boost::describe::mod_public>>([&](auto member) {
        if (!((*rest).*member.pointer == unchanged.*member.pointer)) ignored.push_back(member.name);
      });
    }
  } else {
    answer();  // read all the same: a failed run throws, and is warned about as failed
  }
  // What E's result cannot carry (it has none at SessionEnd or Notification)
  // is taken from the answer as written, for the event that takes it.
  if constexpr (!takes_context<E> || !takes_messages<E>) {
    detail::AnswerTexts written = detail::answer_texts(run);
    if constexpr (!takes_context<E>) texts.insert(texts.begin(), written.context.begin(), written.context.end());
    if constexpr (!takes_messages<E>) texts.insert(texts.end(), written.messages.begin(), written.messages.end());
  }
  if (!ignored.empty())
    detail::log(spdlog::level::warn,
                "{} on {}: its answer's {} {} ignored: the hook ran in the background, and the event it answers was "
                "over before it ended",
                who, c.event, fmt::join(ignored, ", "), ignored.size() == 1 ? "is" : "are");
  return texts;
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
  EventHooks(std::shared_ptr<detail::BackgroundPool> background, std::shared_ptr<AsyncAnswers> answers)
      : background_(std::move(background)), answers_(std::move(answers)) {}

  std::size_t add(std::shared_ptr<InstalledCommand> hook, std::size_t group) {
    const std::lock_guard lock(mutex_);
    members_.push_back({std::move(hook), group});
    return members_.size() - 1;
  }

  template <class E>
  detail::HookAnswer<E> call(std::size_t index, const E& event) {
    const std::shared_ptr<Emit> emit = enter(index);
    const std::shared_ptr<InstalledCommand> hook = member(index).hook;
    Slot slot{Slot::State::skipped, {}};
    if (hook->format->handlers_run_in_order && emit->stopped) {
      // An earlier handler of its format stopped the agent: the rest of them are skipped, as its agent skips them.
      if (detail::HandlerReport* report = detail::handler_report()) report->skipped = true;
    } else if (detail::matches(*hook, event)) {
      if (hook->command.async) {
        leave(*emit, false);
        return run_in_background(hook, member(index).group, event);
      }
      if (emit->slots[index].state == Slot::State::not_run) run_group(member(index).group, index, event, *emit);
      slot = std::exchange(emit->slots[index], Slot{Slot::State::taken, {}});
    } else if (detail::HandlerReport* report = detail::handler_report()) {
      report->skipped = true;
    }
    if (slot.state != Slot::State::finished) {  // not matching, a duplicate, or `once` done
      leave(*emit, false);
      return detail::HookAnswer<E>();
    }
    // Its trace entry shows its own process's run, whichever member's call ran the group.
    if (detail::HandlerReport* report = detail::handler_report()) report->ran = slot.ran.times;
    if (const auto* error = std::get_if<std::exception_ptr>(&slot.ran.outcome)) {
      leave(*emit, false);
      std::rethrow_exception(*error);
    }
    const auto answer = [&] {
      try {
        return std::get<detail::FormatRun<E>>(*hook->format->runs)
            .answer(hook->command, event, std::get<ProcessResult>(slot.ran.outcome), hook->options->tool_names);
      } catch (...) {
        leave(*emit, false);
        throw;
      }
    };
    if constexpr (EventWithResult<E>) {
      auto result = answer();
      if constexpr (std::is_same_v<E, AgentEndEvent> || std::is_same_v<E, SubagentEndEvent>)
        detail::limit_follow_ups(*hook, event, result);
      add_environment<E>(result, std::move(slot.ran.environment));
      if constexpr (requires(result_t<E>& r) { r.stop; })
        if (result && result->stop && hook->format->handlers_run_in_order) emit->stopped = true;
      leave(*emit, ends_the_chain(result));
      return result;
    } else {
      answer();
      leave(*emit, false);
    }
  }

 private:
  struct Member {
    std::shared_ptr<InstalledCommand> hook;
    std::size_t group;
  };
  struct Slot {
    enum class State { not_run, skipped, finished, taken };
    State state = State::not_run;
    FinishedRun ran;
  };
  struct Emit {
    std::vector<bool> called;
    std::vector<Slot> slots;
    std::set<CommandInvocation> started;  // the runs made in this emit
    bool stopped = false;  // a handler that runs in order stopped the agent: those after it are skipped
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

  // Runs the matching members of `group` not run yet in this emit together,
  // the one called (`index`) among them; or only that one when one of them
  // is sequential, so that each runs at its own call, after the handlers
  // before it, and sees what they changed.
  template <class E>
  void run_group(std::size_t group, std::size_t index, const E& event, Emit& emit) {
    std::vector<std::size_t> candidates;
    {
      const std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < emit.slots.size(); ++i)  // members added since this emit began are not in it
        if (members_[i].group == group && emit.slots[i].state == Slot::State::not_run && !members_[i].hook->command.async)
          candidates.push_back(i);
    }
    std::vector<std::shared_ptr<InstalledCommand>> matching;
    std::erase_if(candidates, [&](std::size_t i) {
      std::shared_ptr<InstalledCommand> hook = member(i).hook;
      if (!detail::matches(*hook, event)) return true;
      matching.push_back(std::move(hook));
      return false;
    });
    if (std::any_of(matching.begin(), matching.end(), [](const auto& hook) { return hook->command.sequential; })) {
      matching = {member(index).hook};
      candidates = {index};
    }
    std::vector<std::size_t> indexes;
    std::vector<std::shared_ptr<InstalledCommand>> hooks;
    std::vector<CommandInvocation> invocations;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      const std::size_t i = candidates[k];
      const std::shared_ptr<InstalledCommand>& hook = matching[k];
      CommandInvocation invocation = detail::invocation_of(*hook, event);
      const bool a_duplicate = hook->format->runs_identical_commands_once && !emit.started.insert(invocation).second;
      if (a_duplicate || !detail::first_run_in_session(*hook, event.context)) {
        emit.slots[i].state = Slot::State::skipped;
        continue;
      }
      indexes.push_back(i);
      hooks.push_back(hook);
      invocations.push_back(std::move(invocation));
    }
    std::vector<FinishedRun> outcomes = detail::run_together(hooks, std::move(invocations));
    for (std::size_t k = 0; k < indexes.size(); ++k) emit.slots[indexes[k]] = {Slot::State::finished, std::move(outcomes[k])};
  }

  template <class E>
  detail::HookAnswer<E> run_in_background(const std::shared_ptr<InstalledCommand>& hook, std::size_t group,
                                          const E& event) {
    if (!detail::first_run_in_session(*hook, event.context)) return detail::HookAnswer<E>();
    const ClaudeCodeCommand& c = hook->command;
    background_->submit(fmt::format("{} hook {} ({}) on {}", hook->format->agent, c.label, c.source, c.event),
                        [hook, group, event, answers = answers_](std::stop_token stop) {
                          const ClaudeCodeCommand& c = hook->command;
                          const std::string who =
                              fmt::format("{} async hook {} ({})", hook->format->agent, c.label, c.source);
                          try {
                            const ProcessResult result =
                                detail::run_command(*hook, detail::invocation_of(*hook, event), std::move(stop));
                            if (result.cancelled)
                              detail::log(spdlog::level::debug, "{} cancelled: its hooks were uninstalled", who);
                            else answers->keep(group, c.layer, who, answer_for_the_model(*hook, event, result, who));
                          } catch (const std::exception& error) {
                            detail::log(spdlog::level::warn, "{} failed: {}", who, error.what());
                          }
                        });
    return detail::HookAnswer<E>();
  }

  std::shared_ptr<detail::BackgroundPool> background_;
  std::shared_ptr<AsyncAnswers> answers_;
  std::mutex mutex_;
  std::vector<Member> members_;
  std::map<std::thread::id, Stack> emits_;  // only threads in an emit have an entry
};

// The bus handler of a command for the event at `target`, typed for it: E
// is found once, here, so its runs get the `const E&` and answer E's result.
template <class E>
Connection connect_typed(Hooks& hooks, const std::shared_ptr<EventHooks>& event_hooks, std::size_t index,
                         const HandlerOptions& options) {
  return hooks.on<E>([event_hooks, index](const E& event) { return event_hooks->call(index, event); }, options);
}

Connection connect(Hooks& hooks, std::size_t target, const std::shared_ptr<EventHooks>& event_hooks,
                   std::size_t index, const HandlerOptions& options) {
  using Connect = Connection (*)(Hooks&, const std::shared_ptr<EventHooks>&, std::size_t, const HandlerOptions&);
  static constexpr auto connectors =
      detail::event_table([]<class E>(std::type_identity<E>) -> Connect { return &connect_typed<E>; });
  return connectors[target](hooks, event_hooks, index, options);
}

// A command's "if", parsed; the settings reader checked those it read, this
// also those an engine made in code.
std::optional<detail::PermissionRule> rule_of(const ClaudeCodeCommand& command) {
  if (command.if_rule.empty()) return std::nullopt;
  try {
    return detail::parse_permission_rule(command.if_rule);
  } catch (const detail::PermissionRuleError& error) {
    throw ConfigError({.file = {}, .project_dir = {}, .path = command.source + ": if"}, error.what());
  }
}

}  // namespace

namespace detail {

struct ClaudeCodeInstaller::State {
  const HookFormat* format;
  std::shared_ptr<BackgroundPool> background{};
  std::shared_ptr<AsyncAnswers> async_answers = std::make_shared<AsyncAnswers>();
  std::map<std::string, std::shared_ptr<EventHooks>, std::less<>> events{};  // by the format's event
  std::size_t calls = 0;
};

ClaudeCodeInstaller::ClaudeCodeInstaller(Hooks& hooks, const HookFormat& format,
                                         std::shared_ptr<BackgroundPool> background)
    : hooks_(hooks), state_(std::make_unique<State>(State{.format = &format, .background = std::move(background)})) {}

ClaudeCodeInstaller::~ClaudeCodeInstaller() = default;

ConnectionGroup ClaudeCodeInstaller::install(const std::vector<ClaudeCodeCommand>& commands,
                                             const ClaudeCodeOptions& options) {
  const std::size_t group = state_->calls++;
  const auto shared_options = std::make_shared<const ClaudeCodeOptions>(options);
  // The call's HTTP handlers share one client: its connections stay open between their runs.
  std::shared_ptr<HttpClient> http;
  if (std::any_of(commands.begin(), commands.end(), [](const auto& command) { return !command.url.empty(); }))
    http = std::make_shared<HttpClient>(HttpClientOptions{.allowance = options.network});
  ConnectionGroup installed;
  const HookFormat& format = *state_->format;
  // Before the call's commands, so that an async run's answer goes to a later event than its own.
  std::set<Layer> async_layers;
  for (const auto& command : commands)
    if (command.async) async_layers.insert(command.layer);
  for (const Layer layer : async_layers)
    for (const std::string_view event : kEventsTakingAsyncAnswers)
      installed.add(hooks_.on(
          event,
          [answers = state_->async_answers, group, layer](const HookEvent& e) { return answers->take(group, layer, e); },
          HandlerOptions{.label = fmt::format("{} async answers", format.agent),
                         .kind = HandlerKind::external,
                         .layer = layer,
                         .protocol = std::string(hook_protocol_name(format.protocol))}));
  for (const auto& command : commands) {
    auto& event_hooks = state_->events[command.event];
    if (!event_hooks) event_hooks = std::make_shared<EventHooks>(state_->background, state_->async_answers);
    const std::size_t index = event_hooks->add(
        std::make_shared<InstalledCommand>(&format, command, format_matcher(format, command.event, command.matcher),
                                           rule_of(command), shared_options, command.url.empty() ? nullptr : http),
        group);
    const HandlerOptions handler_options{.label = command.label,
                                         .failure = command.failure,
                                         .kind = HandlerKind::external,
                                         .source = command.source,
                                         .layer = command.layer,
                                         .protocol = std::string(hook_protocol_name(format.protocol))};
    for (const std::size_t target : event_targets(format, command.event))
      installed.add(connect(hooks_, target, event_hooks, index, handler_options));
  }
  return installed;
}

std::vector<ClaudeCodeCommand> hook_file_commands(const HookFormat& format, const DiscoveredHook& found,
                                                  const ResolvedHookSettings& settings,
                                                  const std::shared_ptr<const TrustedFiles>& trusted) {
  for (std::size_t i = 0; i < found.declared_events.size(); ++i)
    check_event(format, found.declared_events[i], settings.events.origin.element(i));
  std::vector<ClaudeCodeCommand> commands;
  for (const auto& event : found.declared_events)
    commands.push_back({.event = event,
                        .matcher = settings.matcher.value,
                        .command = {},
                        .program = found.path,
                        .timeout = settings.timeout.value,
                        .async = settings.async.value,
                        .failure = settings.failure.value,
                        .label = found.name,
                        .source = found.path.string(),
                        .layer = found.layer,
                        .protocol = format.protocol,
                        .trusted = trusted});
  return commands;
}

}  // namespace detail

ConnectionGroup install_claude_code_hooks(Hooks& hooks, const std::vector<ClaudeCodeCommand>& commands,
                                          const ClaudeCodeOptions& options) {
  return detail::ClaudeCodeInstaller(hooks, detail::claude_code_format(),
                                     std::make_shared<detail::BackgroundPool>(BackgroundOptions{}))
      .install(commands, options);
}

}  // namespace hookbus
