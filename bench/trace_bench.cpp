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
// Emitted back to back, the queued tracer cannot keep up (it takes a few µs a
// record, the emit a few hundred ns): its queue is always full, and these
// measure an engine that emits faster than its tracer writes. An engine emits
// in bursts (a turn's events, then a wait for the model), which the tracer
// drains between them; the *_burst cases measure that: each iteration emits
// a turn's worth of tool calls (32; the session benchmark's turn has 27
// events), then, untimed, waits until the tracer has written them:
//
//   trace/none_burst/1    the burst with no tracer
//   trace/queued_burst/1  the burst with the queued JSONL tracer
//
// Their time is per iteration; the "emits" counter says how many emits that
// is, and tools/bench-report divides by it.
//
// The tracer writes to /dev/null, so the disk does not bound the run; it still
// builds every line and makes every write(). Times are the emitting thread's
// CPU time (Google Benchmark's default): a queued tracer's own thread, and
// the time an emit waits for room in a full queue, are not in it.
// tools/bench-report reports queued_burst - none_burst against the target of
// 150 ns, and queued - none beside it: back to back, the engine waits for the
// tracer on every emit whatever the queue costs, and the captures in flight
// (twice the queue's capacity) do not fit in the caches.

#include "common.hpp"

#include <hookbus/trace.hpp>
#include <hookbus/tracer.hpp>

#include <memory>
#include <optional>

namespace bench {
namespace {

enum class Tracing { none, capture, sync, queued };

// A bus with one allowing tool_call handler and the tracer `tracing` says.
struct TracedBus {
  explicit TracedBus(Tracing tracing) : handler(hooks.on<ToolCallEvent>(Allow{})) {
    if (tracing == Tracing::capture) {
      observer = hooks.on_emission([](const EmissionRecord& record) { benchmark::DoNotOptimize(record.seq); });
    } else if (tracing != Tracing::none) {
      Tracer jsonl(TraceOptions{.jsonl = JsonlTraceOptions{.file = "/dev/null"},
                                .queue = tracing == Tracing::queued ? std::optional(DeliveryQueue{}) : std::nullopt});
      tracer = hooks.add(jsonl);
    }
  }
  Hooks hooks;
  Connection handler;
  ConnectionGroup tracer;
  Connection observer;
};

void trace_case(benchmark::State& state, Tracing tracing) {
  TracedBus bus(tracing);
  const ToolCallEvent event = tool_call_event();
  for (auto _ : state) {
    ToolCallResult outcome = bus.hooks.emit(event);
    benchmark::DoNotOptimize(outcome);
  }
  // The loop's end stopped the clock: dropping the tracer (writing what it
  // still has queued) is not measured.
}

constexpr int kBurst = 32;

void trace_burst_case(benchmark::State& state, Tracing tracing) {
  TracedBus bus(tracing);
  const ToolCallEvent event = tool_call_event();
  for (auto _ : state) {
    for (int i = 0; i < kBurst; ++i) {
      ToolCallResult outcome = bus.hooks.emit(event);
      benchmark::DoNotOptimize(outcome);
    }
    state.PauseTiming();
    bus.hooks.flush();
    state.ResumeTiming();
  }
  state.counters["emits"] = kBurst;
}

}  // namespace

void register_trace_benchmarks() {
  benchmark::RegisterBenchmark("trace/none/1", trace_case, Tracing::none);
  benchmark::RegisterBenchmark("trace/capture/1", trace_case, Tracing::capture);
  benchmark::RegisterBenchmark("trace/sync/1", trace_case, Tracing::sync);
  benchmark::RegisterBenchmark("trace/queued/1", trace_case, Tracing::queued);
  benchmark::RegisterBenchmark("trace/none_burst/1", trace_burst_case, Tracing::none);
  benchmark::RegisterBenchmark("trace/queued_burst/1", trace_burst_case, Tracing::queued);
}

}  // namespace bench
