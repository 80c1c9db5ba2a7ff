#pragma once
// Internal: values between C++ and Python. JSON values, the catalogue's
// member types and Python's built-in types, both ways; a field is converted
// when Python reads it, not before (catalogue_classes.hpp).

#include <hookbus/json.hpp>
#include <hookbus/enum_names.hpp>
#include <hookbus/reflect.hpp>

#include <pybind11/pybind11.h>

#include <boost/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <string_view>

namespace hookbus::python {

namespace py = pybind11;

// How values Python gives are read (keywords, a handler's dict): strictly, so
// a misspelt field is an error rather than a field silently left at its default.
inline constexpr JsonReadOptions strict_reading{.unknown_fields = UnknownFields::error};

// An option given as one of an enum's wire names ("fail_closed"); another
// name is a ValueError listing them.
template <reflect::DescribedEnum Enum>
Enum enum_option(std::string_view option, const std::string& name) {
  if (const auto value = reflect::enum_from_wire_name<Enum>(name)) return *value;
  throw py::value_error(
      fmt::format("{}='{}' is not one of: {}", option, name, fmt::join(reflect::enum_wire_names<Enum>(), ", ")));
}

// A JSON value as the Python value json.loads would give.
py::object to_python(const boost::json::value& value);

// A Python value as JSON: None, bool, int, float, str, lists and tuples,
// dicts with str keys, and catalogue objects (their fields). Anything else
// is a TypeError naming `path` ("ToolCallResult.input.when").
boost::json::value to_json(py::handle value, const std::string& path);

// One field of a catalogue value, as Python reads it: numbers, strings and
// bools as themselves, an enum as its wire name, Timestamp and Duration as
// integer milliseconds (as in JSON), an optional as None or its value, a list
// as a list, a JSON object or a nested catalogue value as a dict.
template <class T>
py::object member_to_python(const T& value) {
  using namespace hookbus::reflect;
  if constexpr (std::is_same_v<T, bool>) return py::bool_(value);
  else if constexpr (Integer<T>) return py::int_(value);
  else if constexpr (std::is_floating_point_v<T>) return py::float_(value);
  else if constexpr (std::is_same_v<T, std::string>) return py::str(value);
  else if constexpr (JsonValue<T>) return to_python(boost::json::value(value));
  else if constexpr (std::is_same_v<T, Timestamp>) return py::int_(value.time_since_epoch().count());
  else if constexpr (std::is_same_v<T, Duration>) return py::int_(value.count());
  else if constexpr (DescribedEnum<T>) return py::str(std::string(enum_wire_name(value).value_or("")));
  else if constexpr (is_optional_v<T>) return value ? member_to_python(*value) : py::none();
  else if constexpr (is_vector_v<T>) {
    py::list list(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) list[i] = member_to_python(value[i]);
    return list;
  } else if constexpr (CatalogueType<T>) return to_python(hookbus::to_json(value));
  else static_assert(always_false<T>, "hookbus python: teach member_to_python this member type");
}

}  // namespace hookbus::python
