#pragma once
// The wire names of hookbus's enums, from their Boost.Describe descriptions:
// one spelling for JSON, config files, traces and hookctl. The catalogue's
// enums (events.hpp, results.hpp, types.hpp) and those configuration names
// (FailurePolicy, Layer, HookProtocol, ...) are described beside their
// declarations; reflect.hpp, which walks the catalogue, includes this.

#include <boost/describe/enumerators.hpp>
#include <boost/mp11/algorithm.hpp>

#include <optional>
#include <string_view>
#include <vector>

namespace hookbus::reflect {

template <class T>
concept DescribedEnum = boost::describe::has_describe_enumerators<T>::value;

// Enumerators that would be C++ keywords end in '_'; the wire drops it.
constexpr std::string_view wire_name(std::string_view enumerator) {
  return enumerator.ends_with('_') ? enumerator.substr(0, enumerator.size() - 1) : enumerator;
}

// The wire name of `value`, or nullopt when it is not a named enumerator.
template <DescribedEnum E>
std::optional<std::string_view> enum_wire_name(E value) {
  std::optional<std::string_view> name;
  boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
    if (d.value == value) name = wire_name(d.name);
  });
  return name;
}

template <DescribedEnum E>
std::optional<E> enum_from_wire_name(std::string_view name) {
  std::optional<E> value;
  boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
    if (wire_name(d.name) == name) value = d.value;
  });
  return value;
}

// Every wire name of E, in the order of its description.
template <DescribedEnum E>
std::vector<std::string_view> enum_wire_names() {
  std::vector<std::string_view> names;
  boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) { names.push_back(wire_name(d.name)); });
  return names;
}

}  // namespace hookbus::reflect
