// copy_over (lib/bus/recording/copy_over.hpp): the catalogue template, its
// instantiations, and JSON values.

#include "bus/recording/copy_over.hpp"

#include "catalogue/instantiations.hpp"

#include <hookbus/reflect.hpp>

#include <boost/mp11/algorithm.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <variant>

namespace hookbus::detail {

// Every member is reached: the catalogue is fully described (instantiations.hpp checks it).
template <class T>
void copy_over(T& older, const T& newer) {
  if constexpr (reflect::DescribedStruct<T>) {
    boost::mp11::mp_for_each<reflect::members_of<T>>(
        [&](auto member) { copy_over(older.*member.pointer, newer.*member.pointer); });
  } else if constexpr (reflect::is_vector_v<T>) {
    if (older.size() != newer.size()) {
      older = newer;
      return;
    }
    for (std::size_t i = 0; i < older.size(); ++i) copy_over(older[i], newer[i]);
  } else if constexpr (reflect::is_optional_v<T>) {
    if (older.has_value() && newer.has_value()) copy_over(*older, *newer);
    else if (older.has_value() != newer.has_value()) older = newer;
  } else if constexpr (is_variant_v<T>) {
    if (older.index() != newer.index()) {
      older = newer;
      return;
    }
    std::visit([&]<class Alternative>(Alternative& old) { copy_over(old, *std::get_if<Alternative>(&newer)); }, older);
  } else if constexpr (std::is_floating_point_v<T>) {
    // By its bits: == would keep 0.0 over -0.0 (as JSON numbers below).
    static_assert(sizeof(T) == sizeof(std::uint64_t), "a double: the catalogue's one floating-point type");
    if (std::bit_cast<std::uint64_t>(older) != std::bit_cast<std::uint64_t>(newer)) older = newer;
  } else {
    if (!(older == newer)) older = newer;
  }
}

[[gnu::used]] constexpr auto instantiated_for_events =
    addresses_for<HookEvent>([]<class T>(std::type_identity<T>) { return &copy_over<T>; });
[[gnu::used]] constexpr auto instantiated_for_outcomes =
    addresses_for<HookOutcome>([]<class T>(std::type_identity<T>) { return &copy_over<T>; });
[[gnu::used]] constexpr auto instantiated_for_decider = &copy_over<std::optional<Decider>>;

void copy_over(boost::json::object& older, const boost::json::object& newer) {
  // Members are stored in order, so begin() + i is the i-th.
  bool same_keys = older.size() == newer.size();
  for (std::size_t i = 0; same_keys && i < newer.size(); ++i)
    same_keys = older.begin()[i].key() == newer.begin()[i].key();
  if (!same_keys) {
    older = newer;
    return;
  }
  for (std::size_t i = 0; i < newer.size(); ++i) copy_over(older.begin()[i].value(), newer.begin()[i].value());
}

void copy_over(boost::json::array& older, const boost::json::array& newer) {
  if (older.size() != newer.size()) {
    older = newer;
    return;
  }
  for (std::size_t i = 0; i < older.size(); ++i) copy_over(older[i], newer[i]);
}

void copy_over(boost::json::value& older, const boost::json::value& newer) {
  if (older.kind() != newer.kind()) {
    older = newer;
    return;
  }
  switch (newer.kind()) {
    case boost::json::kind::object: copy_over(older.get_object(), newer.get_object()); return;
    case boost::json::kind::array: copy_over(older.get_array(), newer.get_array()); return;
    case boost::json::kind::string:
      if (older.get_string() != newer.get_string()) older.get_string() = newer.get_string();
      return;
    case boost::json::kind::double_:  // compared as bits: -0.0 == 0.0, and a NaN is not equal to itself
      if (std::bit_cast<std::uint64_t>(older.get_double()) != std::bit_cast<std::uint64_t>(newer.get_double()))
        older.get_double() = newer.get_double();
      return;
    default:  // null, bool and integers
      if (older != newer) older = newer;
      return;
  }
}

}  // namespace hookbus::detail
