// The bus: one channel per event type, plus the catch-all, error-listener
// and emission-observer channels (bus/channel.hpp). Each channel keeps its
// connections in a Boost.Signals2 signal, in call order, and an emit walks
// the channel's dispatch snapshot without a lock. All per-emit state lives in
// the Emission passed to the slots (reducers.hpp).

#include <hookbus/hooks.hpp>

#include <hookbus/enum_names.hpp>
#include <hookbus/errors.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/tool_matcher.hpp>

#include "support/logging.hpp"
#include "bus/asking_handler.hpp"
#include "bus/channel.hpp"
#include "bus/delivery_queue.hpp"
#include "bus/kept_alive.hpp"
#include "bus/recording/emission_capture.hpp"
#include "bus/reducers.hpp"
#include "bus/registration.hpp"
#include "bus/run_ahead.hpp"
#include "catalogue/instantiations.hpp"

#include <boost/core/type_name.hpp>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace hookbus {
namespace detail {

// What catch-all subscribers are called with: the event, and the emit's
// capture (null when the emit is not recorded).
struct CatchAllCall {
  const EventRef& event;
  EmissionCapture* capture;
};

// What emission observers are called with: the finished emit's capture.
using FinishedEmission = const boost::intrusive_ptr<const EmissionCapture>;

template <Event E> struct TypedSlot;
template <WrappableStep E> struct WrapperSlot;
struct SubscriberSlot;
template <class Arg> struct ObserverSlot;

struct BusState {
  explicit BusState(HooksOptions o) : options(o) {}
  BusState(const BusState&) = delete;
  BusState& operator=(const BusState&) = delete;

  // Every registration is retired before the channels go, so that none
  // touches the bus afterwards (registration.hpp).
  void retire_all() {
    for (auto& channel : typed) channel.readable().clear();
    for (auto& channel : wrapped) channel.readable().clear();
    catch_all.readable().clear();
    emissions.readable().clear();
    errors.readable().clear();
  }

  ListenerCounts counts;
  HooksOptions options;
  // Each channel is read and connected to through its typed view below; it
  // is made by its first connection (connectable).
  std::mutex making_channels;
  std::array<LazyChannel, event_count> typed;  // by event index
  std::array<LazyChannel, wrappable_step_count> wrapped;  // a step's wrappers, by step_of<E>::index
  LazyChannel catch_all;
  LazyChannel errors;
  std::atomic<std::uint32_t> error_listeners{0};
  LazyChannel emissions;
  std::atomic<std::uint64_t> emit_sequence{0};  // numbers the recorded emits
  std::shared_ptr<CapturePool> captures = std::make_shared<CapturePool>();

  // Queued registrations' queues, for introspection, flush and shutdown.
  mutable std::mutex queues_mutex;
  std::vector<std::shared_ptr<QueueControl>> queues;

  void add_queue(std::shared_ptr<QueueControl> queue) {
    std::lock_guard lock(queues_mutex);
    std::erase_if(queues, [](const auto& q) { return q->finished(); });
    queues.push_back(std::move(queue));
  }

  std::vector<std::shared_ptr<QueueControl>> open_queues() const {
    std::vector<std::shared_ptr<QueueControl>> open;
    std::lock_guard lock(queues_mutex);
    std::copy_if(queues.begin(), queues.end(), std::back_inserter(open), [](const auto& q) { return !q->finished(); });
    return open;
  }

  // Every queue delivers what it holds and stops; the bus is still whole
  // meanwhile, so deliveries may emit and report.
  void close_queues() {
    std::vector<std::shared_ptr<QueueControl>> closing;
    {
      std::lock_guard lock(queues_mutex);
      closing.swap(queues);
    }
    for (const auto& queue : closing) queue->close();
  }

  // A capture of `event`, numbered in the emits' sequence, or null when nobody observes emits.
  template <Event E>
  boost::intrusive_ptr<EmissionCapture> take_capture(const E& event) {
    if (counts.observers.load(std::memory_order_relaxed) == 0) return nullptr;
    return captures->take(emit_sequence.fetch_add(1, std::memory_order_relaxed), event);
  }

  // The capture of an emit starting now, or null when nobody observes emits.
  template <Event E>
  boost::intrusive_ptr<EmissionCapture> start_capture(Emission<E>& emission) {
    auto capture = take_capture(emission.event());
    if (capture) emission.record_into(capture.get());
    return capture;
  }

  // The emit ended with `result`: its record goes to the observers.
  template <class Result>
  void finish_capture(boost::intrusive_ptr<EmissionCapture> capture, const Result& result);

  // The capture of a run of a wrapped step starting now, or null when nobody
  // observes: recorded as an emit is, in the same sequence.
  template <WrappableStep E>
  boost::intrusive_ptr<EmissionCapture> start_step_capture(const E& event) {
    auto capture = take_capture(event);
    if (capture) capture->start_step();
    return capture;
  }
  // The run ended, refused by `refused_by` when a fail-closed wrapper failed.
  void finish_step_capture(boost::intrusive_ptr<EmissionCapture> capture, std::optional<Decider> refused_by);
  void deliver(boost::intrusive_ptr<const EmissionCapture> finished);

  // The channels typed, to read (the empty channel until one was made) or,
  // `to_connect`, made if they were not.
  template <Event E>
  SlotsOf<TypedSlot<E>> channel(bool to_connect = false) {
    return SlotsOf<TypedSlot<E>>(pick(typed[event_index<E>], to_connect));
  }
  template <WrappableStep E>
  SlotsOf<WrapperSlot<E>> wrappers_of(bool to_connect = false) {
    return SlotsOf<WrapperSlot<E>>(pick(wrapped[step_of<E>::index], to_connect));
  }
  SlotsOf<SubscriberSlot> subscribers(bool to_connect = false) {
    return SlotsOf<SubscriberSlot>(pick(catch_all, to_connect));
  }
  SlotsOf<ObserverSlot<FinishedEmission>> observers(bool to_connect = false) {
    return SlotsOf<ObserverSlot<FinishedEmission>>(pick(emissions, to_connect));
  }
  SlotsOf<ObserverSlot<const HandlerFailure>> listeners(bool to_connect = false) {
    return SlotsOf<ObserverSlot<const HandlerFailure>>(pick(errors, to_connect));
  }
  Channel& pick(LazyChannel& channel, bool to_connect) {
    return to_connect ? channel.connectable(making_channels) : channel.readable();
  }

  // Logs a handler failure and tells the error listeners.
  void report(const HandlerFailure& error);
};

// Tool events expose the tool's name for HandlerOptions::tools.
template <class E>
constexpr bool has_tool_name = requires(const E& e) { e.tool_name; } || requires(const E& e) { e.tool_call.name; } ||
                               requires(const E& e) { e.tool_result.tool_name; } ||
                               requires(const E& e) { e.partial_tool_result.tool_name; };

template <class E>
  requires has_tool_name<E>
std::string_view tool_name_of(const E& event) {
  if constexpr (requires { event.tool_name; }) return event.tool_name;
  else if constexpr (requires { event.tool_call.name; }) return event.tool_call.name;
  else if constexpr (requires { event.tool_result.tool_name; }) return event.tool_result.tool_name;
  else return event.partial_tool_result.tool_name;
}

// has_tool_name<E> for each catalogue index.
template <std::size_t... I>
constexpr std::array<bool, sizeof...(I)> tool_name_table(std::index_sequence<I...>) {
  return {has_tool_name<std::variant_alternative_t<I, HookEvent>>...};
}
constexpr auto kHasToolName = tool_name_table(std::make_index_sequence<event_count>());

std::string describe_exception(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception (not derived from std::exception)";
  }
}

// Whether the emit is running its handlers again (reducers.hpp, ChangeLog).
template <Event E>
bool in_recheck_pass(const Emission<E>& emission) noexcept {
  if constexpr (rechecks_changes<E>) return emission.rechecking();
  else return false;
}

// What a by-name handler's HookOutcome means for E: no change, E's result,
// or (another event's result) a failure of the handler.
template <Event E>
auto result_of_named(HookOutcome&& outcome) {
  if constexpr (EventWithResult<E>) {
    using R = result_t<E>;
    if (std::holds_alternative<std::monostate>(outcome)) return std::optional<R>();
    if (auto* result = std::get_if<R>(&outcome)) return std::optional<R>(std::move(*result));
    throw Error("handler for '" + std::string(E::type) + "' returned another event's result type; expected " +
                std::string(boost::core::type_name<R>()) + " or no change (monostate)");
  }
}

// The slot a handler of E is stored as: tool filter, error isolation, fold.
// The handler is typed, or written against HookEvent (registered by name),
// which it is given as the emission's view: one HookEvent per emit, not one
// per handler.
template <Event E>
struct TypedSlot : SlotBase {
  TypedSlot(SlotBase base, Handler<E> typed, NamedHandler named, ToolMatcher tools, bool answers, RunAhead<E> ahead)
      : SlotBase(std::move(base)),
        typed(std::move(typed)),
        named(std::move(named)),
        tools(std::move(tools)),
        answers(answers),
        ahead(ahead ? std::make_unique<const RunAhead<E>>(std::move(ahead)) : nullptr) {
    runs_ahead = this->ahead != nullptr;
  }

  Handler<E> typed;    // empty for a by-name handler
  NamedHandler named;  // empty for a typed handler
  ToolMatcher tools;
  bool answers;  // it can change the outcome (detail::can_answer)
  // Null unless its work can start ahead of its turn (run_ahead.hpp); a
  // pointer, so that the other slots are not a std::function larger.
  std::unique_ptr<const RunAhead<E>> ahead;

  [[nodiscard]] bool takes(const E& event) const {
    if constexpr (has_tool_name<E>) return tools.matches_every_tool() || tools.matches(tool_name_of(event));
    else return true;
  }

  auto invoke(Emission<E>& emission, std::size_t position) const {
    if (runs_ahead) [[unlikely]] {
      if (EmitRunsAhead<E>* runs = emission.runs_ahead()) {
        if (std::unique_ptr<AheadRun<E>> run = runs->at_turn(emission, position, identity->rank())) return run->take();
      }
    }
    if (named) return result_of_named<E>(named(emission.view().variant()));
    return typed(emission.event());
  }

  // `position`: the slot's place in the emit's snapshot, which names it in
  // the emission's change log. Inlined into the emit's loop: a call per
  // handler is a measurable part of what a handler costs.
  [[gnu::always_inline]] Step operator()(Emission<E>& emission, std::size_t position) const {
    HandlerTrace trace(emission.capture(), identity);
    if constexpr (has_tool_name<E>) {
      if (!takes(emission.event())) {
        if (!in_recheck_pass(emission)) trace.skipped();  // once, not again in each pass
        return Step::proceed;
      }
    }
    if constexpr (rechecks_changes<E>) {
      // A recheck pass runs only the handlers that must answer again (reducers.hpp, ChangeLog).
      if (emission.rechecking() && !(answers && emission.must_answer_again(identity->rank(), position)))
        return Step::proceed;
    }
    if constexpr (answer_yields<E>) {
      // A less trusted handler answered: only the more trusted ones still run.
      if (emission.answered_for(identity->rank())) return Step::proceed;
    }
    const KeptAliveCall call(keep_alive.get());
    const AskingHandler asking(identity.get(), emission.view());
    try {
      if constexpr (EventWithResult<E>) {
        auto result = invoke(emission, position);
        if (!result) {
          trace.no_change();
          return Step::proceed;
        }
        trace.template returned<E>(*result);
        if constexpr (rechecks_changes<E> || sets_environment<E>) emission.answering(identity->rank(), position);
        return fold(emission, std::move(*result), decider());
      } else {
        invoke(emission, position);
        trace.no_change();
        return Step::proceed;
      }
    } catch (...) {
      const std::string message = describe_exception(std::current_exception());
      trace.failed(message);
      return failed(emission, message);
    }
  }

  // Names this handler in decided_by, only when a decision is recorded.
  auto decider() const {
    return [registration = identity.get()](Decider& decider) { registration->name(decider); };
  }

  Step failed(Emission<E>& emission, const std::string& message) const {
    const std::string label = identity->label();
    identity->bus().report(identity->error(label, message));
    if constexpr (EventWithResult<E>) {
      if constexpr (is_gating(E::reduction)) {
        if (identity->failure() == FailurePolicy::fail_closed)
          return fold(emission, refusal_result<E>("hook '" + label + "' failed: " + message), decider());
      }
    }
    return Step::proceed;
  }
};

// The runs one emit of E started ahead of their turn (run_ahead.hpp). At the
// turn of a handler that can run ahead and has no run yet, its run starts,
// and with it those of the handlers after it of the same layer that can run
// ahead and take the event, as many as the bus's limit lets run at once.
template <Event E>
class EmitRunsAhead {
 public:
  using Reading = typename SlotsOf<TypedSlot<E>>::Reading;

  EmitRunsAhead(const Reading& handlers, std::size_t limit) noexcept : handlers_(handlers), limit_(limit) {}
  EmitRunsAhead(const EmitRunsAhead&) = delete;
  EmitRunsAhead& operator=(const EmitRunsAhead&) = delete;

  // The run of the handler at `position` to take at its turn, or null: then
  // it is called as usual (a recheck pass, or no run to be had).
  // `rank`: the handler's layer's, whose handlers' runs start with its own.
  std::unique_ptr<AheadRun<E>> at_turn(Emission<E>& emission, std::size_t position, int rank) {
    if (in_recheck_pass(emission)) return nullptr;
    typename RunsAhead<E>::Run* run = runs_.find(position);
    if (run == nullptr && (run = start_from(emission, position, rank)) == nullptr) return nullptr;
    std::unique_ptr<AheadRun<E>> taken = runs_.take(*run);
    if (!taken) return nullptr;
    HandlerReport* report = handler_report();
    if (run->revision == emission.revision()) {
      if (report != nullptr) report->ran_ahead = run->again ? RanAhead::discarded : RanAhead::taken;
      return taken;
    }
    // It saw an event an earlier answer changed since, and so did the runs
    // after it that started with it: they are stopped, and start again
    // together on the event as it is now.
    if (report != nullptr) report->ran_ahead = RanAhead::discarded;
    taken->stop();
    runs_.forget_stale(emission.revision(), position);
    taken.reset();
    run = start_from(emission, position, rank);
    return run != nullptr ? runs_.take(*run) : nullptr;
  }

  // At the end of the emit's passes: the runs whose turn never came (the
  // chain ended first) are stopped, joined, and named in the trace.
  void stop_untaken(EmissionCapture* capture) {
    std::vector<std::string> stopped = runs_.stop_untaken();
    if (stopped.empty()) return;
    detail::log(spdlog::level::debug, "{}: the chain ended before the turn of {}, whose runs started ahead were stopped",
                E::type, fmt::join(stopped, ", "));
    if (capture != nullptr) capture->runs_stopped(std::move(stopped));
  }

 private:
  // Starts the runs of the handler at `position` and of the ones after it
  // that can run with it; returns its run, or null when it has none. A
  // handler that would run alone is left to its call: a thread buys nothing
  // when nothing runs beside it.
  typename RunsAhead<E>::Run* start_from(Emission<E>& emission, std::size_t position, int rank) {
    const std::stop_token stop = emit_stop_token();
    if (stop.stop_requested()) return nullptr;  // each runs at its turn, and is cancelled before it starts
    std::vector<std::pair<std::size_t, const TypedSlot<E>*>> batch;
    for (std::size_t at = position; at < handlers_.size() && runs_.running() + batch.size() < limit_; ++at) {
      const TypedSlot<E>* slot = handlers_.untracked_at(at);
      if (slot == nullptr || !slot->runs_ahead || runs_.find(at) != nullptr || !slot->takes(emission.event())) continue;
      // Only its own layer's: a less trusted hook starts once the more trusted ones answered.
      if (slot->identity->rank() != rank) continue;
      if constexpr (answer_yields<E>) {
        if (emission.answered_for(slot->identity->rank())) continue;
      }
      batch.emplace_back(at, slot);
    }
    if (batch.size() == 1 && batch.front().first == position) return nullptr;
    for (const auto& [at, slot] : batch) {
      try {
        // Prepared as its call would be: its approvals answered are its own.
        const KeptAliveCall call(slot->keep_alive.get());
        const AskingHandler asking(slot->identity.get(), emission.view());
        runs_.start(at, emission.revision(), slot->identity->label(), (*slot->ahead)(emission.event()), stop);
      } catch (...) {
        // Not started: its call at its turn prepares it again, and reports what fails.
      }
    }
    return runs_.find(position);
  }

  const Reading& handlers_;
  std::size_t limit_;
  RunsAhead<E> runs_;
};

// Emission observers and error listeners: isolated, never stop the chain.
template <class Arg>
struct ObserverSlot : SlotBase {
  ObserverSlot(SlotBase base, std::function<void(Arg&)> observer)
      : SlotBase(std::move(base)), observer(std::move(observer)) {}

  std::function<void(Arg&)> observer;

  Step operator()(Arg& argument) const {
    const KeptAliveCall call(keep_alive.get());
    try {
      observer(argument);
    } catch (...) {
      const std::string message = describe_exception(std::current_exception());
      // An error listener's own failure is logged, never re-reported: no loops.
      if constexpr (std::is_same_v<Arg, const HandlerFailure>)
        detail::log(spdlog::level::err, "error listener '{}' failed: {}", identity->label(), message);
      else
        identity->bus().report(identity->error(identity->label(), message));
    }
    return Step::proceed;
  }
};

// A catch-all subscriber: called in place, or given a copy of the event
// through its delivery queue.
struct SubscriberSlot : SlotBase {
  SubscriberSlot(SlotBase base, Subscriber subscriber, std::shared_ptr<DeliveryQueueOf<HookEvent>> queue)
      : SlotBase(std::move(base)), subscriber(std::move(subscriber)), queue(std::move(queue)) {}

  Subscriber subscriber;  // empty when queued
  std::shared_ptr<DeliveryQueueOf<HookEvent>> queue;

  Step operator()(const CatchAllCall& call) const {
    HandlerTrace trace(call.capture, identity, true);
    if (queue) {
      queue->push(call.event.variant());
      trace.no_change();
      return Step::proceed;
    }
    const KeptAliveCall kept(keep_alive.get());
    try {
      subscriber(call.event);
      trace.no_change();
    } catch (...) {
      const std::string message = describe_exception(std::current_exception());
      trace.failed(message);
      identity->bus().report(identity->error(identity->label(), message));
    }
    return Step::proceed;
  }
};

template <class Result>
void BusState::finish_capture(boost::intrusive_ptr<EmissionCapture> capture, const Result& result) {
  capture->finish(result);
  deliver(std::move(capture));
}

void BusState::finish_step_capture(boost::intrusive_ptr<EmissionCapture> capture, std::optional<Decider> refused_by) {
  capture->finish_step(std::move(refused_by));
  deliver(std::move(capture));
}

void BusState::deliver(boost::intrusive_ptr<const EmissionCapture> finished) {
  const SlotsOf<ObserverSlot<FinishedEmission>>::Reading observers(this->observers());
  observers.each([&](const ObserverSlot<FinishedEmission>& slot, std::size_t) { return slot(finished); });
}

void BusState::report(const HandlerFailure& error) {
  detail::log(spdlog::level::err, "hook '{}' failed on '{}': {}", error.handler, error.event, error.message);
  if (error_listeners.load(std::memory_order_relaxed) == 0) return;
  HandlerFailure copy = error;
  const SlotsOf<ObserverSlot<const HandlerFailure>>::Reading listeners(this->listeners());
  listeners.each([&](const ObserverSlot<const HandlerFailure>& slot, std::size_t) { return slot(copy); });
}

// What a queued subscriber or observer's thread calls: the registration's
// function, with what keeps its code loaded held until after it is destroyed.
template <class Function>
struct QueuedCall {
  std::shared_ptr<const void> keep_alive;  // first: released last
  Function function;
};

// Starts the queue of a registration: deliveries call `deliver(function,
// item)`; a delivery that throws is reported like a failing subscriber.
// `idle` is called each time the queue's thread goes idle.
template <class Item, class Function, class Deliver>
std::shared_ptr<DeliveryQueueOf<Item>> start_queue(BusState& bus, const HandlerOptions& options,
                                                   const std::shared_ptr<const Registration>& identity,
                                                   Function function, Deliver deliver,
                                                   typename DeliveryQueueOf<Item>::Idle idle = {}) {
  auto call = std::make_shared<QueuedCall<Function>>(QueuedCall<Function>{options.keep_alive, std::move(function)});
  auto queue = DeliveryQueueOf<Item>::start(
      *options.queued, identity->label(),
      [call, deliver](Item& item) {
        const KeptAliveCall kept(call->keep_alive.get());
        deliver(call->function, item);
      },
      [identity](const std::string& message) { identity->bus().report(identity->error(identity->label(), message)); },
      std::move(idle));
  bus.add_queue(queue);
  return queue;
}

// Connects a slot to `channel` in its priority group (at the front of the
// group when `at_front`) and counts it in `listeners`. `make_slot(base)`
// builds the slot from its SlotBase (keep_alive, identity). The options'
// label, source, protocol and track are moved into the registration (see
// Registration's constructor); `make_slot` reads the others.
template <class Slot, class MakeSlot>
Connection connect_slot(const std::shared_ptr<BusState>& bus, SlotsOf<Slot> slots, std::atomic<std::uint32_t>& listeners,
                        std::string_view event, HandlerOptions& options, bool at_front, MakeSlot&& make_slot) {
  Channel& channel = slots.channel();
  auto identity =
      std::make_shared<Registration>(RegistrationSite{bus, &channel, &listeners, event, channel.next_sequence()}, options);
  std::shared_ptr<const Slot> slot = make_slot(SlotBase{options.keep_alive, identity});
  listeners.fetch_add(1, std::memory_order_relaxed);
  identity->attach(slots.connect(std::move(slot), options.priority, at_front));
  return Connection(std::move(identity));
}

}  // namespace detail

// ----------------------------------------------------------------- Hooks

Hooks::Hooks(HooksOptions options)
    : state_(std::make_shared<detail::BusState>(options)), counts_(&state_->counts) {}

Hooks::~Hooks() {
  state_->close_queues();
  state_->retire_all();
}

namespace detail {
// Connects a handler of E, typed or by name (the other one empty).
template <Event E>
Connection connect_handler(const std::shared_ptr<BusState>& state, Handler<E> typed, NamedHandler named,
                           HandlerOptions& options, bool answers, RunAhead<E> ahead = {}) {
  if (!typed && !named) throw std::invalid_argument("hookbus: empty handler for '" + std::string(E::type) + "'");
  if (options.queued)
    throw std::invalid_argument("hookbus: queued delivery was asked for a handler of '" + std::string(E::type) +
                                "'; only catch-all subscribers and emission observers can be queued (a handler's "
                                "result is needed by the emit)");
  if (!options.tools.empty() && !has_tool_name<E>)
    throw std::invalid_argument("hookbus: a tool matcher ('" + options.tools + "') was given for '" +
                                std::string(E::type) + "', which is not a tool event");
  ToolMatcher tools(options.tools);
  BusState& bus = *state;
  return connect_slot(state, bus.channel<E>(true), bus.counts.typed[event_index<E>], E::type, options,
                      bus.options.nested_ordering && is_closing<E>, [&](SlotBase base) {
                        return std::make_shared<const TypedSlot<E>>(std::move(base), std::move(typed), std::move(named),
                                                                    std::move(tools), answers, std::move(ahead));
                      });
}
}  // namespace detail

template <Event E>
Connection Hooks::connect(Handler<E> handler, HandlerOptions&& options, bool answers) {
  return detail::connect_handler<E>(state_, std::move(handler), nullptr, options, answers);
}

namespace detail {
// The typed handlers, each only when counted; for events whose changes are
// rechecked, again as long as a change by a less trusted handler must be
// answered by more trusted ones (reducers.hpp, ChangeLog).
template <Event E>
void call_typed_handlers(const typename SlotsOf<TypedSlot<E>>::Reading& handlers, Emission<E>& emission) {
  const auto call = [&](const TypedSlot<E>& slot, std::size_t position) __attribute__((always_inline)) {
    return slot(emission, position);
  };
  handlers.each(call);
  if constexpr (rechecks_changes<E>) {
    while (recheck_due(emission)) handlers.each(call);
  }
}

// When some of them can run ahead (run_ahead.hpp), the emit keeps their runs
// while the handlers are called.
template <Event E>
[[gnu::noinline]] void call_typed_handlers_ahead(const typename SlotsOf<TypedSlot<E>>::Reading& handlers,
                                                 Emission<E>& emission, std::size_t limit) {
  EmitRunsAhead<E> runs(handlers, limit);
  emission.run_ahead_with(&runs);
  call_typed_handlers(handlers, emission);
  emission.run_ahead_with(nullptr);
  runs.stop_untaken(emission.capture());
}

template <Event E>
void run_typed_handlers(BusState& bus, Emission<E>& emission) {
  if (bus.counts.typed[event_index<E>].load(std::memory_order_relaxed) == 0) return;
  const typename SlotsOf<TypedSlot<E>>::Reading handlers(bus.channel<E>());
  if (handlers.runs_ahead() && bus.options.parallel_runs > 0) [[unlikely]]
    call_typed_handlers_ahead(handlers, emission, bus.options.parallel_runs);
  else
    call_typed_handlers(handlers, emission);
}

// The typed handlers, then the catch-all subscribers, each only when counted.
// Subscribers are taken as they were when the emit began: a subscriber that a
// handler adds first runs on the next emit.
template <Event E>
void run_handlers(BusState& bus, Emission<E>& emission) {
  if (bus.counts.catch_all.load(std::memory_order_relaxed) == 0) {
    run_typed_handlers(bus, emission);
    return;
  }
  const SlotsOf<SubscriberSlot>::Reading subscribers(bus.subscribers());
  run_typed_handlers(bus, emission);
  const CatchAllCall call{emission.view(), emission.capture()};
  subscribers.each([&](const SubscriberSlot& slot, std::size_t) { return slot(call); });
}

// One emit of E: `event` (const E& or, for an event with a result, E&&)
// and, when the emit was given one, the HookEvent it came in (`origin`, else
// null). So each event has one instantiation for const E& and the variant,
// plus one for E&& when it has a result. Reduces into a named local returned
// whole (NRVO): the result is never moved.
template <Event E, class Arg>
result_t<E> emit_through(BusState& bus, Arg&& event, const HookEvent* origin) {
  if constexpr (EventWithResult<E>) {
    result_t<E> result;
    auto emission = [&] {
      if constexpr (std::is_same_v<Arg, E>) return Emission<E>(std::move(event), result);
      else return Emission<E>(event, origin, result);
    }();
    auto capture = bus.start_capture(emission);
    const EmitReportScope reports(capture != nullptr);
    run_handlers(bus, emission);
    std::move(emission).finish();
    if (capture) bus.finish_capture(std::move(capture), result);
    return result;
  } else {
    Emission<E> emission(event, origin);
    auto capture = bus.start_capture(emission);
    const EmitReportScope reports(capture != nullptr);
    run_handlers(bus, emission);
    if (capture) bus.finish_capture(std::move(capture), std::monostate{});
  }
}
}  // namespace detail

template <Event E>
result_t<E> Hooks::dispatch(const E& event) {
  return detail::emit_through<E>(*state_, event, nullptr);
}

template <Event E>
result_t<E> Hooks::dispatch(E&& event) {
  if constexpr (EventWithResult<E>) return detail::emit_through<E>(*state_, std::move(event), nullptr);
  else detail::emit_through<E>(*state_, std::as_const(event), nullptr);  // nothing changes an observed event
}

HookOutcome Hooks::dispatch_variant(const HookEvent& event) {
  return std::visit(
      [&](const auto& alternative) -> HookOutcome {
        using E = std::decay_t<decltype(alternative)>;
        if constexpr (EventWithResult<E>) {
          if (!listened(event_index<E>)) return detail::Neutral<result_t<E>>::make();
          return detail::emit_through<E>(*state_, alternative, &event);
        } else {
          if (listened(event_index<E>)) detail::emit_through<E>(*state_, alternative, &event);
          return std::monostate{};
        }
      },
      event);
}

Connection Hooks::on(std::string_view event_name, NamedHandler handler, HandlerOptions options) {
  if (!handler) throw std::invalid_argument("hookbus: empty handler for '" + std::string(event_name) + "'");
  const std::size_t index = resolve_event(event_name);
  using Connect = Connection (*)(Hooks&, NamedHandler&&, HandlerOptions&&);
  static constexpr auto kConnectors = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<Connect, sizeof...(I)>{[](Hooks& hooks, NamedHandler&& h, HandlerOptions&& o) {
      using E = std::variant_alternative_t<I, HookEvent>;
      return detail::connect_handler<E>(hooks.state_, nullptr, std::move(h), o, true);
    }...};
  }(std::make_index_sequence<event_count>{});
  return kConnectors[index](*this, std::move(handler), std::move(options));
}

Connection Hooks::subscribe(Subscriber subscriber, HandlerOptions options) {
  if (!subscriber) throw std::invalid_argument("hookbus: empty catch-all subscriber");
  return detail::connect_slot(state_, state_->subscribers(true), counts_->catch_all, "*", options, false,
                              [&](detail::SlotBase base) {
                                std::shared_ptr<detail::DeliveryQueueOf<HookEvent>> queue;
                                if (options.queued) {
                                  queue = detail::start_queue<HookEvent>(
                                      *state_, options, base.identity, std::move(subscriber),
                                      [](const Subscriber& call, const HookEvent& event) { call(event); });
                                  base.identity->attach(queue);
                                }
                                return std::make_shared<const detail::SubscriberSlot>(std::move(base), std::move(subscriber),
                                                                                      std::move(queue));
                              });
}

Connection Hooks::on_emission(EmissionObserver observer, HandlerOptions options) {
  if (!observer) throw std::invalid_argument("hookbus: empty emission observer");
  using Finished = boost::intrusive_ptr<const detail::EmissionCapture>;
  using Slot = detail::ObserverSlot<detail::FinishedEmission>;
  return detail::connect_slot(state_, state_->observers(true), counts_->observers, "on_emission", options, false,
                              [&](detail::SlotBase base) {
                                std::function<void(const Finished&)> deliver;
                                if (!options.queued) {
                                  deliver = [observer = std::move(observer)](const Finished& emission) {
                                    observer(emission->record());
                                  };
                                } else {
                                  // A flood's captures are kept while it lasts, and let go
                                  // once the queue is idle (CapturePool).
                                  auto queue = detail::start_queue<Finished>(
                                      *state_, options, base.identity, std::move(observer),
                                      [](const EmissionObserver& call, const Finished& emission) {
                                        call(emission->record());
                                      },
                                      [pool = std::weak_ptr<detail::CapturePool>(state_->captures)] {
                                        if (const auto captures = pool.lock()) captures->trim();
                                      });
                                  base.identity->attach(queue);
                                  deliver = [queue = std::move(queue)](const Finished& emission) { queue->push(emission); };
                                }
                                return std::make_shared<const Slot>(std::move(base), std::move(deliver));
                              });
}

Connection Hooks::on_handler_error(ErrorListener listener) {
  if (!listener) throw std::invalid_argument("hookbus: empty error listener");
  using Slot = detail::ObserverSlot<const HandlerFailure>;
  HandlerOptions options;
  return detail::connect_slot(state_, state_->listeners(true), state_->error_listeners, "on_handler_error", options,
                              false, [&](detail::SlotBase base) {
                                return std::make_shared<const Slot>(std::move(base), std::move(listener));
                              });
}

std::size_t Hooks::handler_count(std::string_view event_name) const {
  return state_->typed[resolve_event(event_name)].readable().slot_count();
}

std::vector<std::string> Hooks::registered_events() const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < event_count; ++i)
    if (state_->typed[i].readable().slot_count() != 0) names.emplace_back(event_name(i));
  return names;
}

std::vector<std::string> Hooks::handlers(std::string_view event_name) const {
  return state_->typed[resolve_event(event_name)].readable().labels_in_call_order();
}

std::size_t Hooks::subscriber_count() const { return state_->catch_all.readable().slot_count(); }

void Hooks::clear(std::string_view event_name) { state_->typed[resolve_event(event_name)].readable().clear(); }

void Hooks::clear() {
  for (auto& channel : state_->typed) channel.readable().clear();
}

void Hooks::clear_subscribers() { state_->catch_all.readable().clear(); }

std::vector<DeliveryQueueState> Hooks::delivery_queues() const {
  std::vector<DeliveryQueueState> states;
  for (const auto& queue : state_->open_queues()) states.push_back(queue->state());
  return states;
}

void Hooks::flush() {
  for (const auto& queue : state_->open_queues()) queue->flush();
}

bool has_tool_name(std::size_t event_index) noexcept {
  return event_index < detail::kHasToolName.size() && detail::kHasToolName[event_index];
}

// ------------------------------------------------------ static providers

namespace {
struct StaticProvider {
  std::string name;
  ProviderFunction function;
};

struct StaticProviders {
  std::mutex mutex;
  std::vector<StaticProvider> list;
};

// A function-local static: safe to use from other translation units' static initialisers.
StaticProviders& static_providers() {
  static StaticProviders providers;
  return providers;
}
}  // namespace

bool register_static_provider(std::string_view name, ProviderFunction provider) {
  auto& providers = static_providers();
  std::lock_guard lock(providers.mutex);
  providers.list.push_back({std::string(name), provider});
  return true;
}

std::vector<std::string> static_provider_names() {
  auto& providers = static_providers();
  std::lock_guard lock(providers.mutex);
  std::vector<std::string> names;
  for (const auto& provider : providers.list) names.push_back(provider.name);
  return names;
}

ConnectionGroup Hooks::install_static_providers() {
  std::vector<StaticProvider> snapshot;
  {
    auto& providers = static_providers();
    std::lock_guard lock(providers.mutex);
    snapshot = providers.list;
  }
  return add([&snapshot](Registrar& registrar) {
    for (const auto& provider : snapshot) provider.function(registrar);
  });
}

ConnectionGroup Hooks::add(const std::function<void(Registrar&)>& provide, RegistrarScope scope) {
  Registrar registrar(*this, std::move(scope));
  provide(registrar);  // if it throws, the registrar's group disconnects what it registered
  return registrar.take();
}

// ------------------------------------------------------------- wrap steps

namespace detail {
// A wrapper of E's step.
template <WrappableStep E>
struct WrapperSlot : SlotBase {
  WrapperSlot(SlotBase base, Wrapper<E> wrapper, ToolMatcher tools)
      : SlotBase(std::move(base)), wrapper(std::move(wrapper)), tools(std::move(tools)) {}

  Wrapper<E> wrapper;
  ToolMatcher tools;

  bool wraps(const E& event) const noexcept {
    if constexpr (has_tool_name<E>) return tools.matches_every_tool() || tools.matches(tool_name_of(event));
    else return true;
  }
};

// One run_step through the wrappers listed when it began, outermost first;
// each level's `next` runs the level inside it, the innermost's the step.
// With a capture (emission observers are registered), each level a run
// reaches is recorded: who, from where to where, how many times its next
// ran, and how it ended (StepRecord, trace.hpp).
template <WrappableStep E>
class WrappedRun {
 public:
  using Output = step_output_t<E>;
  struct Level {
    const WrapperSlot<E>* slot;
    std::shared_ptr<const void> owner;  // a tracked owner, held for the whole run
  };
  using Parent = std::optional<std::uint32_t>;  // the recorded level whose next runs this one

  WrappedRun(std::vector<Level> levels, const Next<E>& step, EmissionCapture* capture)
      : levels_(std::move(levels)), step_(step), capture_(capture) {}

  // The wrapper of this run that refused the step, if one did: a refusal
  // passing out of the run may also be another run's, nested in its step.
  const std::optional<Decider>& refused_by() const noexcept { return refused_by_; }

  Output run(std::size_t depth, const E& event, Parent parent = {}) const {
    if (depth < levels_.size() && !levels_[depth].slot->wraps(event)) return run(depth + 1, event, parent);
    if (capture_ == nullptr) return run_level(depth, event, {});
    const std::uint32_t level =
        capture_->level_started(depth < levels_.size() ? levels_[depth].slot->identity : nullptr, parent);
    try {
      Output output = run_level(depth, event, level);
      capture_->level_ended(level, StepOutcome::output);
      return output;
    } catch (...) {
      capture_->level_ended(level, StepOutcome::threw, describe_exception(std::current_exception()));
      throw;
    }
  }

 private:
  Output run_level(std::size_t depth, const E& event, Parent recorded) const {
    if (depth == levels_.size()) return step_(event);
    const WrapperSlot<E>& slot = *levels_[depth].slot;
    Call call{this, depth, recorded};
    const Next<E> next = [&call](const E& given) { return call.next(given); };  // one pointer: no allocation
    const KeptAliveCall kept(slot.keep_alive.get());
    std::string failure;
    try {
      std::optional<Output> output = slot.wrapper(event, next);
      if (output) return std::move(*output);
      if (call.calls != 0) return call.last_outcome();
      failure = "neither called next nor returned an output";
    } catch (...) {
      // What its next threw passes on: the step's error, or an inner refusal.
      if (call.error && std::current_exception() == call.error) throw;
      failure = describe_exception(std::current_exception());
    }
    return failed(slot, call, event, failure);
  }

  // A level's calls of its next, and the outcome of the last one.
  struct Call {
    const WrappedRun* run;
    std::size_t depth;
    Parent recorded;  // this level's record, when recorded
    std::uint32_t calls = 0;
    std::optional<Output> output{};
    std::exception_ptr error{};

    Output next(const E& given) {
      ++calls;
      if (recorded) run->capture_->next_called(*recorded);
      output.reset();
      error = nullptr;
      try {
        output.emplace(run->run(depth + 1, given, recorded));
      } catch (...) {
        error = std::current_exception();
        throw;
      }
      return *output;
    }

    Output last_outcome() {
      if (error) std::rethrow_exception(error);
      return std::move(*output);
    }
  };

  // A wrapper's failure, under its policy: fail-closed refuses the step;
  // fail-open is as if the wrapper were not there (the outcome of its last
  // next, or the rest of the chain run once now when it called none).
  Output failed(const WrapperSlot<E>& slot, Call& call, const E& event, const std::string& message) const {
    const Registration& identity = *slot.identity;
    const std::string label = identity.label();
    identity.bus().report(identity.error(label, message));
    const bool refuses = identity.failure() == FailurePolicy::fail_closed;
    if (call.recorded) capture_->level_failed(*call.recorded, refuses ? StepOutcome::refused : StepOutcome::failed, message);
    if (refuses) {
      Decider decider;
      identity.name(decider);
      refused_by_ = decider;
      throw StepRefusedError("hook '" + label + "' failed: " + message, std::move(decider));
    }
    if (call.calls != 0) return call.last_outcome();
    return run(call.depth + 1, event, call.recorded);
  }

  std::vector<Level> levels_;
  const Next<E>& step_;
  EmissionCapture* capture_;  // null: not recorded
  mutable std::optional<Decider> refused_by_;  // set by failed()
};
}  // namespace detail

template <WrappableStep E>
Connection Hooks::connect_wrapper(Wrapper<E> wrapper, HandlerOptions options) {
  const std::string step(E::type);
  if (!wrapper) throw std::invalid_argument("hookbus: empty wrapper for '" + step + "'");
  if (options.layer)
    throw std::invalid_argument("hookbus: a wrapper of '" + step + "' was given a layer (" +
                                std::string(reflect::enum_wire_name(*options.layer).value_or("?")) +
                                "); wrappers are the engine's own code, and a layer's hooks gate a step with '" +
                                step + "' handlers instead");
  if (options.queued)
    throw std::invalid_argument("hookbus: queued delivery was asked for a wrapper of '" + step +
                                "'; its output is needed by run_step");
  if (!options.tools.empty() && !detail::has_tool_name<E>)
    throw std::invalid_argument("hookbus: a tool matcher ('" + options.tools + "') was given for a wrapper of '" +
                                step + "', which is not a tool event");
  ToolMatcher tools(options.tools);
  return detail::connect_slot(state_, state_->wrappers_of<E>(true), counts_->wrappers[step_of<E>::index], E::type, options,
                              false, [&](detail::SlotBase base) {
                                return std::make_shared<const detail::WrapperSlot<E>>(std::move(base), std::move(wrapper),
                                                                                      std::move(tools));
                              });
}

template <WrappableStep E>
step_output_t<E> Hooks::run_wrapped(const E& event, const Next<E>& step) {
  using Run = detail::WrappedRun<E>;
  std::vector<typename Run::Level> levels;
  // The wrappers listed now, each owner held until the run ends: a wrapper
  // connected meanwhile first wraps the next run.
  const typename detail::SlotsOf<detail::WrapperSlot<E>>::Reading wrappers(state_->wrappers_of<E>());
  wrappers.each([&](const detail::WrapperSlot<E>& slot, std::size_t) {
    const auto& track = slot.identity->track();
    levels.push_back({&slot, track ? track->lock() : nullptr});
    return Step::proceed;
  });
  auto capture = state_->start_step_capture(event);
  if (!capture) return Run(std::move(levels), step, nullptr).run(0, event);
  const Run run(std::move(levels), step, capture.get());
  try {
    step_output_t<E> output = run.run(0, event);
    state_->finish_step_capture(std::move(capture), std::nullopt);
    return output;
  } catch (...) {
    state_->finish_step_capture(std::move(capture), run.refused_by());
    throw;
  }
}

std::vector<std::string> Hooks::wrappers(std::string_view event_name) const {
  const std::size_t index = resolve_event(event_name);
  if (index == event_index<ToolCallEvent>) return state_->wrapped[step_of<ToolCallEvent>::index].readable().labels_in_call_order();
  if (index == event_index<BeforeModelCallEvent>)
    return state_->wrapped[step_of<BeforeModelCallEvent>::index].readable().labels_in_call_order();
  return {};
}

template Connection Hooks::connect_wrapper<ToolCallEvent>(Wrapper<ToolCallEvent>, HandlerOptions);
template Connection Hooks::connect_wrapper<BeforeModelCallEvent>(Wrapper<BeforeModelCallEvent>, HandlerOptions);
template ToolOutput Hooks::run_wrapped<ToolCallEvent>(const ToolCallEvent&, const Next<ToolCallEvent>&);
template Message Hooks::run_wrapped<BeforeModelCallEvent>(const BeforeModelCallEvent&, const Next<BeforeModelCallEvent>&);

// ------------------------------------------- instantiations for every event

struct detail::BusInstantiations {
  template <Event E>
  static Connection connect_running_ahead(Hooks& hooks, Handler<E> handler, RunAhead<E> ahead,
                                          HandlerOptions& options) {
    if (!ahead) throw std::invalid_argument("hookbus: empty run-ahead for '" + std::string(E::type) + "'");
    return connect_handler<E>(hooks.state_, std::move(handler), nullptr, options, true, std::move(ahead));
  }

  template <Event E>
  static constexpr auto of(std::type_identity<E>) {
    return std::tuple{&Hooks::connect<E>, static_cast<result_t<E> (Hooks::*)(const E&)>(&Hooks::dispatch<E>),
                      static_cast<result_t<E> (Hooks::*)(E&&)>(&Hooks::dispatch<E>),
                      &detail::connect_running_ahead<E>};
  }
};

template <Event E>
Connection detail::connect_running_ahead(Hooks& hooks, Handler<E> handler, RunAhead<E> ahead, HandlerOptions options) {
  return BusInstantiations::connect_running_ahead<E>(hooks, std::move(handler), std::move(ahead), options);
}

namespace {
[[gnu::used]] constexpr auto instantiated_bus =
    detail::addresses_for<HookEvent>([](auto event) { return detail::BusInstantiations::of(event); });
}  // namespace

}  // namespace hookbus
