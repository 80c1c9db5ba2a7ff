#pragma once
// JSON text: the one strict reader behind parse_json and the config files, the
// escapes of JSON strings, and the name of a JSON value's kind for error
// messages. Internal: not installed.
// (The one writer is the public write_json, json.hpp.)

#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hookbus::detail {

// The most levels of arrays and objects a document may nest.
inline constexpr std::size_t max_json_depth = 64;

// One step into a document: a member's key, or an array element's index.
struct JsonPathStep {
  std::string key{};
  std::size_t index = 0;
  bool is_key = false;
};

// "hooks.deny[1]", with keys that are not plain identifiers quoted: `["a b"]`.
std::string json_path_text(const std::vector<JsonPathStep>& path);
void append_key_to_path(std::string& path, std::string_view key);

// Why text is not a document hookbus accepts. `path` is where in the document
// for problems with a value (a duplicate key: the key; a number out of range:
// the number), empty for syntax errors.
struct JsonTextProblem {
  std::size_t offset = 0;
  std::vector<JsonPathStep> path;
  std::string what;  // "syntax error", "duplicate key; each key may appear once", ...
};

// Reads exactly one strict JSON document (RFC 8259: no comments, no trailing
// commas, nothing after it; strings valid UTF-8) of at most max_json_depth
// levels, with no duplicate keys in any object. Numbers with a fraction or an
// exponent (and integers beyond 64 bits) become the correctly rounded double;
// one beyond a double's range is a problem, one below its smallest subnormal
// reads as a zero of its sign.
std::variant<boost::json::value, JsonTextProblem> parse_json_text(std::string_view text);

// Appends JSON's escape of `c`, which is '"', '\\' or a control character:
// its two-character form where JSON has one (\n, \t, ...), else \u00XX.
void append_json_escape(std::string& out, char c);

// "line 2, column 17 (offset 18)".
std::string line_and_column(std::string_view text, std::size_t offset);

// "null", "boolean", "number", "string", "array" or "object".
std::string_view json_kind_name(const boost::json::value& value) noexcept;

}  // namespace hookbus::detail
