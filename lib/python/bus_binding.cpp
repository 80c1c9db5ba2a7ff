#include "bus_binding.hpp"

#include "catalogue_classes.hpp"

#include <hookbus/enum_names.hpp>
#include <hookbus/event_ref.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/trace.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <set>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hookbus::python {
namespace {

using namespace hookbus::reflect;

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

// Calls a Python function with a view of `event` (catalogue_classes.hpp);
// the caller holds the GIL.
template <class E>
py::object call_with_view(const py::object& function, const E& event) {
  try {
    return with_view(event, [&](const py::object& view) { return function(view); });
  } catch (const py::error_already_set& error) {
    throw_handler_error(error);
  }
}

// A Python handler of E, and the view object it was last given, which its
// next call reuses while Python holds it nowhere else: making a Python object
// per call is a good part of what a call costs.
template <class E>
struct PythonHandler {
  py::object function;
  py::object view;  // a Value<E> view, or none yet

  // Calls the function with a view of `event`; the caller holds the GIL. A
  // view Python still holds after the call copies its event first (as
  // with_view does), and is not reused.
  py::object operator()(const E& event) {
    py::object given;
    if (view && view.ref_count() == 1) {  // not in a call on another thread, nor kept
      view.cast<Value<E>&>().view_of(event);
      given = view;
    } else {
      given = py::cast(Value<E>::view(event));
      if (!view) view = given;
    }
    const auto keep_if_held = [&] {
      const bool cached = given.is(view);
      if (given.ref_count() > (cached ? 2 : 1)) {
        given.cast<Value<E>&>().keep_beyond_call();
        if (cached) view = py::object();
      }
    };
    try {
      py::object returned = function(given);
      keep_if_held();
      return returned;
    } catch (const py::error_already_set& error) {
      keep_if_held();
      throw_handler_error(error);
    } catch (...) {
      keep_if_held();
      throw;
    }
  }
};

// What a Python handler of E returned, as the bus takes it.
template <class E>
std::optional<result_t<E>> result_from_python(const py::object& returned) {
  using R = result_t<E>;
  if (returned.is_none()) return std::nullopt;
  if (py::isinstance<Value<R>>(returned)) return returned.cast<const Value<R>&>().get();
  if (py::isinstance<py::dict>(returned)) return from_json<R>(to_json(returned, type_display_name<R>()), strict_reading);
  throw std::invalid_argument(fmt::format("a handler of '{}' returned a {}; it returns a {}, a dict of its fields, or None",
                                          E::type, type_name(returned), type_display_name<R>()));
}

template <class E>
Connection connect_handler(Hooks& hooks, py::object function, const HandlerOptions& options) {
  std::shared_ptr<PythonHandler<E>> handler = held(PythonHandler<E>{std::move(function), py::object()});
  if constexpr (EventWithResult<E>) {
    return hooks.on<E>(
        [handler](const E& event) -> std::optional<result_t<E>> {
          const py::gil_scoped_acquire gil;
          return result_from_python<E>((*handler)(event));
        },
        options);
  } else {
    return hooks.on<E>(
        [handler](const E& event) {
          const py::gil_scoped_acquire gil;
          const py::object returned = (*handler)(event);
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
  const E& value = value_of<E>(event).get();
  if (!hooks.listened(event_index<E>)) {
    // Nobody to run: no reason to let go of the GIL.
    if constexpr (EventWithResult<E>) return neutral_result<result_t<E>>();
    else return py::none();
  }
  if constexpr (EventWithResult<E>) {
    std::optional<result_t<E>> result;
    {
      const GilReleasedIfHeld released;
      result.emplace(hooks.emit(value));
    }
    if (*result == result_t<E>{}) return neutral_result<result_t<E>>();
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

using ConnectFunction = Connection (*)(Hooks&, py::object, const HandlerOptions&);
using EmitFunction = py::object (*)(Hooks&, py::handle);

// Per event, by HookEvent index.
constexpr auto connect_functions = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<ConnectFunction, event_count>{&connect_handler<std::variant_alternative_t<I, HookEvent>>...};
}(std::make_index_sequence<event_count>());
constexpr auto emit_functions = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<EmitFunction, event_count>{&emit_event<std::variant_alternative_t<I, HookEvent>>...};
}(std::make_index_sequence<event_count>());


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

// `queued=`: None or False for none, True for the default queue, a number
// for its capacity; `overflow=` what a full queue does.
std::optional<DeliveryQueue> queue_option(const py::object& queued, const std::string& overflow) {
  if (queued.is_none() || (py::isinstance<py::bool_>(queued) && !queued.cast<bool>())) return std::nullopt;
  DeliveryQueue queue;
  if (!py::isinstance<py::bool_>(queued)) queue.capacity = queued.cast<std::size_t>();
  queue.overflow = enum_option<Overflow>("overflow", overflow);
  return queue;
}

void check_callable(const py::object& handler) {
  if (!handler.is_none() && !PyCallable_Check(handler.ptr()))
    throw py::type_error(fmt::format("a handler must be callable, got {}", py::repr(handler).cast<std::string>()));
}

// Sets the Python error for the exception being handled, as pybind11's
// dispatcher does (the translators py::register_exception added, then its own).
PyObject* raise_current_exception() {
  if (py::detail::apply_exception_translators(py::detail::get_local_internals().registered_exception_translators))
    return nullptr;
  if (py::detail::apply_exception_translators(py::detail::get_internals().registered_exception_translators))
    return nullptr;
  PyErr_SetString(PyExc_SystemError, "hookbus: an exception escaped the exception translators");
  return nullptr;
}

// Hooks.emit, which CPython calls directly (METH_FASTCALL): pybind11's
// dispatcher costs about 250 ns before a call starts, several times what an
// emit nobody listens to costs. emit(event), or emit("name", **fields).
PyObject* emit_method(PyObject* self, PyObject* const* args, Py_ssize_t count, PyObject* keywords) noexcept {
  try {
    PyHooks& bus = py::handle(self).cast<PyHooks&>();
    const Py_ssize_t keyword_count = keywords == nullptr ? 0 : PyTuple_GET_SIZE(keywords);
    if (count != 1)
      throw py::type_error(fmt::format("emit() takes one event, or an event's name and its fields (emit(event), "
                                       "emit(\"tool_call\", tool_name=...)); it was given {} positional arguments",
                                       count));
    const py::handle event(args[0]);
    if (py::isinstance<py::str>(event)) {
      py::kwargs fields;
      for (Py_ssize_t i = 0; i < keyword_count; ++i) fields[PyTuple_GET_ITEM(keywords, i)] = args[count + i];
      const std::size_t index = resolve_event(event.cast<std::string>());
      return emit_functions[index](bus.hooks(), make_event(index, fields)).release().ptr();
    }
    if (keyword_count != 0)
      throw py::type_error("emit(event) takes no fields: they are the event's (emit(\"name\", **fields) makes one)");
    if (py::isinstance<py::type>(event))
      throw py::type_error(fmt::format("emit() takes an event, not its class: {}(...)",
                                       event.attr("__name__").cast<std::string>()));
    return emit_functions[event_index_of(event)](bus.hooks(), event).release().ptr();
  } catch (...) {
    return raise_current_exception();
  }
}

// The buses alive, for python_exiting().
struct LiveBuses {
  std::mutex mutex;
  std::set<PyHooks*> buses;
};
LiveBuses& live_buses() {
  static LiveBuses* const live = new LiveBuses();  // never destroyed: buses may outlive statics
  return *live;
}
std::atomic<bool> exited{false};

}  // namespace

PyHooks::PyHooks(HooksOptions options)
    : hooks_(std::make_unique<Hooks>(options)), kept_(std::make_shared<KeptForBus>()) {
  LiveBuses& live = live_buses();
  const std::lock_guard lock(live.mutex);
  live.buses.insert(this);
}

PyHooks::~PyHooks() {
  {
    LiveBuses& live = live_buses();
    const std::lock_guard lock(live.mutex);
    live.buses.erase(this);
  }
  const GilReleasedIfHeld released;  // its queues' threads may be waiting for Python
  kept_.reset();
  hooks_.reset();
}

void python_exiting() {
  // Called with the GIL held, as every Python call is; the buses stay alive
  // meanwhile (their destruction needs the GIL, which only flush() lets go).
  std::vector<PyHooks*> buses;
  {
    LiveBuses& live = live_buses();
    const std::lock_guard lock(live.mutex);
    buses.assign(live.buses.begin(), live.buses.end());
  }
  for (PyHooks* bus : buses) {
    const GilReleasedIfHeld released;  // the queues' threads run Python handlers
    bus->hooks().flush();
  }
  exited.store(true);
}

bool python_has_exited() noexcept { return exited.load(); }

namespace {

// Runs `call` for a bus thread that is about to call Python, unless Python is
// exiting (python_exiting()): then what it was given is dropped, said in a warning.
template <class Call>
void unless_python_exited(std::string_view what, Call&& call) {
  if (python_has_exited()) {
    hookbus::logger()->warn("hookbus: {} dropped: Python is exiting, and can no longer run it", what);
    return;
  }
  const py::gil_scoped_acquire gil;
  call();
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

  py::class_<PyHooks> hooks(module, "Hooks", "The bus: register handlers, emit events (docs/python.md).");
  static PyMethodDef emit_definition{
      "emit", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&emit_method)), METH_FASTCALL | METH_KEYWORDS,
      "emit(event) or emit(\"name\", **fields): runs the event's handlers and returns the reduced result, or None "
      "for an observe-only event. The GIL is released meanwhile."};
  hooks.attr("emit") = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(hooks.ptr()), &emit_definition));
  hooks
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
              return bus.own(connect_functions[index](bus.hooks(), function, options));
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
            options.queued = queue_option(queued, overflow);
            return register_or_decorate(self, handler, [self, options](const py::object& function) {
              PyHooks& bus = self.cast<PyHooks&>();
              const std::shared_ptr<py::object> subscriber = held(function);
              return bus.own(bus.hooks().subscribe(
                  [subscriber](const EventRef& event) {
                    unless_python_exited("an event for a queued subscriber", [&] {
                      event.visit([&](const auto& value) { return call_with_view(*subscriber, value); });
                    });
                  },
                  options));
            });
          },
          py::arg("handler") = py::none(), py::kw_only(), py::arg("queued") = py::none(), py::arg("overflow") = "block",
          py::arg("label") = "",
          "Registers a catch-all subscriber, which sees every event after its handlers; `queued=True` (or a "
          "capacity) delivers on a thread of its own.")
      .def(
          "on_emission",
          [](const py::object& self, const py::object& observer, const py::object& queued, const std::string& overflow) {
            check_callable(observer);
            HandlerOptions options;
            options.queued = queue_option(queued, overflow);
            return register_or_decorate(self, observer, [self, options](const py::object& function) {
              PyHooks& bus = self.cast<PyHooks&>();
              const std::shared_ptr<py::object> held_observer = held(function);
              return bus.own(bus.hooks().on_emission(
                  [held_observer](const EmissionRecord& record) {
                    const boost::json::object line = trace_json(record);  // before the GIL: no Python in it
                    unless_python_exited("an emission record for a queued observer", [&] {
                      try {
                        (*held_observer)(to_python(line));
                      } catch (const py::error_already_set& error) {
                        throw_handler_error(error);
                      }
                    });
                  },
                  options));
            });
          },
          py::arg("observer") = py::none(), py::kw_only(), py::arg("queued") = py::none(), py::arg("overflow") = "block",
          "Registers an emission observer, called after each emit with its record as the dict of a trace file's "
          "line (docs/tracing.md); `queued=True` (or a capacity) calls it on a thread of its own.")
      .def(
          "on_handler_error",
          [](const py::object& self, const py::object& listener) {
            check_callable(listener);
            return register_or_decorate(self, listener, [self](const py::object& function) {
              PyHooks& bus = self.cast<PyHooks&>();
              const std::shared_ptr<py::object> listener = held(function);
              return bus.own(bus.hooks().on_handler_error([listener](const HandlerFailure& failure) {
                const py::gil_scoped_acquire gil;
                try {
                  (*listener)(failure);
                } catch (const py::error_already_set& error) {
                  throw_handler_error(error);
                }
              }));
            });
          },
          py::arg("listener") = py::none(), "Registers a listener told of every handler that failed.");
}

}  // namespace hookbus::python
