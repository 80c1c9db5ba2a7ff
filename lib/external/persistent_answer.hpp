#pragma once
// Internal: a persistent hook's answer line (docs/external-hooks.md,
// "Persistent hooks"), apart from the instances and their queue
// (persistent.cpp), so that it can be fuzzed alone
// (test/fuzz/persistent_answer.cpp).

#include <hookbus/events.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace hookbus::detail {

// The answer line to request `id`: a JSON object with the request's "id",
// then either an "error" string or the event's result, read by
// outcome_from_answer (lib/formats/kodelet/protocol.hpp).
struct PersistentAnswer {
  enum class Kind {
    result,       // `outcome` is the event's result
    failure,      // an answer to this request, and a failure: an "error", or a result of the wrong shape
    out_of_step,  // not an answer to this request: not JSON, not an object, no "id" or another one
  };
  Kind kind = Kind::result;
  HookOutcome outcome{};
  std::string problem{};  // what is wrong, unless a result: "answered with an error: ..."
};
PersistentAnswer read_persistent_answer(std::string_view line, std::uint64_t id, const HookEvent& event);

}  // namespace hookbus::detail
