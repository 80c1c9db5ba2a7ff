// Must not compile: a tool_call handler that does not take the event. With
// -DCOMPILES it does and must compile (the control).
#include <hookbus/hooks.hpp>

void register_handler(hookbus::Hooks& hooks) {
#ifdef COMPILES
  const hookbus::Connection connection = hooks.on<hookbus::ToolCallEvent>([](const hookbus::ToolCallEvent&) {});
#else
  const hookbus::Connection connection = hooks.on<hookbus::ToolCallEvent>([](int) {});
#endif
}
