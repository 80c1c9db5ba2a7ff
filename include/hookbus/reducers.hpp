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
//
// A less trusted handler never weakens a more trusted one: on an event whose
// handlers can both change it and refuse it, a change by a handler of a less
// trusted layer is answered again by every more trusted handler that had
// answered before it (ChangeLog below; docs/semantics.md states the rule).

#include <hookbus/events.hpp>
#include <hookbus/layers.hpp>

#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace hookbus {

// What a slot tells the combiner after it ran.
enum class Step { proceed, stop };

namespace detail {

class EmissionCapture;  // the emit's record for emission observers (lib/trace)

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

// Whether any result member of E is mirrored by an event member.
template <class E>
constexpr bool has_mirrored_member() {
  bool found = false;
  boost::mp11::mp_for_each<members_of<result_t<E>>>([&](auto rd) {
    using Member = std::remove_cvref_t<decltype(std::declval<result_t<E>&>().*decltype(rd)::pointer)>;
    if constexpr (is_optional_v<Member>) {
      if constexpr (!std::is_void_v<typename mirror_of<E, decltype(rd)>::type>) found = true;
    }
  });
  return found;
}

}  // namespace detail

// ---- a less trusted handler never weakens a more trusted one ----

// How far a handler is trusted (HandlerOptions::layer): 0 for the engine's own
// handlers, the most trusted, then the layers from managed (1) to local (4).
constexpr int trust_rank(std::optional<Layer> layer) noexcept { return layer ? 1 + static_cast<int>(*layer) : 0; }

// Events whose handlers can both change what later handlers see (a mirrored
// field) and refuse: tool_call, permission_request (their `input`), input
// (`text`, `images`) and message:receive (`parts`). A handler's verdict on
// them holds only for the event it saw, so their changes are logged and
// more trusted handlers answer again (ChangeLog).
template <class E>
inline constexpr bool rechecks_changes = [] {
  if constexpr (EventWithResult<E>) return is_gating(E::reduction) && detail::has_mirrored_member<E>();
  else return false;
}();

namespace detail {

// The changes handlers made to one emit's event, for the rule that a less
// trusted handler never weakens a more trusted one: after a pass over the
// handlers in which a handler changed the event, every handler that answered
// before a change by a less trusted handler (a higher trust_rank) answers
// again, on the event as it is then, in another pass; its refusal or ask then
// counts, and a change it makes is logged in turn. Each pass is answered only
// by handlers more trusted than the least trusted one that changed the event
// in the pass before, so there are at most as many passes as trust ranks.
//
// Handlers are opaque here: the bus names each by a pointer it keeps alive
// (a `Handler`) and orders them with `RunsBefore`, the order they run in.
class ChangeLog {
 public:
  using Handler = std::shared_ptr<const void>;
  using RunsBefore = bool (*)(const void* first, const void* second) noexcept;

  void changed(int rank, const Handler& by) { changes_.push_back({rank, by}); }

  // At the end of a pass: true when the pass had a change that a more
  // trusted handler may not have seen, so another pass is due.
  bool next_pass() {
    if (!rechecking_) first_pass_changes_ = changes_.size();
    rechecking_ = std::any_of(changes_.begin() + static_cast<std::ptrdiff_t>(pass_start_), changes_.end(),
                              [](const Change& change) { return change.rank > 0; });
    pass_start_ = changes_.size();
    return rechecking_;
  }
  [[nodiscard]] bool rechecking() const noexcept { return rechecking_; }

  // In a recheck pass: whether the handler `who` of trust rank `rank` must
  // answer again, because a less trusted handler changed the event after it
  // last answered. When it must, it is noted as having seen every change so far.
  bool must_answer_again(int rank, const Handler& who, RunsBefore runs_before) {
    const auto view = std::find_if(views_.begin(), views_.end(), [&](const View& v) { return v.who == who; });
    // Never answered again: it saw the first pass's changes made before it ran.
    const std::size_t seen =
        view != views_.end() ? view->seen
                             : static_cast<std::size_t>(std::count_if(
                                   changes_.begin(), changes_.begin() + static_cast<std::ptrdiff_t>(first_pass_changes_),
                                   [&](const Change& change) { return runs_before(change.by.get(), who.get()); }));
    const bool again = std::any_of(changes_.begin() + static_cast<std::ptrdiff_t>(seen), changes_.end(),
                                   [&](const Change& change) { return change.rank > rank; });
    if (!again) return false;
    if (view != views_.end()) view->seen = changes_.size();
    else views_.push_back({who, changes_.size()});
    return true;
  }

 private:
  struct Change {
    int rank;
    Handler by;
  };
  struct View {
    Handler who;
    std::size_t seen;  // how many changes it had seen when it last answered
  };
  std::vector<Change> changes_;  // in the order made
  std::vector<View> views_;      // the handlers that answered again
  std::size_t first_pass_changes_ = 0;
  std::size_t pass_start_ = 0;  // the first change of the current pass
  bool rechecking_ = false;
};

}  // namespace detail

// Per-emit state of an observe-only event: the event itself, and the record
// being made of the emit when emission observers are registered.
template <Event E>
class Emission {
 public:
  explicit Emission(const E& event) noexcept : event_(&event) {}
  const E& event() const noexcept { return *event_; }
  detail::EmissionCapture* capture() const noexcept { return capture_; }
  void record_into(detail::EmissionCapture* capture) noexcept { capture_ = capture; }

 private:
  const E* event_;
  detail::EmissionCapture* capture_ = nullptr;
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
  detail::EmissionCapture* capture() const noexcept { return capture_; }
  void record_into(detail::EmissionCapture* capture) noexcept { capture_ = capture; }

  // The event handlers see from now on, writable.
  E& working_event() {
    if (working_ == nullptr) {
      copy_.emplace(*event_);
      working_ = &*copy_;
      event_ = working_;
    }
    return *working_;
  }

  // ---- changes and who answers again (rechecks_changes<E> only) ----

  // Before a handler's result is folded: who it is, so a change it makes is logged as its.
  void answering(int rank, const detail::ChangeLog::Handler* who) noexcept {
    answering_rank_ = rank;
    answering_ = who;
  }
  // A mirrored field got a different value from the answering handler.
  void changed() {
    if (!changes_) changes_ = std::make_unique<detail::ChangeLog>();
    changes_->changed(answering_rank_, answering_ ? *answering_ : detail::ChangeLog::Handler());
  }
  // At the end of a pass over the handlers: whether another is due (see recheck_due).
  bool next_pass() { return changes_ && changes_->next_pass(); }
  [[nodiscard]] bool rechecking() const noexcept { return changes_ && changes_->rechecking(); }
  bool must_answer_again(int rank, const detail::ChangeLog::Handler& who, detail::ChangeLog::RunsBefore runs_before) {
    return changes_->must_answer_again(rank, who, runs_before);
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
  int answering_rank_ = 0;
  const detail::ChangeLog::Handler* answering_ = nullptr;
  std::unique_ptr<detail::ChangeLog> changes_;  // made by the first change
  detail::EmissionCapture* capture_ = nullptr;
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
        if constexpr (rechecks_changes<E>) {
          if (!(emission.event().*Mirror::pointer == *field)) emission.changed();
        }
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

// At the end of a pass over E's handlers: whether a change by a less trusted
// handler must be answered again by more trusted ones in another pass
// (ChangeLog). Never after a refusal, which ends the emit.
template <EventWithResult E>
  requires(rechecks_changes<E>)
bool recheck_due(Emission<E>& emission) {
  return !detail::refuses(emission.result()) && emission.next_pass();
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
