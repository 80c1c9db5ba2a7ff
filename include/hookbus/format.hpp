#pragma once
// One-line, human-readable rendering of events and results for traces and error
// messages, driven by Boost.Describe. Long strings are cut (with "…") so a
// 10 MB tool result still prints as one short line.
//
//   tool_call{tool_call_id="c1", tool_name="bash", input={"command":"ls"}}
//   ToolCallResult{decision=deny, reason="rm -rf is not allowed"}
//
// Events and content parts are named by their wire type, other top-level
// structs by their C++ name, nested structs not at all. Absent optionals are
// left out, and so are a result's empty lists, a context's empty (unknown)
// strings and a `context` equal to EventContext{} (keeps traces short).
// Strings are quoted with \n, \t, \", \\ and control characters escaped;
// a string, or the compact JSON text of a JSON member, longer than
// `string_limit` bytes is cut at a UTF-8 boundary and followed by
// "…(N more bytes)". Enums print their wire name, Duration "1500ms",
// Timestamp ISO 8601 UTC with milliseconds, a HookOutcome holding monostate "none".
//
// fmt 9 does not fall back to operator<<, so every event, result and HookEvent
// gets an explicit fmt::formatter (spdlog uses the same formatters).

#include <hookbus/events.hpp>

#include <fmt/format.h>

#include <cstddef>
#include <string>

namespace hookbus {

inline constexpr std::size_t default_format_string_limit = 80;

// Instantiated in the library for every event, result and value type (as json.hpp's templates are);
// other types do not compile.
template <CatalogueType T>
std::string format_line(const T& value, std::size_t string_limit = default_format_string_limit);
std::string format_line(const HookEvent& event, std::size_t string_limit = default_format_string_limit);
std::string format_line(const HookOutcome& outcome, std::size_t string_limit = default_format_string_limit);

}  // namespace hookbus

template <class T>
  requires hookbus::Event<T> || hookbus::ResultType<T> || std::is_same_v<T, hookbus::HookEvent> ||
           std::is_same_v<T, hookbus::HookOutcome>
struct fmt::formatter<T> : fmt::formatter<std::string_view> {
  auto format(const T& value, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(hookbus::format_line(value), ctx);
  }
};
