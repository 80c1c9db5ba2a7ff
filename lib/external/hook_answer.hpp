#pragma once
// Internal: both halves of a hookbus-protocol exchange, shared by the runner
// that starts a hook per event and the persistent runner: the payload a hook
// is sent, and its JSON answer read as the event's result (the per-event
// runner reads its stdout, the persistent one each answer line once its "id"
// and "error" are taken out).

#include <hookbus/events.hpp>
#include <hookbus/external.hpp>

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace hookbus::detail {

// hook_payload for `hook`: a workspace's hook also finds the workspace's name
// in context.workspace when the engine's event names none.
boost::json::object hook_payload_for(const ExternalHook& hook, const HookEvent& event, std::string_view requested_name);

// The answer, read leniently as the event's result (docs/external-hooks.md,
// "The result"): null is no change; kodelet's `"blocked": true` and the older
// `"block": true` are the event's refusal; kodelet's after_tool_call `output`
// replaces the result; a `decided_by` the hook wrote is dropped (only the bus
// names who decided). Throws JsonError naming the field of a wrong shape.
HookOutcome outcome_from_answer(const HookEvent& event, boost::json::value answer);

// A persistent hook's answer line to request `id` (docs/external-hooks.md,
// "Persistent hooks"): a JSON object with the request's "id", then either an
// "error" string or the event's result, read by outcome_from_answer.
struct PersistentAnswer {
  enum class Kind {
    result,       // `outcome` is the event's result
    failure,      // an answer to this request, and a failure: an "error", or a result of the wrong shape
    out_of_step,  // not an answer to this request: not JSON, not an object, no "id" or another one
  };
  Kind kind = Kind::result;
  HookOutcome outcome{};
  std::string problem{};  // what is wrong, unless a result: "answered with an error: ..."
};
PersistentAnswer read_persistent_answer(std::string_view line, std::uint64_t id, const HookEvent& event);

}  // namespace hookbus::detail
