// Cline's payload (formats/cline/format.hpp), as its 3.x extension builds it
// (hook-factory.ts completeParams; docs.cline.bot hook reference): the
// common camelCase fields, and the event's own under its camelCase key.
// What hookbus's events do not carry is sent empty (docs/agent-formats.md).
#include <hookbus/json.hpp>

#include "catalogue/instantiations.hpp"
#include "formats/cline/format.hpp"

#include <chrono>
#include <string>
#include <type_traits>

namespace hookbus::detail {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

// A tool call's arguments as Cline's parameters: a map of strings (its tools
// take XML parameters), each value that is no string as its JSON text; the
// file a tool reads or writes is its "path", as Cline names it.
json::object cline_parameters(const json::object& input) {
  json::object parameters;
  for (const auto& [key, value] : input)
    parameters[key] = value.is_string() ? json::string(value.get_string()) : json::string(write_json(value));
  if (input.contains("file_path") && !input.contains("path")) {
    json::value path = std::move(parameters.at("file_path"));
    parameters.erase("file_path");
    parameters["path"] = std::move(path);
  }
  return parameters;
}

json::object cline_task_metadata(const EventContext& context) {
  return {{"taskId", context.session_id}, {"ulid", context.session_id}};
}

struct ClineFields {
  const ClaudeCodeToolNames& names;
  json::object& out;

  template <class E>
  json::object tool(const E& e) const {
    return {{"toolName", names.to_claude(e.tool_name)}, {"parameters", cline_parameters(e.input)}};
  }

  void operator()(const ToolCallEvent& e) const { out["preToolUse"] = tool(e); }
  void operator()(const ToolResultEvent& e) const {
    json::object post = tool(e);
    post["result"] = text_of(e.content);
    post["success"] = !e.is_error;
    post["executionTimeMs"] = 0;
    out["postToolUse"] = std::move(post);
  }
  void operator()(const ToolExecutionFailureEvent& e) const {
    json::object post = tool(e);
    post["result"] = e.error;
    post["success"] = false;
    post["executionTimeMs"] = 0;
    out["postToolUse"] = std::move(post);
  }
  void operator()(const InputEvent& e) const {
    out["userPromptSubmit"] = json::object{{"prompt", e.text}, {"attachments", json::array()}};
  }
  void operator()(const SessionStartEvent& e) const {
    json::object metadata = cline_task_metadata(e.context);
    if (e.reason == SessionStartReason::resume) {
      json::object previous{{"lastMessageTs", ""}, {"messageCount", ""}, {"conversationHistoryDeleted", "false"}};
      out["taskResume"] = json::object{{"taskMetadata", std::move(metadata)}, {"previousState", std::move(previous)}};
    } else {
      metadata["initialTask"] = "";
      out["taskStart"] = json::object{{"taskMetadata", std::move(metadata)}};
    }
  }
  void operator()(const AgentEndEvent& e) const {
    const bool cancelled = e.status == RunStatus::cancelled;  // TaskCancel's, else TaskComplete's
    out[cancelled ? "taskCancel" : "taskComplete"] = json::object{{"taskMetadata", cline_task_metadata(e.context)}};
  }
  void operator()(const SessionBeforeCompactEvent& e) const {
    out["preCompact"] = json::object{{"taskId", e.context.session_id},
                                     {"ulid", e.context.session_id},
                                     {"contextSize", e.preparation.tokens_before},
                                     {"compactionStrategy", "summarize"}};
  }
  template <class E>
  void operator()(const E&) const {}  // events without a Cline hook carry the common fields only
};

}  // namespace

template <class E>
json::object cline_payload(const E& event, std::string_view format_event, const ClaudeCodeToolNames& tool_names,
                           std::string_view, const fs::path& project_dir) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  json::object payload;
  payload["clineVersion"] = "";
  payload["hookName"] = format_event;
  payload["timestamp"] = std::to_string(now.count());  // milliseconds, as a string
  payload["taskId"] = event.context.session_id;
  payload["workspaceRoots"] = json::array{json::string(project_dir.string())};
  payload["userId"] = "";
  ClineFields{tool_names, payload}(event);
  return payload;
}

namespace {
[[gnu::used]] constexpr auto cline_payloads_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &cline_payload<E>; });
}  // namespace

}  // namespace hookbus::detail
