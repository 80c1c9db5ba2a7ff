#include "catalogue_classes.hpp"

#include <hookbus/names.hpp>

#include <boost/mp11.hpp>
#include <fmt/format.h>

#include <array>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace hookbus::python {
namespace {

namespace json = boost::json;
namespace mp11 = boost::mp11;
using namespace hookbus::reflect;

template <class T>
Value<T> from_keywords(const py::kwargs& fields, const std::string& class_name) {
  return Value<T>(from_json<T>(to_json(fields, class_name), strict_reading));
}

template <class T>
std::string describe(const Value<T>& value, const std::string& class_name) {
  json::value fields = hookbus::to_json(value.get());
  if (json::object* object = fields.if_object()) object->erase("type");
  return fmt::format("{}({})", class_name, write_json(fields));
}

// Each event class's index, for event_index_of: found by the object's type
// without a Python attribute lookup. Filled once, when the module loads.
std::unordered_map<const PyTypeObject*, std::size_t>& event_classes() {
  static std::unordered_map<const PyTypeObject*, std::size_t> classes;
  return classes;
}

std::array<const PyTypeObject*, event_count>& classes_by_index() {
  static std::array<const PyTypeObject*, event_count> classes{};
  return classes;
}

template <class T>
py::class_<Value<T>> bind_value_class(py::module_& module, const char* doc) {
  const std::string name = type_display_name<T>();
  py::class_<Value<T>> cls(module, name.c_str(), doc);
  cls.def(py::init([name](const py::kwargs& fields) {
    // A result with no field given is the neutral one: no JSON to read.
    if constexpr (ResultType<T>)
      if (fields.empty()) return Value<T>(T{});
    return from_keywords<T>(fields, name);
  }));
  py::list names;
  mp11::mp_for_each<members_of<T>>([&](auto member) {
    names.append(member.name);
    cls.def_property_readonly(member.name,
                              [pointer = member.pointer](const Value<T>& self) { return member_to_python(self.get().*pointer); });
  });
  cls.attr("fields") = py::tuple(names);
  cls.def("to_dict", [](const Value<T>& self) { return to_python(hookbus::to_json(self.get())); },
          "The value as the dict its JSON is.");
  cls.def(
      "replace",
      [name](const Value<T>& self, const py::kwargs& changes) {
        json::value fields = hookbus::to_json(self.get());
        for (const auto& [key, item] : changes) {
          const auto field = py::cast<std::string>(key);
          fields.as_object()[field] = to_json(item, name + "." + field);
        }
        return Value<T>(from_json<T>(fields, strict_reading));
      },
      "A copy with the given fields changed.");
  cls.def("__repr__", [name](const Value<T>& self) { return describe(self, name); });
  cls.def("__eq__", [](const Value<T>& self, py::handle other) -> py::object {
    if (!py::isinstance<Value<T>>(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    return py::bool_(hookbus::to_json(self.get()) == hookbus::to_json(other.template cast<const Value<T>&>().get()));
  });
  cls.attr("__hash__") = py::none();
  return cls;
}

template <class E>
using result_or_void = result_t<E>;
using Results =
    mp11::mp_unique<mp11::mp_remove<mp11::mp_transform<result_or_void, mp11::mp_rename<HookEvent, mp11::mp_list>>, void>>;

}  // namespace

void bind_catalogue(py::module_& module) {
  for_each_type<HookEvent>([&]<class E>(std::type_identity<E>) {
    auto cls = bind_value_class<E>(module, "A hookbus event (docs/events.md); fields as in `hookctl events`.");
    cls.attr("type") = py::str(std::string(E::type));
    cls.attr("__hookbus_index__") = py::int_(event_index<E>);
    event_classes().emplace(reinterpret_cast<const PyTypeObject*>(cls.ptr()), event_index<E>);
    classes_by_index()[event_index<E>] = reinterpret_cast<const PyTypeObject*>(cls.ptr());
  });
  for_each_type<Results>([&]<class R>(std::type_identity<R>) {
    bind_value_class<R>(module, "What handlers of an event return, and what emit returns (docs/semantics.md).");
  });
}

const PyTypeObject* event_class(std::size_t index) noexcept { return classes_by_index()[index]; }

py::object make_event(std::size_t index, const py::kwargs& fields) {
  using Make = py::object (*)(const py::kwargs&);
  static constexpr auto makers = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<Make, event_count>{[](const py::kwargs& fields) {
      using E = std::variant_alternative_t<I, HookEvent>;
      return py::cast(from_keywords<E>(fields, type_display_name<E>()));
    }...};
  }(std::make_index_sequence<event_count>());
  return makers.at(index)(fields);
}

std::size_t event_index_of(py::handle event) {
  const auto& classes = event_classes();
  if (const auto found = classes.find(Py_TYPE(event.ptr())); found != classes.end()) return found->second;
  if (const auto found = classes.find(reinterpret_cast<const PyTypeObject*>(event.ptr())); found != classes.end())
    return found->second;  // an event class
  if (py::isinstance<py::str>(event)) return resolve_event(event.cast<std::string>());
  if (py::hasattr(event, "__hookbus_index__")) return event.attr("__hookbus_index__").cast<std::size_t>();
  throw py::type_error(fmt::format("expected an event name (\"tool_call\"), an event class (hookbus.ToolCallEvent) "
                                   "or an event, got {}",
                                   py::repr(event).cast<std::string>()));
}

}  // namespace hookbus::python
