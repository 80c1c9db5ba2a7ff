// An engine built against the installed package that loads the plugin built
// next to it and prints what it decided, and who decided it; then enables
// hookbus's own `tts` (when that hookbus was built with it), which it finds
// in the installed package wherever that was installed, and says what it spoke.
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
  try {
    const hookbus::ConnectionGroup tts = hookbus::default_builtins().install(hooks, "tts", {});
    const hookbus::MessageSendResult sent =
        hooks.emit(hookbus::MessageSendEvent{.response_text = "hello", .is_voice = true});
    const auto* audio = sent.parts.size() == 1 ? std::get_if<hookbus::AudioPart>(&sent.parts[0]) : nullptr;
    std::cout << "tts: " << (audio != nullptr ? "spoke 'hello' as " + audio->mime_type : "said nothing") << '\n';
  } catch (const hookbus::ConfigError& error) {
    std::cout << "tts: " << error.what() << '\n';
  }
}
