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

// What the bus holds of Python's (a handler, with what it keeps between
// calls): copies share it without touching Python, and the last owner
// destroys it with the GIL taken, on whatever thread that happens.
template <class T>
std::shared_ptr<T> held(T value) {
  return std::shared_ptr<T>(new T(std::move(value)), [](T* owned) {
    if (!Py_IsInitialized()) return;  // Python is gone (a bus outlived it): nothing to release into
    const pybind11::gil_scoped_acquire gil;
    delete owned;
  });
}

}  // namespace hookbus::python
