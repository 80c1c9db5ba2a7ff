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

// A message as Gemini's llm_request has it: its role ("model" for the
// model's, "system", "user" for the rest, a tool's result too) and its text.
json::object gemini_message(const Message& message) {
  const std::string_view role = message.role == Role::assistant ? "model" : message.role == Role::system ? "system" : "user";
  return {{"role", role}, {"content", text_of(message.content)}};
}

std::string_view gemini_tool_mode(ToolChoice choice) {
  switch (choice) {
    case ToolChoice::auto_: return "AUTO";
    case ToolChoice::required: return "ANY";
    case ToolChoice::none: return "NONE";
  }
  return "AUTO";
}

// Gemini's llm_request (its hookTranslator's LLMRequest): the model, the
// messages as text (the system prompt first, as a system message), the
// generation config and the tools offered by Gemini's names.
json::object gemini_llm_request(const BeforeModelCallEvent& event, const ClaudeCodeToolNames& tool_names) {
  json::array messages;
  if (!event.system_prompt.empty()) messages.push_back(gemini_message({.role = Role::system, .content = {TextPart{event.system_prompt}}}));
  for (const Message& message : event.messages) messages.push_back(gemini_message(message));
  json::object config;
  if (event.settings.temperature) config["temperature"] = *event.settings.temperature;
  if (event.settings.max_output_tokens) config["maxOutputTokens"] = *event.settings.max_output_tokens;
  if (event.settings.top_p) config["topP"] = *event.settings.top_p;
  if (!event.settings.stop_sequences.empty()) {
    json::array stops;
    for (const std::string& stop : event.settings.stop_sequences) stops.push_back(json::string(stop));
    config["stopSequences"] = std::move(stops);
  }
  json::array allowed;
  for (const ToolSpec& tool : event.tools) allowed.push_back(json::string(tool_names.to_claude(tool.name)));
  return {{"model", event.model},
          {"messages", std::move(messages)},
          {"config", std::move(config)},
          {"toolConfig", {{"mode", gemini_tool_mode(event.settings.tool_choice)}, {"allowedFunctionNames", std::move(allowed)}}}};
}

// Gemini's llm_response (LLMResponse): the text, as one candidate's parts.
json::object gemini_llm_response(const Message& response) {
  const std::string text = text_of(response.content);
  return {{"text", text},
          {"candidates",
           json::array{json::object{{"content", {{"role", "model"}, {"parts", json::array{json::string(text)}}}},
                                    {"finishReason", "STOP"}}}}};
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
  } else if constexpr (std::is_same_v<E, BeforeModelCallEvent>) {
    payload["llm_request"] = gemini_llm_request(event, tool_names);
  } else if constexpr (std::is_same_v<E, AfterModelCallEvent>) {
    // The bus's after_model_call has the model, not the request's messages.
    payload["llm_request"] = json::object{{"model", event.model}, {"messages", json::array()}};
    payload["llm_response"] = event.response ? json::value(gemini_llm_response(*event.response)) : json::value(nullptr);
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
