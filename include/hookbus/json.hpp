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
// every event, every result and every value type (every described struct an
// event or a result holds: Message, ToolCall, ContentPart and its parts,
// EventContext, ...), to keep the conversion machinery out of the headers an
// engine includes everywhere. Other types do not compile: they are not a CatalogueType.

#include <hookbus/events.hpp>
#include <hookbus/errors.hpp>

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace hookbus {

// Any catalogue type: an event, a result, or a shared value type (CatalogueType, events.hpp).
template <CatalogueType T> boost::json::value to_json(const T& value);
template <CatalogueType T> T from_json(const boost::json::value& json);

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

// Parses one strict JSON document (RFC 8259: no comments, no trailing commas,
// nothing after it, strings in valid UTF-8) as hookbus reads every text from
// outside (hook answers, stdin, config, settings):
//   - numbers with a fraction or an exponent are the correctly rounded double
//     (the one strtod gives); integers are int64 or uint64, larger ones doubles;
//   - a number beyond a double's range (1e400) is an error; one below its
//     smallest subnormal (1e-400) reads as a zero of its sign;
//   - a key twice in one object is an error (not "the last one wins");
//   - arrays and objects nest at most 64 levels.
// Errors are a JsonError naming the source, line, column and byte offset, and
// the path where a value is at fault: "stdout: invalid JSON at line 1, column
// 17 (offset 16): input.n: number out of range: -1e999 is beyond a double's
// range (about ±1.8e308)".
boost::json::value parse_json(std::string_view text, std::string_view source);

// How write_json lays the text out: one line, or two spaces per level.
enum class JsonLayout { compact, indented };

// JSON text as hookbus writes it everywhere (hook payloads, hookctl, files):
//   - always valid UTF-8: in strings and keys, every ill-formed sequence (a
//     hook's stderr, a file name in Latin-1) becomes U+FFFD, as Python's
//     errors="replace" decodes it; control characters are escaped;
//   - numbers in the shortest form that reads back exactly; a double always
//     with a '.' or an exponent (1.0, 1e+300), so it reads back as a double;
//   - never a non-finite number: JSON has none, so an infinite or NaN double
//     (only C++ code can make one) throws JsonError naming its path.
std::string write_json(const boost::json::value& json, JsonLayout layout = JsonLayout::compact);

}  // namespace hookbus
