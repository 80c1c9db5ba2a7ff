// Uses the installed package: an event's JSON and its trace line.
#include <hookbus/hookbus.hpp>

#include <boost/json/serialize.hpp>

#include <iostream>

int main() {
  const hookbus::ToolCallEvent call{.tool_call_id = "c1", .tool_name = "bash", .input = {{"command", "ls"}}};
  std::cout << boost::json::serialize(hookbus::to_json(call)) << '\n' << hookbus::format_line(call) << '\n';
}
