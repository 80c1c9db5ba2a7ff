#pragma once
// Internal: hookbus's own HOOK protocol, which is kodelet's
// (docs/external-hooks.md): both halves of an exchange, shared by the runner
// that starts a hook per event (lib/external/external.cpp) and the
// persistent runner (lib/external/persistent.cpp): the payload a hook is
// sent, and its JSON answer read as the event's result (the per-event runner
// reads its stdout, the persistent one each answer line once its "id" and
// "error" are taken out).

#include <hookbus/events.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string_view>

namespace hookbus::detail {

// hook_payload of an event of type E (instantiated for every event).
template <class E>
boost::json::object hook_payload_of(const E& event, std::string_view requested_name);

// The answer, read leniently as E's result (docs/external-hooks.md, "The
// result"): null is no change (nullopt); kodelet's `"blocked": true` and the
// older `"block": true` are the event's refusal; kodelet's after_tool_call
// `output` replaces the result; a `decided_by` the hook wrote is dropped (only
// the bus names who decided). Throws JsonError naming the field of a wrong
// shape. Instantiated for every event with a result.
template <EventWithResult E>
std::optional<result_t<E>> result_from_answer(boost::json::value answer);

// result_from_answer for the event the variant holds, as a HookOutcome
// (monostate: no change, or an event without a result, which takes nothing
// from an answer).
HookOutcome outcome_from_answer(const HookEvent& event, boost::json::value answer);

}  // namespace hookbus::detail
