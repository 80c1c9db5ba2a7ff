// Compiled (not linked) by test/public_headers_test.cmake with each compiler a
// user may have, under strict warnings: the public headers' templates used as
// an engine uses them, so that they are instantiated, which including a header
// alone never does. For every event: handlers of each kind (void, the Result,
// std::optional<Result>, a member function through a pointer and a
// shared_ptr, through a Registrar and a provider), every form of emit; for
// every catalogue type: JSON both ways, the one-line format and reflection.
#include <hookbus/hookbus.hpp>
#include <hookbus/reflect.hpp>

#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <type_traits>
#include <utility>

namespace {

using namespace hookbus;

template <Event E>
struct Listener {
  void observe(const E&) {}
  auto answer(const E&) const {
    if constexpr (EventWithResult<E>) return std::optional<result_t<E>>{};
  }
};

template <Event E>
struct Provider {
  void register_hooks(Registrar& registrar) {
    registrar.on<E>([](const E&) {});
    registrar.on<E>(&Listener<E>::observe, &listener);
  }
  Listener<E> listener;
};

template <Event E>
void use_event(Hooks& hooks, ConnectionGroup& connections) {
  auto listener = std::make_shared<Listener<E>>();
  connections.add(hooks.on<E>([](const E&) {}, {.label = "observer"}));
  connections.add(hooks.on<E>(&Listener<E>::answer, listener.get()));
  connections.add(hooks.on<E>(&Listener<E>::observe, listener, {.priority = 1}));
  if constexpr (EventWithResult<E>) {
    connections.add(hooks.on<E>([](const E&) { return result_t<E>{}; }));
    connections.add(hooks.on<E>([](const E&) -> std::optional<result_t<E>> { return std::nullopt; },
                                {.failure = FailurePolicy::fail_closed, .tools = "bash|mcp__*"}));
  }
  Provider<E> provider;
  connections.add(hooks.add(provider));
  const E event{};
  E moved{};
  std::stop_source stop;
  if constexpr (EventWithResult<E>) {
    const result_t<E> by_reference = hooks.emit(event);
    const result_t<E> by_value = hooks.emit(std::move(moved));
    const result_t<E> stoppable = hooks.emit(event, stop.get_token());
    (void)by_reference, (void)by_value, (void)stoppable;
  } else {
    hooks.emit(event);
    hooks.emit(std::move(moved));
    hooks.emit(event, stop.get_token());
  }
  const HookOutcome outcome = hooks.emit(HookEvent(event));
  (void)outcome;
  (void)hooks.has_handlers<E>();
}

template <CatalogueType T>
std::string use_type(const T& value) {
  const boost::json::value json = to_json(value);
  const T again = from_json<T>(json, {.unknown_fields = UnknownFields::error});
  (void)unknown_fields<T>(json);
  std::string text = format_line(again) + write_json(json) + reflect::type_display_name<T>();
  if constexpr (reflect::DescribedStruct<T>)
    boost::mp11::mp_for_each<reflect::members_of<T>>([&](auto member) { text += member.name; });
  return text;
}

}  // namespace

// Not called: compiling it is the test.
std::string hookbus_public_headers_instantiated() {
  Hooks hooks;
  ConnectionGroup connections;
  std::string text;
  reflect::for_each_type<HookEvent>([&]<class E>(std::type_identity<E>) { use_event<E>(hooks, connections); });
  reflect::for_each_type<reflect::CatalogueTypes<>>([&]<class T>(std::type_identity<T>) { text += use_type(T{}); });
  for (const std::string_view name : reflect::enum_wire_names<Decision>()) text += name;
  text += reflect::enum_wire_name(InputAction::continue_).value_or("");
  text += std::to_string(static_cast<int>(reflect::enum_from_wire_name<Decision>("deny").value_or(Decision::none)));
  return text;
}
