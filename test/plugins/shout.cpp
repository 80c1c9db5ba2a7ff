// A plugin of built-ins: `shout` denies the tool its settings name, with a
// reason in capitals; its settings are checked strictly, by the plugin.
#include <hookbus/plugin.hpp>

#include <algorithm>
#include <cctype>
#include <string>

HOOKBUS_BUILTIN_PLUGIN("shout") {
  builtins.add("shout", [](const hookbus::ConfigObject& settings) -> hookbus::BuiltinProvider {
    settings.allow_only({"tool"});
    const std::string tool = settings.required("tool", "string (the tool to deny)").as_nonempty_string();
    return [tool](hookbus::Registrar& registrar) {
      registrar.on<hookbus::ToolCallEvent>(
          [tool](const hookbus::ToolCallEvent& call) {
            hookbus::ToolCallResult result;
            if (call.tool_name == tool) {
              result.decision = hookbus::Decision::deny;
              result.reason = "NO " + tool;
              std::transform(result.reason.begin(), result.reason.end(), result.reason.begin(),
                             [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
            }
            return result;
          },
          {.label = "builtin:shout", .kind = hookbus::HandlerKind::builtin});
    };
  });
}
