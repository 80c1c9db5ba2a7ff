// Claude Code's permission rules for a handler's `if`
// (formats/claude_code/permission_rule.hpp): the input is byte 0, which picks
// the tool of the call, then a rule, a NUL byte, and what the call gives (a
// Bash command, a path, a URL, a name). Only PermissionRuleError is thrown, its
// message valid UTF-8; a rule read from its own text reads the same; matching
// a call never throws, and a rule that names the tool alone always matches.
#include "oracle.hpp"

#include "formats/claude_code/permission_rule.hpp"

#include <boost/json/value.hpp>

#include <iterator>
#include <string>
#include <utility>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hookbus;
  if (size == 0) return 0;
  static constexpr std::pair<std::string_view, std::string_view> kCalls[] = {
      {"Bash", "command"}, {"Read", "file_path"},  {"Edit", "file_path"}, {"Grep", "path"},
      {"WebFetch", "url"}, {"Agent", "subagent_type"}, {"Skill", "skill"},     {"mcp__github__create_issue", "title"}};
  const auto& [tool, field] = kCalls[data[0] % std::size(kCalls)];
  const std::string_view rest = fuzz::text_of(data + 1, size - 1);
  const std::size_t nul = rest.find('\0');
  const std::string_view text = rest.substr(0, nul);
  const std::string argument(nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1));
  detail::PermissionRule rule;
  try {
    rule = detail::parse_permission_rule(text);
  } catch (const detail::PermissionRuleError& error) {
    fuzz::expect_valid_utf8(error.what(), "a rule's error");
    return 0;
  }
  if (detail::parse_permission_rule(rule.text) != rule) fuzz::broken("a rule reads differently from its text", text);
  static const detail::RuleContext context{"/nonexistent/project", "/nonexistent/project/sub", "/nonexistent/home"};
  const boost::json::value input = boost::json::object{{field, argument}};
  const bool matched = detail::matches(rule, tool, input, context);
  if (rule.kind == detail::PermissionRule::Kind::tool && rule.tool == tool && !matched)
    fuzz::broken("a rule naming the tool alone does not match its call", text);
  return 0;
}
