#pragma once
// hookbus::Hooks, the bus. Each event type has a channel, kept inside the
// library, out of this header: a registry of its handlers (a Boost.Signals2
// signal, which says who is connected and in which order) and the dispatch
// snapshot made from it, the handlers in call order, which an emit walks
// without a lock (an emit calls no Signals2). Catch-all subscribers see every
// event after its typed handlers. docs/semantics.md is the contract.
//
//   hookbus::Hooks hooks;
//   auto policy = hooks.on<hookbus::ToolCallEvent>(
//       [](const hookbus::ToolCallEvent& e) -> std::optional<hookbus::ToolCallResult> {
//         if (e.tool_name == "bash") return hookbus::ToolCallResult{.decision = hookbus::Decision::deny, .reason = "no shell"};
//         return std::nullopt;
//       },
//       {.label = "no-shell", .failure = hookbus::FailurePolicy::fail_closed});
//   hookbus::ToolCallResult outcome = hooks.emit(hookbus::ToolCallEvent{...});

#include <hookbus/connection.hpp>
#include <hookbus/errors.hpp>
#include <hookbus/event_ref.hpp>
#include <hookbus/events.hpp>
#include <hookbus/handler_policy.hpp>
#include <hookbus/layer.hpp>
#include <hookbus/wrap.hpp>

#include <atomic>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace hookbus {

// Where a handler comes from.
enum class HandlerKind {
  in_process,  // registered by the engine's own code
  builtin,     // one of hookbus's built-in hooks (builtins.hpp)
  external,    // an external hook: a program run per event
  plugin,      // a hook that a plugin brought
};

struct HandlerOptions {
  std::string label{};      // for introspection, error reports, decided_by; "" becomes "<event>#<n>"
  int priority = 0;         // lower runs first; equal priorities keep registration order
  FailurePolicy failure = FailurePolicy::fail_open;
  // Tool events only: the tool names this handler sees. An exact name or a glob
  // (`*`, `?`), always matched against the whole name, with `|` alternatives:
  // "bash", "mcp__github__*", "Bash|Shell". Empty means every tool.
  std::string tools{};
  // When set, the handler stops by itself once this owner is destroyed.
  std::optional<std::weak_ptr<const void>> track{};
  HandlerKind kind = HandlerKind::in_process;
  // Where the handler was loaded from (a hook's path, a settings file and
  // entry); it names the handler in `decided_by` with the label.
  std::string source{};
  // Held for as long as the handler is stored and released only after the
  // handler itself is destroyed: what the handler's code lives in (a plugin's
  // library), which must outlive every call and the handler's destructor.
  std::shared_ptr<const void> keep_alive{};
  // The layer the handler's code comes from (layers.hpp); unset for the
  // engine's own handlers, the most trusted. On an event whose handlers can
  // both change it and refuse it (tool_call, permission_request, input,
  // message:receive), a change by a handler of a less trusted layer makes
  // every more trusted handler that answered before it answer again, on the
  // final event (docs/semantics.md, "A less trusted handler never weakens a
  // more trusted one").
  std::optional<Layer> layer{};
  // External hooks: the protocol it speaks ("hookbus", "claude_code"), for traces.
  std::string protocol{};
  // Catch-all subscribers and emission observers only: deliver through a queue
  // on a thread of their own instead of on the emitting thread. Registering a
  // typed handler with it throws std::invalid_argument (its result is needed
  // by the emit).
  std::optional<DeliveryQueue> queued{};
};

struct HooksOptions {
  // Closing events of before/after pairs (tool_result, tool_execution_end,
  // after_model_call, agent_end) run in reverse registration order within a
  // priority group, so the first "before" handler is the last "after" one.
  bool nested_ordering = false;
  // How many handlers' runs an emit may have started ahead of their turn at
  // once: the external hooks of an emit run in parallel, each answer still
  // read at its turn, so the outcome is a sequential emit's
  // (docs/semantics.md §16). 0: each runs at its turn.
  std::size_t parallel_runs = 8;
};

// The record of a handler's failure (it threw), which error listeners
// receive (on_handler_error): not an exception.
struct HandlerFailure {
  std::string event{};    // wire name
  std::string handler{};  // label
  std::string message{};  // what() of the exception
  HandlerKind kind = HandlerKind::in_process;
  std::string source{};   // HandlerOptions::source: which file or settings entry failed
};

// The name of 0.2.0, deprecated in 0.3.0 and removed in 0.4.0 (CHANGELOG.md).
using HookError [[deprecated("use hookbus::HandlerFailure (HookError was renamed in 0.3.0 and goes in 0.4.0)")]] =
    HandlerFailure;

// A queued registration's queue, for introspection (Hooks::delivery_queues).
struct DeliveryQueueState {
  std::string label{};          // the registration's label
  std::size_t capacity = 0;
  Overflow overflow = Overflow::block;
  std::size_t queued = 0;       // waiting now
  std::uint64_t delivered = 0;  // delivered so far (including those that threw)
  std::uint64_t dropped = 0;    // dropped by the overflow policy so far
};

struct EmissionRecord;  // trace.hpp

// A handler written against the variant: returns the result for the event it
// was given (or monostate for "no change").
using NamedHandler = std::function<HookOutcome(const HookEvent&)>;
// A catch-all subscriber: sees every event through a view (event_ref.hpp); one
// written against `const HookEvent&` works too, at the cost of one copy of
// the event per emit, shared by every subscriber and by-name handler.
using Subscriber = std::function<void(const EventRef&)>;
using ErrorListener = std::function<void(const HandlerFailure&)>;
using EmissionObserver = std::function<void(const EmissionRecord&)>;

// The type-erased form every typed handler is stored as.
template <Event E>
using Handler = std::conditional_t<EventWithResult<E>, std::function<std::optional<result_t<E>>(const E&)>,
                                   std::function<void(const E&)>>;

class Registrar;

// What every registration through a Registrar gets, whatever its options say:
// how a plugin's handlers are named and kept from outliving its library.
struct RegistrarScope {
  // "name/" labels a handler "name/LABEL", or "name/EVENT" when it has no label.
  std::string label_prefix{};
  HandlerKind kind = HandlerKind::in_process;
  std::string source{};              // HandlerOptions::source of every handler
  std::shared_ptr<const void> keep_alive{};  // HandlerOptions::keep_alive of every handler
  std::optional<Layer> layer{};              // HandlerOptions::layer of every handler, when set
};

// The stop token of the emit(…, std::stop_token) this thread is in (the
// innermost one that was given a token; a nested emit without one keeps its
// caller's), or an empty token that is never requested outside such an emit.
// External hook runs stop when it is requested; handlers may watch it too.
[[nodiscard]] std::stop_token emit_stop_token() noexcept;

namespace detail {
struct BusState;  // the channels, queues and records of emits; defined in the library
struct BusInstantiations;  // instantiates Hooks's member templates for every event, in the library

// Per-type listener counts, checked inline before anything else so an event
// nobody listens to costs three relaxed loads.
struct ListenerCounts {
  std::atomic<std::uint32_t> typed[event_count] = {};
  std::atomic<std::uint32_t> catch_all{0};
  std::atomic<std::uint32_t> observers{0};  // emission observers: every emit is recorded for them
  std::atomic<std::uint32_t> wrappers[wrappable_step_count] = {};  // by step_of<E>::index
};

// The "no change" result, default-initialised: value-initialising it
// (`Result()`) would first zero the whole struct, which costs more than the
// rest of an emit nobody listens to. The named local at function scope is
// returned without a move (NRVO).
template <class R>
struct Neutral {
  static R make() {
    R neutral;
    return neutral;
  }
};
template <>
struct Neutral<void> {
  static void make() {}
};

// Whether a handler of type F can change E's outcome: one that returns void
// cannot, so it never has to answer again (docs/semantics.md).
template <Event E, class F>
constexpr bool can_answer() {
  using Fn = std::decay_t<F>;
  if constexpr (!EventWithResult<E> || !std::is_invocable_v<Fn&, const E&>) return false;
  else return !std::is_void_v<std::invoke_result_t<Fn&, const E&>>;
}

// While alive, `stop` is this thread's emit stop token (emit_stop_token());
// the one before is restored at the end, so scopes nest.
class EmitStopScope {
 public:
  explicit EmitStopScope(std::stop_token stop) noexcept;
  ~EmitStopScope();
  EmitStopScope(const EmitStopScope&) = delete;
  EmitStopScope& operator=(const EmitStopScope&) = delete;

 private:
  std::stop_token previous_;
};

template <Event E, class F>
Handler<E> make_handler(F&& f) {
  using Fn = std::decay_t<F>;
  if constexpr (!EventWithResult<E>) {
    static_assert(std::is_invocable_v<Fn&, const E&>, "an observe-only handler takes (const E&)");
    // std::function would drop a returned result (a deny) without a word.
    static_assert(std::is_void_v<std::invoke_result_t<Fn&, const E&>>,
                  "an observe-only event has no result: its handler returns void");
    return Handler<E>(std::forward<F>(f));
  } else {
    using R = result_t<E>;
    static_assert(std::is_invocable_v<Fn&, const E&>, "a handler takes (const E&)");
    using Ret = std::invoke_result_t<Fn&, const E&>;
    if constexpr (std::is_void_v<Ret>) {
      return [g = Fn(std::forward<F>(f))](const E& e) mutable -> std::optional<R> {
        g(e);
        return std::nullopt;
      };
    } else {
      static_assert(std::is_convertible_v<Ret, std::optional<R>>,
                    "a handler returns void, the event's Result, or std::optional<Result>");
      return Handler<E>(std::forward<F>(f));
    }
  }
}
}  // namespace detail

// The one message of the three emits' [[nodiscard]] (an attribute takes only a literal).
#define HOOKBUS_EMIT_RESULT_UNREAD \
  "an emit's result is what the hooks decided (deny, ask, cancel, a changed input): not reading it ignores them"

class Hooks {
 public:
  explicit Hooks(HooksOptions options = {});
  ~Hooks();
  Hooks(const Hooks&) = delete;
  Hooks& operator=(const Hooks&) = delete;

  // ------------------------------------------------------------ registration

  // A typed handler: `void(const E&)` for any event; for events with a result
  // also `Result(const E&)` or `std::optional<Result>(const E&)`, where nullopt
  // means "no change".
  template <Event E, class F>
  Connection on(F&& handler, HandlerOptions options = {}) {
    constexpr bool answers = detail::can_answer<E, F>();
    return connect<E>(detail::make_handler<E>(std::forward<F>(handler)), std::move(options), answers);
  }

  // A member function of an object the caller keeps alive.
  template <Event E, class C, class M>
    requires std::is_member_function_pointer_v<M>
  Connection on(M method, C* object, HandlerOptions options = {}) {
    return on<E>([method, object](const E& e) { return (object->*method)(e); }, std::move(options));
  }

  // A member function of a shared object: tracked, so it stops when the object dies.
  template <Event E, class C, class M>
    requires std::is_member_function_pointer_v<M>
  Connection on(M method, const std::shared_ptr<C>& object, HandlerOptions options = {}) {
    options.track.emplace(object);
    return on<E>(method, object.get(), std::move(options));
  }

  // By wire name or alias ("tool_call", "before_tool_call"): for handlers
  // written against HookEvent, such as file-loaded and external hooks. Throws
  // UnknownEventError, listing the valid names, for an unknown name.
  Connection on(std::string_view event_name, NamedHandler handler, HandlerOptions options = {});

  // Every event, after that event's typed handlers; sees the event as they
  // left it. With options.queued, on a thread of its own, in emit order.
  Connection subscribe(Subscriber subscriber, HandlerOptions options = {});

  // Called when a handler or subscriber throws (a failure of hookbus's
  // handlers; the agent's own errors are the agent_error event, alias "on_error").
  Connection on_handler_error(ErrorListener listener);
  // The name of 0.1.0, deprecated in 0.2.0 and removed in 0.3.0 (CHANGELOG.md).
  [[deprecated("use hookbus::Hooks::on_handler_error (on_error was renamed in 0.2.0 and goes in 0.3.0)")]]
  Connection on_error(ErrorListener listener) { return on_handler_error(std::move(listener)); }

  // Called with an EmissionRecord (trace.hpp) once every emit has finished:
  // the event as emitted, every handler reached with what it did and how long
  // it took, the reduced result and who decided it. While no observer is
  // registered, an emit costs one relaxed load more. Uses the label, track,
  // keep_alive and queued options.
  Connection on_emission(EmissionObserver observer, HandlerOptions options = {});

  // A provider registers several handlers at once; they disconnect together.
  template <class P>
    requires requires(P& p, Registrar& r) { p.register_hooks(r); }
  ConnectionGroup add(P& provider);

  // The same for a provider function (a built-in's, a plugin's), with `scope`
  // applied to everything it registers. Should it throw, what it registered so
  // far is disconnected and the exception goes on.
  ConnectionGroup add(const std::function<void(Registrar&)>& provide, RegistrarScope scope = {});

  // Installs every provider registered with HOOKBUS_STATIC_PROVIDER in this process.
  ConnectionGroup install_static_providers();

  // ------------------------------------------------------------------- emit

  // Runs E's handlers in order, then the catch-all subscribers, and returns the
  // reduced result (the neutral, default-constructed one when nobody changes
  // anything). Returns void for observe-only events. The result is what the
  // hooks decided, so it must be read: a ToolCallResult nobody looks at allows
  // every call, denied or not.
  template <Event E>
  [[nodiscard(HOOKBUS_EMIT_RESULT_UNREAD)]] result_t<E> emit(const E& event) {
    if (!listened(event_index<E>)) return detail::Neutral<result_t<E>>::make();
    return dispatch(event);
  }

  // Same, but the bus may apply handlers' changes to the event in place, so no
  // copy is ever made.
  template <Event E>
  [[nodiscard(HOOKBUS_EMIT_RESULT_UNREAD)]] result_t<E> emit(E&& event) {
    if (!listened(event_index<E>)) return detail::Neutral<result_t<E>>::make();
    return dispatch(std::move(event));
  }

  // The variant form; the outcome holds the event's result type, or monostate.
  [[nodiscard(HOOKBUS_EMIT_RESULT_UNREAD)]] HookOutcome emit(const HookEvent& event) {
    if (!listened(event.index()) && !has_result_at[event.index()]) return std::monostate{};
    return dispatch_variant(event);
  }

  // ------------------------------------------------------ cancellable emit

  // The same three emits with a stop token: requesting a stop (from another
  // thread) cancels the external hooks running for this emit. Their processes
  // are stopped (the process group, and whatever it started) and each such run
  // is a failure under its hook's failure policy, so the emit returns promptly:
  // fail-open hooks are skipped, fail-closed ones refuse. A stop requested
  // before the emit runs no external hook. In-process handlers run as usual;
  // one that does long work may watch the token through emit_stop_token().
  // docs/semantics.md, section 12.
  template <Event E>
  [[nodiscard(HOOKBUS_EMIT_RESULT_UNREAD)]] result_t<E> emit(const E& event, std::stop_token stop) {
    const detail::EmitStopScope scope(std::move(stop));
    return emit(event);
  }
  template <Event E>
  [[nodiscard(HOOKBUS_EMIT_RESULT_UNREAD)]] result_t<E> emit(E&& event, std::stop_token stop) {
    const detail::EmitStopScope scope(std::move(stop));
    return emit(std::move(event));
  }
  [[nodiscard(HOOKBUS_EMIT_RESULT_UNREAD)]] HookOutcome emit(const HookEvent& event, std::stop_token stop) {
    const detail::EmitStopScope scope(std::move(stop));
    return emit(event);
  }

  // ------------------------------------------------------------ wrap steps

  // A wrapper of E's step (wrap.hpp): `std::optional<Output>(const E&, const
  // Next<E>&)` or `Output(const E&, const Next<E>&)`. Wrappers nest by
  // priority: the one that would run first as a handler (lowest `priority`,
  // then first registered) is outermost. Uses the label, priority, failure,
  // tools (tool_call), track and keep_alive options. A wrapper is the engine's
  // own code: one with a layer or with `queued` throws std::invalid_argument.
  template <WrappableStep E, class F>
  Connection wrap(F&& wrapper, HandlerOptions options = {}) {
    return connect_wrapper<E>(detail::make_wrapper<E>(std::forward<F>(wrapper)), std::move(options));
  }

  // Runs the engine's step (`Output(const E&)`: its tool runner, its model
  // client) inside E's wrappers and returns the output they give. With no
  // wrapper, calls `step` after one relaxed load. What the step throws passes
  // out through the wrappers (which may catch it); a fail-closed wrapper's
  // failure throws StepRefusedError. docs/semantics.md, section 15.
  template <WrappableStep E, class F>
  [[nodiscard]] step_output_t<E> run_step(const E& event, F&& step) {
    static_assert(std::is_convertible_v<std::invoke_result_t<F&, const E&>, step_output_t<E>>,
                  "a step takes (const E&) and returns step_output_t<E>");
    if (counts_->wrappers[step_of<E>::index].load(std::memory_order_relaxed) == 0) return step(event);
    return run_wrapped<E>(event, Next<E>(std::ref(step)));
  }

  // The same with a stop token: every wrapper and the step see it through
  // emit_stop_token(), as an emit's handlers do.
  template <WrappableStep E, class F>
  [[nodiscard]] step_output_t<E> run_step(const E& event, F&& step, std::stop_token stop) {
    const detail::EmitStopScope scope(std::move(stop));
    return run_step(event, std::forward<F>(step));
  }

  // ----------------------------------------------------------- introspection

  [[nodiscard]] std::size_t handler_count(std::string_view event_name) const;  // typed + by-name handlers
  template <Event E>
  [[nodiscard]] bool has_handlers() const noexcept {
    return counts_->typed[event_index<E>].load(std::memory_order_relaxed) != 0;
  }
  [[nodiscard]] std::vector<std::string> registered_events() const;  // names with at least one handler
  [[nodiscard]] std::vector<std::string> handlers(std::string_view event_name) const;  // labels, call order
  // The labels of a step's wrappers, outermost first; an event whose step
  // cannot be wrapped has none.
  [[nodiscard]] std::vector<std::string> wrappers(std::string_view event_name) const;
  [[nodiscard]] std::size_t subscriber_count() const;
  void clear(std::string_view event_name);  // that event's handlers
  void clear();                             // every event's handlers (not subscribers, error listeners or wrappers)
  void clear_subscribers();

  // The queues of queued subscribers and observers, in registration order.
  [[nodiscard]] std::vector<DeliveryQueueState> delivery_queues() const;
  // Waits until every queue has delivered (or dropped) what was queued before
  // the call. A queue's own delivering thread does not wait for itself.
  void flush();

  // Whether an emit of the event at `index` (event_index<E>) reaches anyone:
  // a handler of it, a catch-all subscriber or an emission observer. An
  // engine (or a language binding) can skip making an event, or the work
  // around an emit, when it does not. Three relaxed loads.
  [[nodiscard]] bool listened(std::size_t index) const noexcept {
    return counts_->typed[index].load(std::memory_order_relaxed) != 0 ||
           counts_->catch_all.load(std::memory_order_relaxed) != 0 ||
           counts_->observers.load(std::memory_order_relaxed) != 0;
  }

 private:

  // Defined in the library and instantiated there for every event, which keeps
  // the channels (and Signals2, their registry) out of this header.
  friend struct detail::BusInstantiations;
  // `answers`: whether the handler can change the outcome (detail::can_answer).
  // The options are taken by reference and their strings moved into the
  // handler's registration: a connect copies none of them.
  template <Event E> Connection connect(Handler<E> handler, HandlerOptions&& options, bool answers = true);
  template <Event E> result_t<E> dispatch(const E& event);
  template <Event E> result_t<E> dispatch(E&& event);
  HookOutcome dispatch_variant(const HookEvent& event);
  template <WrappableStep E> Connection connect_wrapper(Wrapper<E> wrapper, HandlerOptions options);
  template <WrappableStep E> step_output_t<E> run_wrapped(const E& event, const Next<E>& step);

  std::shared_ptr<detail::BusState> state_;
  detail::ListenerCounts* counts_;
};
#undef HOOKBUS_EMIT_RESULT_UNREAD

// Collects what a provider registers into one ConnectionGroup.
class Registrar {
 public:
  explicit Registrar(Hooks& hooks) noexcept : hooks_(hooks) {}
  Registrar(Hooks& hooks, RegistrarScope scope) noexcept : hooks_(hooks), scope_(std::move(scope)) {}

  template <Event E, class F>
  void on(F&& handler, HandlerOptions options = {}) {
    group_.add(hooks_.on<E>(std::forward<F>(handler), scoped(std::move(options), E::type)));
  }
  template <Event E, class C, class M>
    requires std::is_member_function_pointer_v<M>
  void on(M method, C* object, HandlerOptions options = {}) {
    group_.add(hooks_.on<E>(method, object, scoped(std::move(options), E::type)));
  }
  void on(std::string_view event_name, NamedHandler handler, HandlerOptions options = {}) {
    group_.add(hooks_.on(event_name, std::move(handler), scoped(std::move(options), event_name)));
  }
  void subscribe(Subscriber subscriber, HandlerOptions options = {}) {
    group_.add(hooks_.subscribe(std::move(subscriber), scoped(std::move(options), "*")));
  }
  void on_emission(EmissionObserver observer, HandlerOptions options = {}) {
    group_.add(hooks_.on_emission(std::move(observer), scoped(std::move(options), "on_emission")));
  }
  void add(Connection connection) { group_.add(std::move(connection)); }
  void add(ConnectionGroup group) { group_.add(std::move(group)); }

  Hooks& hooks() noexcept { return hooks_; }
  [[nodiscard]] const RegistrarScope& scope() const noexcept { return scope_; }
  ConnectionGroup take() noexcept { return std::move(group_); }

 private:
  HandlerOptions scoped(HandlerOptions options, std::string_view event) const {
    if (!scope_.label_prefix.empty())
      options.label.insert(0, options.label.empty() ? scope_.label_prefix + std::string(event) : scope_.label_prefix);
    if (scope_.kind != HandlerKind::in_process) options.kind = scope_.kind;
    if (!scope_.source.empty()) options.source = scope_.source;
    if (scope_.keep_alive) options.keep_alive = scope_.keep_alive;
    if (scope_.layer) options.layer = scope_.layer;
    return options;
  }

  Hooks& hooks_;
  RegistrarScope scope_;
  ConnectionGroup group_;
};

template <class P>
  requires requires(P& p, Registrar& r) { p.register_hooks(r); }
ConnectionGroup Hooks::add(P& provider) {
  return add([&provider](Registrar& registrar) { provider.register_hooks(registrar); });
}

// ------------------------------------------------------ static registration

using ProviderFunction = void (*)(Registrar&);

// Adds a provider to the process-wide list Hooks::install_static_providers()
// installs. Returns true so it can initialise a static.
bool register_static_provider(std::string_view name, ProviderFunction provider);

// Names of the providers registered so far, in registration order.
std::vector<std::string> static_provider_names();

}  // namespace hookbus

// Registers hooks at the definition site, into the process-wide provider list:
//
//   HOOKBUS_STATIC_PROVIDER(audit_shell) {
//     registrar.on<hookbus::ToolCallEvent>([](const hookbus::ToolCallEvent& e) { ... });
//   }
//
// Nothing runs until a bus calls install_static_providers(). Put these in the
// executable (or an object library): a linker drops unreferenced objects of a
// static library, and their registrations with them.
#define HOOKBUS_STATIC_PROVIDER(name)                                                                      \
  static void hookbus_static_provider_##name(::hookbus::Registrar& registrar);                            \
  [[maybe_unused]] static const bool hookbus_static_provider_registered_##name =                           \
      ::hookbus::register_static_provider(#name, &hookbus_static_provider_##name);                        \
  static void hookbus_static_provider_##name([[maybe_unused]] ::hookbus::Registrar& registrar)
