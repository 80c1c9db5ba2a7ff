#pragma once
// Random catalogue values built from the descriptions, for the JSON round-trip
// tests (json_test.cpp) and the fuzzers' seed corpus (fuzz/seeds.cpp), made with
// the public reflection helpers (hookbus/reflect.hpp).

#include <hookbus/reflect.hpp>

#include <boost/json/value.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace hookbus::testing {

namespace random_values_detail {
namespace json = boost::json;
using namespace reflect;

// Random catalogue values built from their descriptions: every member of every
// struct gets a value, so a new field or event is covered without an edit here.
class RandomValues {
 public:
  explicit RandomValues(std::uint64_t seed) : engine_(seed) {}

  template <class T>
  T make() {
    if constexpr (std::is_same_v<T, bool>) return chance();
    else if constexpr (Integer<T>) return integer<T>();
    else if constexpr (std::is_same_v<T, double>) return finite_double();
    else if constexpr (std::is_same_v<T, std::string>) return text();
    else if constexpr (std::is_same_v<T, json::object>) return object(0);
    else if constexpr (std::is_same_v<T, json::value>) return json_value(0);
    else if constexpr (std::is_same_v<T, Timestamp>) return Timestamp(make<Duration>());
    else if constexpr (std::is_same_v<T, Duration>) return Duration(integer<Duration::rep>());
    else if constexpr (DescribedEnum<T>) return one_of(enumerators<T>());
    else if constexpr (is_optional_v<T>) return chance() ? T(make<typename T::value_type>()) : T();
    else if constexpr (is_vector_v<T>) return vector<typename T::value_type>();
    else if constexpr (std::is_same_v<T, ContentPart>) return alternative<T>(std::make_index_sequence<std::variant_size_v<T>>{});
    else if constexpr (DescribedStruct<T>) return structure<T>();
    else static_assert(always_false<T>, "RandomValues: teach me this member type");
  }

 private:
  std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(engine_); }
  bool chance() { return below(2) == 0; }

  template <class T>
  T one_of(const std::vector<T>& choices) {
    return choices[below(choices.size())];
  }

  // A third of the time an extreme, otherwise anywhere in the type's range.
  template <Integer T>
  T integer() {
    using limits = std::numeric_limits<T>;
    if (below(3) == 0) return one_of<T>({limits::min(), limits::max(), T{0}});
    return std::uniform_int_distribution<T>(limits::min(), limits::max())(engine_);
  }

  // Quotes, backslashes, control characters and multi-byte UTF-8 among plain text.
  std::string text() {
    static const std::vector<std::string> pieces = {"a", "Z", "7", " ", "\"", "\\", "\n", "\t", "\x01", "/",
                                                    "é", "日本", "🎉", "{}", "null"};
    std::string text;
    for (std::size_t n = below(13); n > 0; --n) text += one_of(pieces);
    return text;
  }

  // Any finite double, from its bits: subnormals, huge and tiny exponents, negative zero.
  double finite_double() {
    for (;;) {
      const double value = std::bit_cast<double>(std::uniform_int_distribution<std::uint64_t>()(engine_));
      if (std::isfinite(value)) return value;
    }
  }

  json::value json_value(int depth) {
    switch (below(depth < 2 ? 8 : 6)) {
      case 0: return nullptr;
      case 1: return chance();
      case 2: return integer<std::int64_t>();
      case 3: return integer<std::uint64_t>();
      case 4: return chance() ? static_cast<double>(integer<std::int32_t>()) / 8 : finite_double();
      case 5: return json::string(text());
      case 6: return array(depth + 1);
      default: return object(depth + 1);
    }
  }

  json::array array(int depth) {
    json::array array;
    for (std::size_t n = below(4); n > 0; --n) array.push_back(json_value(depth));
    return array;
  }

  json::object object(int depth) {
    json::object object;
    for (std::size_t n = below(4); n > 0; --n) object[text()] = json_value(depth);
    return object;
  }

  template <DescribedEnum E>
  static std::vector<E> enumerators() {
    std::vector<E> values;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) { values.push_back(d.value); });
    return values;
  }

  template <class T>
  std::vector<T> vector() {
    std::vector<T> values;
    for (std::size_t n = below(4); n > 0; --n) values.push_back(make<T>());
    return values;
  }

  template <class V, std::size_t... I>
  V alternative(std::index_sequence<I...>) {
    using Make = V (*)(RandomValues&);
    static constexpr Make makers[] = {[](RandomValues& r) -> V { return r.make<std::variant_alternative_t<I, V>>(); }...};
    return makers[below(sizeof...(I))](*this);
  }

  template <class T>
  T structure() {
    T value{};
    boost::mp11::mp_for_each<members_of<T>>([&](auto member) {
      value.*member.pointer = make<std::remove_cvref_t<decltype(value.*member.pointer)>>();
    });
    return value;
  }

  std::mt19937_64 engine_;
};

}  // namespace random_values_detail

using random_values_detail::RandomValues;

}  // namespace hookbus::testing
