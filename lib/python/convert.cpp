#include "convert.hpp"

#include <fmt/format.h>

namespace hookbus::python {

namespace json = boost::json;

py::object to_python(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: return py::none();
    case json::kind::bool_: return py::bool_(value.get_bool());
    case json::kind::int64: return py::int_(value.get_int64());
    case json::kind::uint64: return py::int_(value.get_uint64());
    case json::kind::double_: return py::float_(value.get_double());
    case json::kind::string: {
      const json::string& text = value.get_string();
      return py::str(text.data(), text.size());
    }
    case json::kind::array: {
      const json::array& array = value.get_array();
      py::list list(array.size());
      for (std::size_t i = 0; i < array.size(); ++i) list[i] = to_python(array[i]);
      return list;
    }
    case json::kind::object: {
      py::dict dict;
      for (const auto& [key, item] : value.get_object()) dict[py::str(key.data(), key.size())] = to_python(item);
      return dict;
    }
  }
  return py::none();
}

json::value to_json(py::handle value, const std::string& path) {
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) {
    // Beyond int64: uint64 when it fits, else an error naming the place.
    try {
      return value.cast<std::int64_t>();
    } catch (const py::cast_error&) {
    }
    try {
      return value.cast<std::uint64_t>();
    } catch (const py::cast_error&) {
      throw py::type_error(fmt::format("{}: the integer {} does not fit in 64 bits", path, py::str(value).cast<std::string>()));
    }
  }
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return json::string(value.cast<std::string_view>());
  if (py::isinstance<py::dict>(value)) {
    json::object object;
    for (const auto& [key, item] : value.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key))
        throw py::type_error(fmt::format("{}: a key of a dict is {}; JSON objects have str keys", path,
                                         py::repr(key).cast<std::string>()));
      const auto name = key.cast<std::string>();
      object[name] = to_json(item, path.empty() ? name : path + "." + name);
    }
    return object;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    json::array array;
    std::size_t i = 0;
    for (const py::handle item : value) array.push_back(to_json(item, fmt::format("{}[{}]", path, i++)));
    return array;
  }
  if (py::hasattr(value, "to_dict")) return to_json(value.attr("to_dict")(), path);
  throw py::type_error(fmt::format("{}: a {} cannot be converted to JSON (use None, bool, int, float, str, list, "
                                   "dict, or a hookbus event or result)",
                                   path.empty() ? "value" : path,
                                   py::type::handle_of(value).attr("__name__").cast<std::string>()));
}

}  // namespace hookbus::python
