// What an external hook reads on stdin: the event as JSON (to_json), with the
// names other agent systems' hooks read (hook_event_name, conv_id, kodelet's
// keys). See include/hookbus/external.hpp and docs/external-hooks.md.
#include "formats/kodelet/protocol.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/types.hpp>

#include "catalogue/instantiations.hpp"
#include "support/utc_time.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>
#include <variant>

namespace hookbus {
namespace {

// kodelet's names for our fields, added to the payload so its hooks run unchanged.
struct KodeletKey {
  std::string_view event;  // our wire name
  std::string_view ours;
  std::string_view theirs;
};
constexpr KodeletKey kKodeletKeys[] = {
    {"tool_call", "input", "tool_input"},
    {"tool_result", "input", "tool_input"},
    {"input", "text", "message"},
};

// kodelet's StructuredToolResult for after_tool_call's `tool_output`, as kodelet
// writes it: toolName, success, error (left out when empty), timestamp. Its
// `metadata` (and `metadataType`) is tool-specific data that an engine's
// result does not have, so it is left out, as kodelet does for tools without
// any; the result's text is in the payload's own `content`.
boost::json::object kodelet_tool_output(const ToolResultEvent& event) {
  boost::json::object output{{"toolName", event.tool_name}, {"success", !event.is_error}};
  if (std::string error = event.is_error ? text_of(event.content) : ""; !error.empty()) output["error"] = std::move(error);
  output["timestamp"] = detail::utc_now_text(detail::TimePrecision::seconds);
  return output;
}

// kodelet's agent_stop `messages`: one {role, content} per text, content a
// string (kodelet's llmtypes.Message); tool calls and results as kodelet
// writes them into the same list, as text.
boost::json::array kodelet_messages(const std::vector<Message>& messages) {
  boost::json::array list;
  const auto add = [&](std::string_view role, std::string content) {
    list.push_back(boost::json::object{{"role", role}, {"content", std::move(content)}});
  };
  for (const Message& message : messages) {
    const std::string text = text_of(message.content);
    if (message.role == Role::tool) {
      add("user", "\U0001F504 Tool result:\n" + text);
      continue;
    }
    if (!text.empty()) add(message.role == Role::assistant ? "assistant" : message.role == Role::system ? "system" : "user", text);
    for (const ToolCall& call : message.tool_calls)
      add("assistant", fmt::format("\U0001F527 Using tool: {} with input: {}", call.name, write_json(call.input)));
  }
  return list;
}

}  // namespace

namespace detail {

template <class E>
boost::json::object hook_payload_of(const E& event, std::string_view requested_name) {
  boost::json::object payload = to_json(event).as_object();
  // Copies, taken before inserting: insertion may move the nested context.
  const boost::json::object context = payload.at("context").as_object();
  const std::string_view wire_name = event_name(event_index<E>);
  auto add = [&](std::string_view key, boost::json::value value) {
    if (!payload.contains(key)) payload.emplace(key, std::move(value));
  };
  add("hook_event_name", boost::json::string(wire_name));
  add("event", boost::json::string(requested_name));
  add("conv_id", context.at("session_id"));
  add("cwd", context.at("cwd"));
  add("invoked_by", context.at("invoked_by"));
  if (const auto* recipe = context.if_contains("recipe_name"); recipe != nullptr && !recipe->as_string().empty())
    add("recipe_name", *recipe);
  for (const auto& key : kKodeletKeys)
    if (key.event == wire_name && payload.contains(key.ours)) add(key.theirs, boost::json::value(payload.at(key.ours)));
  if constexpr (std::is_same_v<E, ToolCallEvent> || std::is_same_v<E, ToolResultEvent>) add("tool_user_id", boost::json::string(event.tool_call_id));
  if constexpr (std::is_same_v<E, ToolResultEvent>) add("tool_output", kodelet_tool_output(event));
  if constexpr (std::is_same_v<E, TurnEndEvent>) {
    add("turn_number", event.turn_index + 1);  // kodelet counts turns from 1
    add("response", boost::json::string(text_of(event.message.content)));
  }
  // Asked for by kodelet's name, agent_end's messages are kodelet's: content a string, not parts.
  if constexpr (std::is_same_v<E, AgentEndEvent>)
    if (requested_name == "agent_stop") payload["messages"] = kodelet_messages(event.messages);
  return payload;
}

namespace {
[[gnu::used]] constexpr auto payload_builders_instantiated = addresses_for<HookEvent>([]<class E>(std::type_identity<E>) {
  return &hook_payload_of<E>;
});
}  // namespace

}  // namespace detail
}  // namespace hookbus
