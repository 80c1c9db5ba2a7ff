// An engine built against the installed package that loads the plugin built
// next to it and prints what it decided, and who decided it.
#include <hookbus/hookbus.hpp>

#include <iostream>

int main() {
  hookbus::Hooks hooks;
  try {
    const hookbus::LoadedPlugin plugin = hookbus::load_plugin(hooks, PLUGIN_FILE);
    const hookbus::ToolCallResult result = hooks.emit(hookbus::ToolCallEvent{.tool_call_id = "c1", .tool_name = "deploy"});
    const bool denied = result.decision == hookbus::Decision::deny && result.decided_by;
    std::cout << "loaded " << plugin.name() << "; deploy: "
              << (denied ? "denied by " + result.decided_by->handler + ": " + result.reason : "not denied") << '\n';
  } catch (const hookbus::PluginError& error) {
    std::cerr << error.what() << '\n';
    return 1;
  }
}
