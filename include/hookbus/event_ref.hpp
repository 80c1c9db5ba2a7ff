#pragma once
// hookbus::EventRef: a read-only view of one event of the catalogue, whatever
// its type. It is what catch-all subscribers are called with: making one costs
// a pointer and an index, so a subscriber that only looks at some events (or
// at the event's name) never pays for a copy of the event.
//
//   auto tracer = hooks.subscribe([](const hookbus::EventRef& event) {
//     if (const auto* call = event.get_if<hookbus::ToolCallEvent>()) log_tool(call->tool_name);
//   });
//
// A subscriber written against HookEvent (`[](const hookbus::HookEvent& e)`)
// still works: the view converts to a HookEvent, made at most once per emit
// however many subscribers and by-name handlers ask for it (none at all when
// the emit was given a HookEvent and no handler changed the event).
//
// A view is valid for the length of the call it is passed to; copy what you
// keep (`HookEvent kept = event.variant();`).

#include <hookbus/events.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace hookbus {

template <Event E>
class Emission;  // lib/bus/reducers.hpp: keeps its view on the event it works on

class EventRef {
 public:
  // Implicit, as a view of what it is made from.
  template <Event E>
  EventRef(const E& event) noexcept : event_(&event), index_(event_index<E>) {}
  EventRef(const HookEvent& event) noexcept
      : event_(std::visit([](const auto& alternative) -> const void* { return &alternative; }, event)),
        index_(event.index()),
        variant_(&event) {}
  EventRef(const EventRef&) = delete;
  EventRef& operator=(const EventRef&) = delete;
  ~EventRef() = default;

  // The event's position in HookEvent (event_index<E>).
  [[nodiscard]] std::size_t index() const noexcept { return index_; }

  template <Event E>
  [[nodiscard]] bool is() const noexcept {
    return index_ == event_index<E>;
  }
  // The event, when it is an E; null otherwise.
  template <Event E>
  [[nodiscard]] const E* get_if() const noexcept {
    return is<E>() ? static_cast<const E*>(event_) : nullptr;
  }

  // Calls `visitor(const E&)` with the event; every alternative's call must
  // return the same type.
  template <class Visitor>
  std::invoke_result_t<Visitor&, const std::variant_alternative_t<0, HookEvent>&> visit(Visitor&& visitor) const {
    using Result = std::invoke_result_t<Visitor&, const std::variant_alternative_t<0, HookEvent>&>;
    using Call = Result (*)(Visitor&, const void*);
    static constexpr auto calls = []<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<Call, sizeof...(I)>{[](Visitor& v, const void* event) -> Result {
        return v(*static_cast<const std::variant_alternative_t<I, HookEvent>*>(event));
      }...};
    }(std::make_index_sequence<event_count>());
    return calls[index_](visitor, event_);
  }

  // The event as a HookEvent: the emit's own when it was given one and no
  // handler changed the event, otherwise a copy made on the first call and
  // shared by every later one in the same emit.
  [[nodiscard]] const HookEvent& variant() const {
    if (variant_ == nullptr) variant_ = &made_.emplace(visit([](const auto& event) { return HookEvent(event); }));
    return *variant_;
  }
  // Implicit, so that a subscriber or handler taking `const HookEvent&` takes a view.
  operator const HookEvent&() const { return variant(); }

 private:
  template <Event E>
  friend class Emission;

  // The emit was given `variant` (null: none), which holds the viewed event.
  void share(const HookEvent* variant) noexcept { variant_ = variant; }

  // The emit's handlers changed the event: the view now shows `event`.
  template <Event E>
  void rebind(const E& event) noexcept {
    event_ = &event;
    variant_ = nullptr;
    made_.reset();
  }

  const void* event_;
  std::size_t index_;
  mutable const HookEvent* variant_ = nullptr;
  mutable std::optional<HookEvent> made_;
};

}  // namespace hookbus
