// Copilot CLI's payload (formats/copilot_cli/format.hpp): the camelCase
// dialect of its hooks reference for a camelCase event, Claude Code's for a
// PascalCase one. What hookbus's events do not carry is left out or sent
// as Copilot's default (docs/agent-formats.md lists it).
#include <hookbus/json.hpp>

#include "catalogue/instantiations.hpp"
#include "formats/copilot_cli/format.hpp"
#include "support/utc_time.hpp"

#include <fmt/format.h>

#include <chrono>
#include <type_traits>

namespace hookbus::detail {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

std::string_view copilot_session_source(SessionStartReason reason) {
  switch (reason) {
    case SessionStartReason::resume:
    case SessionStartReason::fork: return "resume";
    case SessionStartReason::new_session: return "new";
    case SessionStartReason::startup:
    case SessionStartReason::reload:
    case SessionStartReason::compact: break;
  }
  return "startup";
}

std::string_view copilot_end_reason(SessionShutdownReason reason) {
  switch (reason) {
    case SessionShutdownReason::error: return "error";
    case SessionShutdownReason::quit: return "user_exit";
    case SessionShutdownReason::switch_session:
    case SessionShutdownReason::new_session:
    case SessionShutdownReason::reload: break;
  }
  return "complete";
}

struct CopilotFields {
  const ClaudeCodeToolNames& names;
  std::string_view transcript_path;
  json::object& out;

  // A tool's name as Copilot's hooks see it, and its arguments as a JSON string, as Copilot sends them.
  template <class E>
  void tool(const E& e) const {
    out["toolName"] = names.to_claude(e.tool_name);
    out["toolArgs"] = write_json(e.input);
  }
  void operator()(const ToolCallEvent& e) const { tool(e); }
  void operator()(const ToolResultEvent& e) const {
    tool(e);
    if (e.is_error) out["error"] = text_of(e.content);
    else out["toolResult"] = json::object{{"resultType", "success"}, {"textResultForLlm", text_of(e.content)}};
  }
  void operator()(const ToolExecutionFailureEvent& e) const {
    tool(e);
    out["error"] = e.error;
  }
  void operator()(const PermissionRequestEvent& e) const {
    out["toolName"] = names.to_claude(e.tool_name);
    out["toolInput"] = e.input;
  }
  void operator()(const InputEvent& e) const { out["prompt"] = e.text; }
  void operator()(const SessionStartEvent& e) const { out["source"] = copilot_session_source(e.reason); }
  void operator()(const SessionShutdownEvent& e) const { out["reason"] = copilot_end_reason(e.reason); }
  void operator()(const AgentEndEvent& e) const {
    out["transcriptPath"] = transcript_path;
    out["stopReason"] = "end_turn";
    out["stop_hook_active"] = e.after_follow_up;
  }
  void operator()(const SubagentStartEvent& e) const {
    out["transcriptPath"] = transcript_path;
    out["agentName"] = e.label;
    out["agentDescription"] = e.task;
  }
  void operator()(const SubagentEndEvent& e) const {
    out["transcriptPath"] = transcript_path;
    out["agentId"] = e.task_id;
    out["agentType"] = e.label;
    out["agentName"] = e.label;
    out["response"] = e.result;
    out["stopReason"] = "end_turn";
  }
  void operator()(const SessionBeforeCompactEvent& e) const {
    out["transcriptPath"] = transcript_path;
    out["trigger"] = e.trigger == CompactTrigger::manual ? "manual" : "auto";
    out["customInstructions"] = e.custom_instructions.value_or("");
  }
  void operator()(const AgentErrorEvent& e) const {
    out["error"] = json::object{{"message", e.error}, {"name", "Error"}};
    out["errorContext"] = "model_call";
    out["recoverable"] = false;
  }
  void operator()(const NotificationEvent& e) const {
    out["hook_event_name"] = "Notification";
    out["message"] = e.message;
    out["title"] = e.title;
    out["notification_type"] = e.kind;
  }
  template <class E>
  void operator()(const E&) const {}  // events without a Copilot hook carry the common fields only
};

}  // namespace

template <class E>
json::object copilot_cli_payload(const E& event, std::string_view format_event, const ClaudeCodeToolNames& tool_names,
                                 std::string_view transcript_path, const fs::path& project_dir) {
  const auto now = std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
  if (copilot_pascal_case(format_event)) {
    json::object payload = claude_code_payload_of(event, format_event, tool_names, transcript_path, project_dir);
    if (json::value* tool = payload.if_contains("tool_name"); tool != nullptr && tool->is_string())
      *tool = copilot_claude_tool_name(tool->get_string());
    payload["timestamp"] = utc_now_text(TimePrecision::milliseconds);
    return payload;
  }
  const EventContext& context = event.context;
  json::object payload;
  payload["sessionId"] = context.session_id;
  payload["timestamp"] = now.time_since_epoch().count();
  payload["cwd"] = context.cwd.empty() ? project_dir.string() : context.cwd;
  CopilotFields{tool_names, transcript_path, payload}(event);
  return payload;
}

namespace {
[[gnu::used]] constexpr auto copilot_cli_payloads_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &copilot_cli_payload<E>; });
}  // namespace

}  // namespace hookbus::detail
