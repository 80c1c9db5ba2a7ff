// A plugin as a user writes one: denies `deploy`, and counts turns without a label.
#include <hookbus/plugin.hpp>

HOOKBUS_PLUGIN("guard") {
  registrar.on<hookbus::ToolCallEvent>(
      [](const hookbus::ToolCallEvent& call) {
        hookbus::ToolCallResult result;
        if (call.tool_name == "deploy") {
          result.decision = hookbus::Decision::deny;
          result.reason = "deploys need a human";
        }
        return result;
      },
      {.label = "no-deploy"});
  registrar.on<hookbus::TurnEndEvent>([](const hookbus::TurnEndEvent&) {});
}
