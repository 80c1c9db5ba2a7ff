#pragma once
// Internal: every catalogue struct lists its members twice, as members and in
// BOOST_DESCRIBE_STRUCT, and a member missing from the description silently
// drops out of JSON, format_line, hookctl and the external-hook payload.
// Boost.PFR counts an aggregate's members without the description; the check
// below makes the two counts agree, at compile time, naming the struct.

#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/pfr/core.hpp>

#include <cstddef>
#include <tuple>

namespace hookbus::detail {

template <class T>
constexpr std::size_t described_member_count =
    boost::mp11::mp_size<boost::describe::describe_members<T, boost::describe::mod_any_access>>::value;

// Instantiated for one struct; the compiler's message names T.
template <class T>
constexpr bool describes_every_member() {
  static_assert(boost::pfr::tuple_size_v<T> == described_member_count<T>,
                "BOOST_DESCRIBE_STRUCT of this struct does not list every member (see the instantiation for T)");
  return true;
}

template <class... Ts>
constexpr bool each_describes_every_member(std::tuple<Ts...>*) {
  return (describes_every_member<Ts>() && ...);
}

}  // namespace hookbus::detail
