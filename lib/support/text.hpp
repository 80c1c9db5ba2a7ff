#pragma once
// Small text helpers shared by the process runner and the external hooks.

#include <string_view>

namespace hookbus::detail {

inline constexpr std::string_view whitespace = " \t\r\n\f\v";

inline std::string_view trim(std::string_view text) noexcept {
  const auto first = text.find_first_not_of(whitespace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(whitespace) - first + 1);
}

}  // namespace hookbus::detail
