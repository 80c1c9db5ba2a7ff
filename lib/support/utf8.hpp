#pragma once
// Internal: UTF-8 as RFC 3629 defines it (no overlong forms, no surrogates,
// nothing above U+10FFFF), for everything hookbus writes out: telling
// well-formed text from ill-formed bytes (a hook's stderr, a file name),
// replacing what is ill-formed, and cutting text without splitting a character.

#include <cstddef>
#include <string>
#include <string_view>

namespace hookbus::detail {

// The UTF-8 replacement character U+FFFD.
inline constexpr std::string_view replacement_character = "\xEF\xBF\xBD";

// The sequence `text` starts with: a well-formed character (the Unicode
// standard's table 3-7), or the maximal ill-formed subpart that one U+FFFD
// stands for (at least one byte). `text` must not be empty.
struct Utf8Sequence {
  std::size_t size = 0;
  bool well_formed = false;
};
Utf8Sequence first_utf8_sequence(std::string_view text) noexcept;

// The length (1 to 4) of the well-formed UTF-8 sequence starting at text[at],
// or 0 when the bytes there are not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t at) noexcept;

// The code point of a well-formed sequence of `length` bytes at text[at].
char32_t utf8_code_point(std::string_view text, std::size_t at, std::size_t length) noexcept;

bool is_valid_utf8(std::string_view text) noexcept;

// `code` in UTF-8; U+FFFD for what is no Unicode scalar value (a surrogate, above U+10FFFF).
std::string utf8_encoded(char32_t code);

// Printable characters that are escaped wherever text reaches a terminal
// (logs, hookctl's text and JSON): they reorder how a terminal displays the
// text around them (the bidirectional controls of "Trojan Source"), or break
// lines (U+2028, U+2029).
constexpr bool reorders_or_breaks_lines(char32_t c) noexcept {
  return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F ||
         c == 0x061C || c == 0x2028 || c == 0x2029;
}

// `text` with every maximal ill-formed subpart replaced by one U+FFFD (as
// Python's errors="replace" and WHATWG decoders do: "\xe2\x82", a cut euro
// sign, is one U+FFFD; "\xff\xfe" two); well-formed text comes back unchanged.
std::string valid_utf8(std::string_view text);

// The longest prefix of at most `max_bytes` bytes that does not split a
// multi-byte sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) noexcept;

// The longest suffix of at most `max_bytes` bytes that starts at a character
// (not at a continuation byte).
std::string_view utf8_suffix(std::string_view text, std::size_t max_bytes) noexcept;

// The first `max_chars` characters (code points, counted by their lead bytes).
std::string_view utf8_first_chars(std::string_view text, std::size_t max_chars) noexcept;

}  // namespace hookbus::detail
