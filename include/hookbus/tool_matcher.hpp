#pragma once
// Which tools a handler sees: an exact name or a glob (`*` any run, `?` one
// byte, so one character of an ASCII name), always matched against the whole
// tool name, case and all, with `|` between alternatives: "bash",
// "mcp__github__*", "Bash|Shell".

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus {

class ToolMatcher {
 public:
  // An empty pattern matches every tool. Throws std::invalid_argument for an
  // empty alternative ("Bash|" or "a||b"), which is almost always a typo.
  explicit ToolMatcher(std::string_view pattern = {});

  [[nodiscard]] bool matches(std::string_view tool_name) const noexcept;
  [[nodiscard]] bool matches_every_tool() const noexcept { return alternatives_.empty(); }
  [[nodiscard]] const std::string& pattern() const noexcept { return pattern_; }

 private:
  std::string pattern_;
  std::vector<std::string> alternatives_;
};

// Whether the event at this catalogue index (`event_index<E>`) names a tool
// (tool_call, tool_result, permission_request, tool_execution_update, ...),
// so that HandlerOptions::tools applies to it. False for an index out of range.
bool has_tool_name(std::size_t event_index) noexcept;

// Whole-string glob match: `*` is any run of bytes, the empty one too, `?`
// exactly one byte, and every other byte itself (no classes, no escapes).
bool glob_match(std::string_view pattern, std::string_view text) noexcept;

}  // namespace hookbus
