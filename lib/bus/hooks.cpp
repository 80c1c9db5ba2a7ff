// The bus: one Boost.Signals2 signal per event type, plus the catch-all and
// error-listener signals. Every slot returns a Step; one stateless combiner
// stops the chain on Step::stop and skips slots whose tracked owner died. All
// per-emit state lives in the Emission passed to the slots (reducers.hpp).

#include <hookbus/hooks.hpp>

#include <hookbus/errors.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/tool_matcher.hpp>

#include "support/logging.hpp"
#include "bus/delivery_queue.hpp"
#include "bus/kept_alive.hpp"
#include "bus/reducers.hpp"
#include "bus/registration.hpp"
#include "catalogue/instantiations.hpp"
#include "trace/emission_capture.hpp"

#include <boost/core/type_name.hpp>
#include <boost/signals2/signal.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace hookbus {
namespace detail {
namespace bs2 = boost::signals2;

// Runs slots in order until one asks to stop. A slot whose tracked owner
// expired between Signals2's liveness check and the call throws expired_slot;
// Signals2's own combiners skip those, and so does this one.
struct StopOnRequest {
  using result_type = void;
  template <class SlotIterator>
  void operator()(SlotIterator first, SlotIterator last) const {
    for (; first != last; ++first) {
      try {
        if (*first == Step::stop) return;
      } catch (const bs2::expired_slot&) {
      }
    }
  }
};

template <class Arg>
using Signal = bs2::signal<Step(Arg&), StopOnRequest, int>;

// One signal and the registry of what is connected to it.
class ChannelBase {
 public:
  virtual ~ChannelBase() = default;
  virtual std::size_t slot_count() const = 0;

  std::uint64_t next_sequence() noexcept { return sequence_.fetch_add(1, std::memory_order_relaxed); }
  // The sequence the next registration will get: every registration made so far is below it.
  std::uint64_t horizon() const noexcept { return sequence_.load(std::memory_order_relaxed); }

  // Disconnected registrations are swept out when the registry has doubled
  // since the last sweep: amortised O(1) per connect, and the registry stays
  // within twice the live handlers. A handler Signals2 dropped because its
  // tracked owner died is retired here, which gives back its listener count.
  void enroll(std::shared_ptr<Registration> registration) {
    std::vector<std::shared_ptr<Registration>> expired;
    {
      std::lock_guard lock(mutex_);
      if (registrations_.size() >= sweep_at_) {
        std::erase_if(registrations_, [&](const auto& r) {
          if (r->connected()) return false;
          if (!r->retired()) expired.push_back(r);
          return true;
        });
        sweep_at_ = std::max<std::size_t>(kMinimumSweep, 2 * registrations_.size());
      }
      registrations_.push_back(std::move(registration));
    }
    for (const auto& r : expired) r->retire();  // outside the lock: it takes the signal's
  }

  void bus_destroyed() {
    std::lock_guard lock(mutex_);
    for (const auto& registration : registrations_) registration->bus_destroyed();
  }

  void clear() {
    std::vector<std::shared_ptr<Registration>> retiring;
    {
      std::lock_guard lock(mutex_);
      retiring.swap(registrations_);
    }
    for (const auto& registration : retiring) registration->retire();
  }

  std::vector<std::string> labels_in_call_order() const {
    std::vector<std::shared_ptr<Registration>> live;
    {
      std::lock_guard lock(mutex_);
      std::copy_if(registrations_.begin(), registrations_.end(), std::back_inserter(live),
                   [](const auto& r) { return r->connected(); });
    }
    std::stable_sort(live.begin(), live.end(), [](const auto& a, const auto& b) { return a->runs_before(*b); });
    std::vector<std::string> labels;
    for (const auto& registration : live) labels.push_back(registration->label());
    return labels;
  }

 private:
  static constexpr std::size_t kMinimumSweep = 16;

  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<Registration>> registrations_;
  std::size_t sweep_at_ = kMinimumSweep;
  std::atomic<std::uint64_t> sequence_{0};
};

template <class Arg>
class Channel final : public ChannelBase {
 public:
  std::size_t slot_count() const override { return signal.num_slots(); }
  Signal<Arg> signal;
};

// What catch-all subscribers are called with: the event, the horizon of
// their channel when the emit began, so that only subscribers registered
// before then run (a slot list snapshot, as Signals2 takes for the typed
// handlers when it calls their signal), and the emit's capture (null when
// the emit is not recorded).
struct CatchAllCall {
  const HookEvent& event;
  std::uint64_t horizon;
  EmissionCapture* capture;
};

// What emission observers' slots are called with: the finished emit's capture.
using FinishedEmission = const std::shared_ptr<const EmissionCapture>;

template <class V> struct typed_channels;
template <class... E> struct typed_channels<std::variant<E...>> {
  using type = std::tuple<Channel<Emission<E>>...>;
};

struct BusState {
  explicit BusState(HooksOptions o) : options(o) {
    std::apply([this](auto&... channel) { by_index = {&channel...}; }, typed);
  }
  BusState(const BusState&) = delete;
  BusState& operator=(const BusState&) = delete;

  ~BusState() {
    for (auto* channel : by_index) channel->bus_destroyed();
    catch_all.bus_destroyed();
    errors.bus_destroyed();
    emissions.bus_destroyed();
  }

  ListenerCounts counts;
  HooksOptions options;
  typed_channels<HookEvent>::type typed;
  std::array<ChannelBase*, event_count> by_index{};
  Channel<const CatchAllCall> catch_all;
  Channel<const HookError> errors;
  std::atomic<std::uint32_t> error_listeners{0};
  Channel<FinishedEmission> emissions;
  std::atomic<std::uint64_t> emit_sequence{0};  // numbers the recorded emits

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

  // The capture of an emit starting now, or null when nobody observes emits.
  template <Event E>
  std::shared_ptr<EmissionCapture> start_capture(Emission<E>& emission) {
    if (counts.observers.load(std::memory_order_relaxed) == 0) return nullptr;
    auto capture = std::make_shared<EmissionCapture>(emit_sequence.fetch_add(1, std::memory_order_relaxed),
                                                     emission.event());
    emission.record_into(capture.get());
    return capture;
  }

  // The emit ended with `result`: its record goes to the observers.
  template <class Result>
  void finish_capture(std::shared_ptr<EmissionCapture> capture, const Result& result) {
    capture->finish(result);
    const std::shared_ptr<const EmissionCapture> finished = std::move(capture);
    emissions.signal(finished);
  }

  template <Event E>
  Channel<Emission<E>>& channel() {
    return std::get<event_index<E>>(typed);
  }

  // Logs a handler failure and tells the error listeners.
  void report(const HookError& error) {
    detail::log(spdlog::level::err, "hook '{}' failed on '{}': {}", error.handler, error.event, error.message);
    if (error_listeners.load(std::memory_order_relaxed) == 0) return;
    HookError copy = error;
    errors.signal(copy);
  }
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

// The slot a typed handler is stored as: tool filter, error isolation, fold.
// It holds one pointer, so Signals2 stores and copies it without allocating.
template <Event E>
struct TypedSlot {
  struct Body {
    std::shared_ptr<const void> keep_alive;  // first: released after the handler is destroyed
    Handler<E> handler;
    ToolMatcher tools;
    std::shared_ptr<const Registration> identity;
    ChangeLog::Handler who;  // the identity, as the change log knows handlers
    bool answers;            // it can change the outcome (detail::can_answer)
  };
  std::shared_ptr<const Body> body;

  Step operator()(Emission<E>& emission) const {
    HandlerTrace trace(emission.capture(), body->identity);
    if constexpr (has_tool_name<E>) {
      if (!body->tools.matches_every_tool() && !body->tools.matches(tool_name_of(emission.event()))) {
        if (!in_recheck_pass(emission)) trace.skipped();  // once, not again in each pass
        return Step::proceed;
      }
    }
    if constexpr (rechecks_changes<E>) {
      // A recheck pass runs only the handlers that must answer again (reducers.hpp, ChangeLog).
      if (emission.rechecking() &&
          !(body->answers && emission.must_answer_again(body->identity->rank(), body->who, &Registration::runs_before)))
        return Step::proceed;
    }
    const KeptAliveCall call(body->keep_alive.get());
    try {
      if constexpr (EventWithResult<E>) {
        auto result = body->handler(emission.event());
        if (!result) {
          trace.no_change();
          return Step::proceed;
        }
        trace.template returned<E>(*result);
        if constexpr (rechecks_changes<E>) emission.answering(body->identity->rank(), &body->who);
        return fold(emission, std::move(*result), decider());
      } else {
        body->handler(emission.event());
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
    return [identity = body->identity.get()](Decider& decider) { identity->name(decider); };
  }

  Step failed(Emission<E>& emission, const std::string& message) const {
    const Registration& identity = *body->identity;
    const std::string label = identity.label();
    identity.bus().report(identity.error(label, message));
    if constexpr (EventWithResult<E>) {
      if constexpr (is_gating(E::reduction)) {
        if (identity.failure() == FailurePolicy::fail_closed)
          return fold(emission, failure_refusal<E>("hook '" + label + "' failed: " + message), decider());
      }
    }
    return Step::proceed;
  }
};

// Catch-all subscribers and error listeners: isolated, never stop the chain.
template <class Arg>
struct ObserverSlot {
  std::shared_ptr<const void> keep_alive;  // first: released after the observer is destroyed
  std::function<void(Arg&)> observer;
  std::shared_ptr<const Registration> identity;

  Step operator()(Arg& argument) const {
    const KeptAliveCall call(keep_alive.get());
    try {
      observer(argument);
    } catch (...) {
      const std::string message = describe_exception(std::current_exception());
      // An error listener's own failure is logged, never re-reported: no loops.
      if constexpr (std::is_same_v<Arg, const HookError>)
        detail::log(spdlog::level::err, "error listener '{}' failed: {}", identity->label(), message);
      else
        identity->bus().report(identity->error(identity->label(), message));
    }
    return Step::proceed;
  }
};

// A catch-all subscriber: called in place, or given a copy of the event
// through its delivery queue; only by emits that began after it was registered.
struct SubscriberSlot {
  std::shared_ptr<const void> keep_alive;  // first: released after the subscriber is destroyed
  Subscriber subscriber;                   // empty when queued
  std::shared_ptr<DeliveryQueueOf<HookEvent>> queue;
  std::shared_ptr<const Registration> identity;

  Step operator()(const CatchAllCall& call) const {
    if (!identity->registered_before(call.horizon)) return Step::proceed;
    HandlerTrace trace(call.capture, identity, true);
    if (queue) {
      queue->push(call.event);
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

// What a queued subscriber or observer's thread calls: the registration's
// function, with what keeps its code loaded held until after it is destroyed.
template <class Function>
struct QueuedCall {
  std::shared_ptr<const void> keep_alive;  // first: released last
  Function function;
};

// Starts the queue of a registration: deliveries call `deliver(function,
// item)`; a delivery that throws is reported like a failing subscriber.
template <class Item, class Function, class Deliver>
std::shared_ptr<DeliveryQueueOf<Item>> start_queue(BusState& bus, const HandlerOptions& options,
                                                   const std::shared_ptr<const Registration>& identity,
                                                   Function function, Deliver deliver) {
  auto call = std::make_shared<QueuedCall<Function>>(QueuedCall<Function>{options.keep_alive, std::move(function)});
  auto queue = DeliveryQueueOf<Item>::start(
      *options.queued, identity->label(),
      [call, deliver](Item& item) {
        const KeptAliveCall kept(call->keep_alive.get());
        deliver(call->function, item);
      },
      [identity](const std::string& message) { identity->bus().report(identity->error(identity->label(), message)); });
  bus.add_queue(queue);
  return queue;
}

// Connects a slot in its priority group (front of the group when reversed),
// counts it as a listener, and records it in the channel's registry. `make_slot`
// builds the slot function from the registration, its identity.
template <class Arg, class MakeSlot>
Connection connect_slot(const RegistrationSite& site, Channel<Arg>& channel, const HandlerOptions& options,
                        MakeSlot&& make_slot) {
  auto registration = std::make_shared<Registration>(site, options);
  typename Signal<Arg>::slot_type slot(make_slot(registration));
  if (options.track) slot.track_foreign(*options.track);
  site.listeners->fetch_add(1, std::memory_order_relaxed);
  registration->attach(channel.signal.connect(options.priority, slot, site.reversed ? bs2::at_front : bs2::at_back));
  channel.enroll(registration);
  return Connection(std::move(registration));
}

template <Event E>
Handler<E> adapt_named(NamedHandler handler) {
  return [handler = std::move(handler)](const E& event) {
    HookOutcome outcome = handler(HookEvent(event));
    if constexpr (EventWithResult<E>) {
      using R = result_t<E>;
      if (std::holds_alternative<std::monostate>(outcome)) return std::optional<R>();
      if (auto* result = std::get_if<R>(&outcome)) return std::optional<R>(std::move(*result));
      throw Error("handler for '" + std::string(E::type) + "' returned another event's result type; expected " +
                  std::string(boost::core::type_name<R>()) + " or no change (monostate)");
    }
  };
}

}  // namespace detail

// ----------------------------------------------------------------- Hooks

Hooks::Hooks(HooksOptions options)
    : state_(std::make_shared<detail::BusState>(options)), counts_(&state_->counts) {}

Hooks::~Hooks() { state_->close_queues(); }

template <Event E>
Connection Hooks::connect(Handler<E> handler, HandlerOptions options, bool answers) {
  if (!handler) throw std::invalid_argument("hookbus: empty handler for '" + std::string(E::type) + "'");
  if (options.queued)
    throw std::invalid_argument("hookbus: queued delivery was asked for a handler of '" + std::string(E::type) +
                                "'; only catch-all subscribers and emission observers can be queued (a handler's "
                                "result is needed by the emit)");
  if (!options.tools.empty() && !detail::has_tool_name<E>)
    throw std::invalid_argument("hookbus: a tool matcher ('" + options.tools + "') was given for '" +
                                std::string(E::type) + "', which is not a tool event");
  auto& channel = state_->channel<E>();
  const detail::RegistrationSite site{state_.get(), &counts_->typed[event_index<E>], E::type, channel.next_sequence(),
                                      state_->options.nested_ordering && is_closing<E>};
  ToolMatcher tools(options.tools);
  return detail::connect_slot(site, channel, options, [&](std::shared_ptr<detail::Registration> identity) {
    using Body = typename detail::TypedSlot<E>::Body;
    detail::ChangeLog::Handler who = identity;
    return detail::TypedSlot<E>{std::make_shared<const Body>(
        Body{options.keep_alive, std::move(handler), std::move(tools), std::move(identity), std::move(who), answers})};
  });
}

namespace detail {
// The typed handlers, each only when counted; for events whose changes are
// rechecked, again as long as a change by a less trusted handler must be
// answered by more trusted ones (reducers.hpp, ChangeLog).
template <Event E>
void run_typed_handlers(BusState& bus, Emission<E>& emission) {
  if (bus.counts.typed[event_index<E>].load(std::memory_order_relaxed) == 0) return;
  bus.channel<E>().signal(emission);
  if constexpr (rechecks_changes<E>) {
    while (recheck_due(emission)) bus.channel<E>().signal(emission);
  }
}

// The typed handlers, then the catch-all subscribers, each only when counted.
// Subscribers are taken as they were when the emit began: a subscriber that a
// handler adds first runs on the next emit.
template <Event E>
void run_handlers(BusState& bus, Emission<E>& emission) {
  const bool subscribed = bus.counts.catch_all.load(std::memory_order_relaxed) != 0;
  const std::uint64_t horizon = subscribed ? bus.catch_all.horizon() : 0;
  run_typed_handlers(bus, emission);
  if (subscribed) {
    const HookEvent as_variant(emission.event());
    bus.catch_all.signal(CatchAllCall{as_variant, horizon, emission.capture()});
  }
}

// Reduces into a named local returned whole (NRVO): the result is never moved.
template <EventWithResult E, class Arg>
result_t<E> reduce(BusState& bus, Arg&& event) {
  result_t<E> result;
  Emission<E> emission(std::forward<Arg>(event), result);
  auto capture = bus.start_capture(emission);
  run_handlers(bus, emission);
  std::move(emission).finish();
  if (capture) bus.finish_capture(std::move(capture), result);
  return result;
}
}  // namespace detail

template <Event E>
result_t<E> Hooks::dispatch(const E& event) {
  if constexpr (EventWithResult<E>) {
    return detail::reduce<E>(*state_, event);
  } else {
    Emission<E> emission(event);
    auto capture = state_->start_capture(emission);
    detail::run_handlers(*state_, emission);
    if (capture) state_->finish_capture(std::move(capture), std::monostate{});
  }
}

template <Event E>
result_t<E> Hooks::dispatch(E&& event) {
  if constexpr (EventWithResult<E>) return detail::reduce<E>(*state_, std::move(event));
  else return dispatch(static_cast<const E&>(event));
}

HookOutcome Hooks::dispatch_variant(const HookEvent& event) {
  return std::visit(
      [this](const auto& alternative) -> HookOutcome {
        using E = std::decay_t<decltype(alternative)>;
        if constexpr (EventWithResult<E>) return emit(alternative);
        else {
          emit(alternative);
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
      return hooks.connect<E>(detail::adapt_named<E>(std::move(h)), std::move(o));
    }...};
  }(std::make_index_sequence<event_count>{});
  return kConnectors[index](*this, std::move(handler), std::move(options));
}

Connection Hooks::subscribe(Subscriber subscriber, HandlerOptions options) {
  if (!subscriber) throw std::invalid_argument("hookbus: empty catch-all subscriber");
  const detail::RegistrationSite site{state_.get(), &counts_->catch_all, "*", state_->catch_all.next_sequence()};
  return detail::connect_slot(site, state_->catch_all, options, [&](std::shared_ptr<detail::Registration> registration) {
    std::shared_ptr<const detail::Registration> identity = registration;
    if (!options.queued)
      return detail::SubscriberSlot{options.keep_alive, std::move(subscriber), nullptr, std::move(identity)};
    auto queue = detail::start_queue<HookEvent>(*state_, options, identity, std::move(subscriber),
                                                [](const Subscriber& call, const HookEvent& event) { call(event); });
    registration->attach(queue);
    return detail::SubscriberSlot{options.keep_alive, nullptr, std::move(queue), std::move(identity)};
  });
}

Connection Hooks::on_emission(EmissionObserver observer, HandlerOptions options) {
  if (!observer) throw std::invalid_argument("hookbus: empty emission observer");
  using Finished = std::shared_ptr<const detail::EmissionCapture>;
  const detail::RegistrationSite site{state_.get(), &counts_->observers, "on_emission",
                                      state_->emissions.next_sequence()};
  return detail::connect_slot(site, state_->emissions, options, [&](std::shared_ptr<detail::Registration> registration) {
    std::shared_ptr<const detail::Registration> identity = registration;
    std::function<void(const Finished&)> deliver;
    if (!options.queued) {
      deliver = [observer = std::move(observer)](const Finished& emission) { observer(emission->record()); };
    } else {
      auto queue = detail::start_queue<Finished>(
          *state_, options, identity, std::move(observer),
          [](const EmissionObserver& call, const Finished& emission) { call(emission->record()); });
      registration->attach(queue);
      deliver = [queue = std::move(queue)](const Finished& emission) { queue->push(emission); };
    }
    return detail::ObserverSlot<detail::FinishedEmission>{options.keep_alive, std::move(deliver), std::move(identity)};
  });
}

Connection Hooks::on_handler_error(ErrorListener listener) {
  if (!listener) throw std::invalid_argument("hookbus: empty error listener");
  const detail::RegistrationSite site{state_.get(), &state_->error_listeners, "on_handler_error", state_->errors.next_sequence()};
  return detail::connect_slot(site, state_->errors, HandlerOptions{}, [&](std::shared_ptr<detail::Registration> identity) {
    return detail::ObserverSlot<const HookError>{nullptr, std::move(listener), std::move(identity)};
  });
}

std::size_t Hooks::handler_count(std::string_view event_name) const {
  return state_->by_index[resolve_event(event_name)]->slot_count();
}

std::vector<std::string> Hooks::registered_events() const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < event_count; ++i)
    if (state_->by_index[i]->slot_count() != 0) names.emplace_back(event_name(i));
  return names;
}

std::vector<std::string> Hooks::handlers(std::string_view event_name) const {
  return state_->by_index[resolve_event(event_name)]->labels_in_call_order();
}

std::size_t Hooks::subscriber_count() const { return state_->catch_all.slot_count(); }

void Hooks::clear(std::string_view event_name) { state_->by_index[resolve_event(event_name)]->clear(); }

void Hooks::clear() {
  for (auto* channel : state_->by_index) channel->clear();
}

void Hooks::clear_subscribers() { state_->catch_all.clear(); }

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

// ------------------------------------------- instantiations for every event

struct detail::BusInstantiations {
  template <Event E>
  static constexpr auto of(std::type_identity<E>) {
    return std::tuple{&Hooks::connect<E>, static_cast<result_t<E> (Hooks::*)(const E&)>(&Hooks::dispatch<E>),
                      static_cast<result_t<E> (Hooks::*)(E&&)>(&Hooks::dispatch<E>)};
  }
};

namespace {
[[gnu::used]] constexpr auto instantiated_bus =
    detail::addresses_for<HookEvent>([](auto event) { return detail::BusInstantiations::of(event); });
}  // namespace

}  // namespace hookbus
