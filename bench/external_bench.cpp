// External hooks through Hooks::emit, end to end: building the payload,
// starting the hook or writing the request line, reading the answer, and the
// reduction. One hook of tool_call that answers "no change", four ways:
//
//   external/spawn_sh             a /bin/sh hook that does nothing, started per event (`HOOK run`)
//   external/spawn_compiled       bench/external_hook.cpp, started per event
//   external/persistent_python    a Python hook written with examples/hooks/hookbus_hook.py, `HOOK serve`
//   external/persistent_compiled  bench/external_hook.cpp, `HOOK serve`
//
// Each emit is timed on its own (steady_clock, real time: the work is in
// other processes); the median and 99th percentile of the run are the
// counters p50_us and p99_us. The cases run in one binary, so tools/bench-report
// judges their ratios within one run ("External hooks" in docs/performance.md).

#include "common.hpp"

#include <hookbus/external.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

enum class Hook { sh, compiled, python };

// A scratch project with one hook in .hookbus/hooks/, removed at the end.
class Project {
 public:
  explicit Project(Hook hook) {
    std::string pattern = (fs::temp_directory_path() / "hookbus-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
    fs::create_directories(hooks());
    fs::permissions(root_ / ".hookbus", fs::perms(0755));
    fs::permissions(hooks(), fs::perms(0755));
    switch (hook) {
      case Hook::sh:
        write(hooks() / "hook", "#!/bin/sh\n[ \"$1\" = hook ] && echo tool_call\nexit 0\n");
        break;
      case Hook::compiled:
        fs::copy_file(HOOKBUS_BENCH_HOOK, hooks() / "hook");
        break;
      case Hook::python:
        write(hooks() / "hook", "#!/usr/bin/python3\n"
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
    }
    fs::permissions(hooks() / "hook", fs::perms(0755));
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
  std::vector<double> microseconds;
  microseconds.reserve(static_cast<std::size_t>(state.max_iterations));
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    hookbus::ToolCallResult result = hooks.emit(event);
    benchmark::DoNotOptimize(result);
    microseconds.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  if (failures.load() != 0) return state.SkipWithError("the hook failed");
  std::sort(microseconds.begin(), microseconds.end());
  state.counters["p50_us"] = percentile(microseconds, 0.50);
  state.counters["p99_us"] = percentile(microseconds, 0.99);
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
}

}  // namespace bench
