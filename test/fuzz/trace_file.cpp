// The trace-file reader (hookctl replay, trace view, trace summary): the input
// is a trace file, read by a TraceReader. Errors name the line in valid UTF-8;
// the header and every record read, written again by trace_line (as a tracer
// writes them), must read back equal.
#include "oracle.hpp"

#include <hookbus/trace.hpp>

#include <optional>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hookbus;
  std::istringstream in{std::string(fuzz::text_of(data, size))};
  try {
    TraceReader reader(in, "fuzz.jsonl");
    const std::string header = trace_line(reader.header());
    fuzz::expect_valid_utf8(header, "a header line written");
    if (!(read_trace_header(header) == reader.header())) fuzz::broken("a header reads back different", header);
    while (const std::optional<EmissionRecord> record = reader.next()) {
      const std::string line = trace_line(*record);
      fuzz::expect_valid_utf8(line, "a record line written");
      if (!(read_emission_record(line) == *record)) fuzz::broken("a record reads back different", line);
    }
  } catch (const TraceError& error) {
    fuzz::expect_valid_utf8(error.what(), "a trace error");
  }
  return 0;
}
