// A plugin whose tool_call handler calls back into the test program (which
// exports these functions), so a test can hold a call inside the library.
#include <hookbus/plugin.hpp>

extern "C" void plugin_test_handler_entered();
extern "C" void plugin_test_handler_body();

HOOKBUS_PLUGIN("blocking") {
  registrar.on<hookbus::ToolCallEvent>([](const hookbus::ToolCallEvent&) {
    plugin_test_handler_entered();
    plugin_test_handler_body();
  });
}
