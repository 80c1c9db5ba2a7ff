// The Python module hookbus._hookbus, which the package hookbus
// (lib/python/hookbus/__init__.py) re-exports: the bus, the catalogue's event
// and result classes, and hookbus's exceptions (docs/python.md).

#include "bus_binding.hpp"
#include "catalogue_classes.hpp"
#include "convert.hpp"
#include "setup_binding.hpp"

#include <hookbus/catalogue.hpp>
#include <hookbus/errors.hpp>
#include <hookbus/version.hpp>

#include <pybind11/pybind11.h>

namespace py = pybind11;

PYBIND11_MODULE(_hookbus, module) {
  module.doc() = "hookbus: the hook runtime agent engines embed (docs/python.md).";
  module.attr("__version__") = std::string(hookbus::version().string);

  // hookbus.Error and the families below it, as C++ names them (errors.hpp).
  const auto error = py::register_exception<hookbus::Error>(module, "Error", PyExc_Exception);
  py::register_exception<hookbus::JsonError>(module, "JsonError", error.ptr());
  py::register_exception<hookbus::UnknownEventError>(module, "UnknownEventError", error.ptr());
  py::register_exception<hookbus::ProcessError>(module, "ProcessError", error.ptr());

  hookbus::python::bind_catalogue(module);
  hookbus::python::bind_bus(module);
  hookbus::python::bind_setup(module);

  // Before the interpreter finalizes: the buses' threads deliver what they
  // hold and then call no Python (bus_binding.hpp, python_exiting).
  py::module_::import("atexit").attr("register")(py::cpp_function(&hookbus::python::python_exiting));

  module.def(
      "events",
      [] {
        py::list events;
        for (const hookbus::EventDescription& event : hookbus::describe_catalogue())
          events.append(hookbus::python::to_python(hookbus::to_json(event)));
        return events;
      },
      "Every event as `hookctl events --json` lists it: name, reduction, aliases, fields, result fields.");
}
