#pragma once
// Internal: hookbus.Hooks, hookbus.Connection and hookbus.HandlerFailure.
//
// What Python registers lives as long as Python holds it: a Connection (or
// an Installation, setup_binding.hpp) dropped by Python undoes its
// registration, as its C++ handle does. keep() hands it to the bus instead,
// which holds it until the bus itself goes.

#include "gil.hpp"

#include <hookbus/hooks.hpp>

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <vector>

namespace hookbus::python {

// What a bus holds for its lifetime on Python's behalf (keep()).
class KeptForBus {
 public:
  void add(std::shared_ptr<const void> kept) {
    const std::lock_guard lock(mutex_);
    kept_.push_back(std::move(kept));
  }

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<const void>> kept_;
};

// A C++ handle Python owns: undone (destroyed) without the GIL, since
// undoing it may wait for a thread that calls Python (a queued subscriber's
// queue delivers what it holds first), and kept for the bus's lifetime on
// keep().
template <class Handle>
class Owned {
 public:
  Owned(Handle handle, const std::shared_ptr<KeptForBus>& bus)
      : handle_(new Handle(std::move(handle)),
                [](Handle* owned) {
                  const GilReleasedIfHeld released;
                  delete owned;
                }),
        bus_(bus) {}

  Handle& operator*() const noexcept { return *handle_; }
  Handle* operator->() const noexcept { return handle_.get(); }

  void keep() {
    if (const std::shared_ptr<KeptForBus> bus = bus_.lock()) bus->add(handle_);
    // else the bus is gone, and what this registered went with it
  }

 private:
  std::shared_ptr<Handle> handle_;
  std::weak_ptr<KeptForBus> bus_;
};

// hookbus.Hooks: the bus, and what is kept for its lifetime.
class PyHooks {
 public:
  explicit PyHooks(HooksOptions options);
  PyHooks(const PyHooks&) = delete;
  PyHooks& operator=(const PyHooks&) = delete;
  ~PyHooks();

  Hooks& hooks() noexcept { return *hooks_; }
  template <class Handle>
  Owned<Handle> own(Handle handle) {
    return Owned<Handle>(std::move(handle), kept_);
  }

 private:
  std::unique_ptr<Hooks> hooks_;
  std::shared_ptr<KeptForBus> kept_;
};

// Python is exiting (atexit, before the interpreter finalizes): every bus
// still alive delivers what its queued subscribers and observers hold, while
// Python can still run them; from then on the bus's own threads call no
// Python (a thread that takes the GIL once the interpreter finalizes is
// ended mid-call, which would crash the process), and what they are given is
// dropped with a warning on the hookbus logger.
void python_exiting();

// Whether python_exiting() was called: a bus thread about to call Python
// checks it first.
[[nodiscard]] bool python_has_exited() noexcept;

void bind_bus(pybind11::module_& module);

}  // namespace hookbus::python
