// Must not compile: a handler of an observe-only event (turn_start) that does
// not take the event. With -DCOMPILES it does and must compile (the control).
#include <hookbus/hooks.hpp>

void register_handler(hookbus::Hooks& hooks) {
#ifdef COMPILES
  const hookbus::Connection connection = hooks.on<hookbus::TurnStartEvent>([](const hookbus::TurnStartEvent&) {});
#else
  const hookbus::Connection connection = hooks.on<hookbus::TurnStartEvent>([](int) {});
#endif
}
