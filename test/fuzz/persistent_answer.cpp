// The persistent-hook answer reader: byte 0 picks the event, the rest is the
// line an instance answered to request 1, read by read_persistent_answer and
// then as the event's result (outcome_from_answer), as a persistent hook does.
// Its messages must be valid UTF-8; a result must round-trip; and a result
// written back as an answer line (what hookbus_hook.py writes: the result's
// members and the "id") must read back as the same result.
#include "oracle.hpp"

#include "external/persistent_answer.hpp"
#include "formats/kodelet/protocol.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

namespace {

using namespace hookbus;
using detail::PersistentAnswer;

constexpr std::uint64_t kRequest = 1;

// The line read as an answer to request 1 and as the event's result; `ok`
// false with the problem (a failure, out of step, a result of the wrong shape).
struct Read {
  bool ok = false;
  HookOutcome outcome{};
  std::string problem{};
};
Read read_line(std::string_view line, const HookEvent& event) {
  PersistentAnswer answer = detail::read_persistent_answer(line, kRequest);
  if (answer.kind != PersistentAnswer::Kind::result) return {false, {}, std::move(answer.problem)};
  try {
    return {true, detail::outcome_from_answer(event, std::move(answer.result)), {}};
  } catch (const JsonError& error) {
    return {false, {}, error.what()};
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t index = data[0] % event_count;
  const HookEvent event = make_event(index);
  const Read answer = read_line(fuzz::text_of(data + 1, size - 1), event);
  if (!answer.ok) {
    fuzz::expect_valid_utf8(answer.problem, "a persistent answer's problem");
    return 0;
  }
  if (std::holds_alternative<std::monostate>(answer.outcome)) return 0;  // no change: nothing to write
  fuzz::expect_round_trip(answer.outcome, [&](const boost::json::value& json) { return outcome_from_json(index, json); });
  boost::json::object line = to_json(answer.outcome).as_object();
  line["id"] = kRequest;
  const Read again = read_line(write_json(line), event);
  if (!again.ok || !(again.outcome == answer.outcome))
    fuzz::broken("a result written as an answer line reads back different", write_json(line) + "\n" + again.problem);
  return 0;
}
