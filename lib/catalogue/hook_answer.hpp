#pragma once
// Internal: what a hook answers for an event of type E, typed through from
// the bus handler it is registered as (hookbus's protocol, lib/external/;
// each hook format's, lib/formats/), and the one place a runtime event index
// becomes a type.

#include <hookbus/events.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

namespace hookbus::detail {

// What a hook answers for E, as a bus handler of E returns it (Handler<E>):
// E's result, nullopt for no change; nothing for an event without a result.
template <class E> struct hook_answer { using type = void; };
template <EventWithResult E> struct hook_answer<E> { using type = std::optional<result_t<E>>; };
template <class E> using HookAnswer = typename hook_answer<E>::type;

// `answer()` (a HookAnswer<E>) as a HookOutcome, for the by-name functions
// that visit a HookEvent once into the typed path: monostate for no change.
template <class E, class Answer>
HookOutcome outcome_of(Answer&& answer) {
  if constexpr (EventWithResult<E>) {
    if (auto result = std::forward<Answer>(answer)()) return std::move(*result);
  } else {
    std::forward<Answer>(answer)();
  }
  return std::monostate{};
}

// make(std::type_identity<E>{}) for each event E, in HookEvent's order: a
// table an installer indexes with an event's index, once at install, to
// reach the code typed for E.
template <class Make>
constexpr auto event_table(Make make) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array{make(std::type_identity<std::variant_alternative_t<I, HookEvent>>{})...};
  }(std::make_index_sequence<event_count>{});
}

}  // namespace hookbus::detail
