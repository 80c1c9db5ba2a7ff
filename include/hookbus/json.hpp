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
//   - unknown keys are ignored (a peer's extra fields, a newer hookbus's
//     keys), unless the read's JsonReadOptions say otherwise (below);
//   - a missing key leaves the member at its default when the member is a
//     std::optional, a container, a bool, a JSON object/value, a RunStatus
//     (a run nobody says otherwise of is completed), or the event
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
#include <vector>

namespace hookbus {

// ------------------------------------------------------------ unknown fields
//
// A key the type does not have is ignored when read, so that a peer's extra
// fields and a newer hookbus's keys stay readable; but a person's misspelt
// "tool_nme" is then a silently missing tool_name. An engine that reads events
// written by people (a command line, a file of test events) can ask for those
// keys (unknown_fields) or have the read refuse them (JsonReadOptions).

// A key of a JSON object that the object's catalogue type does not have.
struct UnknownField {
  std::string object{};      // where the object is, as JsonError paths name it: "tool_call", "turn_end.tool_results[0]"
  std::string name{};        // the key: "tool_nme"
  std::string suggestion{};  // the type's member most like it, when one is close: "tool_name"; else empty
  // unknown field "tool_nme" in tool_call (did you mean "tool_name"?): names quoted as JSON strings.
  [[nodiscard]] std::string message() const;
  bool operator==(const UnknownField&) const = default;
};

// Every key of `json`, at any depth, that its type does not have: in the
// objects of described structs, in their arrays and optionals, and in content
// parts (by their "type"); "type" itself is known for events and content
// parts. Free-form members (a tool call's input, JSON values) are not looked
// into, and a value of the wrong kind is left for the read to report. In
// document order; rooted as the read's errors are (the event's wire name, or
// the type's name).
template <CatalogueType T> std::vector<UnknownField> unknown_fields(const boost::json::value& json);
// The same for the event at `event_index`, and for that event's result (none for observe-only events).
std::vector<UnknownField> event_unknown_fields(std::size_t event_index, const boost::json::value& json);
std::vector<UnknownField> outcome_unknown_fields(std::size_t event_index, const boost::json::value& json);

// What a read does with a key its type does not have.
enum class UnknownFields {
  ignore,  // the default: peers' extra fields are accepted (docs/external-hooks.md)
  warn,    // read it as ignore does, and log a warning for each (UnknownField::message) on the hookbus logger
  error,   // refuse the document: a JsonError naming the first, at its object's path
};

struct JsonReadOptions {
  UnknownFields unknown_fields = UnknownFields::ignore;
};

// Any catalogue type: an event, a result, or a shared value type (CatalogueType, events.hpp).
template <CatalogueType T> boost::json::value to_json(const T& value);
template <CatalogueType T> T from_json(const boost::json::value& json, const JsonReadOptions& options = {});

// An event as JSON, with its "type" key.
boost::json::value to_json(const HookEvent& event);

// Reads an event, picking the alternative from "type" (aliases accepted).
// Throws JsonError for a missing/unknown "type" (path "event" / "event.type";
// an unknown name's message lists the valid ones) or a bad payload.
HookEvent event_from_json(const boost::json::value& json, const JsonReadOptions& options = {});

// Reads an event of a known kind (by HookEvent index); a "type" key, if present, is ignored.
HookEvent event_from_json(std::size_t event_index, const boost::json::value& json, const JsonReadOptions& options = {});

// The outcome of an event as JSON (null for observe-only events).
boost::json::value to_json(const HookOutcome& outcome);

// Reads the result of the event at `event_index` (lenient: missing fields mean
// no change). Observe-only events give monostate and ignore the JSON.
HookOutcome outcome_from_json(std::size_t event_index, const boost::json::value& json,
                              const JsonReadOptions& options = {});

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
