#pragma once
// The fields of a hook's JSON answer, each checked as it is read: absent or
// null is nullopt, and a field of another type goes to the answer reader's
// `wrong(key, expected, got)`, which makes it a failed run naming the field
// in the format's words and does not return. Each format's reader derives
// from it (CRTP) and befriends it.

#include <boost/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace hookbus::detail {

template <class Reader>
class AnswerFields {
 public:
  std::optional<std::string> string(std::string_view key) const {
    const boost::json::value* value = present(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_string()) reader().wrong(key, "a string", *value);
    return std::string(value->get_string());
  }
  std::optional<bool> boolean(std::string_view key) const {
    const boost::json::value* value = present(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_bool()) reader().wrong(key, "a boolean", *value);
    return value->get_bool();
  }
  std::optional<boost::json::object> object(std::string_view key) const {
    const boost::json::value* value = present(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_object()) reader().wrong(key, "an object", *value);
    return value->get_object();
  }
  // The field as it is, null included; null when absent.
  const boost::json::value* raw(std::string_view key) const { return object_.if_contains(key); }

 protected:
  explicit AnswerFields(boost::json::object object = {}) : object_(std::move(object)) {}

  boost::json::object object_;

 private:
  const boost::json::value* present(std::string_view key) const {
    const boost::json::value* value = object_.if_contains(key);
    return value == nullptr || value->is_null() ? nullptr : value;
  }
  const Reader& reader() const { return static_cast<const Reader&>(*this); }
};

}  // namespace hookbus::detail
