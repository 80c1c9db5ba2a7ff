#pragma once
// Internal: copies a catalogue value over an older one of the same type,
// writing only what differs.
//
// A reused EmissionCapture (emission_capture.hpp) holds the event and result
// of an earlier emit, which a queued observer's thread has read since: their
// cache lines are shared with that thread's core. Writing such a line makes
// the emitting core take it back from the other core; reading it does not.
// Consecutive events mostly repeat (the same context, tool names, input
// keys), so comparing before writing spares the emitting thread most of
// those transfers (docs/performance.md, "Tracing").
//
// Afterwards `older == newer` holds, and floating-point values are the same
// bits (-0.0 is not left as 0.0).

#include <hookbus/reflect.hpp>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <type_traits>
#include <variant>

namespace hookbus::detail {

// Boost.JSON 1.81's own equality copies each object member it compares; these
// compare in place, in member order: an object whose members were reordered
// counts as changed and is copied whole, which is still right.
void copy_over(boost::json::value& older, const boost::json::value& newer);
void copy_over(boost::json::object& older, const boost::json::object& newer);
void copy_over(boost::json::array& older, const boost::json::array& newer);

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
  } else {
    // == would keep 0.0 over -0.0 (JSON numbers are compared as bits in copy_over.cpp).
    static_assert(!std::is_floating_point_v<T>, "compare a floating-point member by its bits");
    if (!(older == newer)) older = newer;
  }
}

}  // namespace hookbus::detail
