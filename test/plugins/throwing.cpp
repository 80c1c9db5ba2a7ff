// A plugin whose provider registers a handler and then fails.
#include <hookbus/plugin.hpp>

#include <stdexcept>

HOOKBUS_PLUGIN("throwing") {
  registrar.on<hookbus::ToolCallEvent>([](const hookbus::ToolCallEvent&) {
    hookbus::ToolCallResult deny;
    deny.decision = hookbus::Decision::deny;
    return deny;
  });
  throw std::runtime_error("settings file missing");
}
