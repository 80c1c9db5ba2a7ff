// Helpers every command file may use (declared in commands.hpp).

#include "commands.hpp"

#include <boost/json/serialize.hpp>

namespace hookctl {
namespace {

namespace json = boost::json;

void append_pretty(std::string& out, const json::value& value, std::size_t depth);

template <class Container, class AppendItem>
void append_block(std::string& out, char open, char close, const Container& items, std::size_t depth,
                  AppendItem append_item) {
  out += open;
  if (items.empty()) {
    out += close;
    return;
  }
  const std::string indent(2 * (depth + 1), ' ');
  const char* separator = "\n";
  for (const auto& item : items) {
    out += separator;
    out += indent;
    append_item(item);
    separator = ",\n";
  }
  out += '\n';
  out.append(2 * depth, ' ');
  out += close;
}

void append_pretty(std::string& out, const json::value& value, std::size_t depth) {
  if (value.is_object()) {
    append_block(out, '{', '}', value.get_object(), depth, [&](const json::key_value_pair& member) {
      out += json::serialize(member.key());
      out += ": ";
      append_pretty(out, member.value(), depth + 1);
    });
  } else if (value.is_array()) {
    append_block(out, '[', ']', value.get_array(), depth,
                 [&](const json::value& element) { append_pretty(out, element, depth + 1); });
  } else {
    out += json::serialize(value);
  }
}

}  // namespace

std::string pretty_json(const boost::json::value& value) {
  std::string out;
  append_pretty(out, value, 0);
  return out;
}

}  // namespace hookctl
