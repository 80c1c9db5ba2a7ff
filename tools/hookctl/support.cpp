// Helpers every command file may use (declared in commands.hpp).

#include "commands.hpp"

#include <hookbus/json.hpp>

#include <fmt/format.h>

namespace hookctl {

std::string pretty_json(const boost::json::value& value) {
  return hookbus::write_json(value, hookbus::JsonLayout::indented);
}

void check_unknown_fields(const Invocation& invocation, const std::vector<std::string>& messages,
                          std::string_view schema) {
  if (messages.empty()) return;
  if (invocation.has("--strict"))
    throw UsageError(fmt::format("{}; 'hookctl schema {}' shows the fields", printable(fmt::format("{}", fmt::join(messages, "; "))), schema));
  for (const std::string& message : messages)
    print_to_stderr("hookctl {}: warning: {}\n", invocation.command().name, printable(message));
}

}  // namespace hookctl
