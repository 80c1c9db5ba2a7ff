// Gemini CLI's payload (gemini_cli/format.hpp): Claude Code's, whose common
// fields Gemini shares (session_id, transcript_path, cwd, hook_event_name),
// with Gemini's own where they differ (its hookEventHandler and the
// reference in docs/hooks).
#include "formats/gemini_cli/format.hpp"

#include "catalogue/instantiations.hpp"
#include "support/utc_time.hpp"

#include <fmt/format.h>


namespace hookbus::detail {
namespace {

namespace json = boost::json;

std::string gemini_last_text(const std::vector<Message>& messages, Role role) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it)
    if (it->role == role) return text_of(it->content);
  return "";
}

// AfterTool's tool_response: what the model reads, what the user sees, and the error of a failed run.
json::object gemini_tool_response(const std::string& text, bool failed) {
  return {{"llmContent", text},
          {"returnDisplay", text},
          {"error", failed ? json::value(json::object{{"message", text}}) : json::value(nullptr)}};
}

std::string_view gemini_session_end_reason(SessionShutdownReason reason) {
  switch (reason) {
    case SessionShutdownReason::quit: return "exit";
    case SessionShutdownReason::new_session: return "clear";
    case SessionShutdownReason::switch_session:
    case SessionShutdownReason::reload:
    case SessionShutdownReason::error: return "other";
  }
  return "other";
}

// Notification's details of a tool that asks for the user's confirmation, by its kind.
json::object gemini_permission_details(const std::string& tool, const json::object& input) {
  if (const auto* command = input.if_contains("command"); command != nullptr && command->is_string()) {
    const std::string_view text = command->get_string();
    return {{"type", "exec"},
            {"title", "Confirm Shell Command"},
            {"command", text},
            {"rootCommand", text.substr(0, text.find(' '))}};
  }
  if (const auto* file = input.if_contains("file_path"); file != nullptr && file->is_string())
    return {{"type", "edit"}, {"title", "Confirm Edit"}, {"filePath", *file}, {"fileName", *file}};
  if (tool.starts_with("mcp_")) return {{"type", "mcp"}, {"title", "Confirm MCP Tool"}, {"toolName", tool}};
  return {{"type", "info"}, {"title", "Confirm " + tool}};
}

}  // namespace

template <class E>
json::object gemini_cli_payload(const E& event, std::string_view format_event, const ClaudeCodeToolNames& tool_names,
                                std::string_view transcript_path, const std::filesystem::path& project_dir) {
  json::object payload = claude_code_payload_of(event, format_event, tool_names, transcript_path, project_dir);
  for (const std::string_view key : {"permission_mode", "model"}) payload.erase(key);  // Claude Code's, not Gemini's
  payload["timestamp"] = utc_now_text(TimePrecision::milliseconds);
  if constexpr (std::is_same_v<E, ToolCallEvent>) {
    payload.erase("tool_use_id");
  } else if constexpr (std::is_same_v<E, ToolResultEvent> || std::is_same_v<E, ToolExecutionFailureEvent>) {
    for (const std::string_view key : {"tool_use_id", "error", "is_interrupt"}) payload.erase(key);
    if constexpr (std::is_same_v<E, ToolResultEvent>)
      payload["tool_response"] = gemini_tool_response(text_of(event.content), event.is_error);
    else
      payload["tool_response"] = gemini_tool_response(event.error, true);
  } else if constexpr (std::is_same_v<E, AgentEndEvent>) {
    payload.erase("last_assistant_message");
    payload["prompt"] = gemini_last_text(event.messages, Role::user);
    payload["prompt_response"] = gemini_last_text(event.messages, Role::assistant);
  } else if constexpr (std::is_same_v<E, SessionShutdownEvent>) {
    payload["reason"] = gemini_session_end_reason(event.reason);
  } else if constexpr (std::is_same_v<E, SessionBeforeCompactEvent>) {
    payload.erase("custom_instructions");
  } else if constexpr (std::is_same_v<E, PermissionRequestEvent>) {
    const std::string tool = tool_names.to_claude(event.tool_name);
    for (const std::string_view key : {"tool_name", "tool_input", "tool_use_id", "permission_suggestions"})
      payload.erase(key);
    payload["notification_type"] = "ToolPermission";
    payload["message"] = fmt::format("Tool {} requires permission", tool);
    payload["details"] = gemini_permission_details(tool, event.input);
  }
  return payload;
}

namespace {
[[gnu::used]] constexpr auto gemini_cli_payloads_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &gemini_cli_payload<E>; });
}  // namespace

}  // namespace hookbus::detail
