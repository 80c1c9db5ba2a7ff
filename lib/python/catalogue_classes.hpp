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
  // A view again, of `value`: for a view object Python holds nowhere else,
  // given to the next call of the same handler.
  void view_of(const T& value) noexcept {
    owned_.reset();
    value_ = &value;
  }
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

// The neutral result of R (no handler changed anything) as one Python
// object, shared by every emit that returns it: Python cannot change a result
// object, so sharing it is safe, and it saves making one per emit.
template <class R>
const py::object& neutral_result() {
  // Made on first use, with the GIL held; never destroyed, since it may
  // outlive the interpreter.
  static const py::object* const neutral = new py::object(py::cast(Value<R>(R{})));
  return *neutral;
}

// The Python class of each event, by HookEvent index (set when the module loads).
const PyTypeObject* event_class(std::size_t index) noexcept;

// The Value<E> a Python event object holds. An object of E's own class (not a
// subclass) is read straight from its pybind11 instance, which skips the cast's
// type lookup on the emit path; anything else goes through the cast, which
// raises a TypeError for what is not an E.
template <class E>
const Value<E>& value_of(py::handle event) {
  if (Py_TYPE(event.ptr()) == event_class(event_index<E>)) {
    const auto holder = reinterpret_cast<py::detail::instance*>(event.ptr())->get_value_and_holder();
    if (holder.holder_constructed()) return *static_cast<const Value<E>*>(holder.value_ptr());
  }
  return event.cast<const Value<E>&>();
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
