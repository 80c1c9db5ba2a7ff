// The event reader by index: the first byte picks the event (as hookctl emit
// NAME does), the rest is its JSON, read by event_from_json(index, json), and
// its keys the event does not have listed by event_unknown_fields (as hookctl
// emit warns of them): their messages are valid UTF-8, and what hookbus writes
// has none.
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
    const boost::json::value document = parse_json(fuzz::text_of(data + 1, size - 1), "fuzz");
    for (const UnknownField& field : event_unknown_fields(index, document))
      fuzz::expect_valid_utf8(field.message(), "an unknown field's message");
    event = event_from_json(index, document);
  } catch (const JsonError& error) {
    fuzz::expect_valid_utf8(error.what(), "a read error");
    return 0;
  }
  if (event->index() != index) fuzz::broken("the event read is not the one asked for", event_name(index));
  if (!event_unknown_fields(index, to_json(*event)).empty())
    fuzz::broken("what hookbus writes has a field its type does not have", event_unknown_fields(index, to_json(*event))[0].message());
  fuzz::expect_round_trip(*event, [&](const boost::json::value& json) { return event_from_json(index, json); });
  fuzz::expect_round_trip(*event, [](const boost::json::value& json) { return event_from_json(json); });
  return 0;
}
