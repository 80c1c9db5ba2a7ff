// hookbus's own HOOK protocol, which is kodelet's: a hook's JSON answer read
// as the event's result, leniently (formats/kodelet/protocol.hpp,
// docs/external-hooks.md, "The result").
#include "formats/kodelet/protocol.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

#include "bus/reducers.hpp"
#include "catalogue/json_text.hpp"

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace hookbus {
namespace {

// `"<key>": true` is the event's refusal, whatever the event calls it
// (decision = deny, allow = false, cancel, action = reject): the refusal's
// fields the hook did not set itself are added.
template <class E>
void accept_legacy_refusal(boost::json::object& result, std::string_view key) {
  const auto* refuse = result.if_contains(key);
  if (refuse == nullptr) return;
  if (!refuse->is_bool())
    throw JsonError(std::string(key), "expected boolean, got " + std::string(detail::json_kind_name(*refuse)));
  const bool refuses = refuse->get_bool();
  result.erase(key);
  if (!refuses) return;
  const auto refusal = to_json(HookOutcome(refusal_result<E>("")));
  for (const auto& [field, value] : refusal.as_object())
    if (field != "reason" && !result.contains(field)) result[field] = value;
}

// Refusals in older words: kodelet's `"blocked": true` on any event that can
// refuse, and hookbus's former `"block": true` on tool_call (now
// `"decision": "deny"`).
template <class E>
void accept_legacy_refusals(boost::json::object& result) {
  if constexpr (EventWithResult<E>) {
    if constexpr (is_gating(E::reduction)) {
      accept_legacy_refusal<E>(result, "blocked");
      if constexpr (DecidingResult<result_t<E>>) accept_legacy_refusal<E>(result, "block");
    }
  }
}

// kodelet's after_tool_call `output`: a StructuredToolResult that replaces the
// tool's result. It becomes the patch's content (the object as JSON text) and,
// from its `success`, is_error; `content` and `is_error` the hook gives itself win.
void accept_kodelet_output(boost::json::object& result) {
  const auto* found = result.if_contains("output");
  if (found == nullptr || found->is_null()) return;
  if (!found->is_object())
    throw JsonError("output", "expected object (kodelet's StructuredToolResult), got " +
                                  std::string(detail::json_kind_name(*found)));
  // Taken out first: inserting into `result` may move its elements.
  const boost::json::object output = found->as_object();
  result.erase("output");
  if (!result.contains("content"))
    result["content"] = boost::json::array{boost::json::object{{"type", "text"}, {"text", write_json(output)}}};
  if (const auto* success = output.if_contains("success");
      success != nullptr && success->is_bool() && !result.contains("is_error"))
    result["is_error"] = !success->get_bool();
}

// Only the bus names who decided: a hook cannot claim to be another.
void drop_decided_by(boost::json::object& result) {
  result.erase("decided_by");
  if (auto* stop = result.if_contains("stop"); stop != nullptr && stop->is_object()) stop->as_object().erase("decided_by");
}

template <class E>
HookOutcome read_answer(boost::json::value answer) {
  if (answer.is_null()) return std::monostate{};
  if (answer.is_object()) {
    auto& result = answer.as_object();
    accept_legacy_refusals<E>(result);
    if constexpr (std::is_same_v<E, ToolResultEvent>) accept_kodelet_output(result);
    drop_decided_by(result);
  }
  return outcome_from_json(event_index<E>, answer);
}

}  // namespace

HookOutcome detail::outcome_from_answer(const HookEvent& event, boost::json::value answer) {
  return std::visit([&]<class E>(const E&) { return read_answer<E>(std::move(answer)); }, event);
}

}  // namespace hookbus
