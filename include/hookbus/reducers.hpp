#pragma once
// Reducers: how the results of several handlers for one emit combine into the
// one outcome the engine acts on. docs/semantics.md states these rules as the
// contract; this file is their single implementation.
//
// Per-emit state lives in an Emission, created by each emit and passed to every
// slot, never in the shared Signals2 combiner: concurrent emits of the same
// event never see each other's state.
//
// Fields that a result shares (by name and type) with its event, like
// ToolCallResult::input and ToolCallEvent::input, are "mirrored": a handler's
// change is written into the working event, so the next handler sees it, and
// is moved back into the outcome when the emit finishes. The working event is
// copied only when a handler changes something (never, for an rvalue emit).

#include <hookbus/events.hpp>

#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>

#include <concepts>

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace hookbus {

// What a slot tells the combiner after it ran.
enum class Step { proceed, stop };

namespace detail {

template <class T> inline constexpr bool is_optional_v = false;
template <class T> inline constexpr bool is_optional_v<std::optional<T>> = true;
template <class T> inline constexpr bool is_vector_v = false;
template <class T> inline constexpr bool is_vector_v<std::vector<T>> = true;

template <class D>
using members_of = boost::describe::describe_members<D, boost::describe::mod_public>;

// The event member mirrored by the result member described by RD: same name,
// and the event holds the optional's value type. `void` when there is none.
template <class E, class RD>
struct mirror_of {
  template <class ED>
  using matches = boost::mp11::mp_bool<std::string_view(ED::name) == std::string_view(RD::name) &&
                                       std::is_same_v<std::remove_cvref_t<decltype(std::declval<E&>().*ED::pointer)>,
                                                      typename std::remove_cvref_t<decltype(std::declval<typename std::remove_cvref_t<decltype(std::declval<result_t<E>&>())>&>().*RD::pointer)>::value_type>>;
  using list = boost::mp11::mp_copy_if<members_of<E>, matches>;
  using type = boost::mp11::mp_eval_if_c<boost::mp11::mp_empty<list>::value, void, boost::mp11::mp_front, list>;
};

}  // namespace detail

// Per-emit state of an observe-only event: the event itself.
template <Event E>
class Emission {
 public:
  explicit Emission(const E& event) noexcept : event_(&event) {}
  const E& event() const noexcept { return *event_; }

 private:
  const E* event_;
};

// Per-emit state of an event with a result: the working event, and the
// reduced result, which the emit owns (so it is returned without a move).
template <EventWithResult E>
class Emission<E> {
 public:
  using Result = result_t<E>;

  // Handlers' changes go to a private copy made on the first change.
  Emission(const E& event, Result& result) noexcept : event_(&event), result_(result) {}
  // The caller gave the event up (it must outlive the emission): handlers'
  // changes are made in place.
  Emission(E&& owned_event, Result& result) noexcept
      : event_(&owned_event), working_(&owned_event), result_(result) {}
  Emission(const Emission&) = delete;
  Emission& operator=(const Emission&) = delete;

  const E& event() const noexcept { return *event_; }
  Result& result() noexcept { return result_; }

  // The event handlers see from now on, writable.
  E& working_event() {
    if (working_ == nullptr) {
      copy_.emplace(*event_);
      working_ = &*copy_;
      event_ = working_;
    }
    return *working_;
  }

  // Ends the emit: mirrored fields move from the working event into the result.
  void finish() && {
    boost::mp11::mp_for_each<detail::members_of<Result>>([&](auto rd) {
      auto& field = result_.*rd.pointer;
      if constexpr (detail::is_optional_v<std::remove_cvref_t<decltype(field)>>) {
        using Mirror = typename detail::mirror_of<E, decltype(rd)>::type;
        if constexpr (!std::is_void_v<Mirror>) {
          if (field) *field = std::move(working_->*Mirror::pointer);
        }
      }
    });
  }

 private:
  const E* event_;
  E* working_ = nullptr;
  std::optional<E> copy_;
  Result& result_;
};

namespace detail {

template <class T>
bool is_empty_value(const T& value) {
  if constexpr (requires { value.empty(); }) return value.empty();
  else return false;
}

// Result members with one rule on every event, recognised by their type.
template <class T> inline constexpr bool is_stop_v = std::is_same_v<T, std::optional<StopRequest>>;
template <class T> inline constexpr bool is_decider_v = std::is_same_v<T, std::optional<Decider>>;

// The rules every kind of result shares: vector members accumulate in handler
// order, and the first stop wins, named after its handler. `name(decider)`
// writes the Decider of the handler that returned `incoming`; it is called
// only when one is needed.
template <class R, class Name>
void absorb_shared(R& reduced, R& incoming, const Name& name) {
  boost::mp11::mp_for_each<members_of<R>>([&](auto rd) {
    auto& from = incoming.*rd.pointer;
    using Member = std::remove_cvref_t<decltype(from)>;
    if constexpr (is_vector_v<Member>) {
      if (from.empty()) return;  // the common case: checked inline, nothing moved
      auto& to = reduced.*rd.pointer;
      if (to.empty()) to.swap(from);
      else to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    } else if constexpr (is_stop_v<Member>) {
      auto& to = reduced.*rd.pointer;
      if (!from || to) return;
      to = std::move(from);
      if (!to->decided_by) name(to->decided_by.emplace());
    }
  });
}

// Takes every other engaged optional of `incoming`: a mirrored one is written
// into the working event (the result keeps an engaged marker), any other
// overwrites the result's. With `skip_empty`, engaged-but-empty values count
// as "no change". Stops and deciders follow their own rules.
template <class E>
void absorb(Emission<E>& emission, result_t<E>& incoming, bool skip_empty) {
  using R = result_t<E>;
  boost::mp11::mp_for_each<members_of<R>>([&](auto rd) {
    auto& field = incoming.*rd.pointer;
    using Member = std::remove_cvref_t<decltype(field)>;
    if constexpr (is_optional_v<Member> && !is_stop_v<Member> && !is_decider_v<Member>) {
      if (!field || (skip_empty && is_empty_value(*field))) return;
      using Mirror = typename mirror_of<E, decltype(rd)>::type;
      if constexpr (std::is_void_v<Mirror>) {
        emission.result().*rd.pointer = std::move(field);
      } else {
        emission.working_event().*Mirror::pointer = std::move(*field);
        (emission.result().*rd.pointer).emplace();
      }
    }
  });
}

// Assigns in place (no temporary string): a refusal is on the hot path of a
// short-circuiting emit.
inline void set_reason(std::string& target, std::string&& reason, std::string_view fallback) {
  if (reason.empty()) target.assign(fallback);
  else target = std::move(reason);
}

// The handler's own decider when it named one (a handler standing for several
// hooks), else the bus's.
template <class Name>
void set_decider(std::optional<Decider>& target, std::optional<Decider>&& own, const Name& name) {
  if (own) target = std::move(own);
  else name(target.emplace());
}

// ---- decisions: deny > ask > allow > none ----

template <class R>
concept Decisive = requires(R& r) {
  { r.decision } -> std::same_as<Decision&>;
};

inline std::string_view default_reason(const ToolCallResult&, Decision decision) noexcept {
  return decision == Decision::deny ? "Tool call denied by hook"
         : decision == Decision::ask ? "Tool call sent to the user by hook"
                                     : "";
}
inline std::string_view default_reason(const PermissionRequestResult&, Decision decision) noexcept {
  return decision == Decision::deny ? "Permission denied by hook"
         : decision == Decision::ask ? "Permission request left to the user by hook"
                                     : "";
}

// A decision stronger than the reduced one wins, with its reason and decider;
// at the same level the first one stays. Decision's enumerators are in
// precedence order.
template <Decisive R, class Name>
void take_decision(R& reduced, R&& incoming, const Name& name) {
  if (incoming.decision <= reduced.decision) return;
  reduced.decision = incoming.decision;
  set_reason(reduced.reason, std::move(incoming.reason), default_reason(reduced, incoming.decision));
  set_decider(reduced.decided_by, std::move(incoming.decided_by), name);
}

// ---- refusals: does a result stop a gating chain, and how to make one ----

template <Decisive R>
bool refuses(const R& r) noexcept { return r.decision == Decision::deny; }
inline bool refuses(const ChannelConnectResult& r) noexcept { return !r.allow; }
template <class R>
  requires requires(R r) { r.cancel; }
bool refuses(const R& r) noexcept { return r.cancel; }
inline bool refuses(const InputResult& r) noexcept {
  return r.action == InputAction::handled || r.action == InputAction::reject;
}
inline bool refuses(const MessageReceiveResult& r) noexcept { return r.action == ReceiveAction::reject; }
inline bool refuses(const UserBashResult& r) noexcept { return r.handled; }

template <class Name>
void take_refusal(ChannelConnectResult& reduced, ChannelConnectResult&& r, const Name& name) {
  reduced.allow = false;
  set_reason(reduced.reason, std::move(r.reason), "Channel connection denied by hook");
  set_decider(reduced.decided_by, std::move(r.decided_by), name);
}
template <class R, class Name>
  requires requires(R r) { r.cancel; }
void take_refusal(R& reduced, R&& r, const Name& name) {
  reduced.cancel = true;
  set_reason(reduced.reason, std::move(r.reason), "Cancelled by hook");
  set_decider(reduced.decided_by, std::move(r.decided_by), name);
}
template <class Name>
void take_refusal(InputResult& reduced, InputResult&& r, const Name& name) {
  reduced.action = r.action;
  if (r.action == InputAction::reject) set_reason(reduced.reason, std::move(r.reason), "Input rejected by hook");
  else reduced.reason = std::move(r.reason);
  set_decider(reduced.decided_by, std::move(r.decided_by), name);
}
template <class Name>
void take_refusal(MessageReceiveResult& reduced, MessageReceiveResult&& r, const Name& name) {
  reduced.action = ReceiveAction::reject;
  set_reason(reduced.reason, std::move(r.reason), "Message rejected by hook");
  set_decider(reduced.decided_by, std::move(r.decided_by), name);
}
template <class Name>
void take_refusal(UserBashResult& reduced, UserBashResult&& r, const Name& name) {
  reduced.handled = true;
  reduced.output = std::move(r.output);
  reduced.exit_code = r.exit_code;
  set_decider(reduced.decided_by, std::move(r.decided_by), name);
}

inline bool transforms(const InputResult& r) noexcept { return r.action == InputAction::transform; }
inline bool transforms(const MessageReceiveResult& r) noexcept { return r.action == ReceiveAction::transform; }

}  // namespace detail

// Folds one handler's result into the emission. Returns Step::stop when the
// chain must end here (a deny, cancel, reject, handled). `name(decider)`
// writes the Decider of the handler that returned `result`; it is called only
// when a refusal, decision or stop is recorded.
template <EventWithResult E, class Name>
Step fold(Emission<E>& emission, result_t<E>&& result, const Name& name) {
  constexpr Reduction kind = E::reduction;
  auto& reduced = emission.result();
  detail::absorb_shared(reduced, result, name);
  if constexpr (kind == Reduction::collect) {
    return Step::proceed;
  } else if constexpr (kind == Reduction::first_wins) {
    if (!detail::refuses(result)) return Step::proceed;
    detail::take_refusal(reduced, std::move(result), name);
    return Step::stop;
  } else if constexpr (kind == Reduction::transform) {
    if (detail::refuses(result)) {
      detail::take_refusal(reduced, std::move(result), name);
      return Step::stop;
    }
    if (!detail::transforms(result)) return Step::proceed;  // "continue": its replacements are ignored
    detail::absorb(emission, result, false);
    reduced.action = result.action;
    return Step::proceed;
  } else if constexpr (kind == Reduction::block || kind == Reduction::cancel) {
    // A replacement that comes with a refusal still applies: the outcome reports
    // the input the refusing handler saw fixed, for the engine's error message.
    const bool stop = detail::refuses(result);
    detail::absorb(emission, result, false);
    if constexpr (detail::Decisive<result_t<E>>) {
      detail::take_decision(reduced, std::move(result), name);
    } else if (stop) {
      detail::take_refusal(reduced, std::move(result), name);
    }
    return stop ? Step::stop : Step::proceed;
  } else {  // patch, replace, last_wins
    detail::absorb(emission, result, kind == Reduction::last_wins);
    return Step::proceed;
  }
}

// The refusal a fail-closed handler's failure turns into, for gating events.
template <EventWithResult E>
  requires(is_gating(E::reduction))
result_t<E> failure_refusal(std::string reason) {
  result_t<E> refusal;
  if constexpr (detail::Decisive<result_t<E>>) refusal.decision = Decision::deny;
  else if constexpr (requires { refusal.allow; }) refusal.allow = false;
  else if constexpr (requires { refusal.cancel; }) refusal.cancel = true;
  else refusal.action = decltype(refusal.action)::reject;
  refusal.reason = std::move(reason);
  return refusal;
}

}  // namespace hookbus
