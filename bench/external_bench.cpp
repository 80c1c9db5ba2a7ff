// External hooks through Hooks::emit, end to end: building the payload,
// starting the hook or writing the request line, reading the answer, and the
// reduction. One hook of tool_call that answers "no change", four ways:
//
//   external/spawn_sh             a /bin/sh hook that does nothing, started per event (`HOOK run`)
//   external/spawn_compiled       bench/external_hook.cpp, started per event
//   external/persistent_python    a Python hook written with examples/hooks/hookbus_hook.py, `HOOK serve`
//   external/persistent_compiled  bench/external_hook.cpp, `HOOK serve`
//   external/http_loopback        an HTTP hook declared in config (docs/fleet.md), answered by a
//                                 loopback service in this process (test/http_test_server.hpp):
//                                 one request per emit on the connection kept open
//
// And N = 1, 3 and 5 hooks of one tool_call, run one after another
// (HooksOptions::parallel_runs = 0) or at once (the default), each a hook
// whose run takes a fixed time (docs/semantics.md §16):
//
//   parallel/sleep_N_{sequential,parallel}     the compiled hook, sleeping 50 ms per run
//   parallel/python_N_{sequential,parallel}    a Python hook (json imported, no change): its start-up
//   parallel/rewrite_5_parallel                the first of 5 sleeping hooks rewrites the input, so
//                                              the other 4 run again on the rewritten one
//
// Each emit is timed on its own (steady_clock, real time: the work is in
// other processes); the median and 99th percentile of the run are the
// counters p50_us and p99_us. The cases run in one binary, so tools/bench-report
// judges their ratios within one run ("External hooks" in docs/performance.md).

#include "common.hpp"

#include <hookbus/external.hpp>

#include "http_test_server.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;

enum class Hook { sh, compiled, python, python_plain };

// A scratch project with hooks in .hookbus/hooks/, removed at the end.
class Project {
 public:
  explicit Project(Hook hook) : Project() { add(hook, "hook"); }
  Project() {
    std::string pattern = (fs::temp_directory_path() / "hookbus-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
    fs::create_directories(hooks());
    fs::permissions(root_ / ".hookbus", fs::perms(0755));
    fs::permissions(hooks(), fs::perms(0755));
  }

  void add(Hook hook, const std::string& name) {
    switch (hook) {
      case Hook::sh:
        write(hooks() / name, "#!/bin/sh\n[ \"$1\" = hook ] && echo tool_call\nexit 0\n");
        break;
      case Hook::compiled:
        fs::copy_file(HOOKBUS_BENCH_HOOK, hooks() / name);
        break;
      case Hook::python:
        write(hooks() / name, "#!/usr/bin/python3\n"
                              "import sys\n"
                              "sys.dont_write_bytecode = True\n"
                              "sys.path.insert(0, '" HOOKBUS_EXAMPLE_HOOKS "')\n"
                              "import hookbus_hook\n"
                              "hook = hookbus_hook.Hook()\n"
                              "@hook.on('tool_call')\n"
                              "def allow(payload):\n"
                              "    return None\n"
                              "hook.main()\n");
        break;
      case Hook::python_plain:
        write(hooks() / name, "#!/usr/bin/python3\nimport json, sys\njson.load(sys.stdin)\n");
        break;
    }
    fs::permissions(hooks() / name, fs::perms(0755));
  }
  Project(const Project&) = delete;
  Project& operator=(const Project&) = delete;
  ~Project() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }

  const fs::path& root() const { return root_; }
  fs::path hooks() const { return root_ / ".hookbus" / "hooks"; }

 private:
  static void write(const fs::path& file, const std::string& text) { std::ofstream(file) << text; }

  fs::path root_;
};

// The value at `fraction` of the sorted samples (nearest rank).
double percentile(const std::vector<double>& sorted, double fraction) {
  const auto rank = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

// Emits `event` once per iteration, each timed on its own: the counters p50_us and p99_us.
void time_each_emit(benchmark::State& state, hookbus::Hooks& hooks, const hookbus::ToolCallEvent& event,
                    const std::atomic<int>& failures) {
  std::vector<double> microseconds;
  microseconds.reserve(static_cast<std::size_t>(state.max_iterations));
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    hookbus::ToolCallResult result = hooks.emit(event);
    benchmark::DoNotOptimize(result);
    microseconds.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  if (failures.load() != 0) return state.SkipWithError("a hook failed");
  std::sort(microseconds.begin(), microseconds.end());
  state.counters["p50_us"] = percentile(microseconds, 0.50);
  state.counters["p99_us"] = percentile(microseconds, 0.99);
}

void external_emit(benchmark::State& state, Hook kind, hookbus::HookMode mode) {
  const Project project(kind);
  hookbus::Config config;
  config.project_dir = project.root();
  config.hooks["hook"].mode = mode;
  hookbus::HookDirectories dirs;
  dirs.add(project.hooks(), "project");
  hookbus::Hooks hooks;
  std::atomic<int> failures{0};
  const hookbus::Connection listener = hooks.on_handler_error([&](const hookbus::HandlerFailure&) { ++failures; });
  hookbus::InstalledHooks installed = hookbus::install_external_hooks(
      hooks, hookbus::discover_hooks(dirs), hookbus::LayeredConfig({config}), {.project_dir = project.root()});
  if (hooks.handler_count("tool_call") != 1) return state.SkipWithError("the hook was not installed");
  const hookbus::ToolCallEvent event = bench::tool_call_event();
  // The first emit starts a persistent hook (tens of ms for Python): not a request.
  benchmark::DoNotOptimize(hooks.emit(event));
  time_each_emit(state, hooks, event, failures);
}

// One HTTP hook of tool_call, the user's, whose service answers "no change"
// (an empty 200): the first emit opens the connection, the timed ones reuse it.
void http_emit(benchmark::State& state) {
  const hookbus::test::HttpTestServer service([](const hookbus::test::ReceivedRequest&) {
    return hookbus::test::Reply{};
  });
  hookbus::Config config;
  config.layer = hookbus::Layer::user;
  config.network = hookbus::NetworkConfig{.allowed_origins = {service.origin()}};
  config.hooks["hook"].events = {"tool_call"};
  config.hooks["hook"].url = service.url("/hook");
  hookbus::Hooks hooks;
  std::atomic<int> failures{0};
  const hookbus::Connection listener = hooks.on_handler_error([&](const hookbus::HandlerFailure&) { ++failures; });
  hookbus::InstalledHooks installed = hookbus::install_external_hooks(
      hooks, hookbus::DiscoveryReport{}, hookbus::LayeredConfig({config}), {.project_dir = fs::temp_directory_path()});
  if (hooks.handler_count("tool_call") != 1) return state.SkipWithError("the hook was not installed");
  const hookbus::ToolCallEvent event = bench::tool_call_event();
  benchmark::DoNotOptimize(hooks.emit(event));
  time_each_emit(state, hooks, event, failures);
}

// `count` hooks of tool_call, declared in config (no `HOOK hook` query), run
// at once or one after another; the first rewrites the input when `rewrite`.
void parallel_emit(benchmark::State& state, Hook kind, int count, bool parallel, bool rewrite) {
  Project project;
  hookbus::Config config;
  config.project_dir = project.root();
  for (int i = 0; i < count; ++i) {
    const std::string name = (rewrite && i == 0 ? "rewrite-" : kind == Hook::compiled ? "sleep-" : "python-") +
                             std::to_string(i);
    project.add(kind, name);
    config.hooks[name].events = {"tool_call"};
  }
  hookbus::HookDirectories dirs;
  dirs.add(project.hooks(), "project");
  const hookbus::LayeredConfig layered({config});
  hookbus::Hooks hooks(hookbus::HooksOptions{.parallel_runs = parallel ? 8u : 0u});
  std::atomic<int> failures{0};
  const hookbus::Connection listener = hooks.on_handler_error([&](const hookbus::HandlerFailure&) { ++failures; });
  hookbus::InstalledHooks installed = hookbus::install_external_hooks(
      hooks,
      hookbus::discover_hooks(dirs, {.declared = [&](hookbus::Layer layer, std::string_view name) {
                                 const hookbus::ResolvedHookSettings s = layered.hook_settings(layer, name);
                                 return std::optional<hookbus::HookDeclaration>({s.protocol.value, s.events.value});
                               }}),
      layered, {.project_dir = project.root()});
  if (hooks.handler_count("tool_call") != static_cast<std::size_t>(count))
    return state.SkipWithError("the hooks were not installed");
  const hookbus::ToolCallEvent event = bench::tool_call_event();
  time_each_emit(state, hooks, event, failures);
}

}  // namespace

namespace bench {

void register_external_benchmarks() {
  using hookbus::HookMode;
  // Fixed emit counts: enough for a 99th percentile, the same in every repetition.
  constexpr int kSpawned = 300;
  constexpr int kPersistent = 5000;
  benchmark::RegisterBenchmark("external/spawn_sh", external_emit, Hook::sh, HookMode::spawn)
      ->Iterations(kSpawned)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("external/spawn_compiled", external_emit, Hook::compiled, HookMode::spawn)
      ->Iterations(kSpawned)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("external/persistent_python", external_emit, Hook::python, HookMode::persistent)
      ->Iterations(kPersistent)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("external/persistent_compiled", external_emit, Hook::compiled, HookMode::persistent)
      ->Iterations(kPersistent)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("external/http_loopback", http_emit)
      ->Iterations(kPersistent)->UseRealTime()->Unit(benchmark::kMicrosecond);
  // Runs of 50 ms and more: few emits, enough for a median.
  constexpr int kParallelEmits = 10;
  for (const int count : {1, 3, 5}) {
    for (const bool parallel : {false, true}) {
      const std::string mode = parallel ? "parallel" : "sequential";
      benchmark::RegisterBenchmark(("parallel/sleep_" + std::to_string(count) + "_" + mode).c_str(), parallel_emit,
                                   Hook::compiled, count, parallel, false)
          ->Iterations(kParallelEmits)->UseRealTime()->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("parallel/python_" + std::to_string(count) + "_" + mode).c_str(), parallel_emit,
                                   Hook::python_plain, count, parallel, false)
          ->Iterations(kParallelEmits)->UseRealTime()->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RegisterBenchmark("parallel/rewrite_5_parallel", parallel_emit, Hook::compiled, 5, true, true)
      ->Iterations(kParallelEmits)->UseRealTime()->Unit(benchmark::kMillisecond);
}

}  // namespace bench
