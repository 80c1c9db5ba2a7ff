#pragma once
// Reducers: how the results of several handlers for one emit combine into the
// one outcome the engine acts on. docs/semantics.md states these rules as the
// contract; this file is their single implementation.
//
// Per-emit state lives in an Emission, created by each emit and passed to every
// slot it calls (bus/hooks.cpp); nothing of an emit is kept in the channel the
// slots come from, so concurrent emits of the same event never see each
// other's state.
//
// What each result type refuses with and which of its event's fields it
// patches is stated next to it (result_rules, results.hpp). A patch is
// written into the working event, so the next handler sees it, and is moved
// back into the outcome when the emit finishes. The working event is copied
// only when a handler changes something (never, for an rvalue emit).
//
// A less trusted handler never weakens a more trusted one: on an event whose
// handlers can both change it and refuse it, a change by a handler of a less
// trusted layer is answered again by every more trusted handler that had
// answered before it (ChangeLog below; docs/semantics.md states the rule).

#include <hookbus/event_ref.hpp>
#include <hookbus/events.hpp>
#include <hookbus/layer.hpp>
#include <hookbus/reflect.hpp>

#include "support/logging.hpp"

#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace hookbus {

// What a slot tells the emit after it ran: go on to the next slot, or stop
// (Channel::Reading::each, bus/channel.hpp).
enum class Step { proceed, stop };

namespace detail {

class EmissionCapture;  // the emit's record for emission observers (bus/recording/emission_capture.hpp)
template <Event E>
class EmitRunsAhead;  // the runs an emit started ahead of their turn (bus/hooks.cpp, bus/run_ahead.hpp)

using reflect::is_optional_v;
using reflect::is_vector_v;
using reflect::members_of;

// The rules of E's result: how it refuses, what it patches (results.hpp).
template <class E>
using rules_of = result_rules<result_t<E>>;

// The pairs of result field and event field of E's result (Patch, results.hpp).
template <class E>
inline constexpr const auto& patches_of = rules_of<E>::template patches<E>;

template <class A, class B>
constexpr bool same_field(A a, B b) noexcept {
  if constexpr (std::is_same_v<A, B>) return a == b;
  else return false;
}

template <class E>
inline constexpr bool patches_any_field = std::tuple_size_v<std::remove_cvref_t<decltype(patches_of<E>)>> > 0;

// Whether the result field `field` of E's result patches the event.
template <class E, class Field>
constexpr bool patches_event(Field field) noexcept {
  return std::apply([&](const auto&... patch) { return (same_field(patch.result_field, field) || ...); },
                    patches_of<E>);
}

}  // namespace detail

// ---- a less trusted handler never weakens a more trusted one ----

// How far a handler is trusted (HandlerOptions::layer): 0 for the engine's own
// handlers, the most trusted, then the layers from managed (1) to local (4).
constexpr int trust_rank(std::optional<Layer> layer) noexcept { return layer ? 1 + static_cast<int>(*layer) : 0; }

// Events whose handlers can both change what later handlers see (a patched
// field) and refuse: tool_call, permission_request (their `input`), input
// (`text`, `images`) and message:receive (`parts`). A handler's verdict on
// them holds only for the event it saw, so their changes are logged and
// more trusted handlers answer again (ChangeLog).
template <class E>
inline constexpr bool rechecks_changes = [] {
  if constexpr (EventWithResult<E>) return is_gating(E::reduction) && detail::patches_any_field<E>;
  else return false;
}();

// Events whose answer (a `handled` refusal, before_model_call's response) by
// a handler with a layer ends the chain only for handlers as trusted or less:
// a more trusted handler still runs, so a project hook's answer never skips
// a user's guard (result_rules<R>::more_trusted_overrule_an_answer).
template <class E>
inline constexpr bool answer_yields = [] {
  if constexpr (EventWithResult<E>) {
    if constexpr (requires { result_rules<result_t<E>>::more_trusted_overrule_an_answer; })
      return result_rules<result_t<E>>::more_trusted_overrule_an_answer;
  }
  return false;
}();

// Events whose result carries variables for the engine's later tools
// (session_start's environment): which layer set each decides which value
// stays (Emission::take_environment).
template <class E>
inline constexpr bool sets_environment = [] {
  if constexpr (EventWithResult<E>) return requires(result_t<E>& r) { r.environment; };
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
// Handlers are named by their position in the emit's dispatch snapshot
// (bus/channel.hpp): every pass of an emit walks the same snapshot, so a
// position is one handler for the whole emit, and positions are call order.
class ChangeLog {
 public:
  using Handler = std::size_t;

  void changed(int rank, Handler by) { changes_.push_back({rank, by}); }

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
  bool must_answer_again(int rank, Handler who) {
    const auto view = std::find_if(views_.begin(), views_.end(), [&](const View& v) { return v.who == who; });
    // Never answered again: it saw the first pass's changes made before it ran.
    const std::size_t seen =
        view != views_.end() ? view->seen
                             : static_cast<std::size_t>(std::count_if(
                                   changes_.begin(), changes_.begin() + static_cast<std::ptrdiff_t>(first_pass_changes_),
                                   [&](const Change& change) { return change.by < who; }));
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
  // `origin`: the HookEvent the emit was given (null if none), which by-name
  // handlers and catch-all subscribers then see without a copy.
  Emission(const E& event, const HookEvent* origin) noexcept : event_(&event), view_(event) { view_.share(origin); }
  Emission(const Emission&) = delete;
  Emission& operator=(const Emission&) = delete;

  const E& event() const noexcept { return *event_; }
  // The event as by-name handlers and catch-all subscribers see it.
  const EventRef& view() const noexcept { return view_; }
  detail::EmissionCapture* capture() const noexcept { return capture_; }
  void record_into(detail::EmissionCapture* capture) noexcept { capture_ = capture; }
  // Nothing changes an observed event: every run started ahead is taken.
  static constexpr std::uint64_t revision() noexcept { return 0; }
  detail::EmitRunsAhead<E>* runs_ahead() const noexcept { return runs_ahead_; }
  void run_ahead_with(detail::EmitRunsAhead<E>* runs) noexcept { runs_ahead_ = runs; }

 private:
  const E* event_;
  EventRef view_;
  detail::EmissionCapture* capture_ = nullptr;
  detail::EmitRunsAhead<E>* runs_ahead_ = nullptr;  // set while the handlers run, when some can run ahead
};

// Per-emit state of an event with a result: the working event, and the
// reduced result, which the emit owns (so it is returned without a move).
template <EventWithResult E>
class Emission<E> {
 public:
  using Result = result_t<E>;

  // Handlers' changes go to a private copy made on the first change.
  // `origin`: the HookEvent the emit was given (null if none), which by-name
  // handlers and catch-all subscribers see without a copy until a handler
  // changes the event.
  Emission(const E& event, const HookEvent* origin, Result& result) noexcept
      : event_(&event), view_(event), result_(result) {
    view_.share(origin);
  }
  // The caller gave the event up (it must outlive the emission): handlers'
  // changes are made in place.
  Emission(E&& owned_event, Result& result) noexcept
      : event_(&owned_event), working_(&owned_event), view_(owned_event), result_(result) {}
  Emission(const Emission&) = delete;
  Emission& operator=(const Emission&) = delete;

  const E& event() const noexcept { return *event_; }
  // The event as by-name handlers and catch-all subscribers see it: the
  // working event, made a HookEvent at most once between two changes.
  const EventRef& view() const noexcept { return view_; }
  Result& result() noexcept { return result_; }
  detail::EmissionCapture* capture() const noexcept { return capture_; }
  void record_into(detail::EmissionCapture* capture) noexcept { capture_ = capture; }
  // How many times the event was taken to be changed (working_event): a run
  // started ahead at another revision saw another event (bus/run_ahead.hpp).
  std::uint64_t revision() const noexcept { return revision_; }
  detail::EmitRunsAhead<E>* runs_ahead() const noexcept { return runs_ahead_; }
  void run_ahead_with(detail::EmitRunsAhead<E>* runs) noexcept { runs_ahead_ = runs; }

  // The event handlers see from now on, writable: whatever the caller does
  // with it counts as a change.
  E& working_event() {
    ++revision_;
    if (working_ == nullptr) {
      copy_.emplace(*event_);
      working_ = &*copy_;
      event_ = working_;
    }
    view_.rebind(*working_);
    return *working_;
  }

  // ---- changes and who answers again (rechecks_changes<E> only) ----

  // Before a handler's result is folded: who it is, so a change it makes is
  // logged as its (and a variable it sets is kept as its layer's).
  void answering(int rank, detail::ChangeLog::Handler who) noexcept {
    answering_rank_ = rank;
    answering_ = who;
  }

  // The answering handler's variables (sets_environment<E> only): one per
  // name, a more trusted handler's value kept, at equal trust the later
  // one's; a loader's or a shell's start-up variable from a handler with a
  // layer is dropped with a warning (environment_refusal, results.hpp).
  template <class Name>
  void take_environment(std::vector<EnvironmentVariable>&& incoming, const Name& name) {
    auto& kept = result_.environment;
    for (auto& variable : incoming) {
      if (const auto why = answering_rank_ > 0 ? environment_refusal(variable.name) : std::nullopt) {
        Decider handler;
        name(handler);
        detail::log(spdlog::level::warn, "handler {}{}: the variable {} is not passed on: {}", handler.handler,
                    handler.source.empty() ? "" : " (" + handler.source + ")", variable.name, *why);
        continue;
      }
      const auto found = std::find_if(kept.begin(), kept.end(),
                                      [&](const EnvironmentVariable& k) { return k.name == variable.name; });
      const auto at = static_cast<std::size_t>(found - kept.begin());
      if (found == kept.end()) {
        kept.push_back(std::move(variable));
        environment_ranks_.push_back(answering_rank_);
      } else if (answering_rank_ <= environment_ranks_[at]) {
        found->value = std::move(variable.value);
        environment_ranks_[at] = answering_rank_;
      }
    }
  }
  // A patched field got a different value from the answering handler.
  void changed() {
    if (!changes_) changes_ = std::make_unique<detail::ChangeLog>();
    changes_->changed(answering_rank_, answering_);
  }
  // At the end of a pass over the handlers: whether another is due (see recheck_due).
  bool next_pass() { return changes_ && changes_->next_pass(); }
  [[nodiscard]] bool rechecking() const noexcept { return changes_ && changes_->rechecking(); }
  bool must_answer_again(int rank, detail::ChangeLog::Handler who) { return changes_->must_answer_again(rank, who); }

  // ---- an answer that more trusted handlers may overrule (answer_yields<E>) ----

  // The answering handler's answer ended the chain for handlers as trusted as
  // it or less; those more trusted still run.
  void answered() noexcept { answered_rank_ = answering_rank_; }
  [[nodiscard]] bool answered_for(int rank) const noexcept { return answered_rank_ > 0 && rank >= answered_rank_; }
  [[nodiscard]] int answering_rank() const noexcept { return answering_rank_; }

  // An optional event field moves into the result whole (it is engaged: a patch set it).
  template <class T, class Field>
  static void assign_patched(std::optional<T>& target, Field& source) {
    if constexpr (std::is_same_v<Field, std::optional<T>>) target = std::move(source);
    else *target = std::move(source);
  }

  // Ends the emit: patched fields move from the working event into the result.
  void finish() && {
    std::apply(
        [&](const auto&... patch) {
          ((result_.*patch.result_field ? void(assign_patched(result_.*patch.result_field, working_->*patch.event_field))
                                        : void()),
           ...);
        },
        detail::patches_of<E>);
  }

 private:
  const E* event_;
  E* working_ = nullptr;
  std::optional<E> copy_;
  EventRef view_;
  Result& result_;
  int answering_rank_ = 0;
  int answered_rank_ = 0;  // the rank of an answer more trusted handlers may overrule; 0: none
  detail::ChangeLog::Handler answering_ = 0;
  std::vector<int> environment_ranks_;  // the trust rank of each of result_.environment's setters
  std::unique_ptr<detail::ChangeLog> changes_;  // made by the first change
  detail::EmissionCapture* capture_ = nullptr;
  std::uint64_t revision_ = 0;
  detail::EmitRunsAhead<E>* runs_ahead_ = nullptr;  // set while the handlers run, when some can run ahead
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
template <class T> inline constexpr bool is_environment_v = std::is_same_v<T, std::vector<EnvironmentVariable>>;

// The rules every kind of result shares: vector members accumulate in handler
// order, and the first stop wins, named after its handler. `name(decider)`
// writes the Decider of the handler that returned `incoming`; it is called
// only when one is needed.
template <class R, class Name>
void absorb_shared(R& reduced, R& incoming, const Name& name) {
  boost::mp11::mp_for_each<members_of<R>>([&](auto rd) {
    auto& from = incoming.*rd.pointer;
    using Member = std::remove_cvref_t<decltype(from)>;
    if constexpr (is_environment_v<Member>) {
      return;  // by layer, not in handler order (Emission::take_environment)
    } else if constexpr (is_vector_v<Member>) {
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

// Takes every other engaged optional of `incoming`: a patch is written into
// the working event (the result keeps an engaged marker), any other
// overwrites the result's. With `skip_empty`, engaged-but-empty values count
// as "no change". Stops and deciders follow their own rules.
template <class E>
void absorb(Emission<E>& emission, result_t<E>& incoming, bool skip_empty) {
  using R = result_t<E>;
  std::apply(
      [&](const auto&... patch) {
        (
            [&] {
              auto& field = incoming.*patch.result_field;
              if (!field || (skip_empty && is_empty_value(*field))) return;
              if constexpr (rechecks_changes<E>) {
                if (!(emission.event().*patch.event_field == *field)) emission.changed();
              }
              emission.working_event().*patch.event_field = std::move(*field);
              (emission.result().*patch.result_field).emplace();
            }(),
            ...);
      },
      patches_of<E>);
  boost::mp11::mp_for_each<members_of<R>>([&](auto rd) {
    auto& field = incoming.*rd.pointer;
    using Member = std::remove_cvref_t<decltype(field)>;
    if constexpr (is_optional_v<Member> && !is_stop_v<Member> && !is_decider_v<Member> &&
                  !patches_event<E>(decltype(rd)::pointer)) {
      if (!field || (skip_empty && is_empty_value(*field))) return;
      emission.result().*rd.pointer = std::move(field);
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

// ---- decisions: deny > defer > ask > allow > none ----

template <class R>
concept Decisive = requires(R& r) {
  { r.decision } -> std::same_as<Decision&>;
};

// A decision stronger than the reduced one wins, with its reason and decider;
// at the same level the first one stays. Decision's enumerators are in
// precedence order.
template <Decisive R, class Name>
void take_decision(R& reduced, R&& incoming, const Name& name) {
  if (incoming.decision <= reduced.decision) return;
  reduced.decision = incoming.decision;
  const std::string_view fallback = incoming.decision == Decision::deny  ? result_rules<R>::deny_reason
                                    : incoming.decision == Decision::ask ? result_rules<R>::ask_reason
                                                                         : std::string_view();
  set_reason(reduced.reason, std::move(incoming.reason), fallback);
  set_decider(reduced.decided_by, std::move(incoming.decided_by), name);
}

// ---- refusals: a refusal ends the chain with its verdict, reason and decider ----

template <class R>
bool refuses(const R& result) noexcept {
  return result_rules<R>::refusal(result).has_value();
}

template <class R, class Name>
void take_refusal(R& reduced, R&& refusing, RefusalKind refusal, const Name& name) {
  std::apply([&](auto... field) { ((reduced.*field = std::move(refusing.*field)), ...); }, result_rules<R>::verdict);
  if constexpr (requires { reduced.reason; })
    set_reason(reduced.reason, std::move(refusing.reason), result_rules<R>::default_reason(refusal));
  set_decider(reduced.decided_by, std::move(refusing.decided_by), name);
}

}  // namespace detail

// Folds one handler's result into the emission. Returns Step::stop when the
// chain must end here (a deny, cancel, reject, handled). `name(decider)`
// writes the Decider of the handler that returned `result`; it is called only
// when a refusal, decision or stop is recorded.
template <EventWithResult E, class Name>
Step fold(Emission<E>& emission, result_t<E>&& result, const Name& name) {
  constexpr Reduction kind = E::reduction;
  auto& reduced = emission.result();
  if constexpr (sets_environment<E>) {
    if (!result.environment.empty()) emission.take_environment(std::move(result.environment), name);
  }
  detail::absorb_shared(reduced, result, name);
  if constexpr (kind == Reduction::collect) {
    return Step::proceed;
  } else if constexpr (kind == Reduction::first_wins) {
    const std::optional<RefusalKind> refusal = detail::rules_of<E>::refusal(result);
    if (!refusal) return Step::proceed;
    detail::take_refusal(reduced, std::move(result), *refusal, name);
    return Step::stop;
  } else if constexpr (kind == Reduction::transform) {
    if (const std::optional<RefusalKind> refusal = detail::rules_of<E>::refusal(result)) {
      detail::take_refusal(reduced, std::move(result), *refusal, name);
      if constexpr (answer_yields<E>) {
        if (*refusal == RefusalKind::handled && emission.answering_rank() > 0) {
          emission.answered();
          return Step::proceed;
        }
      }
      return Step::stop;
    }
    if (!detail::rules_of<E>::transforms(result)) return Step::proceed;  // "continue": its replacements are ignored
    detail::absorb(emission, result, false);
    if constexpr (requires { reduced.action; }) reduced.action = result.action;
    return Step::proceed;
  } else if constexpr (kind == Reduction::block || kind == Reduction::cancel) {
    // A replacement that comes with a refusal still applies: the outcome reports
    // the input the refusing handler saw fixed, for the engine's error message.
    const std::optional<RefusalKind> refusal = detail::rules_of<E>::refusal(result);
    detail::absorb(emission, result, false);
    if constexpr (detail::Decisive<result_t<E>>) {
      detail::take_decision(reduced, std::move(result), name);
    } else if (refusal) {
      detail::take_refusal(reduced, std::move(result), *refusal, name);
    }
    return refusal ? Step::stop : Step::proceed;
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

// The event's refusal as its result (deny, cancel, reject: result_rules), with
// `reason`: what a fail-closed handler's failure, an external hook's exit code
// 2 and a hook's legacy `"block": true` turn into, for gating events.
template <EventWithResult E>
  requires(is_gating(E::reduction))
result_t<E> refusal_result(std::string reason) {
  result_t<E> refusal;
  detail::rules_of<E>::refuse(refusal);
  refusal.reason = std::move(reason);
  return refusal;
}

}  // namespace hookbus
