// Claude Code's answer: what a hook's exit code, stdout and stderr mean for
// each event (include/hookbus/claude_code.hpp, docs/claude-code.md).
#include <hookbus/claude_code.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>

#include "catalogue/instantiations.hpp"
#include "formats/answer_fields.hpp"
#include "formats/claude_code/run.hpp"
#include "formats/hook_format.hpp"
#include "process/run_end.hpp"
#include "support/logging.hpp"
#include "support/text.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace hookbus {
namespace {

namespace json = boost::json;

// --------------------------------------------------------------- answers

// The command, and where it is declared: what its failures name.
std::string who(const ClaudeCodeCommand& hook) { return fmt::format("{} ({})", hook.label, hook.source); }

[[noreturn]] void fail(const ClaudeCodeCommand& hook, const ProcessResult& run, std::string_view what) {
  detail::run_failed(who(hook), run, what);
}

// What a hook printed on exit 0: a JSON object (Claude Code's answer), plain text, or nothing.
struct Answer {
  std::optional<json::object> object;
  std::string text;  // stdout when it is not a JSON object
};

Answer read_answer(const ProcessResult& run) {
  const std::string_view out = detail::trim(run.stdout_text);
  if (out.empty()) return {};
  if (out.front() == '{') {
    try {
      json::value value = parse_json(out, "stdout");
      if (value.is_object()) return {std::move(value.as_object()), ""};
    } catch (const JsonError&) {
      // Not JSON after all: Claude Code treats it as text too.
    }
  }
  return {std::nullopt, detail::valid_utf8(out)};  // text for the model: it enters results
}

// The answer's fields, each checked as it is read.
class Fields : public detail::AnswerFields<Fields> {
 public:
  Fields(const ClaudeCodeCommand& hook, const ProcessResult& run, json::object object, std::string path)
      : AnswerFields(std::move(object)), hook_(hook), run_(run), path_(std::move(path)) {}

  Fields nested(const json::object& inner, std::string_view key) const {
    return Fields(hook_, run_, inner, path_ + std::string(key) + ".");
  }
  [[noreturn]] void fail_value(std::string_view key, std::string_view what) const {
    fail(hook_, run_, fmt::format("its answer's {}{} {}", path_, key, what));
  }

 private:
  [[noreturn]] void wrong(std::string_view key, std::string_view expected, const json::value& got) const {
    fail_value(key, fmt::format("must be {}, got {}", expected, write_json(got)));
  }

  friend class detail::AnswerFields<Fields>;

  const ClaudeCodeCommand& hook_;
  const ProcessResult& run_;
  std::string path_;
};

// The top-level "decision": "block", or "approve" (Claude Code's older name
// for allow); PreToolUse hooks written against older docs also say "ask".
enum class Legacy { none, block, approve, ask };

struct Common {
  Legacy decision = Legacy::none;
  std::string reason;
  std::optional<StopRequest> stop;
  std::vector<std::string> system_messages;
  std::optional<Fields> specific;  // hookSpecificOutput
};

Common read_common(const Fields& fields, std::string_view claude_event) {
  Common common;
  if (auto decision = fields.string("decision")) {
    if (*decision == "block") common.decision = Legacy::block;
    else if (*decision == "approve") common.decision = Legacy::approve;
    else if (*decision == "ask") common.decision = Legacy::ask;
    else if (!decision->empty())
      fields.fail_value("decision", "must be \"block\", \"approve\" or \"ask\", got \"" + *decision + "\"");
  }
  common.reason = fields.string("reason").value_or("");
  if (fields.boolean("continue") == false) common.stop = StopRequest{fields.string("stopReason").value_or(""), std::nullopt};
  if (auto message = fields.string("systemMessage"); message && !message->empty())
    common.system_messages.push_back(*message);
  (void)fields.boolean("suppressOutput");  // transcript display in Claude Code: nothing to hide here
  if (auto specific = fields.object("hookSpecificOutput")) {
    common.specific.emplace(fields.nested(*specific, "hookSpecificOutput"));
    if (auto name = common.specific->string("hookEventName"); name && *name != claude_event)
      common.specific->fail_value("hookEventName", fmt::format("is \"{}\", but the hook ran for {}", *name, claude_event));
  }
  return common;
}

std::vector<std::string> context_of(const Common& common) {
  if (!common.specific) return {};
  auto context = common.specific->string("additionalContext");
  if (!context || context->empty()) return {};
  return {*context};
}

Decision permission_decision(const Fields& specific, std::string_view key) {
  const auto value = specific.string(key);
  if (!value || value->empty()) return Decision::none;
  if (*value == "allow") return Decision::allow;
  if (*value == "deny") return Decision::deny;
  if (*value == "ask") return Decision::ask;
  if (*value == "defer") return Decision::defer;
  specific.fail_value(key, "must be \"allow\", \"deny\", \"ask\" or \"defer\", got \"" + *value + "\"");
}

// PostToolUse's replacement of the result the model sees: `updatedToolOutput`
// (any tool, Claude Code 2.1.121 on), else the older `updatedMCPToolOutput`.
// A hook that sets both means the newer one, which Claude Code's docs tell it
// to prefer. A string is the new text; anything else (Bash's
// {stdout, stderr, ...}) its JSON, as tool_response passes a structured result.
std::optional<std::vector<ContentPart>> updated_tool_output(const Fields& specific) {
  for (const std::string_view key : {"updatedToolOutput", "updatedMCPToolOutput"})
    if (const json::value* output = specific.raw(key); output != nullptr && !output->is_null())
      return std::vector<ContentPart>{
          TextPart{output->is_string() ? std::string(output->get_string()) : write_json(*output)}};
  return std::nullopt;
}

void add(std::vector<std::string>& list, const std::string& text) {
  if (!text.empty()) list.push_back(text);
}

// Exit 2: stderr is the message, or a default naming the hook.
std::string exit_two_message(const ClaudeCodeCommand& hook, const ProcessResult& run) {
  std::string message = run.stderr_tail(1000);
  if (message.empty()) message = detail::valid_utf8(fmt::format("blocked by Claude Code hook '{}' (exit code 2)", hook.label));
  return message;
}

// ------------------------------------------------------------ per event

struct Outcome {
  const ClaudeCodeCommand& hook;
  const ProcessResult& run;
  const ClaudeCodeToolNames& names;
  bool exit_two;
  Answer answer;

  std::optional<Common> common() const {
    if (!answer.object) return std::nullopt;
    return read_common(Fields(hook, run, *answer.object, ""), hook.event);
  }

  std::optional<ToolCallResult> operator()(const ToolCallEvent&) const {
    ToolCallResult result;
    if (exit_two) {
      result.decision = Decision::deny;
      result.reason = exit_two_message(hook, run);
      return result;
    }
    const auto c = common();
    if (!c) return std::nullopt;
    result.stop = c->stop;
    result.system_messages = c->system_messages;
    if (c->decision == Legacy::block) result.decision = Decision::deny;
    if (c->decision == Legacy::approve) result.decision = Decision::allow;
    if (c->decision == Legacy::ask) result.decision = Decision::ask;
    result.reason = c->reason;
    if (c->specific) {
      if (const Decision decision = permission_decision(*c->specific, "permissionDecision"); decision != Decision::none) {
        result.decision = decision;
        result.reason = c->specific->string("permissionDecisionReason").value_or("");
      }
      result.input = c->specific->object("updatedInput");
      result.additional_context = context_of(*c);
      if (result.decision == Decision::defer) {  // Claude Code ignores both with a defer
        result.input.reset();
        result.additional_context.clear();
      }
    }
    return result;
  }

  std::optional<PermissionRequestResult> operator()(const PermissionRequestEvent&) const {
    PermissionRequestResult result;
    if (exit_two) {
      result.decision = Decision::deny;
      result.reason = exit_two_message(hook, run);
      return result;
    }
    const auto c = common();
    if (!c) return std::nullopt;
    result.stop = c->stop;
    result.system_messages = c->system_messages;
    if (c->specific) {
      if (auto decision = c->specific->object("decision")) {
        const Fields fields = c->specific->nested(*decision, "decision");
        result.decision = permission_decision(fields, "behavior");
        result.reason = fields.string("message").value_or("");
        result.input = fields.object("updatedInput");
        if (fields.boolean("interrupt") == true && result.decision == Decision::deny && !result.stop)
          result.stop = StopRequest{result.reason, std::nullopt};
      }
    }
    return result;
  }

  // PostToolUse and PostToolUseFailure (a tool_result, and a tool that could
  // not run): what the hook says goes to the model with the result. A legacy
  // block's "reason" comes first, then additionalContext: Claude Code's
  // PostToolUse documents the reason as what Claude is told, and the context
  // as more for it to consider.
  template <class Result>
  std::optional<Result> after_tool(Result result) const {
    if (exit_two) {
      add(result.additional_context, exit_two_message(hook, run));
      return result;
    }
    const auto c = common();
    if (!c) return std::nullopt;
    result.stop = c->stop;
    result.system_messages = c->system_messages;
    if (c->decision == Legacy::block) add(result.additional_context, c->reason);
    for (const auto& context : context_of(*c)) add(result.additional_context, context);
    if constexpr (requires { result.content; })
      if (c->specific) result.content = updated_tool_output(*c->specific);
    return result;
  }
  std::optional<ToolResultResult> operator()(const ToolResultEvent&) const { return after_tool(ToolResultResult{}); }
  std::optional<ToolExecutionFailureResult> operator()(const ToolExecutionFailureEvent&) const {
    return after_tool(ToolExecutionFailureResult{});
  }

  std::optional<InputResult> operator()(const InputEvent&) const {
    InputResult result;
    if (exit_two) {
      result.action = InputAction::reject;
      result.reason = exit_two_message(hook, run);
      return result;
    }
    if (!answer.object) {  // plain text on stdout is context for the model
      if (answer.text.empty()) return std::nullopt;
      result.additional_context.push_back(answer.text);
      return result;
    }
    const auto c = common();
    result.stop = c->stop;
    result.system_messages = c->system_messages;
    if (c->decision == Legacy::block) {
      result.action = InputAction::reject;
      result.reason = c->reason;
    }
    result.additional_context = context_of(*c);
    return result;
  }

  template <class Result>
  std::optional<Result> keep_going(Result result) const {
    if (exit_two) {
      result.follow_up_messages.push_back(exit_two_message(hook, run));
      return result;
    }
    const auto c = common();
    if (!c) return std::nullopt;
    result.stop = c->stop;
    result.system_messages = c->system_messages;
    if (c->decision == Legacy::block) {
      if (c->reason.empty()) fail(hook, run, "its answer blocks the stop without a \"reason\"; the agent needs one to go on");
      result.follow_up_messages.push_back(c->reason);
    }
    return result;
  }
  std::optional<AgentEndResult> operator()(const AgentEndEvent&) const { return keep_going(AgentEndResult{}); }
  std::optional<SubagentEndResult> operator()(const SubagentEndEvent&) const { return keep_going(SubagentEndResult{}); }

  std::optional<SessionStartResult> operator()(const SessionStartEvent&) const {
    SessionStartResult result;
    if (exit_two) {
      result.system_messages.push_back(exit_two_message(hook, run));
      return result;
    }
    if (!answer.object) {
      if (answer.text.empty()) return std::nullopt;
      result.additional_context.push_back(answer.text);
      return result;
    }
    const auto c = common();
    result.stop = c->stop;
    result.system_messages = c->system_messages;
    result.additional_context = context_of(*c);
    return result;
  }

  std::optional<SessionBeforeCompactResult> operator()(const SessionBeforeCompactEvent&) const {
    SessionBeforeCompactResult result;
    if (exit_two) {
      result.system_messages.push_back(exit_two_message(hook, run));
      return result;
    }
    const auto c = common();
    if (!c) return std::nullopt;
    result.stop = c->stop;
    result.system_messages = c->system_messages;
    return result;
  }

  // The events Claude Code hooks run on that have no result on the bus
  // (SessionEnd, Notification, SubagentStart; every Claude Code event whose
  // event has a result is answered above): what would be shown to the user is
  // logged, and so is a stop (`"continue": false`), which no engine can see
  // on these events.
  template <class E>
  detail::HookAnswer<E> operator()(const E&) const {
    const auto warn = [&](std::string_view what) {
      detail::log(spdlog::level::warn, "Claude Code hook {} ({}) on {}: {}", hook.label, hook.source, hook.event, what);
    };
    if (exit_two) {
      warn(exit_two_message(hook, run));
      return detail::HookAnswer<E>();
    }
    const auto c = common();
    if (!c) return detail::HookAnswer<E>();
    for (const auto& message : c->system_messages) warn(message);
    if (c->stop)
      warn(fmt::format("asks to stop the agent (\"continue\": false{}), but {} has no result to carry a stop: the agent "
                       "goes on",
                       c->stop->reason.empty() ? "" : ", stopReason \"" + c->stop->reason + "\"", hook.event));
    return detail::HookAnswer<E>();
  }
};

}  // namespace

namespace detail {

template <class E>
HookAnswer<E> claude_code_answer(const ClaudeCodeCommand& hook, const E& event, const ProcessResult& run,
                                 const ClaudeCodeToolNames& tool_names) {
  const bool exit_two = triage_run(who(hook), run, hook.timeout) == RunEnd::exit_code_2;
  Outcome outcome{hook, run, tool_names, exit_two, exit_two ? Answer{} : read_answer(run)};
  if constexpr (!std::is_same_v<E, InputEvent> && !std::is_same_v<E, SessionStartEvent>)
    if (!exit_two && !outcome.answer.object && !outcome.answer.text.empty())
      log(spdlog::level::debug, "Claude Code hook {} ({}) printed text, which {} ignores: {}", hook.label, hook.source,
          hook.event, outcome.answer.text);
  return outcome(event);
}

AnswerTexts answer_texts(const ProcessResult& run) {
  if (!run.succeeded()) return {};
  const Answer answer = read_answer(run);
  if (!answer.object) return {};
  AnswerTexts texts;
  const auto add = [](const json::object& object, std::string_view key, std::vector<std::string>& to) {
    if (const json::value* text = object.if_contains(key); text != nullptr && text->is_string() && !text->get_string().empty())
      to.push_back(valid_utf8(text->get_string()));
  };
  if (const json::value* specific = answer.object->if_contains("hookSpecificOutput"); specific && specific->is_object())
    add(specific->get_object(), "additionalContext", texts.context);
  add(*answer.object, "systemMessage", texts.messages);
  return texts;
}

namespace {
[[gnu::used]] constexpr auto claude_code_answers_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &claude_code_answer<E>; });
}  // namespace

}  // namespace detail

HookOutcome claude_code_outcome(const ClaudeCodeCommand& hook, const HookEvent& event, const ProcessResult& run,
                                const ClaudeCodeToolNames& tool_names) {
  const detail::HookFormat& format = detail::hook_format_of(hook.protocol);
  return std::visit(
      [&]<class E>(const E& e) {
        return detail::outcome_of<E>(
            [&] { return std::get<detail::FormatRun<E>>(*format.runs).answer(hook, e, run, tool_names); });
      },
      event);
}

}  // namespace hookbus
