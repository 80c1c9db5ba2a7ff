// The [hooks] tables of Codex's config.toml as hooks.json's JSON (formats/codex/codex_toml.hpp).
#include "formats/codex/codex_toml.hpp"

#include <hookbus/config.hpp>

#include "support/files.hpp"
#include "support/utf8.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <fmt/format.h>
#include <toml++/toml.h>

#include <cmath>
#include <string>

namespace hookbus::detail {
namespace {

// Where a value is: its TOML path and its place in the file.
class Place {
 public:
  Place(ConfigLocation where, const toml::node& node) : where_(std::move(where)), node_(node) {}

  [[nodiscard]] Place key(std::string_view name, const toml::node& node) const { return {where_.key(name), node}; }
  [[nodiscard]] Place element(std::size_t index, const toml::node& node) const {
    return {where_.element(index), node};
  }

  [[noreturn]] void fail(std::string_view what) const {
    const auto& begin = node_.source().begin;
    throw ConfigError(where_, fmt::format("line {}, column {}: {}", begin.line, begin.column, what));
  }

 private:
  ConfigLocation where_;
  const toml::node& node_;
};

std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date or time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

// A TOML value as JSON holds it.
boost::json::value json_of(const toml::node& node, const Place& place) {
  if (const auto* table = node.as_table()) {
    boost::json::object object;
    for (const auto& [key, value] : *table) object[key.str()] = json_of(value, place.key(key.str(), value));
    return object;
  }
  if (const auto* array = node.as_array()) {
    boost::json::array elements;
    for (std::size_t i = 0; i < array->size(); ++i)
      elements.push_back(json_of((*array)[i], place.element(i, (*array)[i])));
    return elements;
  }
  if (const auto* text = node.as_string()) return boost::json::value(text->get());
  if (const auto* integer = node.as_integer()) return boost::json::value(integer->get());
  if (const auto* boolean = node.as_boolean()) return boost::json::value(boolean->get());
  if (const auto* number = node.as_floating_point()) {
    if (!std::isfinite(number->get())) place.fail("is not a finite number, which JSON cannot hold; write a number");
    return boost::json::value(number->get());
  }
  place.fail(fmt::format("is {}, which no hook setting is; write it as a string", type_name(node)));
}

void expect(const toml::node& node, const Place& place, toml::node_type type, std::string_view fix) {
  if (node.type() == type) return;
  const std::string_view wanted = type == toml::node_type::string    ? "a string"
                                  : type == toml::node_type::boolean ? "a boolean"
                                                                     : "a table";
  place.fail(fmt::format("is {}, expected {}; write {}", type_name(node), wanted, fix));
}

// A handler of a matcher group: the keys Codex reads, checked where their types are known.
void check_handler(const toml::node& node, const Place& place) {
  const auto* handler = node.as_table();
  if (handler == nullptr)
    place.fail(fmt::format("is {}, expected a table, one handler; write [[hooks.EVENT.hooks]] with type = "
                           "\"command\" and command = \"...\"",
                           type_name(node)));
  for (const auto& [key, value] : *handler) {
    const Place at = place.key(key.str(), value);
    const std::string_view name = key.str();
    if (name == "type") expect(value, at, toml::node_type::string, "type = \"command\"");
    else if (name == "command") expect(value, at, toml::node_type::string, "command = \"...\", the shell command");
    else if (name == "commandWindows" || name == "command_windows")
      expect(value, at, toml::node_type::string, "command_windows = \"...\"");
    else if (name == "statusMessage") expect(value, at, toml::node_type::string, "statusMessage = \"...\"");
    else if (name == "async") expect(value, at, toml::node_type::boolean, "async = true or async = false");
    else if (name == "timeout" || name == "timeout_sec") {
      const auto* seconds = value.as_integer();
      if (seconds == nullptr || seconds->get() < 0)
        at.fail(fmt::format("is {}, expected a whole number of seconds, 0 or more; write {} = 30",
                            seconds == nullptr ? type_name(value) : "negative", name));
    }
  }
}

// One event's matcher groups: an array of tables, each with its handlers.
void check_groups(const toml::node& node, const Place& place, std::string_view event) {
  const auto* groups = node.as_array();
  if (groups == nullptr)
    place.fail(fmt::format("is {}, expected an array of matcher groups; write [[hooks.{}]], one for each group",
                           type_name(node), event));
  for (std::size_t i = 0; i < groups->size(); ++i) {
    const toml::node& element = (*groups)[i];
    const Place group_place = place.element(i, element);
    const auto* group = element.as_table();
    if (group == nullptr)
      group_place.fail(fmt::format("is {}, expected a table, one matcher group; write [[hooks.{}]] with its "
                                   "matcher and [[hooks.{}.hooks]]",
                                   type_name(element), event, event));
    if (const auto* matcher = group->get("matcher"))
      expect(*matcher, group_place.key("matcher", *matcher), toml::node_type::string,
             "matcher = \"Bash\", a tool name or a regular expression");
    if (const auto* handlers_node = group->get("hooks")) {
      const Place handlers_place = group_place.key("hooks", *handlers_node);
      const auto* handlers = handlers_node->as_array();
      if (handlers == nullptr)
        handlers_place.fail(fmt::format("is {}, expected an array of handlers; write [[hooks.{}.hooks]], one for "
                                        "each handler",
                                        type_name(*handlers_node), event));
      for (std::size_t k = 0; k < handlers->size(); ++k)
        check_handler((*handlers)[k], handlers_place.element(k, (*handlers)[k]));
    }
  }
}

}  // namespace

CodexTomlHooks parse_codex_toml_hooks(std::string_view text, const std::filesystem::path& file) {
  const ConfigLocation where{file, {}, {}, std::nullopt};
  toml::table document;
  try {
    document = toml::parse(text, file.string());
  } catch (const toml::parse_error& error) {
    const auto& begin = error.source().begin;
    throw ConfigError(where, valid_utf8(fmt::format("line {}, column {}: {}; Codex reads this file too: fix the TOML "
                                                    "there",
                                                    begin.line, begin.column, error.description())));
  }
  CodexTomlHooks read;
  const toml::node* hooks_node = document.get("hooks");
  if (hooks_node == nullptr) return read;
  const Place hooks_place(where.key("hooks"), *hooks_node);
  const auto* hooks = hooks_node->as_table();
  if (hooks == nullptr)
    hooks_place.fail(fmt::format("is {}, expected a table; write [[hooks.EVENT]] tables, as [[hooks.PreToolUse]]",
                                 type_name(*hooks_node)));
  for (const auto& [key, value] : *hooks) {
    const Place at = hooks_place.key(key.str(), value);
    if (key.str() == "state") {
      expect(value, at, toml::node_type::table, "[hooks.state], Codex's own record of each hook");
      read.state = json_of(value, at).as_object();
      continue;
    }
    check_groups(value, at, key.str());
    read.hooks[key.str()] = json_of(value, at);
  }
  return read;
}

CodexTomlHooks read_codex_toml_hooks(const std::filesystem::path& file) {
  std::optional<std::string> text;
  try {
    text = read_regular_file_if_exists(file, max_config_file_size);
  } catch (const FileReadError& error) {
    throw ConfigError(ConfigLocation{file, {}, {}, std::nullopt}, error.what());
  }
  if (!text) return {};
  return parse_codex_toml_hooks(*text, file);
}

}  // namespace hookbus::detail
