#pragma once
// Internal: UTF-8 as RFC 3629 defines it (no overlong forms, no surrogates,
// nothing above U+10FFFF), for everything hookbus writes out.

#include <cstddef>
#include <string>
#include <string_view>

namespace hookbus::detail {

// The length (1 to 4) of the well-formed UTF-8 sequence starting at text[at],
// or 0 when the bytes there are not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t at) noexcept;

// The code point of a well-formed sequence of `length` bytes at text[at].
char32_t utf8_code_point(std::string_view text, std::size_t at, std::size_t length) noexcept;

// `text` with every byte that is not part of a well-formed sequence replaced
// by U+FFFD (one replacement per such byte).
std::string valid_utf8(std::string_view text);

}  // namespace hookbus::detail
