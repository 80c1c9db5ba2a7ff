#pragma once
// Small text helpers shared by the process runner and the external hooks.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace hookbus::detail {

inline constexpr std::string_view whitespace = " \t\r\n\f\v";

inline std::string_view trim(std::string_view text) noexcept {
  const auto first = text.find_first_not_of(whitespace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(whitespace) - first + 1);
}

// Whether two names are the same but for the case of ASCII letters (bash and Bash).
inline bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// `text` as one word of a POSIX shell command: in single quotes, each quote
// in it written '\'' (so a suggested command can be pasted as it is).
inline std::string shell_quoted(std::string_view text) {
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\'') quoted += "'\\''";
    else quoted += c;
  }
  return quoted + "'";
}

}  // namespace hookbus::detail
