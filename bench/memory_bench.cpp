// Memory: heap bytes of an empty emitter, and per registered handler, measured
// with the counting operator new/delete of main.cpp (malloc_usable_size of each
// block, so allocator rounding is included, malloc headers are not).
//
//   memory/<impl>/64: empty_bytes        heap of `new Emitter` (the handle included)
//                     empty_allocs       number of allocations it made
//                     first_handler_bytes  the first handler on one event
//                     bytes_per_handler  average over 64 handlers on one event
//                     allocs_per_handler allocations per handler, same average
// Handler handles (Connection, signals2::connection, ...) live in the caller's
// pre-reserved vector and are not counted; their sizeof is reported instead.

#include "common.hpp"

#include <boost/signals2/signal.hpp>
#include <sigc++/signal.h>

#include <functional>
#include <memory>
#include <vector>

namespace bench {
namespace {

namespace bs2 = boost::signals2;

constexpr int kHandlers = 64;

template <class Emitter, class Handle, class Connect>
void measure(benchmark::State& state, Connect connect) {
  std::int64_t empty_bytes = 0, empty_allocs = 0, first_bytes = 0, bytes = 0, allocs = 0;
  for (auto _ : state) {
    std::unique_ptr<Emitter> emitter;
    {
      AllocationScope scope;
      emitter = std::make_unique<Emitter>();
      scope.stop();
      empty_bytes = scope.bytes();
      empty_allocs = scope.allocations();
    }
    std::vector<Handle> handles;
    handles.reserve(kHandlers);
    {
      AllocationScope scope;
      handles.push_back(connect(*emitter));
      scope.stop();
      first_bytes = scope.bytes();
    }
    {
      AllocationScope scope;
      for (int i = 1; i < kHandlers; ++i) handles.push_back(connect(*emitter));
      scope.stop();
      bytes = first_bytes + scope.bytes();
      allocs = scope.allocations();
    }
    handles.clear();
    emitter.reset();
  }
  state.counters["empty_bytes"] = static_cast<double>(empty_bytes);
  state.counters["empty_allocs"] = static_cast<double>(empty_allocs);
  state.counters["first_handler_bytes"] = static_cast<double>(first_bytes);
  state.counters["bytes_per_handler"] = static_cast<double>(bytes) / kHandlers;
  state.counters["allocs_per_handler"] = static_cast<double>(allocs) / (kHandlers - 1);
  state.counters["handle_sizeof"] = static_cast<double>(sizeof(Handle));
  state.counters["emitter_sizeof"] = static_cast<double>(sizeof(Emitter));
}

void memory_hookbus(benchmark::State& state) {
  measure<Hooks, Connection>(state, [](Hooks& hooks) { return hooks.on<TurnStartEvent>(Observe{}); });
}

void memory_signals2(benchmark::State& state) {
  using Signal = bs2::signal<void(const TurnStartEvent&)>;
  measure<Signal, bs2::connection>(state, [](Signal& signal) { return signal.connect(Observe{}); });
}

void memory_vector(benchmark::State& state) {
  using Slots = std::vector<std::function<void(const TurnStartEvent&)>>;
  struct Index {
    std::size_t value;
  };
  measure<Slots, Index>(state, [](Slots& slots) {
    slots.emplace_back(Observe{});
    return Index{slots.size() - 1};
  });
}

void memory_sigc(benchmark::State& state) {
  using Signal = sigc::signal<void(const TurnStartEvent&)>;
  measure<Signal, sigc::connection>(state, [](Signal& signal) { return signal.connect(Observe{}); });
}

}  // namespace

void register_memory_benchmarks() {
  benchmark::RegisterBenchmark("memory/hookbus/64", memory_hookbus)->Iterations(3);
  benchmark::RegisterBenchmark("memory/signals2/64", memory_signals2)->Iterations(3);
  benchmark::RegisterBenchmark("memory/vector/64", memory_vector)->Iterations(3);
  benchmark::RegisterBenchmark("memory/sigc/64", memory_sigc)->Iterations(3);
}

}  // namespace bench
