// Claude Code's hook payload: the JSON a hook reads on stdin, with Claude
// Code's event and field names (include/hookbus/claude_code.hpp,
// docs/claude-code.md).
#include <hookbus/claude_code.hpp>
#include <hookbus/json.hpp>

#include "catalogue/instantiations.hpp"
#include "catalogue/json_text.hpp"
#include "formats/hook_format.hpp"

#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace hookbus {
namespace {

namespace json = boost::json;

std::string_view session_source(SessionStartReason reason) {
  switch (reason) {
    case SessionStartReason::startup:
    case SessionStartReason::reload: return "startup";
    case SessionStartReason::new_session: return "clear";
    case SessionStartReason::resume:
    case SessionStartReason::fork: return "resume";
    case SessionStartReason::compact: return "compact";
  }
  return "startup";
}

std::string_view session_end_reason(SessionShutdownReason reason) {
  switch (reason) {
    case SessionShutdownReason::quit: return "prompt_input_exit";
    case SessionShutdownReason::new_session: return "clear";
    case SessionShutdownReason::switch_session:
    case SessionShutdownReason::reload:
    case SessionShutdownReason::error: return "other";
  }
  return "other";
}

// What the catalogue's events do not say, given as Claude Code's most
// general value: session_compact does not say what triggered it, agent_error
// has the error's text but not its kind.
constexpr std::string_view compact_trigger = "auto";
constexpr std::string_view stop_failure_error = "unknown";

std::string_view model_switch_source(ModelSelectSource source) {
  switch (source) {
    case ModelSelectSource::set: return "command";
    case ModelSelectSource::cycle: return "picker";
    case ModelSelectSource::restore: return "resume";
  }
  return "command";
}

// Claude Code's tool_response: a structured result when the engine's one text
// part is a JSON object (engines that pass tool results through), else the
// content as MCP-style parts.
json::value tool_response(const std::vector<ContentPart>& content) {
  if (content.size() == 1)
    if (const auto* text = std::get_if<TextPart>(&content[0])) {
      auto parsed = detail::parse_json_text(text->text);
      if (auto* document = std::get_if<json::value>(&parsed); document != nullptr && document->is_object())
        return std::move(*document);
    }
  json::array parts;
  for (const auto& part : content) parts.push_back(to_json(part));
  return parts;
}

std::string last_assistant_text(const std::vector<Message>& messages) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it)
    if (it->role == Role::assistant) return text_of(it->content);
  return "";
}

// The event's own fields, under Claude Code's names.
struct EventFields {
  const ClaudeCodeToolNames& names;
  json::object& out;

  void operator()(const ToolCallEvent& e) const {
    out["tool_name"] = names.to_claude(e.tool_name);
    out["tool_input"] = e.input;
    out["tool_use_id"] = e.tool_call_id;
  }
  void operator()(const PermissionRequestEvent& e) const {
    out["tool_name"] = names.to_claude(e.tool_name);
    out["tool_input"] = e.input;
    out["tool_use_id"] = e.tool_call_id;
    json::array suggestions;
    for (const auto& s : e.permission_suggestions) suggestions.emplace_back(s);
    out["permission_suggestions"] = std::move(suggestions);
  }
  void operator()(const ToolResultEvent& e) const {
    out["tool_name"] = names.to_claude(e.tool_name);
    out["tool_input"] = e.input;
    out["tool_use_id"] = e.tool_call_id;
    if (e.is_error) {
      out["error"] = text_of(e.content);
      out["is_interrupt"] = false;
    } else {
      out["tool_response"] = tool_response(e.content);
    }
  }
  void operator()(const ToolExecutionFailureEvent& e) const {
    out["tool_name"] = names.to_claude(e.tool_name);
    out["tool_input"] = e.input;
    out["tool_use_id"] = e.tool_call_id;
    out["error"] = e.error;
    out["is_interrupt"] = false;
  }
  void operator()(const InputEvent& e) const { out["prompt"] = e.text; }
  void operator()(const AgentEndEvent& e) const {
    out["stop_hook_active"] = e.after_follow_up;
    out["last_assistant_message"] = last_assistant_text(e.messages);
  }
  void operator()(const SubagentStartEvent& e) const {
    out["agent_id"] = e.task_id;
    out["agent_type"] = e.label;
  }
  void operator()(const SubagentEndEvent& e) const {
    out["stop_hook_active"] = e.after_follow_up;
    out["agent_id"] = e.task_id;
    out["agent_type"] = e.label;
    out["last_assistant_message"] = e.result;
  }
  void operator()(const SessionStartEvent& e) const {
    out["source"] = session_source(e.reason);
    if (!e.context.model.empty()) out["model"] = e.context.model;  // Claude Code sends it when it knows it
  }
  void operator()(const SessionShutdownEvent& e) const { out["reason"] = session_end_reason(e.reason); }
  void operator()(const SessionBeforeCompactEvent& e) const {
    out["trigger"] = e.trigger == CompactTrigger::manual ? "manual" : "auto";
    out["custom_instructions"] = e.custom_instructions.value_or("");
  }
  void operator()(const NotificationEvent& e) const {
    out["message"] = e.message;
    out["title"] = e.title;
    out["notification_type"] = e.kind;
  }
  void operator()(const SessionCompactEvent& e) const {
    out["trigger"] = compact_trigger;
    out["compact_summary"] = e.compaction_entry.summary;
  }
  void operator()(const PermissionDeniedEvent& e) const {
    out["tool_name"] = names.to_claude(e.tool_name);
    out["tool_input"] = e.parameters;
    out["tool_use_id"] = "";
    out["reason"] = "";
  }
  void operator()(const AgentErrorEvent& e) const {
    out["error"] = stop_failure_error;
    out["error_details"] = e.error;
    out["last_assistant_message"] = e.error;
  }
  void operator()(const ModelSelectEvent& e) const {
    out["from_model"] = e.previous_model.value_or("");
    out["to_model"] = e.model;
    out["requested_model"] = e.model;
    out["source"] = model_switch_source(e.source);
  }
  void operator()(const MessageUpdateEvent& e) const {
    out["turn_id"] = e.context.turn_id;
    out["message_id"] = "";
    out["index"] = 0;
    out["final"] = false;
    out["delta"] = text_of(e.message.content);
  }
  template <class E>
  void operator()(const E&) const {}  // events without a Claude Code equivalent carry only the common fields
};

}  // namespace

namespace detail {

template <class E>
boost::json::object claude_code_payload_of(const E& event, std::string_view format_event,
                                           const ClaudeCodeToolNames& tool_names, std::string_view transcript_path,
                                           const std::filesystem::path& project_dir) {
  const EventContext& context = event.context;
  json::object payload;
  payload["session_id"] = context.session_id;
  payload["transcript_path"] = transcript_path;
  payload["cwd"] = context.cwd.empty() ? project_dir.string() : context.cwd;
  payload["permission_mode"] = context.permission_mode.empty() ? "default" : context.permission_mode;
  payload["hook_event_name"] = format_event;
  EventFields{tool_names, payload}(event);
  // A hook fired inside a subagent learns which, as Claude Code tells it
  // (subagent_start and subagent_end name theirs in their own fields).
  if (!context.agent_id.empty() && !payload.contains("agent_id")) {
    payload["agent_id"] = context.agent_id;
    payload["agent_type"] = context.agent_type;
  }
  // One transcript per session: a subagent's messages are in the session's.
  if constexpr (std::is_same_v<E, SubagentEndEvent>) payload["agent_transcript_path"] = transcript_path;
  return payload;
}

namespace {
[[gnu::used]] constexpr auto claude_code_payloads_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &claude_code_payload_of<E>; });
}  // namespace

}  // namespace detail

boost::json::object claude_code_payload(const HookEvent& event, std::string_view claude_event,
                                        const ClaudeCodeToolNames& tool_names, std::string_view transcript_path,
                                        const std::filesystem::path& project_dir) {
  return std::visit(
      [&](const auto& e) { return detail::claude_code_payload_of(e, claude_event, tool_names, transcript_path, project_dir); },
      event);
}

}  // namespace hookbus
