// The result reader: the first byte picks the event, the rest is a result's
// JSON (what a hook answers), read by outcome_from_json.
#include "oracle.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

#include <optional>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hookbus;
  if (size == 0) return 0;
  const std::size_t index = data[0] % event_count;
  std::optional<HookOutcome> outcome;
  try {
    outcome = outcome_from_json(index, parse_json(fuzz::text_of(data + 1, size - 1), "fuzz"));
  } catch (const JsonError& error) {
    fuzz::expect_valid_utf8(error.what(), "a read error");
    return 0;
  }
  fuzz::expect_round_trip(*outcome, [&](const boost::json::value& json) { return outcome_from_json(index, json); });
  return 0;
}
