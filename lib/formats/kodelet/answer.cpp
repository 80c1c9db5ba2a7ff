// hookbus's own HOOK protocol, which is kodelet's: a hook's JSON answer read
// as the event's result, leniently (formats/kodelet/protocol.hpp,
// docs/external-hooks.md, "The result").
#include "formats/kodelet/protocol.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/reflect.hpp>

#include "bus/reducers.hpp"
#include "catalogue/instantiations.hpp"
#include "catalogue/json_text.hpp"

#include <boost/mp11/algorithm.hpp>

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace hookbus {
namespace {

// `"<key>": true`, taken out of the answer: whether it refuses.
bool take_legacy_refusal(boost::json::object& answer, std::string_view key) {
  const auto* refuse = answer.if_contains(key);
  if (refuse == nullptr) return false;
  if (!refuse->is_bool())
    throw JsonError(std::string(key), "expected boolean, got " + std::string(detail::json_kind_name(*refuse)));
  const bool refuses = refuse->get_bool();
  answer.erase(key);
  return refuses;
}

// Refusals in older words: kodelet's `"blocked": true` on any event that can
// refuse, and hookbus's former `"block": true` on tool_call (now
// `"decision": "deny"`). Both keys are taken out (each checked) either way.
template <class E>
bool take_legacy_refusals(boost::json::object& answer) {
  if constexpr (EventWithResult<E>) {
    if constexpr (is_gating(E::reduction)) {
      bool refuses = take_legacy_refusal(answer, "blocked");
      if constexpr (DecidingResult<result_t<E>>) refuses = take_legacy_refusal(answer, "block") || refuses;
      return refuses;
    }
  }
  return false;
}

// A legacy refusal is the event's refusal (decision = deny, allow = false,
// cancel, action = reject, whatever the event calls it) in each field the
// hook did not write itself (`answer`: what it wrote); its reason is the
// hook's own.
template <class E>
void refuse_where_unset(result_t<E>& result, const boost::json::object& answer) {
  const result_t<E> refusal = refusal_result<E>("");
  boost::mp11::mp_for_each<reflect::members_of<result_t<E>>>([&](auto member) {
    if (std::string_view(member.name) != "reason" && !answer.contains(member.name))
      result.*member.pointer = refusal.*member.pointer;
  });
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

}  // namespace

namespace detail {

template <EventWithResult E>
std::optional<result_t<E>> result_from_answer(boost::json::value answer) {
  if (answer.is_null()) return std::nullopt;
  bool refuses = false;
  if (answer.is_object()) {
    auto& object = answer.as_object();
    refuses = take_legacy_refusals<E>(object);
    if constexpr (std::is_same_v<E, ToolResultEvent>) accept_kodelet_output(object);
    drop_decided_by(object);
  }
  result_t<E> result = from_json<result_t<E>>(answer);
  if constexpr (is_gating(E::reduction)) {
    if (refuses) refuse_where_unset<E>(result, answer.as_object());
  }
  return result;
}

namespace {
[[gnu::used]] constexpr auto answer_readers_instantiated = addresses_for<HookEvent>([]<class E>(std::type_identity<E>) {
  if constexpr (EventWithResult<E>) return &result_from_answer<E>;
  else return nullptr;
});
}  // namespace

HookOutcome outcome_from_answer(const HookEvent& event, boost::json::value answer) {
  return std::visit(
      [&]<class E>(const E&) -> HookOutcome {
        if constexpr (EventWithResult<E>) {
          if (auto result = result_from_answer<E>(std::move(answer))) return std::move(*result);
        }
        return std::monostate{};
      },
      event);
}

}  // namespace detail

}  // namespace hookbus
