// One-line rendering of catalogue values, by one recursive writer over the
// described members (see format.hpp for the shape).

#include "catalogue/instantiations.hpp"
#include "catalogue/json_text.hpp"
#include "support/utf8.hpp"

#include <hookbus/format.hpp>
#include <hookbus/json.hpp>
#include <hookbus/reflect.hpp>

#include <chrono>
#include <iterator>

namespace hookbus {
namespace {

using namespace reflect;

class LineWriter {
 public:
  explicit LineWriter(std::size_t string_limit) : limit_(string_limit) {}

  // A value as a trace line starts: structs carry their name (tool_call{...}).
  template <class T>
  void top_level(const T& value) {
    if constexpr (DescribedStruct<T> && !Tagged<T>) {
      line_ += type_display_name<T>();
      fields(value);
    } else {
      write(value);
    }
  }

  std::string take() && { return std::move(line_); }

 private:
  template <class T>
  void write(const T& value) {
    if constexpr (std::is_same_v<T, bool>) line_ += value ? "true" : "false";
    else if constexpr (std::is_arithmetic_v<T>) fmt::format_to(std::back_inserter(line_), "{}", value);
    else if constexpr (std::is_same_v<T, std::string>) quoted(value);
    else if constexpr (JsonValue<T>) cut(json_text(value));
    else if constexpr (std::is_same_v<T, Timestamp>) timestamp(value);
    else if constexpr (std::is_same_v<T, Duration>) fmt::format_to(std::back_inserter(line_), "{}ms", value.count());
    else if constexpr (DescribedEnum<T>) enumerator(value);
    else if constexpr (is_optional_v<T>) value ? write(*value) : void(line_ += "none");
    else if constexpr (is_vector_v<T>) elements(value);
    else if constexpr (std::is_same_v<T, ContentPart>) std::visit([&](const auto& part) { write(part); }, value);
    else if constexpr (Tagged<T>) {
      line_ += T::type;
      fields(value);
    } else if constexpr (DescribedStruct<T>) fields(value);
    else static_assert(always_false<T>, "hookbus format: no rendering for this member type");
  }

  // {name=value, ...}, leaving out what carries no information: absent
  // optionals, a result's empty lists, a context's empty (unknown) strings and
  // a context that was never filled in.
  template <class T>
  void fields(const T& value) {
    line_ += '{';
    const char* separator = "";
    boost::mp11::mp_for_each<members_of<T>>([&](auto member) {
      const auto& field = value.*member.pointer;
      using Member = std::remove_cvref_t<decltype(field)>;
      if constexpr (is_optional_v<Member>) {
        if (!field) return;
      }
      if constexpr ((ResultType<T> && is_vector_v<Member>) ||
                    (std::is_same_v<T, EventContext> && std::is_same_v<Member, std::string>)) {
        if (field.empty()) return;
      }
      if constexpr (std::is_same_v<Member, EventContext>) {
        if (field == EventContext{}) return;
      }
      fmt::format_to(std::back_inserter(line_), "{}{}=", separator, member.name);
      write(field);
      separator = ", ";
    });
    line_ += '}';
  }

  template <class T>
  void elements(const std::vector<T>& values) {
    line_ += '[';
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i != 0) line_ += ", ";
      write(values[i]);
    }
    line_ += ']';
  }

  template <DescribedEnum E>
  void enumerator(E value) {
    if (auto name = enum_wire_name(value)) line_ += *name;
    else fmt::format_to(std::back_inserter(line_), "{}({})", type_display_name<E>(), static_cast<std::underlying_type_t<E>>(value));
  }

  // ISO 8601 in UTC for calendar years 0 to 9999, raw milliseconds beyond.
  void timestamp(Timestamp value) {
    using namespace std::chrono;
    constexpr sys_days first = year{0} / January / 1;
    constexpr sys_days past_last = year{10000} / January / 1;
    if (value < first || value >= past_last) {
      fmt::format_to(std::back_inserter(line_), "{}ms", value.time_since_epoch().count());
      return;
    }
    const sys_days day = floor<days>(value);
    const year_month_day date(day);
    const hh_mm_ss time(value - day);
    fmt::format_to(std::back_inserter(line_), "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", int(date.year()),
                   unsigned(date.month()), unsigned(date.day()), time.hours().count(), time.minutes().count(),
                   time.seconds().count(), time.subseconds().count());
  }

  // The one JSON writer's compact text (valid UTF-8, newlines and terminal
  // controls escaped). A number JSON cannot hold (an infinity from C++) is
  // said instead: a trace line never throws.
  static std::string json_text(const boost::json::value& value) {
    try {
      return write_json(value);
    } catch (const JsonError& error) {
      return fmt::format("<not JSON: {}>", error.what());
    }
  }

  void quoted(std::string_view text) {
    const std::string_view kept = detail::utf8_prefix(text, limit_);
    line_ += '"';
    for (char c : kept) escaped(c);
    line_ += '"';
    more(text.size() - kept.size());
  }

  // Only what would break the line or the quoting is escaped; UTF-8 stays as is.
  void escaped(char c) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) detail::append_json_escape(line_, c);
    else line_ += c;
  }

  void cut(std::string_view text) {
    const std::string_view kept = detail::utf8_prefix(text, limit_);
    line_ += kept;
    more(text.size() - kept.size());
  }

  void more(std::size_t cut_bytes) {
    if (cut_bytes != 0) fmt::format_to(std::back_inserter(line_), "…({} more bytes)", cut_bytes);
  }

  std::string line_;
  std::size_t limit_;
};

}  // namespace

template <CatalogueType T>
std::string format_line(const T& value, std::size_t string_limit) {
  LineWriter writer(string_limit);
  writer.top_level(value);
  return std::move(writer).take();
}

std::string format_line(const HookEvent& event, std::size_t string_limit) {
  return std::visit([&](const auto& alternative) { return format_line(alternative, string_limit); }, event);
}

std::string format_line(const HookOutcome& outcome, std::size_t string_limit) {
  return std::visit(
      [&]<class R>(const R& result) -> std::string {
        if constexpr (std::is_same_v<R, std::monostate>) return "none";
        else return format_line(result, string_limit);
      },
      outcome);
}

namespace {

[[gnu::used]] constexpr auto instantiated_renderers =
    detail::addresses_for<CatalogueTypes<>>([]<class T>(std::type_identity<T>) { return &format_line<T>; });

}  // namespace
}  // namespace hookbus
