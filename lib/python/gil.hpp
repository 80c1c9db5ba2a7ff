#pragma once
// Internal: the GIL around calls between Python and the bus.
//
// An emit runs without the GIL (external hooks run for seconds; other Python
// threads go on), and so does everything that may wait for a thread that
// calls Python: a disconnect or a bus's destruction closes a queued
// subscriber's queue, whose thread needs the GIL to deliver what it holds.
// Python handlers take the GIL for their call, on whatever thread the bus
// calls them from.

#include <pybind11/pybind11.h>

#include <memory>

namespace hookbus::python {

// Lets go of the GIL for its lifetime when this thread holds it (a bus may be
// destroyed by Python's collector, holding it, or by the bus's own threads).
class GilReleasedIfHeld {
 public:
  GilReleasedIfHeld() noexcept {
    if (Py_IsInitialized() && PyGILState_Check()) saved_ = PyEval_SaveThread();
  }
  ~GilReleasedIfHeld() {
    if (saved_ != nullptr) PyEval_RestoreThread(saved_);
  }
  GilReleasedIfHeld(const GilReleasedIfHeld&) = delete;
  GilReleasedIfHeld& operator=(const GilReleasedIfHeld&) = delete;

 private:
  PyThreadState* saved_ = nullptr;
};

// A Python object the bus holds (a handler): copies share it without
// touching Python, and the last one releases it with the GIL taken, on
// whatever thread that happens.
using HeldObject = std::shared_ptr<const pybind11::object>;

inline HeldObject hold(pybind11::object object) {
  return HeldObject(new pybind11::object(std::move(object)), [](const pybind11::object* held) {
    if (!Py_IsInitialized()) {
      // Python is gone (a bus outlived the interpreter): nothing to release into.
      const_cast<pybind11::object*>(held)->release();
      delete held;
      return;
    }
    const pybind11::gil_scoped_acquire gil;
    delete held;
  });
}

}  // namespace hookbus::python
