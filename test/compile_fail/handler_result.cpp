// Must not compile: a tool_call handler returning another event's result.
// With -DCOMPILES it returns its own and must compile (the control).
#include <hookbus/hooks.hpp>

void register_handler(hookbus::Hooks& hooks) {
#ifdef COMPILES
  const hookbus::Connection connection =
      hooks.on<hookbus::ToolCallEvent>([](const hookbus::ToolCallEvent&) { return hookbus::ToolCallResult{}; });
#else
  const hookbus::Connection connection =
      hooks.on<hookbus::ToolCallEvent>([](const hookbus::ToolCallEvent&) { return hookbus::InputResult{}; });
#endif
}
