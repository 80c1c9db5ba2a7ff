// copy_over for JSON values (lib/trace/copy_over.hpp).

#include "trace/copy_over.hpp"

#include <bit>
#include <cstdint>

namespace hookbus::detail {

void copy_over(boost::json::object& older, const boost::json::object& newer) {
  // Members are stored in order, so begin() + i is the i-th.
  bool same_keys = older.size() == newer.size();
  for (std::size_t i = 0; same_keys && i < newer.size(); ++i)
    same_keys = older.begin()[i].key() == newer.begin()[i].key();
  if (!same_keys) {
    older = newer;
    return;
  }
  for (std::size_t i = 0; i < newer.size(); ++i) copy_over(older.begin()[i].value(), newer.begin()[i].value());
}

void copy_over(boost::json::array& older, const boost::json::array& newer) {
  if (older.size() != newer.size()) {
    older = newer;
    return;
  }
  for (std::size_t i = 0; i < older.size(); ++i) copy_over(older[i], newer[i]);
}

void copy_over(boost::json::value& older, const boost::json::value& newer) {
  if (older.kind() != newer.kind()) {
    older = newer;
    return;
  }
  switch (newer.kind()) {
    case boost::json::kind::object: copy_over(older.get_object(), newer.get_object()); return;
    case boost::json::kind::array: copy_over(older.get_array(), newer.get_array()); return;
    case boost::json::kind::string:
      if (older.get_string() != newer.get_string()) older.get_string() = newer.get_string();
      return;
    case boost::json::kind::double_:  // compared as bits: -0.0 == 0.0, and a NaN is not equal to itself
      if (std::bit_cast<std::uint64_t>(older.get_double()) != std::bit_cast<std::uint64_t>(newer.get_double()))
        older.get_double() = newer.get_double();
      return;
    default:  // null, bool and integers
      if (older != newer) older = newer;
      return;
  }
}

}  // namespace hookbus::detail
