#pragma once
// Internal: a persistent hook's answer line (docs/external-hooks.md,
// "Persistent hooks"), apart from the instances and their queue
// (persistent.cpp), so that it can be fuzzed alone
// (test/fuzz/persistent_answer.cpp).

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace hookbus::detail {

// The answer line to request `id`: a JSON object with the request's "id",
// then either an "error" string or the event's result, which the event's
// type reads (result_from_answer, lib/formats/kodelet/protocol.hpp).
struct PersistentAnswer {
  enum class Kind {
    result,       // `result` is the answer to read as the event's result
    failure,      // an answer to this request, and a failure: an "error"
    out_of_step,  // not an answer to this request: not JSON, not an object, no "id" or another one
  };
  Kind kind = Kind::result;
  boost::json::value result{};  // the answer without its "id" and "error"
  std::string problem{};        // what is wrong, unless a result: "answered with an error: ..."
};
PersistentAnswer read_persistent_answer(std::string_view line, std::uint64_t id);

}  // namespace hookbus::detail
