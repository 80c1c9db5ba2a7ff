#include <hookbus/tool_matcher.hpp>

#include <stdexcept>

namespace hookbus {

ToolMatcher::ToolMatcher(std::string_view pattern) : pattern_(pattern) {
  if (pattern.empty()) return;
  std::size_t start = 0;
  while (true) {
    const std::size_t bar = pattern.find('|', start);
    const std::string_view alternative = pattern.substr(start, bar == std::string_view::npos ? bar : bar - start);
    if (alternative.empty())
      throw std::invalid_argument("tool matcher '" + std::string(pattern) +
                                  "' has an empty alternative; write names or globs separated by single '|', "
                                  "e.g. \"Bash|Shell\"");
    alternatives_.emplace_back(alternative);
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
}

bool ToolMatcher::matches(std::string_view tool_name) const noexcept {
  if (alternatives_.empty()) return true;
  for (const auto& alternative : alternatives_)
    if (glob_match(alternative, tool_name)) return true;
  return false;
}

// Iterative matcher with single-star backtracking: linear in practice, no recursion.
bool glob_match(std::string_view pattern, std::string_view text) noexcept {
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace hookbus
