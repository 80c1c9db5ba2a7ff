#pragma once
// Reflection over the catalogue, for tools that walk it (hookctl's `events`
// and `schema`, random-value generators in tests) and for the library's own
// JSON reader/writer and one-line formatter: what kind of member a type is,
// enum wire names (enum_names.hpp), readable type names, and the list of every
// catalogue type.
// Not part of the umbrella header (Boost.Describe's member lists and
// boost::core::type_name are more than an engine needs); include it on its own.

#include <hookbus/enum_names.hpp>
#include <hookbus/events.hpp>

#include <boost/core/type_name.hpp>
#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>

#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace hookbus::reflect {

template <class T> inline constexpr bool is_optional_v = false;
template <class T> inline constexpr bool is_optional_v<std::optional<T>> = true;
template <class T> inline constexpr bool is_vector_v = false;
template <class T> inline constexpr bool is_vector_v<std::vector<T>> = true;

// The public members of a described struct, in declaration order (Boost.Describe descriptors).
template <class D>
using members_of = boost::describe::describe_members<D, boost::describe::mod_public>;

template <class T>
concept DescribedStruct = boost::describe::has_describe_members<T>::value;

template <class T>
concept Integer = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T>
concept JsonValue = std::is_same_v<T, boost::json::object> || std::is_same_v<T, boost::json::value>;

// Structs tagged on the wire by their static `type` name: events and content parts.
template <class T>
concept Tagged = DescribedStruct<T> && requires {
  { T::type } -> std::convertible_to<std::string_view>;
};

template <class T>
inline constexpr bool always_false = false;

// Calls f(std::type_identity<T>{}) for each T of a type list (a tuple or a variant).
template <class List, class F>
void for_each_type(F&& f) {
  boost::mp11::mp_for_each<boost::mp11::mp_transform<std::type_identity, List>>(f);
}

// --------------------------------------------------------------- type names

// A readable C++ name: the catalogue's aliases by their alias (ContentPart,
// Timestamp, Duration, std::uint64_t) rather than what they expand to, and
// without "hookbus::".
template <class T>
std::string type_display_name() {
  if constexpr (std::is_same_v<T, ContentPart>) return "ContentPart";
  else if constexpr (std::is_same_v<T, Timestamp>) return "Timestamp";
  else if constexpr (std::is_same_v<T, Duration>) return "Duration";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "std::uint64_t";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "std::uint32_t";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "std::int64_t";
  else if constexpr (is_optional_v<T>) return "std::optional<" + type_display_name<typename T::value_type>() + ">";
  else if constexpr (is_vector_v<T>) return "std::vector<" + type_display_name<typename T::value_type>() + ">";
  else {
    std::string name = boost::core::type_name<T>();
    constexpr std::string_view ours = "hookbus::";
    return name.starts_with(ours) ? name.substr(ours.size()) : name;
  }
}

// ----------------------------------------------------------- the catalogue

// The shared value types of the events of Events: every described struct an
// event or its result holds, however deeply nested, and the variants of them
// (ContentPart). Derived, so a new nested struct needs no edit; a template so
// that only what names it pays for the walk.
template <class Events = HookEvent>
using ValueTypes = boost::mp11::mp_rename<detail::value_types_of<Events>, std::tuple>;

// Every event, every result and every value type: the types the library
// instantiates its JSON and format templates for (CatalogueTypes<>).
template <class Events = HookEvent>
using CatalogueTypes =
    boost::mp11::mp_rename<boost::mp11::mp_append<detail::catalogue_roots<Events>, detail::value_types_of<Events>>,
                           std::tuple>;

}  // namespace hookbus::reflect
