#pragma once
// Internal: the catalogue's events and results as Python classes, one per
// type, generated from the described structs (no class is written by hand):
// ToolCallEvent, ToolCallResult, ... Each holds its C++ value; an attribute
// converts its field when read (convert.hpp), so a handler that reads one
// field converts one field.
//
// A handler is given a view of the event the bus holds for the length of the
// call, not a copy. Should the handler keep the object beyond the call (in a
// list, a closure), the view copies the event into itself before the bus
// lets go of it (keep_beyond_call), so what Python holds never dangles.

#include "convert.hpp"

#include <hookbus/events.hpp>

#include <pybind11/pybind11.h>

#include <memory>

namespace hookbus::python {

template <class T>
class Value {
 public:
  explicit Value(T value) : owned_(std::make_shared<const T>(std::move(value))), value_(owned_.get()) {}
  static Value view(const T& value) noexcept { return Value(&value); }

  const T& get() const noexcept { return *value_; }
  void keep_beyond_call() {
    if (owned_) return;
    owned_ = std::make_shared<const T>(*value_);
    value_ = owned_.get();
  }

 private:
  explicit Value(const T* value) noexcept : value_(value) {}
  std::shared_ptr<const T> owned_;  // null for a view
  const T* value_;
};

// Calls `call(object)` with a Python view of `value`; if Python still holds
// the object afterwards (returned or thrown), it copies the value first.
template <class T, class Call>
py::object with_view(const T& value, Call&& call) {
  py::object object = py::cast(Value<T>::view(value));
  const auto keep_if_held = [&] {
    if (object.ref_count() > 1) object.cast<Value<T>&>().keep_beyond_call();
  };
  try {
    py::object returned = call(object);
    keep_if_held();
    return returned;
  } catch (...) {
    keep_if_held();
    throw;
  }
}

// Adds every event and result class to `module`.
void bind_catalogue(py::module_& module);

// An event of the kind at `index` made from keyword fields, as its class's
// constructor makes it.
py::object make_event(std::size_t index, const py::kwargs& fields);

// The HookEvent index of an event class or object (its __hookbus_index__),
// or of a wire name or alias; a TypeError / UnknownEventError otherwise.
std::size_t event_index_of(py::handle event);

}  // namespace hookbus::python
