// What tracing costs the emitting thread (issue 13): a tool_call emit with
// one allowing handler, on a bus
//
//   trace/none/1     with no tracer
//   trace/capture/1  with an emission observer that does nothing, on the
//                    emitting thread: the capture alone (event copy, clock
//                    reads, the record made for the observer)
//   trace/sync/1     with the built-in JSONL tracer on the emitting thread
//   trace/queued/1   with the same tracer queued (its default: 4096 records,
//                    block when full)
//
// The tracer writes to /dev/null, so the disk does not bound the run; it still
// builds every line and makes every write(). Times are the emitting thread's
// CPU time (Google Benchmark's default): a queued tracer's own thread, and
// the time an emit waits for room in a full queue, are not in it.
// tools/bench-report reports queued - none against the target of 150 ns.

#include "common.hpp"

#include <hookbus/trace.hpp>
#include <hookbus/tracer.hpp>

#include <memory>
#include <optional>

namespace bench {
namespace {

enum class Tracing { none, capture, sync, queued };

void trace_case(benchmark::State& state, Tracing tracing) {
  Hooks hooks;
  const Connection handler = hooks.on<ToolCallEvent>(Allow{});
  ConnectionGroup tracer;
  Connection observer;
  if (tracing == Tracing::capture) {
    observer = hooks.on_emission([](const EmissionRecord& record) { benchmark::DoNotOptimize(record.seq); });
  } else if (tracing != Tracing::none) {
    Tracer jsonl(TraceOptions{.jsonl = JsonlTraceOptions{.file = "/dev/null"},
                              .queue = tracing == Tracing::queued ? std::optional(DeliveryQueue{}) : std::nullopt});
    tracer = hooks.add(jsonl);
  }
  const ToolCallEvent event = tool_call_event();
  for (auto _ : state) {
    ToolCallResult outcome = hooks.emit(event);
    benchmark::DoNotOptimize(outcome);
  }
  // The loop's end stopped the clock: dropping the tracer (writing what it
  // still has queued) is not measured.
}

}  // namespace

void register_trace_benchmarks() {
  benchmark::RegisterBenchmark("trace/none/1", trace_case, Tracing::none);
  benchmark::RegisterBenchmark("trace/capture/1", trace_case, Tracing::capture);
  benchmark::RegisterBenchmark("trace/sync/1", trace_case, Tracing::sync);
  benchmark::RegisterBenchmark("trace/queued/1", trace_case, Tracing::queued);
}

}  // namespace bench
