// Cline's answer (formats/cline/format.hpp), as its 3.x extension reads it
// (hook-factory.ts, HookProcess.ts): a run that ends other than with exit
// code 0 (exit 2 included) or after 30 s is a failed hook whose answer is
// not read; on exit 0, stdout is the answer, or else the last {...} block in
// it (a hook may log before it); no valid JSON is no answer.
#include <hookbus/json.hpp>

#include "catalogue/instantiations.hpp"
#include "formats/answer_fields.hpp"
#include "formats/cline/format.hpp"
#include "process/run_end.hpp"
#include "support/text.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>

namespace hookbus::detail {
namespace {

namespace json = boost::json;

// Cline cuts contextModification to this many characters.
constexpr std::size_t kClineMaxContext = 50'000;

std::string cline_who(const ClaudeCodeCommand& hook) { return fmt::format("{} ({})", hook.label, hook.source); }

// The last {...} block of `text`, braces matched from its last '}'; empty when there is none.
std::string_view cline_last_block(std::string_view text) {
  const std::size_t end = text.rfind('}');
  if (end == std::string_view::npos) return {};
  int depth = 0;
  for (std::size_t i = end + 1; i-- > 0;) {
    if (text[i] == '}') ++depth;
    else if (text[i] == '{' && --depth == 0) return text.substr(i, end + 1 - i);
  }
  return {};
}

// The JSON object a run printed, or nullopt: stdout whole, else its last block.
std::optional<json::object> cline_printed_object(std::string_view out) {
  for (const std::string_view candidate : {out, cline_last_block(out)}) {
    if (candidate.empty()) continue;
    try {
      json::value value = parse_json(candidate, "stdout");
      if (value.is_object()) return std::move(value.as_object());
    } catch (const JsonError&) {
    }
  }
  return std::nullopt;
}

// The answer's fields, each checked as it is read: a field of the wrong type,
// or the removed shouldContinue, makes the answer invalid, which Cline counts
// a failed hook.
class ClineAnswer : public AnswerFields<ClineAnswer> {
 public:
  ClineAnswer(const ClaudeCodeCommand& hook, const ProcessResult& run, json::object object)
      : AnswerFields(std::move(object)), hook_(hook), run_(run) {
    if (raw("shouldContinue") != nullptr)
      fail("its answer has shouldContinue, which Cline no longer reads; answer {\"cancel\": true} to stop");
    cancel = boolean("cancel").value_or(false);
    context = string("contextModification").value_or("");
    if (context.size() > kClineMaxContext) context = valid_utf8(context.substr(0, kClineMaxContext));
    error_message = string("errorMessage").value_or("");
  }

  // Why the task stops: its errorMessage, else a sentence naming the hook.
  std::string stop_reason() const {
    return error_message.empty() ? valid_utf8(fmt::format("cancelled by Cline hook '{}'", hook_.label)) : error_message;
  }

  bool cancel = false;
  std::string context;
  std::string error_message;

 private:
  [[noreturn]] void fail(std::string_view what) const { run_failed(cline_who(hook_), run_, what); }
  [[noreturn]] void wrong(std::string_view key, std::string_view expected, const json::value& got) const {
    fail(fmt::format("its answer's {} must be {}, got {}", key, expected, write_json(got)));
  }

  friend class AnswerFields<ClineAnswer>;

  const ClaudeCodeCommand& hook_;
  const ProcessResult& run_;
};

template <class R>
void cline_add_context(R& result, const ClineAnswer& answer) {
  if (!answer.context.empty()) result.additional_context.push_back(answer.context);
}

}  // namespace

template <class E>
HookAnswer<E> cline_answer(const ClaudeCodeCommand& hook, const E&, const ProcessResult& run,
                           const ClaudeCodeToolNames&) {
  if (triage_run(cline_who(hook), run, hook.timeout) == RunEnd::exit_code_2)
    run_failed(cline_who(hook), run, "it exited with code 2; Cline counts any exit but 0 a failed hook and does not "
                                     "read its answer");
  std::optional<json::object> printed = cline_printed_object(trim(run.stdout_text));
  if (!printed) {
    if constexpr (std::is_void_v<HookAnswer<E>>) return;
    else return std::nullopt;  // no JSON: Cline's {"cancel": false}
  }
  const ClineAnswer answer(hook, run, std::move(*printed));
  // "cancel" stops the task: the operation it answers for (a tool call, a
  // prompt, a compaction) does not happen either.
  const auto stop = [&] { return StopRequest{.reason = answer.stop_reason(), .decided_by = std::nullopt}; };
  if constexpr (std::is_same_v<E, ToolCallEvent>) {
    ToolCallResult result;
    cline_add_context(result, answer);
    if (answer.cancel) {
      result.decision = Decision::deny;
      result.reason = answer.stop_reason();
      result.stop = stop();
    }
    if (result.decision == Decision::none && result.additional_context.empty()) return std::nullopt;
    return result;
  } else if constexpr (std::is_same_v<E, ToolResultEvent> || std::is_same_v<E, ToolExecutionFailureEvent> ||
                       std::is_same_v<E, SessionStartEvent>) {
    typename E::Result result;
    cline_add_context(result, answer);
    if (answer.cancel) result.stop = stop();
    if (!result.stop && result.additional_context.empty()) return std::nullopt;
    return result;
  } else if constexpr (std::is_same_v<E, InputEvent>) {
    InputResult result;
    if (answer.cancel) {
      result.action = InputAction::reject;
      result.reason = answer.stop_reason();
      result.stop = stop();
      return result;
    }
    cline_add_context(result, answer);
    if (result.additional_context.empty()) return std::nullopt;
    return result;
  } else if constexpr (std::is_same_v<E, SessionBeforeCompactEvent>) {
    if (!answer.cancel) return std::nullopt;
    SessionBeforeCompactResult result;
    result.cancel = true;
    result.reason = answer.stop_reason();
    result.stop = stop();
    return result;
  } else {
    // TaskComplete, and events without a Cline hook: the answer is checked, nothing follows from it.
    if constexpr (!std::is_void_v<HookAnswer<E>>) return std::nullopt;
  }
}

namespace {
[[gnu::used]] constexpr auto cline_answers_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &cline_answer<E>; });
}  // namespace

}  // namespace hookbus::detail
