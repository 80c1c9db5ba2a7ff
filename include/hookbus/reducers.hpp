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

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace hookbus {

// What a slot tells the combiner after it ran.
enum class Step { proceed, stop };

// Per-emit state of an observe-only event: the event itself.
template <Event E>
class Emission {
 public:
  explicit Emission(const E& event) noexcept : event_(&event) {}
  const E& event() const noexcept { return *event_; }

 private:
  const E* event_;
};

// Per-emit state of an event with a result: the working event and the reduced result.
template <EventWithResult E>
class Emission<E> {
 public:
  using Result = result_t<E>;

  // Handlers' changes go to a private copy made on the first change.
  explicit Emission(const E& event) noexcept : event_(&event) {}
  // The caller gave the event up (it must outlive the emission): handlers'
  // changes are made in place.
  explicit Emission(E&& owned_event) noexcept : event_(&owned_event), working_(&owned_event) {}
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
  Result finish() &&;

 private:
  const E* event_;
  E* working_ = nullptr;
  std::optional<E> copy_;
  Result result_;
};

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

template <class T>
bool is_empty_value(const T& value) {
  if constexpr (requires { value.empty(); }) return value.empty();
  else return false;
}

// Takes every engaged optional of `incoming`: a mirrored one is written into the
// working event (the result keeps an engaged marker), any other overwrites the
// result's. With `skip_empty`, engaged-but-empty values count as "no change".
template <class E>
void absorb(Emission<E>& emission, result_t<E>& incoming, bool skip_empty) {
  using R = result_t<E>;
  boost::mp11::mp_for_each<members_of<R>>([&](auto rd) {
    auto& field = incoming.*rd.pointer;
    if constexpr (is_optional_v<std::remove_cvref_t<decltype(field)>>) {
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

// Appends every vector member of `incoming` to the result's.
template <class R>
void append_all(R& reduced, R& incoming) {
  boost::mp11::mp_for_each<members_of<R>>([&](auto rd) {
    auto& from = incoming.*rd.pointer;
    if constexpr (is_vector_v<std::remove_cvref_t<decltype(from)>>) {
      auto& to = reduced.*rd.pointer;
      to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    }
  });
}

// ---- refusals: does a result stop a gating chain, and how to make one ----

inline bool refuses(const ToolCallResult& r) noexcept { return r.block; }
inline bool refuses(const ChannelConnectResult& r) noexcept { return !r.allow; }
template <class R>
  requires requires(R r) { r.cancel; }
bool refuses(const R& r) noexcept { return r.cancel; }
inline bool refuses(const InputResult& r) noexcept {
  return r.action == InputAction::handled || r.action == InputAction::reject;
}
inline bool refuses(const MessageReceiveResult& r) noexcept { return r.action == ReceiveAction::reject; }
inline bool refuses(const UserBashResult& r) noexcept { return r.handled; }

// Assigns in place (no temporary string): a refusal is on the hot path of a
// short-circuiting emit.
inline void set_reason(std::string& target, std::string&& reason, std::string_view fallback) {
  if (reason.empty()) target.assign(fallback);
  else target = std::move(reason);
}

inline void take_refusal(ToolCallResult& reduced, ToolCallResult&& r) {
  reduced.block = true;
  set_reason(reduced.reason, std::move(r.reason), "Tool call blocked by hook");
}
inline void take_refusal(ChannelConnectResult& reduced, ChannelConnectResult&& r) {
  reduced.allow = false;
  set_reason(reduced.reason, std::move(r.reason), "Channel connection denied by hook");
}
template <class R>
  requires requires(R r) { r.cancel; }
void take_refusal(R& reduced, R&& r) {
  reduced.cancel = true;
  set_reason(reduced.reason, std::move(r.reason), "Cancelled by hook");
}
inline void take_refusal(InputResult& reduced, InputResult&& r) {
  reduced.action = r.action;
  if (r.action == InputAction::reject) set_reason(reduced.reason, std::move(r.reason), "Input rejected by hook");
  else reduced.reason = std::move(r.reason);
}
inline void take_refusal(MessageReceiveResult& reduced, MessageReceiveResult&& r) {
  reduced.action = ReceiveAction::reject;
  set_reason(reduced.reason, std::move(r.reason), "Message rejected by hook");
}

inline bool transforms(const InputResult& r) noexcept { return r.action == InputAction::transform; }
inline bool transforms(const MessageReceiveResult& r) noexcept { return r.action == ReceiveAction::transform; }

}  // namespace detail

// Folds one handler's result into the emission. Returns Step::stop when the
// chain must end here (a block, deny, cancel, reject, handled).
template <EventWithResult E>
Step fold(Emission<E>& emission, result_t<E>&& result) {
  constexpr Reduction kind = E::reduction;
  auto& reduced = emission.result();
  if constexpr (kind == Reduction::collect) {
    detail::append_all(reduced, result);
    return Step::proceed;
  } else if constexpr (kind == Reduction::first_wins) {
    if (!detail::refuses(result)) return Step::proceed;
    reduced = std::move(result);
    return Step::stop;
  } else if constexpr (kind == Reduction::transform) {
    if (detail::refuses(result)) {
      detail::take_refusal(reduced, std::move(result));
      return Step::stop;
    }
    if (!detail::transforms(result)) return Step::proceed;  // "continue": its fields are ignored
    detail::absorb(emission, result, false);
    reduced.action = result.action;
    return Step::proceed;
  } else if constexpr (kind == Reduction::block || kind == Reduction::cancel) {
    // A replacement that comes with a block still applies: the outcome reports
    // the input the blocking handler saw fixed, for the engine's error message.
    const bool stop = detail::refuses(result);
    detail::absorb(emission, result, false);
    if (!stop) return Step::proceed;
    detail::take_refusal(reduced, std::move(result));
    return Step::stop;
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
  if constexpr (requires { refusal.block; }) refusal.block = true;
  else if constexpr (requires { refusal.allow; }) refusal.allow = false;
  else if constexpr (requires { refusal.cancel; }) refusal.cancel = true;
  else refusal.action = decltype(refusal.action)::reject;
  refusal.reason = std::move(reason);
  return refusal;
}

template <EventWithResult E>
auto Emission<E>::finish() && -> Result {
  boost::mp11::mp_for_each<detail::members_of<Result>>([&](auto rd) {
    auto& field = result_.*rd.pointer;
    if constexpr (detail::is_optional_v<std::remove_cvref_t<decltype(field)>>) {
      using Mirror = typename detail::mirror_of<E, decltype(rd)>::type;
      if constexpr (!std::is_void_v<Mirror>) {
        if (field) *field = std::move(working_->*Mirror::pointer);
      }
    }
  });
  return std::move(result_);
}

}  // namespace hookbus
