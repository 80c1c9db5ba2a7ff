#pragma once
// Internal: compile-time checks that the catalogue's descriptions are whole.
// A struct lists its members twice, as members and in BOOST_DESCRIBE_STRUCT;
// an enum lists its enumerators twice, in the enum and in BOOST_DESCRIBE_ENUM.
// Whatever a description leaves out silently drops out of JSON, format_line,
// hookctl and the external-hook payload, so each check fails to compile with
// a message and an instantiation naming the type (T or E):
//   - a struct's description names each member once, and as many members as
//     Boost.PFR counts in the aggregate;
//   - an enum's description names each value once, and every value near them
//     that the compiler knows an enumerator for.
// catalogue_is_fully_described<Events>() checks every struct and enum an
// event of Events or its result holds, however deeply nested (the walk of
// events.hpp); the library asserts it for HookEvent (instantiations.hpp).

#include <hookbus/events.hpp>

#include <boost/describe/enumerators.hpp>
#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/pfr/core.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

namespace hookbus::detail {

// ------------------------------------------------------------------ structs

// How many descriptors of All have the name of D.
template <class D, class... All>
constexpr std::size_t times_named(boost::mp11::mp_list<All...>) noexcept {
  return (std::size_t{0} + ... + std::size_t{std::string_view(D::name) == std::string_view(All::name)});
}
template <class... Ds>
constexpr bool each_named_once(boost::mp11::mp_list<Ds...> all) noexcept {
  return ((times_named<Ds>(all) == 1) && ...);
}

template <class T>
using member_descriptors =
    boost::mp11::mp_rename<boost::describe::describe_members<T, boost::describe::mod_any_access>, boost::mp11::mp_list>;

template <class T>
constexpr bool describes_every_member() {
  static_assert(each_named_once(member_descriptors<T>{}),
                "BOOST_DESCRIBE_STRUCT of this struct lists a member twice (see the instantiation for T)");
  static_assert(boost::pfr::tuple_size_v<T> == boost::mp11::mp_size<member_descriptors<T>>::value,
                "BOOST_DESCRIBE_STRUCT of this struct does not list every member (see the instantiation for T)");
  return true;
}

// -------------------------------------------------------------------- enums

// Whether an enumerator has the value V. The compiler's name of this function
// spells V as the enumerator (`hookbus::Role::tool`) when one has its value,
// else as a cast (`(hookbus::Role)7`); g++ and clang agree on both.
template <auto V>
constexpr bool names_an_enumerator() noexcept {
  constexpr std::string_view signature = __PRETTY_FUNCTION__;
  constexpr std::size_t value_at = signature.find("V = ");
  static_assert(value_at != std::string_view::npos, "this compiler does not spell V in __PRETTY_FUNCTION__ (g++ and clang do)");
  return signature[value_at + 4] != '(';
}

// How many of the values First, First + 1, ... have an enumerator.
template <class E, long long First, std::size_t... Offset>
constexpr std::size_t named_values(std::index_sequence<Offset...>) noexcept {
  return (std::size_t{0} + ... +
          std::size_t{names_an_enumerator<static_cast<E>(First + static_cast<long long>(Offset))>()});
}

template <class... Ds>
constexpr auto described_values(boost::mp11::mp_list<Ds...>) noexcept {
  return std::array<long long, sizeof...(Ds)>{static_cast<long long>(Ds::value)...};
}

// How far below and above the described values the compiler is asked for
// enumerators: an enumerator left out further away than this is not found
// (the catalogue's enums count up from 0).
inline constexpr long long enumerator_search_margin = 16;

template <class E>
constexpr bool describes_every_enumerator() {
  using Underlying = std::underlying_type_t<E>;
  // Any value of the underlying type is a valid value of a scoped enum, so
  // the search may cast any of them.
  static_assert(!std::is_convertible_v<E, Underlying>, "a catalogue enum is scoped (enum class) (see the instantiation for E)");
  constexpr auto values = described_values(boost::mp11::mp_rename<boost::describe::describe_enumerators<E>, boost::mp11::mp_list>{});
  static_assert(!values.empty(), "BOOST_DESCRIBE_ENUM of this enum lists no enumerator (see the instantiation for E)");
  constexpr bool each_value_once = [&] {
    auto sorted = values;
    std::sort(sorted.begin(), sorted.end());
    return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  }();
  static_assert(each_value_once, "BOOST_DESCRIBE_ENUM of this enum lists an enumerator twice (see the instantiation for E)");
  if constexpr (each_value_once) {
    constexpr long long first = std::max(*std::min_element(values.begin(), values.end()) - enumerator_search_margin,
                                         static_cast<long long>(std::numeric_limits<Underlying>::min()));
    constexpr long long last = std::min(*std::max_element(values.begin(), values.end()) + enumerator_search_margin,
                                        static_cast<long long>(std::numeric_limits<Underlying>::max()));
    constexpr std::size_t enumerators = named_values<E, first>(std::make_index_sequence<static_cast<std::size_t>(last - first + 1)>{});
    static_assert(enumerators == values.size(),
                  "BOOST_DESCRIBE_ENUM of this enum does not list every enumerator (see the instantiation for E)");
  }
  return true;
}

// ------------------------------------------------------------ the catalogue

template <class T>
using is_described_struct = boost::mp11::mp_bool<boost::describe::has_describe_members<T>::value>;
template <class T>
using is_described_enum = boost::mp11::mp_bool<boost::describe::has_describe_enumerators<T>::value>;

template <class... Structs, class... Enums>
constexpr bool each_fully_described(boost::mp11::mp_list<Structs...>, boost::mp11::mp_list<Enums...>) {
  return (describes_every_member<Structs>() && ... && true) && (describes_every_enumerator<Enums>() && ... && true);
}

// Every described struct and enum that an event of Events (a variant) or its
// result holds, however deeply nested, describes all its members.
template <class Events>
constexpr bool catalogue_is_fully_described() {
  using Reachable = reachable_from<Events>;
  return each_fully_described(boost::mp11::mp_filter<is_described_struct, Reachable>{},
                              boost::mp11::mp_filter<is_described_enum, Reachable>{});
}

}  // namespace hookbus::detail
