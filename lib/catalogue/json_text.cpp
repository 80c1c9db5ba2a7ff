// JSON text in and out: the strict reader (Boost.JSON's parser with a handler
// of our own, for correctly rounded doubles, duplicate keys and paths in
// errors) and the one writer (valid UTF-8, shortest numbers, no non-finite
// number). Boost.JSON 1.81's own number conversion is not correctly rounded,
// and its serializer copies string bytes as they are.

#include "catalogue/json_text.hpp"

#include "support/utf8.hpp"

#include <hookbus/json.hpp>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <iterator>
#include <optional>
#include <unordered_set>

namespace hookbus {
namespace detail {
namespace {

namespace json = boost::json;

bool is_plain_key(std::string_view key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

// ---------------------------------------------------------------- reading

// Builds the document on a value_stack as Boost.JSON's own parser does, and
// refuses what hookbus does not accept: a duplicate key (Boost.JSON keeps the
// last, which would silently drop the first of two "deny" lists) and a number
// beyond a double's range (Boost.JSON makes it infinite). Doubles are converted
// again from their text with std::from_chars, which rounds correctly.
class StrictHandler {
 public:
  static constexpr std::size_t max_object_size = json::object::max_size();
  static constexpr std::size_t max_array_size = json::array::max_size();
  static constexpr std::size_t max_key_size = json::string::max_size();
  static constexpr std::size_t max_string_size = json::string::max_size();

  StrictHandler() { stack_.reset(); }

  json::value release() { return stack_.release(); }

  // Set once a callback refused the document.
  const std::optional<JsonTextProblem>& problem() const noexcept { return problem_; }

  // Where the parser is: each open array's element, each open object's member.
  std::vector<JsonPathStep> path_here() const {
    std::vector<JsonPathStep> path;
    path.reserve(frames_.size());
    for (const Frame& frame : frames_) {
      if (frame.is_object) path.push_back({.key = frame.key ? *frame.key : std::string(), .is_key = true});
      else path.push_back({.index = frame.index});
    }
    return path;
  }

  bool on_document_begin(boost::system::error_code&) { return true; }
  bool on_document_end(boost::system::error_code&) { return true; }
  bool on_object_begin(boost::system::error_code&) { return open(true); }
  bool on_object_end(std::size_t size, boost::system::error_code&) {
    frames_.pop_back();
    stack_.push_object(size);
    return value_done();
  }
  bool on_array_begin(boost::system::error_code&) { return open(false); }
  bool on_array_end(std::size_t size, boost::system::error_code&) {
    frames_.pop_back();
    stack_.push_array(size);
    return value_done();
  }
  bool on_key_part(json::string_view part, std::size_t, boost::system::error_code&) {
    stack_.push_chars(part);
    key_.append(part.data(), part.size());
    return true;
  }
  bool on_key(json::string_view last_part, std::size_t, boost::system::error_code& ec) {
    stack_.push_key(last_part);
    key_.append(last_part.data(), last_part.size());
    Frame& object = frames_.back();
    auto [key, inserted] = object.keys.insert(std::move(key_));
    key_.clear();
    if (!inserted) {
      std::vector<JsonPathStep> path = path_here();
      path.back().key = *key;
      return refuse(ec, std::move(path), "duplicate key; each key may appear once");
    }
    object.key = &*key;
    return true;
  }
  bool on_string_part(json::string_view part, std::size_t, boost::system::error_code&) {
    stack_.push_chars(part);
    return true;
  }
  bool on_string(json::string_view last_part, std::size_t, boost::system::error_code&) {
    stack_.push_string(last_part);
    return value_done();
  }
  bool on_number_part(json::string_view part, boost::system::error_code&) {
    number_.append(part.data(), part.size());
    return true;
  }
  bool on_int64(std::int64_t number, json::string_view, boost::system::error_code&) {
    number_.clear();
    stack_.push_int64(number);
    return value_done();
  }
  bool on_uint64(std::uint64_t number, json::string_view, boost::system::error_code&) {
    number_.clear();
    stack_.push_uint64(number);
    return value_done();
  }
  bool on_double(double approximate, json::string_view last_part, boost::system::error_code& ec) {
    number_.append(last_part.data(), last_part.size());
    double number = 0;
    const auto [end, error] = std::from_chars(number_.data(), number_.data() + number_.size(), number);
    if (error == std::errc::result_out_of_range) {
      // Beyond the largest double is an error; below the smallest subnormal,
      // the nearest double is a zero (Boost's approximation tells which).
      if (!(std::fabs(approximate) < 1))
        return refuse(ec, path_here(),
                      fmt::format("number out of range: {} is beyond a double's range (about ±1.8e308)", number_));
      number = number_.starts_with('-') ? -0.0 : 0.0;
    }
    number_.clear();
    stack_.push_double(number);
    return value_done();
  }
  bool on_bool(bool value, boost::system::error_code&) {
    stack_.push_bool(value);
    return value_done();
  }
  bool on_null(boost::system::error_code&) {
    stack_.push_null();
    return value_done();
  }
  bool on_comment_part(json::string_view, boost::system::error_code&) { return true; }
  bool on_comment(json::string_view, boost::system::error_code&) { return true; }

 private:
  struct Frame {
    bool is_object = false;
    std::unordered_set<std::string> keys{};  // objects: the keys seen so far
    const std::string* key = nullptr;      // objects: the member being read (in `keys`)
    std::size_t index = 0;                 // arrays: the element being read
  };

  bool open(bool is_object) {
    frames_.push_back(Frame{.is_object = is_object});
    return true;
  }
  bool value_done() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
    return true;
  }
  bool refuse(boost::system::error_code& ec, std::vector<JsonPathStep> path, std::string what) {
    problem_ = JsonTextProblem{.offset = 0, .path = std::move(path), .what = std::move(what)};
    ec = std::make_error_code(std::errc::invalid_argument);
    return false;
  }

  json::value_stack stack_;
  std::vector<Frame> frames_;
  std::string key_;     // a key read in parts
  std::string number_;  // a number read in parts
  std::optional<JsonTextProblem> problem_;
};

// Boost.JSON's words for a syntax problem, where they could be clearer.
std::string syntax_problem(const boost::system::error_code& error, std::string_view text, std::size_t offset) {
  if (error == json::error::too_deep)
    return fmt::format("nested more than {} levels deep (arrays and objects)", max_json_depth);
  if (error == json::error::exponent_overflow) return "number out of range: its exponent is beyond any double's";
  if (error == json::error::syntax && offset < text.size() && static_cast<unsigned char>(text[offset]) >= 0x80)
    return "invalid UTF-8 in a string";
  return error.message();
}

// ---------------------------------------------------------------- writing

// The member or element being written, kept to name a value that cannot be written.
struct WriteStep {
  std::string_view key{};
  std::size_t index = 0;
  bool is_key = false;
};

class Writer {
 public:
  explicit Writer(JsonLayout layout) : indented_(layout == JsonLayout::indented) {}

  std::string take() { return std::move(out_); }

  void value(const json::value& value) {
    switch (value.kind()) {
      case json::kind::null: out_ += "null"; break;
      case json::kind::bool_: out_ += value.get_bool() ? "true" : "false"; break;
      case json::kind::int64: number(value.get_int64()); break;
      case json::kind::uint64: number(value.get_uint64()); break;
      case json::kind::double_: floating(value.get_double()); break;
      case json::kind::string: string(value.get_string()); break;
      case json::kind::array: array(value.get_array()); break;
      case json::kind::object: object(value.get_object()); break;
    }
  }

 private:
  template <class Number>
  void number(Number value) {
    std::array<char, 32> buffer{};
    const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
    out_.append(buffer.data(), end);
  }

  // The fewest digits that read back as the same double, as Python's repr
  // writes them: positional from 1e-4 to 1e16, else with an exponent; always
  // with a '.' or an exponent, so that it reads back as a double, not an integer.
  void floating(double value) {
    if (!std::isfinite(value)) {
      std::vector<JsonPathStep> path;
      for (const WriteStep& step : where_) path.push_back({std::string(step.key), step.index, step.is_key});
      throw JsonError(json_path_text(path),
                      fmt::format("cannot write the number {}: JSON has no infinity or NaN", value));
    }
    const double magnitude = std::fabs(value);
    const bool positional = magnitude == 0 || (magnitude >= 1e-4 && magnitude < 1e16);
    std::array<char, 32> buffer{};
    const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                   positional ? std::chars_format::fixed : std::chars_format::scientific)
                         .ptr;
    const std::string_view text(buffer.data(), static_cast<std::size_t>(end - buffer.data()));
    out_ += text;
    if (text.find_first_of(".e") == std::string_view::npos) out_ += ".0";
  }

  void string(std::string_view text) {
    out_ += '"';
    std::size_t plain = 0;  // bytes at the front of text to copy as they are
    auto flush = [&] {
      out_.append(text.substr(0, plain));
      text.remove_prefix(plain);
      plain = 0;
    };
    while (plain < text.size()) {
      const auto byte = static_cast<unsigned char>(text[plain]);
      if (byte >= 0x80) {
        const Utf8Sequence sequence = first_utf8_sequence(text.substr(plain));
        if (!sequence.well_formed) {
          flush();
          out_ += replacement_character;
          text.remove_prefix(sequence.size);
          continue;
        }
        const char32_t c = utf8_code_point(text, plain, sequence.size);
        if (c > 0x9F && !reorders_or_breaks_lines(c)) {
          plain += sequence.size;
          continue;
        }
        flush();  // C1 controls, bidirectional controls, line separators: escaped for terminals
        out_ += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        text.remove_prefix(sequence.size);
      } else if (byte < 0x20 || byte == 0x7F || byte == '"' || byte == '\\') {
        flush();
        append_json_escape(out_, static_cast<char>(byte));
        text.remove_prefix(1);
      } else {
        ++plain;
      }
    }
    flush();
    out_ += '"';
  }

  void array(const json::array& array) {
    out_ += '[';
    where_.push_back({});
    for (const json::value& element : array) {
      if (where_.back().index != 0) out_ += ',';
      new_line();
      value(element);
      ++where_.back().index;
    }
    close(!array.empty(), ']');
  }

  void object(const json::object& object) {
    out_ += '{';
    where_.push_back({.is_key = true});
    bool first = true;
    for (const json::key_value_pair& member : object) {
      if (!first) out_ += ',';
      first = false;
      new_line();
      where_.back().key = member.key();
      string(member.key());
      out_ += indented_ ? ": " : ":";
      value(member.value());
    }
    close(!object.empty(), '}');
  }

  void new_line() {
    if (!indented_) return;
    out_ += '\n';
    out_.append(2 * where_.size(), ' ');
  }

  void close(bool had_members, char bracket) {
    where_.pop_back();
    if (had_members) new_line();
    out_ += bracket;
  }

  bool indented_;
  std::string out_;
  std::vector<WriteStep> where_;
};

}  // namespace

void append_json_escape(std::string& out, char c) {
  switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default: fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned char>(c));
  }
}

std::string json_path_text(const std::vector<JsonPathStep>& path) {
  std::string text;
  for (const JsonPathStep& step : path) {
    if (step.is_key) append_key_to_path(text, step.key);
    else text += fmt::format("[{}]", step.index);
  }
  return text;
}

void append_key_to_path(std::string& path, std::string_view key) {
  if (is_plain_key(key)) {
    if (!path.empty()) path += '.';
    path += key;
  } else {
    path += '[' + write_json(json::string(key)) + ']';
  }
}

std::variant<json::value, JsonTextProblem> parse_json_text(std::string_view text) {
  json::parse_options options;
  options.max_depth = max_json_depth;
  json::basic_parser<StrictHandler> parser(options);
  boost::system::error_code error;
  const std::size_t consumed = parser.write_some(false, text.data(), text.size(), error);
  if (const auto& problem = parser.handler().problem()) {
    JsonTextProblem refused = *problem;
    refused.offset = consumed;
    return refused;
  }
  if (error == json::error::exponent_overflow)
    return JsonTextProblem{consumed, parser.handler().path_here(), syntax_problem(error, text, consumed)};
  if (error) return JsonTextProblem{consumed, {}, syntax_problem(error, text, consumed)};
  if (consumed < text.size()) return JsonTextProblem{consumed, {}, "extra data after the document"};
  return parser.handler().release();
}

std::string line_and_column(std::string_view text, std::size_t offset) {
  const std::string_view before = text.substr(0, offset);
  const auto line = 1 + std::count(before.begin(), before.end(), '\n');
  const auto line_start = before.rfind('\n');
  const auto column = line_start == std::string_view::npos ? offset + 1 : offset - line_start;
  return fmt::format("line {}, column {} (offset {})", line, column, offset);
}

std::string_view json_kind_name(const json::value& value) noexcept {
  switch (value.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return "boolean";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: return "number";
    case json::kind::string: return "string";
    case json::kind::array: return "array";
    case json::kind::object: return "object";
  }
  return "unknown";
}

}  // namespace detail

boost::json::value parse_json(std::string_view text, std::string_view source) {
  auto parsed = detail::parse_json_text(text);
  if (auto* document = std::get_if<boost::json::value>(&parsed)) return std::move(*document);
  const auto& problem = std::get<detail::JsonTextProblem>(parsed);
  const std::string path = detail::json_path_text(problem.path);
  throw JsonError(std::string(source), fmt::format("invalid JSON at {}: {}{}{}", detail::line_and_column(text, problem.offset),
                                                   path, path.empty() ? "" : ": ", problem.what));
}

std::string write_json(const boost::json::value& json, JsonLayout layout) {
  detail::Writer writer(layout);
  writer.value(json);
  return writer.take();
}

}  // namespace hookbus
