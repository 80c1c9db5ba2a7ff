// JSON for every catalogue type, by one recursive reader and one recursive
// writer over the described members. Boost.JSON's own described-struct
// conversion is not used for reading: in 1.81 it rejects missing keys (even for
// std::optional) and unknown keys, and its errors do not say where.

#include "catalogue/instantiations.hpp"
#include "catalogue/json_text.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/reflect.hpp>

#include "support/logging.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

namespace hookbus {
namespace {

namespace json = boost::json;
using namespace reflect;

// ---------------------------------------------------------------- writing

template <class T>
json::value write(const T& value);

template <DescribedStruct T>
json::object write_struct(const T& value) {
  json::object object;
  if constexpr (Tagged<T>) object.emplace("type", T::type);
  boost::mp11::mp_for_each<members_of<T>>([&](auto member) {
    const auto& field = value.*member.pointer;
    if constexpr (is_optional_v<std::remove_cvref_t<decltype(field)>>) {
      if (!field) return;  // absent optionals are left out, not written as null
    }
    object.emplace(member.name, write(field));
  });
  return object;
}

template <DescribedEnum E>
json::value write_enum(E value) {
  if (auto name = enum_wire_name(value)) return json::string(*name);
  throw JsonError("", fmt::format("cannot write {} value {}: it is not a named enumerator", type_display_name<E>(),
                                  static_cast<std::underlying_type_t<E>>(value)));
}

template <class T>
json::value write(const T& value) {
  if constexpr (std::is_arithmetic_v<T> || JsonValue<T>) return json::value(value);
  else if constexpr (std::is_same_v<T, std::string>) return json::string(value);
  else if constexpr (std::is_same_v<T, Timestamp>) return value.time_since_epoch().count();
  else if constexpr (std::is_same_v<T, Duration>) return value.count();
  else if constexpr (DescribedEnum<T>) return write_enum(value);
  else if constexpr (is_optional_v<T>) return value ? write(*value) : json::value(nullptr);
  else if constexpr (is_vector_v<T>) {
    json::array array;
    array.reserve(value.size());
    for (const auto& element : value) array.push_back(write(element));
    return array;
  } else if constexpr (std::is_same_v<T, ContentPart>) {
    return std::visit([](const auto& part) { return json::value(write_struct(part)); }, value);
  } else if constexpr (DescribedStruct<T>) {
    return write_struct(value);
  } else {
    static_assert(always_false<T>, "hookbus JSON: no conversion for this member type");
  }
}

// ---------------------------------------------------------------- reading

// Where in the document a reader is. Each segment lives on the reader's stack;
// they are joined into text only when an error is reported.
class Path {
 public:
  explicit Path(std::string_view root) : name_(root) {}

  Path member(std::string_view name) const { return Path(this, name, 0); }
  Path element(std::size_t index) const { return Path(this, {}, index); }

  std::string str() const {
    if (parent_ == nullptr) return std::string(name_);
    std::string text = parent_->str();
    if (name_.empty()) return text + '[' + std::to_string(index_) + ']';
    return text.empty() ? std::string(name_) : text + '.' + std::string(name_);
  }

 private:
  Path(const Path* parent, std::string_view name, std::size_t index) : parent_(parent), name_(name), index_(index) {}

  const Path* parent_ = nullptr;
  std::string_view name_;  // the root or a member name; empty for an array element
  std::size_t index_ = 0;
};

[[noreturn]] void fail(const Path& path, const std::string& message) { throw JsonError(path.str(), message); }

[[noreturn]] void fail_expected(const Path& path, std::string_view expected, const json::value& got) {
  fail(path, fmt::format("expected {}, got {}", expected, detail::json_kind_name(got)));
}

template <class T>
T read(const json::value& node, const Path& path);

const json::object& expect_object(const json::value& node, const Path& path) {
  if (!node.is_object()) fail_expected(path, "object", node);
  return node.get_object();
}

// A number as an error message shows it (a double from C++ code may be infinite).
std::string number_text(const json::value& node) {
  return node.is_double() ? fmt::format("{}", node.get_double()) : write_json(node);
}

template <Integer T>
[[noreturn]] void fail_out_of_range(const json::value& node, const Path& path) {
  fail(path, fmt::format("expected integer from {} to {}, got {}", std::numeric_limits<T>::min(),
                         std::numeric_limits<T>::max(), number_text(node)));
}

template <Integer T, Integer N>
T narrow(N number, const json::value& node, const Path& path) {
  if (!std::in_range<T>(number)) fail_out_of_range<T>(node, path);
  return static_cast<T>(number);
}

// A double holding a whole number (1e3 from another serializer) is accepted;
// one with a fraction is not.
template <Integer T>
T narrow_double(double number, const json::value& node, const Path& path) {
  if (!std::isfinite(number) || std::trunc(number) != number) fail(path, "expected integer, got " + number_text(node));
  constexpr double two_to_63 = 0x1p63;
  if (number >= -two_to_63 && number < two_to_63) return narrow<T>(static_cast<std::int64_t>(number), node, path);
  if (number >= 0 && number < 2 * two_to_63) return narrow<T>(static_cast<std::uint64_t>(number), node, path);
  fail_out_of_range<T>(node, path);
}

template <Integer T>
T read_integer(const json::value& node, const Path& path) {
  switch (node.kind()) {
    case json::kind::int64: return narrow<T>(node.get_int64(), node, path);
    case json::kind::uint64: return narrow<T>(node.get_uint64(), node, path);
    case json::kind::double_: return narrow_double<T>(node.get_double(), node, path);
    default: fail_expected(path, "integer", node);
  }
}

template <DescribedEnum E>
E read_enum(const json::value& node, const Path& path) {
  if (!node.is_string()) fail_expected(path, "string", node);
  const std::string_view name = node.get_string();
  if (auto value = enum_from_wire_name<E>(name)) return *value;
  fail(path, fmt::format("unknown value '{}'; expected one of: {}", name, fmt::join(enum_wire_names<E>(), ", ")));
}

template <class T>
std::vector<T> read_array(const json::value& node, const Path& path) {
  if (!node.is_array()) fail_expected(path, "array", node);
  const json::array& array = node.get_array();
  std::vector<T> values;
  values.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) values.push_back(read<T>(array[i], path.element(i)));
  return values;
}

// Whether member `name` of Owner may be missing from the JSON (it then keeps its
// default): see json.hpp for the rule.
template <class Owner, class Member>
bool may_be_missing(std::string_view name) {
  return ResultType<Owner> || std::is_same_v<Owner, EventContext> || is_optional_v<Member> || is_vector_v<Member> ||
         std::is_same_v<Member, bool> || JsonValue<Member> || std::is_same_v<Member, RunStatus> ||
         (Event<Owner> && name == "context");
}

template <DescribedStruct T>
T read_struct(const json::value& node, const Path& path) {
  const json::object& object = expect_object(node, path);
  T value{};
  boost::mp11::mp_for_each<members_of<T>>([&](auto member) {
    using Member = std::remove_cvref_t<decltype(value.*member.pointer)>;
    if (const json::value* field = object.if_contains(member.name))
      value.*member.pointer = read<Member>(*field, path.member(member.name));
    else if (!may_be_missing<T, Member>(member.name))
      fail(path, fmt::format("missing required field '{}'", member.name));
  });
  return value;
}

template <class... Parts>
std::variant<Parts...> read_content_part(const json::value& node, const Path& path, std::variant<Parts...>*) {
  const json::value* tag = expect_object(node, path).if_contains("type");
  if (tag == nullptr) fail(path, "missing required field 'type'");
  if (!tag->is_string()) fail_expected(path.member("type"), "string", *tag);
  const std::string_view type = tag->get_string();
  std::optional<std::variant<Parts...>> part;
  ((type == Parts::type ? void(part.emplace(read_struct<Parts>(node, path))) : void()), ...);
  if (!part) {
    const std::string_view types[] = {Parts::type...};
    fail(path, fmt::format("unknown content part type '{}'; expected one of: {}", type, fmt::join(types, ", ")));
  }
  return std::move(*part);
}

template <class T>
T read(const json::value& node, const Path& path) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!node.is_bool()) fail_expected(path, "boolean", node);
    return node.get_bool();
  } else if constexpr (Integer<T>) {
    return read_integer<T>(node, path);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!node.is_number()) fail_expected(path, "number", node);
    return node.to_number<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!node.is_string()) fail_expected(path, "string", node);
    return std::string(node.get_string());
  } else if constexpr (std::is_same_v<T, json::object>) {
    return expect_object(node, path);
  } else if constexpr (std::is_same_v<T, json::value>) {
    return node;
  } else if constexpr (std::is_same_v<T, Timestamp>) {
    return Timestamp(Duration(read_integer<Duration::rep>(node, path)));
  } else if constexpr (std::is_same_v<T, Duration>) {
    return Duration(read_integer<Duration::rep>(node, path));
  } else if constexpr (DescribedEnum<T>) {
    return read_enum<T>(node, path);
  } else if constexpr (is_optional_v<T>) {
    if (node.is_null()) return std::nullopt;  // other serializers write absent as null
    return read<typename T::value_type>(node, path);
  } else if constexpr (is_vector_v<T>) {
    return read_array<typename T::value_type>(node, path);
  } else if constexpr (std::is_same_v<T, ContentPart>) {
    return read_content_part(node, path, static_cast<ContentPart*>(nullptr));
  } else if constexpr (DescribedStruct<T>) {
    return read_struct<T>(node, path);
  } else {
    static_assert(always_false<T>, "hookbus JSON: no conversion for this member type");
  }
}

// ---------------------------------------------------------------- unknown fields

// How many edits make one name the other: a character inserted, deleted or
// replaced, or two neighbours swapped (optimal string alignment), case
// ignored, so "toolName" is one edit from "tool_name".
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  const std::size_t width = b.size() + 1;
  std::vector<std::size_t> d((a.size() + 1) * width);
  const auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * width + j]; };
  for (std::size_t i = 0; i <= a.size(); ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= b.size(); ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(a.size(), b.size());
}

// The known name closest to `name`, when it is close enough to be what was
// meant: at most one edit in three characters of the shorter name (at least
// one edit), so "tool_nme" suggests "tool_name" and "x" suggests nothing.
// Ties go to the first known name. A name of over 64 characters is like no
// member (none is that long), and is not compared: each comparison costs the
// product of the lengths, and a key of a document from outside may be huge.
std::string closest_name(std::string_view name, const std::vector<std::string_view>& known) {
  constexpr std::size_t longest_compared = 64;
  if (name.size() > longest_compared) return {};
  std::string_view best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const std::string_view candidate : known) {
    const std::size_t distance = edit_distance(name, candidate);
    const std::size_t allowed = std::max<std::size_t>(1, std::min(name.size(), candidate.size()) / 3);
    if (distance <= allowed && distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return std::string(best);
}

template <class T>
void collect_unknown(const json::value& node, const Path& path, std::vector<UnknownField>& found);

// The keys of a T's object that T does not have, and those of the members it has.
template <DescribedStruct T>
void collect_unknown_in_struct(const json::value& node, const Path& path, std::vector<UnknownField>& found) {
  if (!node.is_object()) return;
  std::vector<std::string_view> known;
  if constexpr (Tagged<T>) known.push_back("type");
  boost::mp11::mp_for_each<members_of<T>>([&](auto member) { known.push_back(member.name); });
  for (const auto& [key, value] : node.get_object()) {
    bool is_member = Tagged<T> && key == "type";
    boost::mp11::mp_for_each<members_of<T>>([&](auto member) {
      if (is_member || key != member.name) return;
      is_member = true;
      collect_unknown<std::remove_cvref_t<decltype(std::declval<T&>().*member.pointer)>>(value, path.member(member.name),
                                                                                        found);
    });
    if (!is_member) found.push_back({path.str(), std::string(key), closest_name(key, known)});
  }
}

template <class... Parts>
void collect_unknown_in_part(const json::value& node, const Path& path, std::vector<UnknownField>& found,
                             std::variant<Parts...>*) {
  const json::value* type = node.is_object() ? node.get_object().if_contains("type") : nullptr;
  if (type == nullptr || !type->is_string()) return;
  ((type->get_string() == Parts::type ? collect_unknown_in_struct<Parts>(node, path, found) : void()), ...);
}

template <class T>
void collect_unknown(const json::value& node, const Path& path, std::vector<UnknownField>& found) {
  if constexpr (is_optional_v<T>) {
    collect_unknown<typename T::value_type>(node, path, found);
  } else if constexpr (is_vector_v<T>) {
    if (!node.is_array()) return;
    const json::array& array = node.get_array();
    for (std::size_t i = 0; i < array.size(); ++i) collect_unknown<typename T::value_type>(array[i], path.element(i), found);
  } else if constexpr (std::is_same_v<T, ContentPart>) {
    collect_unknown_in_part(node, path, found, static_cast<ContentPart*>(nullptr));
  } else if constexpr (DescribedStruct<T>) {
    collect_unknown_in_struct<T>(node, path, found);
  }  // anything else has no keys of its own to check: a number, a string, an enum, free-form JSON
}

// `unknown field "tool_nme" in tool_call (did you mean "tool_name"?)`; without
// the object, for a JsonError, whose path names it.
std::string unknown_field_text(const UnknownField& field, bool with_object) {
  std::string text = "unknown field " + write_json(json::string(field.name));
  if (with_object) text += " in " + field.object;
  if (!field.suggestion.empty()) text += " (did you mean " + write_json(json::string(field.suggestion)) + "?)";
  return text;
}

// Error paths start at the event's wire name for events ("tool_call.input"),
// at the type's name for everything else ("ToolCallResult.block").
template <class T>
std::string_view root_name() {
  if constexpr (Event<T>) {
    return T::type;
  } else {
    static const std::string name = type_display_name<T>();
    return name;
  }
}

// Calls f(std::type_identity<E>{}) for the event type at a HookEvent index.
template <class R, class F, std::size_t... I>
R with_event_type(std::size_t index, F&& f, std::index_sequence<I...>) {
  event_name(index);  // bounds check with a clear message
  using Call = R (*)(F&);
  static constexpr Call calls[] = {
      [](F& g) -> R { return g(std::type_identity<std::variant_alternative_t<I, HookEvent>>{}); }...};
  return calls[index](f);
}

template <class R, class F>
R with_event_type(std::size_t index, F&& f) {
  return with_event_type<R>(index, f, std::make_index_sequence<event_count>{});
}

}  // namespace

template <CatalogueType T>
boost::json::value to_json(const T& value) {
  return write(value);
}

std::string UnknownField::message() const { return unknown_field_text(*this, /*with_object=*/true); }

template <CatalogueType T>
std::vector<UnknownField> unknown_fields(const boost::json::value& document) {
  std::vector<UnknownField> found;
  collect_unknown<T>(document, Path(root_name<T>()), found);
  return found;
}

std::vector<UnknownField> event_unknown_fields(std::size_t event_index, const boost::json::value& document) {
  return with_event_type<std::vector<UnknownField>>(
      event_index, [&]<class E>(std::type_identity<E>) { return unknown_fields<E>(document); });
}

std::vector<UnknownField> outcome_unknown_fields(std::size_t event_index, const boost::json::value& document) {
  return with_event_type<std::vector<UnknownField>>(event_index, [&]<class E>(std::type_identity<E>) {
    if constexpr (EventWithResult<E>) return unknown_fields<result_t<E>>(document);
    else return std::vector<UnknownField>{};
  });
}

template <CatalogueType T>
T from_json(const boost::json::value& document, const JsonReadOptions& options) {
  if (options.unknown_fields != UnknownFields::ignore) {
    for (const UnknownField& field : unknown_fields<T>(document)) {
      if (options.unknown_fields == UnknownFields::error) throw JsonError(field.object, unknown_field_text(field, false));
      detail::log(spdlog::level::warn, "{}", field.message());
    }
  }
  return read<T>(document, Path(root_name<T>()));
}

boost::json::value to_json(const HookEvent& event) {
  return std::visit([](const auto& alternative) { return write(alternative); }, event);
}

HookEvent event_from_json(const boost::json::value& document, const JsonReadOptions& options) {
  const Path root("event");
  const json::value* type = expect_object(document, root).if_contains("type");
  if (type == nullptr) fail(root, "missing required field 'type'");
  if (!type->is_string()) fail_expected(root.member("type"), "string", *type);
  std::size_t index = 0;
  try {
    index = resolve_event(type->get_string());
  } catch (const UnknownEventError& unknown) {
    fail(root.member("type"), unknown.what());
  }
  return event_from_json(index, document, options);
}

HookEvent event_from_json(std::size_t event_index, const boost::json::value& document, const JsonReadOptions& options) {
  return with_event_type<HookEvent>(event_index, [&]<class E>(std::type_identity<E>) -> HookEvent {
    return from_json<E>(document, options);
  });
}

boost::json::value to_json(const HookOutcome& outcome) {
  return std::visit(
      []<class R>(const R& result) {
        if constexpr (std::is_same_v<R, std::monostate>) return json::value(nullptr);
        else return write(result);
      },
      outcome);
}

HookOutcome outcome_from_json(std::size_t event_index, const boost::json::value& document,
                              const JsonReadOptions& options) {
  return with_event_type<HookOutcome>(event_index, [&]<class E>(std::type_identity<E>) -> HookOutcome {
    if constexpr (EventWithResult<E>) return from_json<result_t<E>>(document, options);
    else return std::monostate{};
  });
}

namespace {

[[gnu::used]] constexpr auto instantiated_conversions = detail::addresses_for<CatalogueTypes<>>(
    []<class T>(std::type_identity<T>) { return std::tuple{&to_json<T>, &from_json<T>, &unknown_fields<T>}; });

}  // namespace
}  // namespace hookbus
