#pragma once
// What every fuzz target checks: what hookbus writes is valid UTF-8 JSON that
// reads back equal. A broken rule aborts with the texts involved, which
// libFuzzer reports as a crash and saves the input of.

#include "support/utf8.hpp"

#include <hookbus/json.hpp>

#include <boost/json/value.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace hookbus::fuzz {

[[noreturn]] inline void broken(std::string_view rule, std::string_view detail) {
  std::fprintf(stderr, "fuzz oracle: %.*s\n%.*s\n", static_cast<int>(rule.size()), rule.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Text hookbus shows or stores (a result's reason, an error message) must be valid UTF-8.
inline void expect_valid_utf8(std::string_view text, std::string_view what) {
  if (!detail::is_valid_utf8(text)) broken(std::string(what) + " is not valid UTF-8", text);
}

// write_json of `value`: valid UTF-8 that parse_json reads back as `value`,
// and that writes again as the same text. Returns the text.
inline std::string expect_written_reads_back(const boost::json::value& value) {
  const std::string written = write_json(value);
  expect_valid_utf8(written, "write_json's text");
  const boost::json::value again = parse_json(written, "written");  // a JsonError here escapes: a crash
  if (again != value) broken("write_json's text reads back different", written);
  if (write_json(again) != written) broken("write_json's text is not stable", written);
  return written;
}

// A catalogue value (an event, a result) written and read back with `read`
// must equal itself.
template <class T, class Read>
void expect_round_trip(const T& value, Read read) {
  const std::string written = expect_written_reads_back(to_json(value));
  if (!(read(parse_json(written, "written")) == value)) broken("a value reads back different", written);
}

}  // namespace hookbus::fuzz
