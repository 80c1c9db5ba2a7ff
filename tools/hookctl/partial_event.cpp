// Partial event JSON from the command line (docs/external-hooks.md, "Debugging
// a hook"): every member the JSON leaves out, at any depth, takes the
// catalogue's default, so that the library's strict reader then gets a whole
// event. The walk follows the C++ types, not the JSON: the elements of an
// array of structs are filled as well (a tool result, a tool call), and a
// content part by the struct its "type" names. Defaults are a default-made
// value's: the event's own for its members (so `turn_end`'s message is the
// assistant's), a default-made element for an array's elements. A value of
// the wrong kind is left as it is, for the reader to report with its path.

#include "commands.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/reflect.hpp>

#include <utility>

namespace hookctl {
namespace {

namespace json = boost::json;
using namespace hookbus::reflect;

template <class T>
json::value filled(const json::value& given, const json::value* defaults);

// `defaults`: what the enclosing value's default holds for this one, if anything.
template <DescribedStruct T>
json::value filled_struct(const json::value& given, const json::value* defaults) {
  if (!given.is_object()) return given;
  const json::object& object = given.get_object();
  const json::object base =
      defaults != nullptr && defaults->is_object() ? defaults->get_object() : hookbus::to_json(T{}).get_object();
  json::object merged = base;
  for (const auto& [key, value] : object) merged[key] = value;  // keys that are no member too: the reader ignores them
  boost::mp11::mp_for_each<members_of<T>>([&](auto member) {
    using Member = std::remove_cvref_t<decltype(std::declval<T&>().*decltype(member)::pointer)>;
    if (const json::value* value = object.if_contains(member.name))
      merged[member.name] = filled<Member>(*value, base.if_contains(member.name));
  });
  return merged;
}

// A content part is the struct its "type" names; without a known "type" the reader says what is wrong.
template <class... Parts>
json::value filled_part(const json::value& given, std::variant<Parts...>*) {
  const json::value* type = given.is_object() ? given.get_object().if_contains("type") : nullptr;
  if (type == nullptr || !type->is_string()) return given;
  json::value part = given;
  ((type->get_string() == Parts::type ? void(part = filled_struct<Parts>(given, nullptr)) : void()), ...);
  return part;
}

template <class T>
json::value filled(const json::value& given, const json::value* defaults) {
  if constexpr (is_optional_v<T>) {
    return given.is_null() ? given : filled<typename T::value_type>(given, defaults);
  } else if constexpr (is_vector_v<T>) {
    if (!given.is_array()) return given;
    json::array elements;
    elements.reserve(given.get_array().size());
    for (const json::value& element : given.get_array()) elements.push_back(filled<typename T::value_type>(element, nullptr));
    return elements;
  } else if constexpr (std::is_same_v<T, hookbus::ContentPart>) {
    return filled_part(given, static_cast<hookbus::ContentPart*>(nullptr));
  } else if constexpr (DescribedStruct<T>) {
    return filled_struct<T>(given, defaults);
  } else {
    return given;  // a number, a string, an enum, a timestamp, free-form JSON: taken as given
  }
}

}  // namespace

hookbus::HookEvent event_with_defaults(std::size_t event_index, const json::value& given) {
  return std::visit(
      [&]<class E>(const E& default_event) {
        const json::value defaults = hookbus::to_json(default_event);
        return hookbus::event_from_json(event_index, filled_struct<E>(given, &defaults));
      },
      hookbus::make_event(event_index));
}

}  // namespace hookctl
