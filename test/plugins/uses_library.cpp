// A plugin that loads a library of its own (helper.cpp), as a project ships
// one: it denies `deploy` with the reason the library gives.
#include <hookbus/plugin.hpp>

extern "C" const char* plugin_helper_reason();

HOOKBUS_PLUGIN("uses_library") {
  registrar.on<hookbus::ToolCallEvent>(
      [](const hookbus::ToolCallEvent& call) {
        hookbus::ToolCallResult result;
        if (call.tool_name == "deploy") {
          result.decision = hookbus::Decision::deny;
          result.reason = plugin_helper_reason();
        }
        return result;
      },
      {.label = "no-deploy"});
}
