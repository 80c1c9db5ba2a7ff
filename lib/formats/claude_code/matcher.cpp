// Claude Code's matchers (include/hookbus/claude_code.hpp, ClaudeCodeMatcher):
// exact names, or an ECMAScript regular expression searched for anywhere.
#include <hookbus/claude_code.hpp>

#include "support/text.hpp"

#include <boost/regex.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace hookbus {

struct ClaudeCodeMatcher::Expression {
  boost::regex regex;
};

ClaudeCodeMatcher::ClaudeCodeMatcher(std::string_view pattern) {
  if (pattern.empty() || pattern == "*") return;
  const bool names = std::all_of(pattern.begin(), pattern.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == ' ' || c == ',' || c == '|';
  });
  if (names) {
    std::string_view rest = pattern;
    while (!rest.empty()) {
      const std::size_t end = std::min(rest.find_first_of("|,"), rest.size());
      if (const std::string_view name = detail::trim(rest.substr(0, end)); !name.empty()) names_.emplace_back(name);
      rest.remove_prefix(std::min(end + 1, rest.size()));
    }
    if (names_.empty())
      throw ConfigError({}, fmt::format("matcher \"{}\" names no tool: write \"*\" (or leave it out) to match every one",
                                        pattern));
    return;
  }
  try {
    // ECMAScript syntax, as Claude Code's JavaScript RegExp.
    expression_ = std::make_shared<const Expression>(
        Expression{boost::regex(pattern.begin(), pattern.end(), boost::regex::ECMAScript)});
  } catch (const boost::regex_error& error) {
    throw ConfigError({}, fmt::format("matcher \"{}\" is not a valid regular expression: {}", pattern, error.what()));
  }
}

bool ClaudeCodeMatcher::matches(std::string_view value) const {
  if (expression_) return boost::regex_search(value.begin(), value.end(), expression_->regex);
  return names_.empty() || std::find(names_.begin(), names_.end(), value) != names_.end();
}

}  // namespace hookbus
