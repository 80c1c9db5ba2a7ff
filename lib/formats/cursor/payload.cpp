// Cursor's payload (formats/cursor/format.hpp): the common fields of every
// agent hook, and each event's own under Cursor's names. What hookbus's events
// do not carry is sent empty (docs/agent-formats.md lists it).
#include <hookbus/json.hpp>

#include "catalogue/instantiations.hpp"
#include "formats/cursor/format.hpp"
#include "support/files.hpp"

#include <type_traits>

namespace hookbus::detail {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

// A file the agent is about to read, as beforeReadFile sends it; empty when it
// cannot be read as a regular file of at most a config file's size.
std::string cursor_file_content(const fs::path& file) {
  try {
    return read_regular_file_if_exists(file, max_config_file_size).value_or("");
  } catch (const FileReadError&) {
    return "";
  }
}

std::string cursor_input_string(const json::object& input, std::string_view key) {
  const json::value* value = input.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

// The absolute path of the file a read or an edit names.
std::string cursor_file_path(const json::object& input, const fs::path& cwd) {
  std::string path = cursor_input_string(input, "file_path");
  if (path.empty()) path = cursor_input_string(input, "path");
  return path.empty() ? path : (cwd / path).lexically_normal().string();
}

// Cursor's name of why a run ended: stop's and subagentStop's "status".
std::string_view cursor_status(RunStatus status) {
  switch (status) {
    case RunStatus::completed: return "completed";
    case RunStatus::failed: return "error";
    case RunStatus::cancelled: return "aborted";
  }
  return "completed";
}

struct CursorFields {
  std::string_view event;
  const ClaudeCodeToolNames& names;
  fs::path cwd;
  json::object& out;

  template <class E>
  void tool(const E& e) const {
    const std::string name = cursor_tool_name(names.to_claude(e.tool_name));
    out["cwd"] = cwd.string();
    if (event == "beforeShellExecution" || event == "afterShellExecution") {
      out["command"] = cursor_input_string(e.input, "command");
      out["sandbox"] = false;
    } else if (event == "beforeMCPExecution" || event == "afterMCPExecution") {
      out["tool_name"] = name.substr(name.find(':') + 1);
      out["tool_input"] = write_json(e.input);  // a JSON string, as Cursor sends it
    } else if (event == "beforeReadFile") {
      out["file_path"] = cursor_file_path(e.input, cwd);
      out["content"] = cursor_file_content(cursor_file_path(e.input, cwd));
      out["attachments"] = json::array();
    } else if (event == "afterFileEdit") {
      out["file_path"] = cursor_file_path(e.input, cwd);
      json::object edit{{"old_string", cursor_input_string(e.input, "old_string")},
                        {"new_string", e.input.contains("content") ? cursor_input_string(e.input, "content")
                                                                    : cursor_input_string(e.input, "new_string")}};
      out["edits"] = json::array{std::move(edit)};
    } else {
      out["tool_name"] = name;
      out["tool_input"] = e.input;
      out["tool_use_id"] = e.tool_call_id;
    }
  }

  void operator()(const ToolCallEvent& e) const {
    tool(e);
    if (event == "preToolUse") out["agent_message"] = "";
  }
  void operator()(const ToolResultEvent& e) const {
    tool(e);
    const std::string text = text_of(e.content);
    if (event == "afterShellExecution") out["output"] = text;
    else if (event == "afterMCPExecution") out["result_json"] = text;
    else if (event == "postToolUse") out["tool_output"] = text;
    else if (event == "postToolUseFailure") {
      out["error_message"] = text;
      out["failure_type"] = "error";
      out["is_interrupt"] = false;
    }
    if (event != "afterFileEdit") out["duration"] = 0;
  }
  void operator()(const ToolExecutionFailureEvent& e) const {
    tool(e);
    out["error_message"] = e.error;
    out["failure_type"] = "error";
    out["is_interrupt"] = false;
    out["duration"] = 0;
  }
  void operator()(const InputEvent& e) const {
    out["prompt"] = e.text;
    out["attachments"] = json::array();
  }
  void operator()(const AgentEndEvent& e) const {
    out["status"] = cursor_status(e.status);
    out["loop_count"] = e.after_follow_up ? 1 : 0;
  }
  void operator()(const TurnEndEvent& e) const { out["text"] = text_of(e.message.content); }
  void operator()(const SubagentStartEvent& e) const {
    out["subagent_id"] = e.task_id;
    out["subagent_type"] = e.label;
    out["task"] = e.task;
    out["parent_conversation_id"] = e.context.session_id;
  }
  void operator()(const SubagentEndEvent& e) const {
    out["subagent_id"] = e.task_id;
    out["subagent_type"] = e.label;
    out["status"] = cursor_status(e.status);
    out["summary"] = e.result;
    out["loop_count"] = e.after_follow_up ? 1 : 0;
  }
  void operator()(const SessionStartEvent& e) const {
    out["session_id"] = e.context.session_id;
    out["is_background_agent"] = false;
  }
  void operator()(const SessionShutdownEvent& e) const {
    out["session_id"] = e.context.session_id;
    out["reason"] = e.reason == SessionShutdownReason::error ? "error" : "completed";
    out["is_background_agent"] = false;
  }
  void operator()(const SessionBeforeCompactEvent& e) const {
    out["trigger"] = e.trigger == CompactTrigger::manual ? "manual" : "auto";
    out["context_tokens"] = e.preparation.tokens_before;
    out["messages_to_compact"] = e.preparation.messages_to_summarize.size();
  }
  template <class E>
  void operator()(const E&) const {}  // events without a Cursor hook carry the common fields only
};

}  // namespace

template <class E>
json::object cursor_payload(const E& event, std::string_view format_event, const ClaudeCodeToolNames& tool_names,
                            std::string_view transcript_path, const fs::path& project_dir) {
  const EventContext& context = event.context;
  json::object payload;
  payload["conversation_id"] = context.session_id;
  payload["generation_id"] = context.turn_id;  // Cursor's id of the user's message being answered
  payload["model"] = context.model;
  payload["hook_event_name"] = format_event;
  payload["cursor_version"] = "";
  payload["workspace_roots"] = json::array{json::string(project_dir.string())};
  payload["user_email"] = nullptr;
  if (transcript_path.empty()) payload["transcript_path"] = nullptr;
  else payload["transcript_path"] = transcript_path;
  CursorFields{format_event, tool_names, context.cwd.empty() ? project_dir : fs::path(context.cwd), payload}(event);
  return payload;
}

namespace {
[[gnu::used]] constexpr auto cursor_payloads_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &cursor_payload<E>; });
}  // namespace

}  // namespace hookbus::detail
