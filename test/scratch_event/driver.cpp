// The scratch-event test's program (test/scratch_event_test.cmake): after the
// one edit that adds ScratchEvent to HookEvent, it runs what hookctl's
// `events --json` and `schema scratch_event` run, and prints the event as
// JSON (read back), as format_line renders it, and as an external hook's
// payload, each after a line "== what".
#include "commands.hpp"

#include <hookbus/format.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

#include "formats/kodelet/protocol.hpp"

#include <fmt/format.h>

#include <variant>

int main() {
  using namespace hookbus;
  const hookctl::Command events{.name = "events", .summary = "", .run = hookctl::events_command};
  const hookctl::Command schema{.name = "schema", .summary = "", .run = hookctl::schema_command};

  fmt::print("== events --json\n");
  std::fflush(stdout);
  hookctl::events_command(hookctl::Invocation(events, {}, {{"--json", ""}}, {}, {}));
  fmt::print("== schema scratch_event\n");
  std::fflush(stdout);
  hookctl::schema_command(hookctl::Invocation(schema, {"scratch_event"}, {}, {}, {}));

  // The event as an engine would build it from its wire name and a payload.
  const HookEvent event = event_from_json(parse_json(
      R"({"type": "scratch_event", "label": "build", "phase": "running", "detail": {"note": "all green", "count": 2}})",
      "the scratch event"));
  fmt::print("== to_json\n{}\n", write_json(to_json(event)));
  fmt::print("== read back\n{}\n", event_from_json(to_json(event)) == event ? "equal" : "different");
  fmt::print("== format_line\n{}\n", format_line(event));
  // What hook_payload (external.hpp, lib/external/) gives for it: the payload the kodelet format builds.
  const boost::json::object payload = std::visit(
      [](const auto& scratch) { return detail::hook_payload_of(scratch, "scratch_event"); }, event);
  fmt::print("== hook payload\n{}\n", write_json(payload));
}
