// Gemini CLI's answer (gemini_cli/format.hpp), as its hookRunner and
// hookAggregator read it (google-gemini/gemini-cli docs/hooks, "Exit codes"
// and "Output"; packages/core/src/hooks): the text a hook printed becomes
// Gemini's answer object, which is then said in Claude Code's words and read
// by Claude Code's reader, so each field means here what it means there.
#include "formats/gemini_cli/format.hpp"

#include <hookbus/json.hpp>
#include <hookbus/log.hpp>

#include "catalogue/instantiations.hpp"
#include "process/run_end.hpp"
#include "support/logging.hpp"
#include "support/text.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>

namespace hookbus::detail {
namespace {

namespace json = boost::json;

std::string gemini_who(const ClaudeCodeCommand& hook) { return fmt::format("{} ({})", hook.label, hook.source); }

// A text that parses as JSON, and a JSON string that holds JSON once more; else nothing.
std::optional<json::value> gemini_json(std::string_view text) {
  try {
    json::value value = parse_json(text, "");
    if (value.is_string()) {
      const std::string inner(value.get_string());
      if (auto again = gemini_json(trim(inner)); again && !again->is_string()) return again;
    }
    return value;
  } catch (const JsonError&) {
    return std::nullopt;
  }
}

// Gemini's answer object from what a run that ended by itself printed:
// stdout, else stderr, whatever the exit code. Plain text is a systemMessage
// on exit 0, a warning on exit 1, a deny with the text as the reason on any
// other code. Nothing printed: no answer.
std::optional<json::object> gemini_answer_object(const ClaudeCodeCommand& hook, const ProcessResult& run) {
  std::string_view text = trim(run.stdout_text);
  if (text.empty()) text = trim(run.stderr_text);
  if (text.empty()) return std::nullopt;
  if (auto value = gemini_json(text)) {
    if (value->is_object()) return std::move(value->as_object());
    run_failed(gemini_who(hook), run, fmt::format("its answer is JSON but no object: {}", write_json(*value)));
  }
  const std::string said = valid_utf8(text);
  if (run.exit_code == 0) return json::object{{"systemMessage", said}};
  if (run.exit_code == 1) return json::object{{"systemMessage", "Warning: " + said}};
  return json::object{{"decision", "deny"}, {"reason", said}};
}

// Gemini's decision in Claude Code's words: "deny" and "block" block,
// "allow" and "approve" change nothing (Gemini goes on as without a hook),
// "ask" asks the user (BeforeTool).
void gemini_decision(const ClaudeCodeCommand& hook, const ProcessResult& run, json::object& answer) {
  const json::value* decision = answer.if_contains("decision");
  if (decision == nullptr || decision->is_null()) return;
  const std::string_view value = decision->is_string() ? std::string_view(decision->get_string()) : "";
  if (value == "deny" || value == "block") answer["decision"] = "block";
  else if (value == "allow" || value == "approve" || value.empty()) answer.erase("decision");
  else if (value != "ask")
    run_failed(gemini_who(hook), run,
               fmt::format("its answer's decision must be \"allow\", \"deny\", \"block\" or \"ask\", got {}",
                           write_json(*decision)));
}

json::object* gemini_specific(json::object& answer) {
  json::value* specific = answer.if_contains("hookSpecificOutput");
  return specific != nullptr && specific->is_object() ? &specific->as_object() : nullptr;
}

// What the event makes of Gemini's fields, said as Claude Code's.
template <class E>
void gemini_event_fields(const E& event, json::object& answer) {
  json::object* specific = gemini_specific(answer);
  if constexpr (std::is_same_v<E, ToolCallEvent>) {
    // BeforeTool's tool_input is merged into the arguments: the keys it does not name keep their values.
    if (const json::value* input = specific ? specific->if_contains("tool_input") : nullptr; input && input->is_object()) {
      json::object merged = event.input;
      for (const auto& [key, value] : input->get_object()) merged[key] = value;
      (*specific)["updatedInput"] = std::move(merged);
      specific->erase("tool_input");
    }
  } else if constexpr (std::is_same_v<E, ToolResultEvent>) {
    // AfterTool's deny: the model gets "Tool result blocked: <reason>" instead of the result.
    if (const json::value* decision = answer.if_contains("decision");
        decision != nullptr && decision->is_string() && decision->get_string() == "block") {
      const json::value* reason = answer.if_contains("reason");
      const std::string why = reason != nullptr && reason->is_string() ? std::string(reason->get_string()) : "";
      if (specific == nullptr) specific = &answer["hookSpecificOutput"].emplace_object();
      (*specific)["updatedToolOutput"] = "Tool result blocked: " + why;
      answer.erase("decision");
    }
  } else if constexpr (std::is_same_v<E, SessionBeforeCompactEvent>) {
    answer.erase("continue");  // PreCompress is advisory in Gemini: its flow fields are ignored
  }
}

// ---- BeforeModel, BeforeToolSelection and AfterModel: the model call ----

// Reads the model-call fields of Gemini's answer, naming the hook and the JSON
// path of a field that is not what Gemini's docs say it is.
class GeminiModelAnswer {
 public:
  GeminiModelAnswer(const ClaudeCodeCommand& hook, const ProcessResult& run, const json::object& answer)
      : hook_(hook), run_(run), answer_(answer) {}

  // "decision": "deny" (said "block" by gemini_decision) refuses, with "reason".
  [[nodiscard]] bool rejects() const {
    const json::value* decision = answer_.if_contains("decision");
    return decision != nullptr && decision->is_string() && decision->get_string() == "block";
  }
  [[nodiscard]] std::string reason() const { return text_or_empty(answer_, "reason"); }
  // "continue": false stops the agent, with "stopReason".
  [[nodiscard]] std::optional<StopRequest> stop() const {
    const json::value* go_on = answer_.if_contains("continue");
    if (go_on == nullptr || !go_on->is_bool() || go_on->get_bool()) return std::nullopt;
    return StopRequest{text_or_empty(answer_, "stopReason"), std::nullopt};
  }
  [[nodiscard]] std::vector<std::string> system_messages() const {
    const std::string message = text_or_empty(answer_, "systemMessage");
    return message.empty() ? std::vector<std::string>() : std::vector{message};
  }
  // hookSpecificOutput.<key>, which must be an object when given.
  [[nodiscard]] const json::object* specific(std::string_view key) const {
    const json::value* specific = answer_.if_contains("hookSpecificOutput");
    if (specific == nullptr || !specific->is_object()) return nullptr;
    const json::value* value = specific->get_object().if_contains(key);
    if (value == nullptr || value->is_null()) return nullptr;
    if (!value->is_object()) fail(fmt::format("hookSpecificOutput.{}", key), "must be an object", *value);
    return &value->get_object();
  }

  // llm_response (LLMResponse): the first candidate's text parts, else its "text".
  [[nodiscard]] Message response(const json::object& response, std::string_view path) const {
    std::string text;
    if (const json::value* candidates = response.if_contains("candidates"); candidates && !candidates->is_null()) {
      if (!candidates->is_array()) fail(fmt::format("{}.candidates", path), "must be an array", *candidates);
      if (!candidates->get_array().empty()) {
        const json::value& first = candidates->get_array().front();
        const json::value* content = first.is_object() ? first.get_object().if_contains("content") : nullptr;
        const json::value* parts = content && content->is_object() ? content->get_object().if_contains("parts") : nullptr;
        if (parts == nullptr || !parts->is_array())
          fail(fmt::format("{}.candidates[0].content.parts", path), "must be an array of texts", first);
        for (const json::value& part : parts->get_array()) {
          if (!part.is_string())
            fail(fmt::format("{}.candidates[0].content.parts", path), "must be an array of texts", part);
          text += part.get_string();
        }
        return Message::assistant(valid_utf8(text));
      }
    }
    return Message::assistant(valid_utf8(string_at(response, "text", path).value_or("")));
  }

  // llm_request's fields the hook set, applied to the request it was given:
  // the model, the messages (as text; a system message there is the system
  // prompt, which stays as it was without one), the config's settings.
  void request(const json::object& request, const BeforeModelCallEvent& event, BeforeModelCallResult& result) const {
    constexpr std::string_view path = "hookSpecificOutput.llm_request";
    if (auto model = string_at(request, "model", path)) result.model = *model;
    if (const json::value* messages = request.if_contains("messages"); messages && !messages->is_null()) {
      if (!messages->is_array()) fail(fmt::format("{}.messages", path), "must be an array", *messages);
      std::vector<Message> read;
      std::optional<std::string> system_prompt;
      std::size_t index = 0;
      for (const json::value& message : messages->get_array()) {
        const std::string at = fmt::format("{}.messages[{}]", path, index++);
        if (!message.is_object()) fail(at, "must be an object with \"role\" and \"content\"", message);
        const std::string role = string_at(message.get_object(), "role", at).value_or("user");
        const std::string content = valid_utf8(string_at(message.get_object(), "content", at).value_or(""));
        if (role == "system") system_prompt = system_prompt ? *system_prompt + "\n" + content : content;
        else if (role == "model") read.push_back(Message::assistant(content));
        else if (role == "user") read.push_back(Message::user(content));
        else fail(at + ".role", "must be \"user\", \"model\" or \"system\"", message.get_object().at("role"));
      }
      result.messages = std::move(read);
      if (system_prompt) result.system_prompt = std::move(*system_prompt);
    }
    if (const json::value* config = request.if_contains("config"); config && !config->is_null()) {
      if (!config->is_object()) fail(fmt::format("{}.config", path), "must be an object", *config);
      ModelSettings settings = result.settings.value_or(event.settings);
      const json::object& fields = config->get_object();
      const std::string at = fmt::format("{}.config", path);
      if (auto value = number_at(fields, "temperature", at)) settings.temperature = *value;
      if (auto value = number_at(fields, "topP", at)) settings.top_p = *value;
      if (auto value = number_at(fields, "maxOutputTokens", at)) {
        if (*value < 0 || *value > 4294967295.0 || *value != static_cast<double>(static_cast<std::uint32_t>(*value)))
          fail(at + ".maxOutputTokens", "must be a whole number of tokens", fields.at("maxOutputTokens"));
        settings.max_output_tokens = static_cast<std::uint32_t>(*value);
      }
      if (const json::value* stops = fields.if_contains("stopSequences"); stops && !stops->is_null()) {
        if (!stops->is_array()) fail(at + ".stopSequences", "must be an array of texts", *stops);
        settings.stop_sequences.clear();
        for (const json::value& stop : stops->get_array()) {
          if (!stop.is_string()) fail(at + ".stopSequences", "must be an array of texts", stop);
          settings.stop_sequences.emplace_back(stop.get_string());
        }
      }
      result.settings = std::move(settings);
    }
  }

  // BeforeToolSelection's toolConfig: the mode, and the tools the model may
  // call by Gemini's names (the others are no longer offered).
  void tool_config(const json::object& config, const BeforeModelCallEvent& event, const ClaudeCodeToolNames& tool_names,
                   BeforeModelCallResult& result) const {
    constexpr std::string_view path = "hookSpecificOutput.toolConfig";
    if (auto mode = string_at(config, "mode", path)) {
      ModelSettings settings = result.settings.value_or(event.settings);
      if (*mode == "AUTO") settings.tool_choice = ToolChoice::auto_;
      else if (*mode == "ANY") settings.tool_choice = ToolChoice::required;
      else if (*mode == "NONE") settings.tool_choice = ToolChoice::none;
      else fail(fmt::format("{}.mode", path), "must be \"AUTO\", \"ANY\" or \"NONE\"", config.at("mode"));
      result.settings = std::move(settings);
    }
    if (const json::value* names = config.if_contains("allowedFunctionNames"); names && !names->is_null()) {
      if (!names->is_array()) fail(fmt::format("{}.allowedFunctionNames", path), "must be an array of tool names", *names);
      std::vector<ToolSpec> allowed;
      for (const ToolSpec& tool : event.tools) {
        const std::string gemini_name = tool_names.to_claude(tool.name);
        if (std::ranges::any_of(names->get_array(), [&](const json::value& name) {
              return name.is_string() && (name.get_string() == gemini_name || name.get_string() == tool.name);
            }))
          allowed.push_back(tool);
      }
      result.tools = std::move(allowed);
    }
  }

 private:
  [[noreturn]] void fail(std::string_view path, std::string_view what, const json::value& got) const {
    run_failed(gemini_who(hook_), run_, fmt::format("its answer's {} {}, got {}", path, what, write_json(got)));
  }
  std::optional<std::string> string_at(const json::object& object, std::string_view key, std::string_view path) const {
    const json::value* value = object.if_contains(key);
    if (value == nullptr || value->is_null()) return std::nullopt;
    if (!value->is_string()) fail(fmt::format("{}.{}", path, key), "must be a text", *value);
    return std::string(value->get_string());
  }
  std::optional<double> number_at(const json::object& object, std::string_view key, std::string_view path) const {
    const json::value* value = object.if_contains(key);
    if (value == nullptr || value->is_null()) return std::nullopt;
    if (!value->is_number()) fail(fmt::format("{}.{}", path, key), "must be a number", *value);
    return value->to_number<double>();
  }
  static std::string text_or_empty(const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    return value != nullptr && value->is_string() ? valid_utf8(value->get_string()) : "";
  }

  const ClaudeCodeCommand& hook_;
  const ProcessResult& run_;
  const json::object& answer_;
};

// BeforeModel answers the call with llm_response (the model is not called),
// changes it with llm_request, or refuses it with a deny; BeforeToolSelection
// changes the tools offered with toolConfig (its deny is ignored, as in Gemini).
BeforeModelCallResult gemini_before_model(const GeminiModelAnswer& read, const BeforeModelCallEvent& event,
                                          const ClaudeCodeCommand& hook, const ClaudeCodeToolNames& tool_names) {
  BeforeModelCallResult result{.system_messages = read.system_messages(), .stop = read.stop()};
  if (hook.event == "BeforeToolSelection") {
    if (const json::object* config = read.specific("toolConfig")) read.tool_config(*config, event, tool_names, result);
    return result;
  }
  if (const json::object* response = read.specific("llm_response")) {
    result.response = read.response(*response, "hookSpecificOutput.llm_response");
  } else if (read.rejects()) {
    result.reject = true;
    result.reason = read.reason();
  }
  if (const json::object* request = read.specific("llm_request")) read.request(*request, event, result);
  return result;
}

// AfterModel replaces the response with llm_response, or rejects it with a deny.
AfterModelCallResult gemini_after_model(const GeminiModelAnswer& read) {
  AfterModelCallResult result{.system_messages = read.system_messages(), .stop = read.stop()};
  if (read.rejects()) {
    result.reject = true;
    result.reason = read.reason();
  } else if (const json::object* response = read.specific("llm_response")) {
    result.response = read.response(*response, "hookSpecificOutput.llm_response");
  }
  return result;
}

}  // namespace

template <class E>
HookAnswer<E> gemini_cli_answer(const ClaudeCodeCommand& hook, const E& event, const ProcessResult& run,
                                const ClaudeCodeToolNames& tool_names) {
  // A timeout, a signal, cut output: a failed run, under the hook's failure policy.
  if (!run.exit_code || run.timed_out || run.cancelled || run.supervision_lost || run.stdout_truncated)
    return claude_code_answer(hook, event, run, tool_names);
  std::optional<json::object> answer = gemini_answer_object(hook, run);
  if (*run.exit_code != 0)
    log(spdlog::level::warn, "Gemini CLI hook {} on {} failed ({}){}", gemini_who(hook), hook.event, run.status(),
        answer ? "; its answer counts, as in Gemini CLI" : "");
  if (!answer) return HookAnswer<E>();
  if constexpr (std::is_same_v<E, PermissionRequestEvent>) {
    // Notification is advisory in Gemini: only what it shows the user is kept, in the log.
    if (const json::value* message = answer->if_contains("systemMessage"); message && message->is_string())
      log(spdlog::level::warn, "Gemini CLI hook {} on {}: {}", gemini_who(hook), hook.event,
          std::string_view(message->get_string()));
    return HookAnswer<E>();
  } else if constexpr (std::is_same_v<E, BeforeModelCallEvent>) {
    gemini_decision(hook, run, *answer);
    return gemini_before_model(GeminiModelAnswer(hook, run, *answer), event, hook, tool_names);
  } else if constexpr (std::is_same_v<E, AfterModelCallEvent>) {
    gemini_decision(hook, run, *answer);
    return gemini_after_model(GeminiModelAnswer(hook, run, *answer));
  } else {
    gemini_decision(hook, run, *answer);
    gemini_event_fields(event, *answer);
    ProcessResult read = run;
    read.exit_code = 0;
    read.stdout_text = write_json(*answer);
    return claude_code_answer(hook, event, read, tool_names);
  }
}

namespace {
[[gnu::used]] constexpr auto gemini_cli_answers_instantiated =
    addresses_for<HookEvent>([]<class E>(std::type_identity<E>) { return &gemini_cli_answer<E>; });
}  // namespace

}  // namespace hookbus::detail
