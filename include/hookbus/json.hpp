#pragma once
// JSON, the wire format: every event, result and value type converts to JSON
// and back with nothing lost, driven by Boost.Describe.
//
// Writing: described structs become objects (one key per described member, in
// declaration order); enums become their names (a trailing '_' is dropped, so
// InputAction::continue_ is "continue"); std::optional that is empty is left
// out; content parts and events carry a "type" key; Timestamp and Duration are
// integer milliseconds.
//
// Reading is lenient where it should be and strict where it must be:
//   - unknown keys are ignored;
//   - a missing key leaves the member at its default when the member is a
//     std::optional, a container, a bool, a JSON object/value, or the event
//     `context`; always for the members of a result type (missing means
//     "no change"; structs nested in a result follow the general rule) and
//     for the members of a context (engines fill in what they know);
//     any other missing member (strings, numbers, enums, nested structs of an
//     event) is an error;
//   - null for a std::optional means absent;
//   - a value of the wrong type is an error; integers are range-checked for
//     their C++ type (no negative into unsigned), and a number with a fraction
//     is not an integer (1e3 is);
//   - enums and content-part "type"s must be one of their names; the error
//     lists them;
// and every error is a JsonError naming the path, rooted at the event's wire
// name for events and at the type's name otherwise, e.g.
//   "tool_call.input: expected object, got string"
//   "turn_end.tool_results[2].content[0]: unknown content part type 'video'; expected one of: text, image, audio"
//   "ToolCallResult.decision: unknown value 'block'; expected one of: none, allow, ask, deny"
// Nothing is ever half-filled: a read either returns a whole value or throws.
//
// The templates below are defined in the library and instantiated there for
// every event, every result and every value type (Message, ToolCall,
// ToolResult, ContentPart and its parts, EventContext, the compaction and tree
// payloads, Decider, StopRequest), to keep the conversion machinery out of the headers an
// engine includes everywhere. Other types do not link.

#include <hookbus/events.hpp>
#include <hookbus/errors.hpp>

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace hookbus {

// Any catalogue type: an event, a result, or a shared value type.
template <class T> boost::json::value to_json(const T& value);
template <class T> T from_json(const boost::json::value& json);

// An event as JSON, with its "type" key.
boost::json::value to_json(const HookEvent& event);

// Reads an event, picking the alternative from "type" (aliases accepted).
// Throws JsonError for a missing/unknown "type" (path "event" / "event.type";
// an unknown name's message lists the valid ones) or a bad payload.
HookEvent event_from_json(const boost::json::value& json);

// Reads an event of a known kind (by HookEvent index); a "type" key, if present, is ignored.
HookEvent event_from_json(std::size_t event_index, const boost::json::value& json);

// The outcome of an event as JSON (null for observe-only events).
boost::json::value to_json(const HookOutcome& outcome);

// Reads the result of the event at `event_index` (lenient: missing fields mean
// no change). Observe-only events give monostate and ignore the JSON.
HookOutcome outcome_from_json(std::size_t event_index, const boost::json::value& json);

// Parses text, turning a syntax error into a JsonError with the given source
// name and the byte offset ("stdin: invalid JSON at offset 12: ...").
boost::json::value parse_json(std::string_view text, std::string_view source);

}  // namespace hookbus
