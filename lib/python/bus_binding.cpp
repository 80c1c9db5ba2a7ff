#include "bus_binding.hpp"

#include "catalogue_classes.hpp"

#include <hookbus/enum_names.hpp>
#include <hookbus/event_ref.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/names.hpp>

#include <fmt/format.h>

#include <array>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hookbus::python {
namespace {

using namespace hookbus::reflect;

constexpr JsonReadOptions strict{.unknown_fields = UnknownFields::error};

std::string type_name(py::handle object) { return py::type::handle_of(object).attr("__name__").cast<std::string>(); }

// A Python exception out of a handler, as the bus reports a handler's
// failure: its type and message ("ValueError: no such file").
class PythonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_handler_error(const py::error_already_set& error) {
  const std::string message = py::str(error.value()).cast<std::string>();
  const std::string type = error.type().attr("__name__").cast<std::string>();
  throw PythonError(message.empty() ? type : type + ": " + message);
}

// Calls a Python handler with a view of `event` (catalogue_classes.hpp);
// the caller holds the GIL.
template <class E>
py::object call_handler(const py::object& handler, const E& event) {
  try {
    return with_view(event, [&](const py::object& view) { return handler(view); });
  } catch (const py::error_already_set& error) {
    throw_handler_error(error);
  }
}

// What a Python handler of E returned, as the bus takes it.
template <class E>
std::optional<result_t<E>> result_from_python(const py::object& returned) {
  using R = result_t<E>;
  if (returned.is_none()) return std::nullopt;
  if (py::isinstance<Value<R>>(returned)) return returned.cast<const Value<R>&>().get();
  if (py::isinstance<py::dict>(returned)) return from_json<R>(to_json(returned, type_display_name<R>()), strict);
  throw std::invalid_argument(fmt::format("a handler of '{}' returned a {}; it returns a {}, a dict of its fields, or None",
                                          E::type, type_name(returned), type_display_name<R>()));
}

template <class E>
Connection connect_handler(Hooks& hooks, HeldObject handler, const HandlerOptions& options) {
  if constexpr (EventWithResult<E>) {
    return hooks.on<E>(
        [handler](const E& event) -> std::optional<result_t<E>> {
          const py::gil_scoped_acquire gil;
          return result_from_python<E>(call_handler(*handler, event));
        },
        options);
  } else {
    return hooks.on<E>(
        [handler](const E& event) {
          const py::gil_scoped_acquire gil;
          const py::object returned = call_handler(*handler, event);
          if (!returned.is_none())
            throw std::invalid_argument(fmt::format("a handler of '{}' returned a {}; '{}' is observe-only, so its "
                                                    "handlers return None",
                                                    E::type, type_name(returned), E::type));
        },
        options);
  }
}

template <class E>
py::object emit_event(Hooks& hooks, py::handle event) {
  const E& value = event.cast<const Value<E>&>().get();
  if constexpr (EventWithResult<E>) {
    std::optional<result_t<E>> result;
    {
      const GilReleasedIfHeld released;
      result.emplace(hooks.emit(value));
    }
    return py::cast(Value<result_t<E>>(std::move(*result)));
  } else {
    {
      const GilReleasedIfHeld released;
      hooks.emit(value);
    }
    return py::none();
  }
}

// hookbus.Connection.
using PyConnection = Owned<Connection>;

using ConnectFunction = Connection (*)(Hooks&, HeldObject, const HandlerOptions&);
using EmitFunction = py::object (*)(Hooks&, py::handle);

// Per event, by HookEvent index.
constexpr auto connect_functions = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<ConnectFunction, event_count>{&connect_handler<std::variant_alternative_t<I, HookEvent>>...};
}(std::make_index_sequence<event_count>());
constexpr auto emit_functions = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<EmitFunction, event_count>{&emit_event<std::variant_alternative_t<I, HookEvent>>...};
}(std::make_index_sequence<event_count>());

template <class Enum>
Enum enum_option(std::string_view option, const std::string& name) {
  if (const auto value = enum_from_wire_name<Enum>(name)) return *value;
  throw py::value_error(fmt::format("{}='{}' is not one of: {}", option, name, fmt::join(enum_wire_names<Enum>(), ", ")));
}

HandlerOptions handler_options(int priority, const std::string& tools, const std::string& failure,
                               const std::string& label) {
  HandlerOptions options;
  options.priority = priority;
  options.tools = tools;
  options.failure = enum_option<FailurePolicy>("failure", failure);
  options.label = label;
  return options;
}

// Registers `handler` now, or, without one, returns a decorator that does
// and keeps the registration for the bus's lifetime (the decorated function
// is returned unchanged, with the Connection as its `connection`).
template <class Connect>
py::object register_or_decorate(const py::object& self, const py::object& handler, Connect connect) {
  if (!handler.is_none()) return py::cast(connect(handler));
  return py::cpp_function([self, connect](const py::object& function) {
    PyConnection connection = connect(function);
    connection.keep();
    py::object kept = py::cast(std::move(connection));
    if (py::hasattr(function, "__dict__")) function.attr("connection") = kept;
    return function;
  });
}

void disconnect(const PyConnection& connection) {
  const GilReleasedIfHeld released;  // a queued subscriber's queue delivers what it holds first
  connection->disconnect();
}

// HandlerFailure.kind as the trace names it.
std::string_view kind_name(HandlerKind kind) {
  switch (kind) {
    case HandlerKind::in_process: return "in_process";
    case HandlerKind::builtin: return "builtin";
    case HandlerKind::external: return "external";
    case HandlerKind::plugin: return "plugin";
  }
  return "in_process";
}

void check_callable(const py::object& handler) {
  if (!handler.is_none() && !PyCallable_Check(handler.ptr()))
    throw py::type_error(fmt::format("a handler must be callable, got {}", py::repr(handler).cast<std::string>()));
}

}  // namespace

void bind_bus(py::module_& module) {
  py::class_<HandlerFailure>(module, "HandlerFailure", "A handler that failed, as error listeners are told.")
      .def_readonly("event", &HandlerFailure::event)
      .def_readonly("handler", &HandlerFailure::handler)
      .def_readonly("message", &HandlerFailure::message)
      .def_property_readonly("kind", [](const HandlerFailure& failure) { return kind_name(failure.kind); })
      .def_readonly("source", &HandlerFailure::source)
      .def("__repr__", [](const HandlerFailure& failure) {
        return fmt::format("HandlerFailure(event='{}', handler='{}', message='{}')", failure.event, failure.handler,
                           failure.message);
      });

  py::class_<PyConnection>(module, "Connection",
                           "A registration. It disconnects when Python collects it, unless keep() was called "
                           "(decorators keep theirs); a `with` block disconnects at its end.")
      .def("disconnect", [](const PyConnection& self) { disconnect(self); })
      .def_property_readonly("connected", [](const PyConnection& self) { return self->connected(); })
      .def_property_readonly("label", [](const PyConnection& self) { return self->label(); })
      .def("keep", &PyConnection::keep, "Keeps the handler connected for the bus's lifetime, whatever becomes of this object.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](const PyConnection& self, const py::args&) { disconnect(self); });

  py::class_<PyHooks>(module, "Hooks", "The bus: register handlers, emit events (docs/python.md).")
      .def(py::init([](bool nested_ordering, std::size_t parallel_runs) {
             return std::make_unique<PyHooks>(HooksOptions{.nested_ordering = nested_ordering, .parallel_runs = parallel_runs});
           }),
           py::kw_only(), py::arg("nested_ordering") = false, py::arg("parallel_runs") = 8)
      .def(
          "on",
          [](const py::object& self, const py::object& event, const py::object& handler, int priority,
             const std::string& tools, const std::string& failure, const std::string& label) {
            check_callable(handler);
            const std::size_t index = event_index_of(event);
            const HandlerOptions options = handler_options(priority, tools, failure, label);
            return register_or_decorate(self, handler, [self, index, options](const py::object& function) {
              PyHooks& bus = self.cast<PyHooks&>();
              return bus.own(connect_functions[index](bus.hooks(), hold(function), options));
            });
          },
          py::arg("event"), py::arg("handler") = py::none(), py::kw_only(), py::arg("priority") = 0,
          py::arg("tools") = "", py::arg("failure") = "fail_open", py::arg("label") = "",
          "Registers a handler of one event (a name, an alias or an event class); without a handler, a decorator.")
      .def(
          "subscribe",
          [](const py::object& self, const py::object& handler, const py::object& queued, const std::string& overflow,
             const std::string& label) {
            check_callable(handler);
            HandlerOptions options;
            options.label = label;
            if (!queued.is_none() && !(py::isinstance<py::bool_>(queued) && !queued.cast<bool>())) {
              DeliveryQueue queue;
              if (!py::isinstance<py::bool_>(queued)) queue.capacity = queued.cast<std::size_t>();
              queue.overflow = enum_option<Overflow>("overflow", overflow);
              options.queued = queue;
            }
            return register_or_decorate(self, handler, [self, options](const py::object& function) {
              PyHooks& bus = self.cast<PyHooks&>();
              HeldObject held = hold(function);
              return bus.own(bus.hooks().subscribe(
                  [held](const EventRef& event) {
                    const py::gil_scoped_acquire gil;
                    event.visit([&](const auto& value) { return call_handler(*held, value); });
                  },
                  options));
            });
          },
          py::arg("handler") = py::none(), py::kw_only(), py::arg("queued") = py::none(), py::arg("overflow") = "block",
          py::arg("label") = "",
          "Registers a catch-all subscriber, which sees every event after its handlers; `queued=True` (or a "
          "capacity) delivers on a thread of its own.")
      .def(
          "on_handler_error",
          [](const py::object& self, const py::object& listener) {
            check_callable(listener);
            return register_or_decorate(self, listener, [self](const py::object& function) {
              PyHooks& bus = self.cast<PyHooks&>();
              HeldObject held = hold(function);
              return bus.own(bus.hooks().on_handler_error([held](const HandlerFailure& failure) {
                const py::gil_scoped_acquire gil;
                try {
                  (*held)(failure);
                } catch (const py::error_already_set& error) {
                  throw_handler_error(error);
                }
              }));
            });
          },
          py::arg("listener") = py::none(), "Registers a listener told of every handler that failed.")
      .def(
          "emit",
          [](PyHooks& self, const py::object& event, const py::kwargs& fields) {
            const std::size_t index = event_index_of(event);
            if (py::isinstance<py::str>(event)) return emit_functions[index](self.hooks(), make_event(index, fields));
            if (!fields.empty())
              throw py::type_error("emit(event) takes no fields: they are the event's (use emit(\"name\", **fields))");
            if (py::isinstance<py::type>(event))
              throw py::type_error(fmt::format("emit() takes an event, not its class: {}(...)",
                                               event.attr("__name__").cast<std::string>()));
            return emit_functions[index](self.hooks(), event);
          },
          py::arg("event"),
          "Runs the event's handlers; returns the reduced result, or None for observe-only events. The GIL is "
          "released meanwhile.");
}

}  // namespace hookbus::python
