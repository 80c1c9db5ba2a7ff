// The persistent-hook answer reader: byte 0 picks the event, the rest is the
// line an instance answered to request 1, read by read_persistent_answer.
// Its messages must be valid UTF-8; a result must round-trip; and a result
// written back as an answer line (what hookbus_hook.py writes: the result's
// members and the "id") must read back as the same result.
#include "oracle.hpp"

#include "external/persistent_answer.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

namespace {

using namespace hookbus;
using detail::PersistentAnswer;

constexpr std::uint64_t kRequest = 1;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t index = data[0] % event_count;
  const HookEvent event = make_event(index);
  const PersistentAnswer answer = detail::read_persistent_answer(fuzz::text_of(data + 1, size - 1), kRequest, event);
  if (answer.kind != PersistentAnswer::Kind::result) {
    fuzz::expect_valid_utf8(answer.problem, "a persistent answer's problem");
    return 0;
  }
  if (std::holds_alternative<std::monostate>(answer.outcome)) return 0;  // no change: nothing to write
  fuzz::expect_round_trip(answer.outcome, [&](const boost::json::value& json) { return outcome_from_json(index, json); });
  boost::json::object line = to_json(answer.outcome).as_object();
  line["id"] = kRequest;
  const PersistentAnswer again = detail::read_persistent_answer(write_json(line), kRequest, event);
  if (again.kind != PersistentAnswer::Kind::result || !(again.outcome == answer.outcome))
    fuzz::broken("a result written as an answer line reads back different", write_json(line) + "\n" + again.problem);
  return 0;
}
