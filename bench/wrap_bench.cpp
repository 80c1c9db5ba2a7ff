// A step run through the bus (Hooks::run_step) with zero, one and three
// wrappers that pass it on, against the engine calling its step directly, in
// the same run (docs/semantics.md, section 15). The step is a tool runner
// that builds a small output; each wrapper calls next once and returns its
// output. Names are step/<direct|hookbus>/<wrappers>; tools/bench-report
// gives each hookbus case's ratio to step/direct/0.

#include "common.hpp"

#include <fmt/format.h>

#include <vector>

namespace bench {
namespace {

// The engine's own tool runner: what the direct call and every run_step call.
struct RunTool {
  ToolOutput operator()(const ToolCallEvent& call) const {
    benchmark::DoNotOptimize(call.tool_name.size());
    return ToolOutput{.content = {TextPart{"ok"}}};
  }
};

struct PassOn {
  ToolOutput operator()(const ToolCallEvent& call, const Next<ToolCallEvent>& next) const { return next(call); }
};

void step_direct(benchmark::State& state, int) {
  const ToolCallEvent event = tool_call_event();
  const RunTool step;
  for (auto _ : state) benchmark::DoNotOptimize(step(event));
}

void step_hookbus(benchmark::State& state, int wrappers) {
  Hooks hooks;
  std::vector<Connection> kept;
  for (int i = 0; i < wrappers; ++i) kept.push_back(hooks.wrap<ToolCallEvent>(PassOn{}));
  const ToolCallEvent event = tool_call_event();
  const RunTool step;
  for (auto _ : state) benchmark::DoNotOptimize(hooks.run_step(event, step));
}

}  // namespace

void register_wrap_benchmarks() {
  benchmark::RegisterBenchmark("step/direct/0", step_direct, 0);
  for (const int wrappers : {0, 1, 3})
    benchmark::RegisterBenchmark(fmt::format("step/hookbus/{}", wrappers).c_str(), step_hookbus, wrappers);
}

}  // namespace bench
