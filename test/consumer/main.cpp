// Uses the installed package: an event's JSON, its trace line, and the bus
// (which needs the compiled library and its spdlog/fmt/Boost.JSON dependencies).
#include <hookbus/hookbus.hpp>

#include <boost/json/serialize.hpp>

#include <iostream>

int main() {
  const hookbus::ToolCallEvent call{.tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls"}}};
  std::cout << boost::json::serialize(hookbus::to_json(call)) << '\n' << hookbus::format_line(call) << '\n';

  hookbus::Hooks hooks;
  const hookbus::Connection guard = hooks.on<hookbus::ToolCallEvent>(
      [](const hookbus::ToolCallEvent&) { return hookbus::ToolCallResult{.decision = hookbus::Decision::deny, .reason = "no"}; });
  std::cout << "denied: " << hooks.emit(call).reason << '\n';
}
