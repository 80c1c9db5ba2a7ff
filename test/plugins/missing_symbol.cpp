// A plugin that needs a function nobody provides: the loader refuses it.
#include <hookbus/plugin.hpp>

extern "C" void hookbus_test_function_nobody_defines();

HOOKBUS_PLUGIN("needy") {
  registrar.on<hookbus::TurnEndEvent>([](const hookbus::TurnEndEvent&) { hookbus_test_function_nobody_defines(); });
}
