// The event reader by name: JSON text with a "type" (as `hookctl emit -` and a
// replayed transcript give it), read by event_from_json.
#include "oracle.hpp"

#include <hookbus/json.hpp>

#include <optional>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hookbus;
  boost::json::value document;
  try {
    document = parse_json(fuzz::text_of(data, size), "fuzz");
  } catch (const JsonError& error) {
    fuzz::expect_valid_utf8(error.what(), "a parse error");
    return 0;
  }
  fuzz::expect_written_reads_back(document);
  std::optional<HookEvent> event;
  try {
    event = event_from_json(document);
  } catch (const JsonError& error) {
    fuzz::expect_valid_utf8(error.what(), "a read error");
    return 0;
  }
  fuzz::expect_round_trip(*event, [](const boost::json::value& json) { return event_from_json(json); });
  return 0;
}
