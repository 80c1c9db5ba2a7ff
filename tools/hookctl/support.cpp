// Helpers every command file may use (declared in commands.hpp).

#include "commands.hpp"

#include <hookbus/json.hpp>

namespace hookctl {

std::string pretty_json(const boost::json::value& value) {
  return hookbus::write_json(value, hookbus::JsonLayout::indented);
}

}  // namespace hookctl
