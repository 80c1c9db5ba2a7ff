// Cursor's answer (formats/cursor/format.hpp): exit 0 with a flat JSON object,
// or nothing; exit 2 denies; any other end is a failed run, which the
// handler's failure policy (Cursor's failClosed) decides.
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>

#include "catalogue/instantiations.hpp"
#include "formats/answer_fields.hpp"
#include "formats/cursor/format.hpp"
#include "process/run_end.hpp"
#include "support/logging.hpp"
#include "support/text.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace hookbus::detail {
namespace {

namespace json = boost::json;

std::string cursor_who(const ClaudeCodeCommand& hook) { return fmt::format("{} ({})", hook.label, hook.source); }

// The answer's fields, each checked as it is read: a field of the wrong type
// is a failed run naming it.
class CursorAnswer : public AnswerFields<CursorAnswer> {
 public:
  CursorAnswer(const ClaudeCodeCommand& hook, const ProcessResult& run) : hook_(hook), run_(run) {
    const std::string_view out = trim(run.stdout_text);
    if (out.empty()) return;
    try {
      json::value value = parse_json(out, "stdout");
      if (!value.is_object()) fail("its answer must be a JSON object, got " + write_json(value));
      object_ = std::move(value.as_object());
    } catch (const JsonError& error) {
      fail(fmt::format("its answer is not JSON ({}); Cursor counts this a failed run", error.what()));
    }
  }

  Decision permission() const {
    const auto value = string("permission");
    if (!value || value->empty()) return Decision::none;
    if (*value == "allow") return Decision::allow;
    if (*value == "deny") return Decision::deny;
    if (*value == "ask") return Decision::ask;
    fail(fmt::format("its answer's permission must be \"allow\", \"deny\" or \"ask\", got \"{}\"", *value));
  }
  [[noreturn]] void fail(std::string_view what) const { run_failed(cursor_who(hook_), run_, what); }

 private:
  [[noreturn]] void wrong(std::string_view key, std::string_view expected, const json::value& got) const {
    fail(fmt::format("its answer's {} must be {}, got {}", key, expected, write_json(got)));
  }

  friend class AnswerFields<CursorAnswer>;

  const ClaudeCodeCommand& hook_;
  const ProcessResult& run_;
};

void cursor_add(std::vector<std::string>& list, const std::optional<std::string>& text) {
  if (text && !text->empty()) list.push_back(*text);
}

template <class E>
HookAnswer<E> cursor_read(const ClaudeCodeCommand& hook, const E& event, const ProcessResult& run) {
  const bool exit_two = triage_run(cursor_who(hook), run, hook.timeout) == RunEnd::exit_code_2;
  // Exit 2 is "permission": "deny", its reason what the hook printed on stderr.
  const std::string exit_two_reason =
      exit_two ? (run.stderr_tail(1000).empty()
                      ? valid_utf8(fmt::format("blocked by Cursor hook '{}' (exit code 2)", hook.label))
                      : run.stderr_tail(1000))
               : std::string();
  if constexpr (std::is_same_v<E, ToolCallEvent>) {
    ToolCallResult result;
    if (exit_two) {
      result.decision = Decision::deny;
      result.reason = exit_two_reason;
      return result;
    }
    const CursorAnswer answer(hook, run);
    result.decision = answer.permission();
    const auto user_message = answer.string("user_message");
    const auto agent_message = answer.string("agent_message");
    // The model is told agent_message, else user_message; the user sees user_message.
    result.reason = agent_message.value_or(user_message.value_or(""));
    if (agent_message && user_message && !user_message->empty()) result.system_messages.push_back(*user_message);
    if (hook.event == "preToolUse") result.input = answer.object("updated_input");
    if (result.decision == Decision::none && !result.input) return std::nullopt;
    return result;
  } else if constexpr (std::is_same_v<E, InputEvent>) {
    InputResult result;
    if (exit_two) {
      result.action = InputAction::reject;
      result.reason = exit_two_reason;
      return result;
    }
    const CursorAnswer answer(hook, run);
    if (answer.boolean("continue") != false) return std::nullopt;
    result.action = InputAction::reject;
    result.reason = answer.string("user_message").value_or("");
    return result;
  } else if constexpr (std::is_same_v<E, AgentEndEvent> || std::is_same_v<E, SubagentEndEvent>) {
    if (exit_two) return std::nullopt;
    const CursorAnswer answer(hook, run);
    typename E::Result result;
    const auto follow_up = answer.string("followup_message");
    if constexpr (std::is_same_v<E, SubagentEndEvent>)  // Cursor takes it only from a completed subagent
      if (event.status != RunStatus::completed) return std::nullopt;
    cursor_add(result.follow_up_messages, follow_up);
    if (result.follow_up_messages.empty()) return std::nullopt;
    return result;
  } else if constexpr (std::is_same_v<E, ToolResultEvent>) {
    if (exit_two) return std::nullopt;
    const CursorAnswer answer(hook, run);
    if (hook.event != "postToolUse") return std::nullopt;  // the other events after a tool take no answer
    ToolResultResult result;
    cursor_add(result.additional_context, answer.string("additional_context"));
    // updated_mcp_tool_output replaces what the model sees of an MCP tool's result.
    if (auto output = answer.object("updated_mcp_tool_output"); output && event.tool_name.starts_with("mcp__"))
      result.content = std::vector<ContentPart>{TextPart{write_json(*output)}};
    if (result.additional_context.empty() && !result.content) return std::nullopt;
    return result;
  } else if constexpr (std::is_same_v<E, SessionStartEvent>) {
    if (exit_two) return std::nullopt;
    const CursorAnswer answer(hook, run);
    SessionStartResult result;
    cursor_add(result.additional_context, answer.string("additional_context"));
    if (auto env = answer.object("env"))
      for (const auto& [name, value] : *env) {
        if (!value.is_string()) answer.fail(fmt::format("its answer's env.{} must be a string", std::string_view(name)));
        result.environment.push_back({std::string(name), std::string(value.get_string())});
      }
    return result;
  } else if constexpr (std::is_same_v<E, SessionBeforeCompactEvent>) {
    if (exit_two) return std::nullopt;
    SessionBeforeCompactResult result;
    cursor_add(result.system_messages, CursorAnswer(hook, run).string("user_message"));
    if (result.system_messages.empty()) return std::nullopt;
    return result;
  } else {
    // Events whose answer Cursor does not read (sessionEnd, subagentStart,
    // afterAgentResponse, postToolUseFailure): the run is checked, its answer unused.
    if (!exit_two) (void)CursorAnswer(hook, run);
    if constexpr (!std::is_void_v<HookAnswer<E>>) return std::nullopt;
  }
}

}  // namespace

template <class E>
HookAnswer<E> cursor_answer(const ClaudeCodeCommand& hook, const E& event, const ProcessResult& run,
                            const ClaudeCodeToolNames&) {
  return cursor_read(hook, event, run);
}

namespace {
[[gnu::used]] constexpr auto cursor_answers_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &cursor_answer<E>; });
}  // namespace

}  // namespace hookbus::detail
