// Must not compile: a handler of an observe-only event (turn_start) that
// returns a result. The event has none, so the deny would be dropped without a
// word. With -DCOMPILES it returns void and must compile (the control).
#include <hookbus/hooks.hpp>

void register_handler(hookbus::Hooks& hooks) {
#ifdef COMPILES
  const hookbus::Connection connection = hooks.on<hookbus::TurnStartEvent>([](const hookbus::TurnStartEvent&) {});
#else
  const hookbus::Connection connection = hooks.on<hookbus::TurnStartEvent>(
      [](const hookbus::TurnStartEvent&) { return hookbus::ToolCallResult{.decision = hookbus::Decision::deny}; });
#endif
}
