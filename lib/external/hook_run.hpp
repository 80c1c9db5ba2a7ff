#pragma once
// Internal: one run of a hookbus-protocol hook for an event of type E, typed
// through: the payload built from `const E&`, the answer read as E's result.
// The installer makes one bus handler of E per (hook, event) of these, so
// nothing finds E again in a HookEvent; run_external_hook and hook_outcome
// (external.hpp) are these for the event a variant holds.

#include <hookbus/events.hpp>
#include <hookbus/external.hpp>

#include "catalogue/hook_answer.hpp"

#include <stop_token>
#include <string_view>

namespace hookbus::detail {

// The payload of hookbus's protocol (formats/kodelet/) for `hook`: an event
// without a cwd gets the hook's project, and a workspace's hook finds the
// workspace's name in context.workspace when the engine's event names none.
// Instantiated for every event.
template <class E>
boost::json::object hook_payload_for(const ExternalHook& hook, const E& event, std::string_view requested_name);

// `HOOK run` once for the event (run_external_hook). Instantiated for every event.
template <class E>
ProcessResult run_hook(const ExternalHook& hook, const E& event, std::string_view requested_name, std::stop_token stop);

// `HOOK run` once with a payload made before (hook_payload_for, written),
// for the event named `event` in `context`: a run prepared on the emitting
// thread and made on another (bus/run_ahead.hpp).
ProcessResult run_payload(const ExternalHook& hook, std::string payload, std::string_view event,
                          const EventContext& context, std::stop_token stop);

// What the finished run means for E (hook_outcome): throws ExternalHookError
// for a failure. Instantiated for every event.
template <class E>
HookAnswer<E> answer_of(const ExternalHook& hook, const ProcessResult& run);

}  // namespace hookbus::detail
