// The event reader by index: the first byte picks the event (as hookctl emit
// NAME does), the rest is its JSON, read by event_from_json(index, json).
#include "oracle.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

#include <optional>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hookbus;
  if (size == 0) return 0;
  const std::size_t index = data[0] % event_count;
  std::optional<HookEvent> event;
  try {
    event = event_from_json(index, parse_json(fuzz::text_of(data + 1, size - 1), "fuzz"));
  } catch (const JsonError& error) {
    fuzz::expect_valid_utf8(error.what(), "a read error");
    return 0;
  }
  if (event->index() != index) fuzz::broken("the event read is not the one asked for", event_name(index));
  fuzz::expect_round_trip(*event, [&](const boost::json::value& json) { return event_from_json(index, json); });
  fuzz::expect_round_trip(*event, [](const boost::json::value& json) { return event_from_json(json); });
  return 0;
}
