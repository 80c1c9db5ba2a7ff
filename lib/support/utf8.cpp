#include "support/utf8.hpp"

namespace hookbus::detail {
namespace {

bool is_continuation(char c) noexcept { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

Utf8Sequence first_utf8_sequence(std::string_view text) noexcept {
  const auto lead = static_cast<unsigned char>(text[0]);
  if (lead < 0x80) return {1, true};
  // The second byte's range depends on the lead (table 3-7); later bytes are 80..BF.
  std::size_t size = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) size = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) size = 3;
  else if (lead >= 0xF0 && lead <= 0xF4) size = 4;
  else return {1, false};  // a continuation byte, C0, C1 or F5..FF cannot start a character
  if (lead == 0xE0) second_min = 0xA0;       // no overlong three-byte forms
  else if (lead == 0xED) second_max = 0x9F;  // no surrogates
  else if (lead == 0xF0) second_min = 0x90;  // no overlong four-byte forms
  else if (lead == 0xF4) second_max = 0x8F;  // nothing above U+10FFFF
  for (std::size_t i = 1; i < size; ++i) {
    if (i >= text.size()) return {i, false};
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool fits = i == 1 ? byte >= second_min && byte <= second_max : is_continuation(text[i]);
    if (!fits) return {i, false};
  }
  return {size, true};
}

std::size_t utf8_sequence_length(std::string_view text, std::size_t at) noexcept {
  const Utf8Sequence sequence = first_utf8_sequence(text.substr(at));
  return sequence.well_formed ? sequence.size : 0;
}

char32_t utf8_code_point(std::string_view text, std::size_t at, std::size_t length) noexcept {
  const auto byte = [&](std::size_t i) { return static_cast<char32_t>(static_cast<unsigned char>(text[at + i])); };
  switch (length) {
    case 1: return byte(0);
    case 2: return ((byte(0) & 0x1F) << 6) | (byte(1) & 0x3F);
    case 3: return ((byte(0) & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
    default: return ((byte(0) & 0x07) << 18) | ((byte(1) & 0x3F) << 12) | ((byte(2) & 0x3F) << 6) | (byte(3) & 0x3F);
  }
}

bool is_valid_utf8(std::string_view text) noexcept {
  while (!text.empty()) {
    const Utf8Sequence sequence = first_utf8_sequence(text);
    if (!sequence.well_formed) return false;
    text.remove_prefix(sequence.size);
  }
  return true;
}

std::string utf8_encoded(char32_t code) {
  if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return std::string(replacement_character);
  const auto byte = [](char32_t bits) { return static_cast<char>(bits); };
  if (code < 0x80) return {byte(code)};
  if (code < 0x800) return {byte(0xC0 | (code >> 6)), byte(0x80 | (code & 0x3F))};
  if (code < 0x10000) return {byte(0xE0 | (code >> 12)), byte(0x80 | ((code >> 6) & 0x3F)), byte(0x80 | (code & 0x3F))};
  return {byte(0xF0 | (code >> 18)), byte(0x80 | ((code >> 12) & 0x3F)), byte(0x80 | ((code >> 6) & 0x3F)),
          byte(0x80 | (code & 0x3F))};
}

std::string valid_utf8(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  while (!text.empty()) {
    const Utf8Sequence sequence = first_utf8_sequence(text);
    if (sequence.well_formed) out.append(text.substr(0, sequence.size));
    else out.append(replacement_character);
    text.remove_prefix(sequence.size);
  }
  return out;
}

std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes) noexcept {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  while (end > 0 && is_continuation(text[end])) --end;
  return text.substr(0, end);
}

std::string_view utf8_suffix(std::string_view text, std::size_t max_bytes) noexcept {
  if (text.size() <= max_bytes) return text;
  std::string_view tail = text.substr(text.size() - max_bytes);
  while (!tail.empty() && is_continuation(tail.front())) tail.remove_prefix(1);
  return tail;
}

std::string_view utf8_first_chars(std::string_view text, std::size_t max_chars) noexcept {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!is_continuation(text[i]) && chars++ == max_chars) return text.substr(0, i);
  return text;
}

}  // namespace hookbus::detail
