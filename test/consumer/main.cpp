// An engine's first lines against hookbus, written as a user writes them:
// designated initialisers that leave members out (HandlerOptions,
// ToolCallResult, ToolCallEvent), an event's JSON and trace line, and the bus
// (which needs the compiled library and its spdlog/fmt/Boost.JSON dependencies).
#include <hookbus/hookbus.hpp>

#include <boost/json/serialize.hpp>

#include <iostream>

int main() {
  const hookbus::ToolCallEvent call{.tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls"}}};
  std::cout << boost::json::serialize(hookbus::to_json(call)) << '\n' << hookbus::format_line(call) << '\n';

  hookbus::Hooks hooks;
  const hookbus::Connection guard = hooks.on<hookbus::ToolCallEvent>(
      [](const hookbus::ToolCallEvent&) {
        return hookbus::ToolCallResult{.decision = hookbus::Decision::deny, .reason = "no"};
      },
      {.label = "guard", .failure = hookbus::FailurePolicy::fail_closed, .tools = "bash"});
  const hookbus::ToolCallResult outcome = hooks.emit(call);
  std::cout << "denied by " << outcome.decided_by->handler << ": " << outcome.reason << '\n';
  // The last place the library looks for its voice plugins: the configured
  // install prefix's, or, as a subproject, the build's own plugins/.
  std::cout << "built-in plugins in " << hookbus::builtin_plugin_directories().back().path.string() << '\n';
}
