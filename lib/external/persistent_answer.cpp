// A persistent hook's answer line (external/persistent_answer.hpp).
#include "external/persistent_answer.hpp"

#include <hookbus/json.hpp>

#include "catalogue/json_text.hpp"

#include <fmt/format.h>

#include <utility>

namespace hookbus::detail {
namespace {

// True when the answer's "id" is the request's (a JSON integer of the same value).
bool same_id(const boost::json::value& answered, std::uint64_t id) {
  if (answered.is_uint64()) return answered.get_uint64() == id;
  if (answered.is_int64()) return answered.get_int64() >= 0 && static_cast<std::uint64_t>(answered.get_int64()) == id;
  return false;
}

PersistentAnswer out_of_step(std::string problem) { return {PersistentAnswer::Kind::out_of_step, {}, std::move(problem)}; }
PersistentAnswer failure(std::string problem) { return {PersistentAnswer::Kind::failure, {}, std::move(problem)}; }

}  // namespace

PersistentAnswer read_persistent_answer(std::string_view line, std::uint64_t id) {
  boost::json::value answer;
  try {
    answer = parse_json(line, "answer");
  } catch (const JsonError& error) {
    return out_of_step(fmt::format("its answer is not valid JSON: {}", error.what()));
  }
  if (!answer.is_object()) return out_of_step(fmt::format("its answer is {}, not a JSON object", json_kind_name(answer)));
  boost::json::object& fields = answer.as_object();
  const auto* answered_id = fields.if_contains("id");
  if (answered_id == nullptr) return out_of_step(fmt::format("its answer to request {} has no \"id\"", id));
  if (!same_id(*answered_id, id))
    return out_of_step(fmt::format("it answered request {} with \"id\": {}", id,
                                   answered_id->is_number() ? write_json(*answered_id)
                                                            : std::string(json_kind_name(*answered_id))));
  fields.erase("id");
  if (const auto* error = fields.if_contains("error"); error != nullptr && !error->is_null()) {
    if (!error->is_string())
      return failure(fmt::format("answered an \"error\" that is {}, not a string", json_kind_name(*error)));
    return failure(fmt::format("answered with an error: {}", std::string_view(error->get_string())));
  }
  fields.erase("error");
  return {PersistentAnswer::Kind::result, std::move(answer), {}};
}

}  // namespace hookbus::detail
