#pragma once
// Internal: hookbus.setup() and the Installation it returns.

#include <pybind11/pybind11.h>

namespace hookbus::python {

void bind_setup(pybind11::module_& module);

}  // namespace hookbus::python
