// The per-emit cases of issue 5, each run on hookbus and on its three baselines
// with the same event, the same handler functors and the same handler count.
// Names are <case>/<implementation>/<handlers>; tools/bench-report pairs them.
//
//   hookbus   hookbus::Hooks
//   signals2  a raw boost::signals2::signal, default mutex (the engine hookbus is built on)
//   vector    std::vector<std::function<...>> called in a loop, no synchronisation (the limit)
//   sigc      sigc::signal from libsigc++-3.0 (single-threaded by design)

#include "common.hpp"

#include <boost/signals2/signal.hpp>
#include <fmt/format.h>
#include <sigc++/signal.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace bench {
namespace {

namespace bs2 = boost::signals2;

constexpr int kHandlerCounts[] = {0, 1, 8};

// ---------------------------------------------------------------- observe
// turn_start, observe-only; every implementation gets `const TurnStartEvent&`.

void observe_hookbus(benchmark::State& state, int handlers) {
  Hooks hooks;
  std::vector<Connection> kept;
  for (int i = 0; i < handlers; ++i) kept.push_back(hooks.on<TurnStartEvent>(Observe{}));
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state) hooks.emit(event);
}

void observe_signals2(benchmark::State& state, int handlers) {
  bs2::signal<void(const TurnStartEvent&)> signal;
  for (int i = 0; i < handlers; ++i) signal.connect(Observe{});
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state) signal(event);
}

void observe_vector(benchmark::State& state, int handlers) {
  std::vector<std::function<void(const TurnStartEvent&)>> slots;
  for (int i = 0; i < handlers; ++i) slots.emplace_back(Observe{});
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state)
    for (const auto& slot : slots) slot(event);
}

void observe_sigc(benchmark::State& state, int handlers) {
  sigc::signal<void(const TurnStartEvent&)> signal;
  for (int i = 0; i < handlers; ++i) signal.connect(Observe{});
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state) signal.emit(event);
}

// ------------------------------------------------------------------ block
// tool_call through the block reducer, emitted as `const ToolCallEvent&` (the
// handlers never replace the input, so hookbus makes no copy). `first_blocks`:
// the first handler blocks and the rest must not run. Baselines fold the same
// std::optional<ToolCallResult> with FirstBlock, a short-circuit combiner.

template <class Add>
void connect_block_handlers(int handlers, bool first_blocks, Add add) {
  for (int i = 0; i < handlers; ++i) {
    if (i == 0 && first_blocks) add(Block{});
    else add(Allow{});
  }
}

void block_hookbus(benchmark::State& state, int handlers, bool first_blocks) {
  Hooks hooks;
  std::vector<Connection> kept;
  connect_block_handlers(handlers, first_blocks, [&](auto f) { kept.push_back(hooks.on<ToolCallEvent>(f)); });
  const ToolCallEvent event = tool_call_event();
  for (auto _ : state) {
    ToolCallResult outcome = hooks.emit(event);
    benchmark::DoNotOptimize(outcome);
  }
}

void block_signals2(benchmark::State& state, int handlers, bool first_blocks) {
  bs2::signal<std::optional<ToolCallResult>(const ToolCallEvent&), FirstBlock> signal;
  connect_block_handlers(handlers, first_blocks, [&](auto f) { signal.connect(f); });
  const ToolCallEvent event = tool_call_event();
  for (auto _ : state) {
    ToolCallResult outcome = signal(event);
    benchmark::DoNotOptimize(outcome);
  }
}

void block_vector(benchmark::State& state, int handlers, bool first_blocks) {
  std::vector<std::function<std::optional<ToolCallResult>(const ToolCallEvent&)>> slots;
  connect_block_handlers(handlers, first_blocks, [&](auto f) { slots.emplace_back(f); });
  const ToolCallEvent event = tool_call_event();
  for (auto _ : state) {
    ToolCallResult outcome;
    for (const auto& slot : slots) {
      if (auto result = slot(event); result && result->decision == Decision::deny) {
        outcome = std::move(*result);
        break;
      }
    }
    benchmark::DoNotOptimize(outcome);
  }
}

void block_sigc(benchmark::State& state, int handlers, bool first_blocks) {
  sigc::signal<std::optional<ToolCallResult>(const ToolCallEvent&)>::accumulated<FirstBlock> signal;
  connect_block_handlers(handlers, first_blocks, [&](auto f) { signal.connect(f); });
  const ToolCallEvent event = tool_call_event();
  for (auto _ : state) {
    ToolCallResult outcome = signal.emit(event);
    benchmark::DoNotOptimize(outcome);
  }
}

// ------------------------------------------------------------------ patch
// tool_result through the patch reducer, every handler flipping is_error.
//
// "patch": hookbus gets emit(std::move(event)), its in-place path (no copy);
// the baselines patch the same event object in place. The event object is
// reused across iterations: the bus writes the patches into it and moves back
// only the patched field, a bool, so it stays whole (that is the documented
// emit(E&&) behaviour, used here on purpose).
//
// "patch_copy": hookbus gets emit(const E&), so the first patch copies the event
// (copy-on-write in reducers.hpp); the baselines copy it before calling their
// handlers. Same work on both sides, and it shows what the copy costs.

void patch_hookbus(benchmark::State& state, int handlers, bool copy) {
  Hooks hooks;
  std::vector<Connection> kept;
  for (int i = 0; i < handlers; ++i) kept.push_back(hooks.on<ToolResultEvent>(PatchResult{}));
  ToolResultEvent event = tool_result_event();
  for (auto _ : state) {
    ToolResultResult outcome = copy ? hooks.emit(static_cast<const ToolResultEvent&>(event)) : hooks.emit(std::move(event));
    benchmark::DoNotOptimize(outcome);
  }
}

template <class Emit>
void patch_baseline(benchmark::State& state, bool copy, Emit emit) {
  ToolResultEvent event = tool_result_event();
  for (auto _ : state) {
    if (copy) {
      ToolResultEvent working = event;
      emit(working);
      benchmark::DoNotOptimize(working.is_error);
    } else {
      emit(event);
      benchmark::DoNotOptimize(event.is_error);
    }
  }
}

void patch_signals2(benchmark::State& state, int handlers, bool copy) {
  bs2::signal<void(ToolResultEvent&)> signal;
  for (int i = 0; i < handlers; ++i) signal.connect(PatchInPlace{});
  patch_baseline(state, copy, [&](ToolResultEvent& e) { signal(e); });
}

void patch_vector(benchmark::State& state, int handlers, bool copy) {
  std::vector<std::function<void(ToolResultEvent&)>> slots;
  for (int i = 0; i < handlers; ++i) slots.emplace_back(PatchInPlace{});
  patch_baseline(state, copy, [&](ToolResultEvent& e) {
    for (const auto& slot : slots) slot(e);
  });
}

void patch_sigc(benchmark::State& state, int handlers, bool copy) {
  sigc::signal<void(ToolResultEvent&)> signal;
  for (int i = 0; i < handlers; ++i) signal.connect(PatchInPlace{});
  patch_baseline(state, copy, [&](ToolResultEvent& e) { signal.emit(e); });
}

// ---------------------------------------------------------------- variant
// "variant": emit(const HookEvent&) of a turn_start, to handlers registered by
// name (written against HookEvent). The baselines are signals of
// `void(const HookEvent&)` called with the same variant and the same body.
//
// "variant_typed": emit(const HookEvent&) to typed turn_start handlers; the
// baselines std::visit the variant into their typed signal, as an engine
// without hookbus would.

void variant_hookbus(benchmark::State& state, int handlers) {
  Hooks hooks;
  std::vector<Connection> kept;
  for (int i = 0; i < handlers; ++i) kept.push_back(hooks.on("turn_start", NamedObserve{}));
  const HookEvent event = turn_start_event();
  for (auto _ : state) {
    HookOutcome outcome = hooks.emit(event);
    benchmark::DoNotOptimize(outcome);
  }
}

void variant_signals2(benchmark::State& state, int handlers) {
  bs2::signal<void(const HookEvent&)> signal;
  for (int i = 0; i < handlers; ++i) signal.connect(VariantObserve{});
  const HookEvent event = turn_start_event();
  for (auto _ : state) signal(event);
}

void variant_vector(benchmark::State& state, int handlers) {
  std::vector<std::function<void(const HookEvent&)>> slots;
  for (int i = 0; i < handlers; ++i) slots.emplace_back(VariantObserve{});
  const HookEvent event = turn_start_event();
  for (auto _ : state)
    for (const auto& slot : slots) slot(event);
}

void variant_sigc(benchmark::State& state, int handlers) {
  sigc::signal<void(const HookEvent&)> signal;
  for (int i = 0; i < handlers; ++i) signal.connect(VariantObserve{});
  const HookEvent event = turn_start_event();
  for (auto _ : state) signal.emit(event);
}

void variant_typed_hookbus(benchmark::State& state, int handlers) {
  Hooks hooks;
  std::vector<Connection> kept;
  for (int i = 0; i < handlers; ++i) kept.push_back(hooks.on<TurnStartEvent>(Observe{}));
  const HookEvent event = turn_start_event();
  for (auto _ : state) {
    HookOutcome outcome = hooks.emit(event);
    benchmark::DoNotOptimize(outcome);
  }
}

template <class Signal>
void visit_into(const HookEvent& event, Signal&& call) {
  std::visit(
      [&](const auto& alternative) {
        if constexpr (std::is_same_v<std::decay_t<decltype(alternative)>, TurnStartEvent>) call(alternative);
      },
      event);
}

void variant_typed_signals2(benchmark::State& state, int handlers) {
  bs2::signal<void(const TurnStartEvent&)> signal;
  for (int i = 0; i < handlers; ++i) signal.connect(Observe{});
  const HookEvent event = turn_start_event();
  for (auto _ : state) visit_into(event, [&](const TurnStartEvent& e) { signal(e); });
}

void variant_typed_vector(benchmark::State& state, int handlers) {
  std::vector<std::function<void(const TurnStartEvent&)>> slots;
  for (int i = 0; i < handlers; ++i) slots.emplace_back(Observe{});
  const HookEvent event = turn_start_event();
  for (auto _ : state)
    visit_into(event, [&](const TurnStartEvent& e) {
      for (const auto& slot : slots) slot(e);
    });
}

void variant_typed_sigc(benchmark::State& state, int handlers) {
  sigc::signal<void(const TurnStartEvent&)> signal;
  for (int i = 0; i < handlers; ++i) signal.connect(Observe{});
  const HookEvent event = turn_start_event();
  for (auto _ : state) visit_into(event, [&](const TurnStartEvent& e) { signal.emit(e); });
}

// -------------------------------------------------------------- catch-all
// One catch-all subscriber, no typed handler; the engine emits a typed
// turn_start. A catch-all takes `const HookEvent&`, so every implementation
// has to build the variant from the typed event on each emit: hookbus does it
// inside dispatch, the baselines right before calling their signal.

void catchall_hookbus(benchmark::State& state, int subscribers) {
  Hooks hooks;
  std::vector<Connection> kept;
  for (int i = 0; i < subscribers; ++i) kept.push_back(hooks.subscribe(VariantObserve{}));
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state) hooks.emit(event);
}

void catchall_signals2(benchmark::State& state, int subscribers) {
  bs2::signal<void(const HookEvent&)> signal;
  for (int i = 0; i < subscribers; ++i) signal.connect(VariantObserve{});
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state) {
    const HookEvent as_variant(event);
    signal(as_variant);
  }
}

void catchall_vector(benchmark::State& state, int subscribers) {
  std::vector<std::function<void(const HookEvent&)>> slots;
  for (int i = 0; i < subscribers; ++i) slots.emplace_back(VariantObserve{});
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state) {
    const HookEvent as_variant(event);
    for (const auto& slot : slots) slot(as_variant);
  }
}

void catchall_sigc(benchmark::State& state, int subscribers) {
  sigc::signal<void(const HookEvent&)> signal;
  for (int i = 0; i < subscribers; ++i) signal.connect(VariantObserve{});
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state) {
    const HookEvent as_variant(event);
    signal.emit(as_variant);
  }
}

// "catchall_view": the same, with a subscriber taking the event as a view
// (EventRef), as a tracer that looks at a few event types would: no HookEvent
// is built. Compared with a typed handler (observe/hookbus/1); hookbus only.
struct ViewObserve {
  void operator()(const EventRef& e) const {
    const auto* start = e.get_if<TurnStartEvent>();
    benchmark::DoNotOptimize(start != nullptr ? start->turn_index : 0u);
  }
};

void catchall_view_hookbus(benchmark::State& state) {
  Hooks hooks;
  const Connection kept = hooks.subscribe(ViewObserve{});
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state) hooks.emit(event);
}

// -------------------------------------------------------- connect + disconnect
// Connect one turn_start handler and disconnect it again, while `staying`
// handlers stay connected to the same event.

void connect_hookbus(benchmark::State& state, int staying) {
  Hooks hooks;
  std::vector<Connection> kept;
  for (int i = 0; i < staying; ++i) kept.push_back(hooks.on<TurnStartEvent>(Observe{}));
  for (auto _ : state) {
    Connection connection = hooks.on<TurnStartEvent>(Observe{});
    connection.disconnect();
  }
}

void connect_signals2(benchmark::State& state, int staying) {
  bs2::signal<void(const TurnStartEvent&)> signal;
  for (int i = 0; i < staying; ++i) signal.connect(Observe{});
  for (auto _ : state) {
    bs2::connection connection = signal.connect(Observe{});
    connection.disconnect();
  }
}

// The same on a Signals2 signal with priority groups, as any registry that
// keeps HandlerOptions::priority on Signals2 must be: the least a hookbus
// connect can cost (docs/performance.md, "connect + disconnect").
void connect_signals2_grouped(benchmark::State& state, int staying) {
  bs2::signal<void(const TurnStartEvent&), bs2::optional_last_value<void>, int> signal;
  for (int i = 0; i < staying; ++i) signal.connect(0, Observe{});
  for (auto _ : state) {
    bs2::connection connection = signal.connect(0, Observe{});
    connection.disconnect();
  }
}

void connect_vector(benchmark::State& state, int staying) {
  std::vector<std::function<void(const TurnStartEvent&)>> slots;
  for (int i = 0; i < staying; ++i) slots.emplace_back(Observe{});
  for (auto _ : state) {
    slots.emplace_back(Observe{});
    slots.pop_back();
    benchmark::DoNotOptimize(slots.data());
  }
}

void connect_sigc(benchmark::State& state, int staying) {
  sigc::signal<void(const TurnStartEvent&)> signal;
  for (int i = 0; i < staying; ++i) signal.connect(Observe{});
  for (auto _ : state) {
    sigc::connection connection = signal.connect(Observe{});
    connection.disconnect();
  }
}

// ------------------------------------------------------------- two threads
// Both benchmark threads emit turn_start on one shared emitter with 1 handler.
// libsigc++ is not thread-safe (non-atomic reference counts on emit), so it is
// not part of this case.

void threads_hookbus(benchmark::State& state) {
  static Hooks hooks;
  static const bool connected = (hooks.on<TurnStartEvent>(Observe{}).release(), true);
  benchmark::DoNotOptimize(connected);
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state) hooks.emit(event);
}

void threads_signals2(benchmark::State& state) {
  static bs2::signal<void(const TurnStartEvent&)> signal;
  static const bool connected = (signal.connect(Observe{}), true);
  benchmark::DoNotOptimize(connected);
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state) signal(event);
}

void threads_vector(benchmark::State& state) {
  static const std::vector<std::function<void(const TurnStartEvent&)>> slots{Observe{}};
  const TurnStartEvent event = turn_start_event();
  for (auto _ : state)
    for (const auto& slot : slots) slot(event);
}

// ------------------------------------------------------------------- churn
// One emitter with 1 handler that stays; while the benchmark thread emits
// turn_start, another thread connects and disconnects a second turn_start
// handler as fast as it can. The time is the emitting thread's CPU time per
// emit: what churn on another thread costs an emit (each change makes the
// next emit rebuild hookbus's snapshot; Signals2 copies its slot list).

template <class Connect, class Emit>
void with_churn(benchmark::State& state, Connect connect_and_disconnect, Emit emit) {
  std::atomic<bool> stop{false};
  std::thread churner([&] {
    while (!stop.load(std::memory_order_relaxed)) connect_and_disconnect();
  });
  for (auto _ : state) emit();
  stop = true;
  churner.join();
}

void churn_hookbus(benchmark::State& state) {
  Hooks hooks;
  const Connection kept = hooks.on<TurnStartEvent>(Observe{});
  const TurnStartEvent event = turn_start_event();
  with_churn(
      state,
      [&] {
        Connection connection = hooks.on<TurnStartEvent>(Observe{});
        connection.disconnect();
      },
      [&] { hooks.emit(event); });
}

void churn_signals2(benchmark::State& state) {
  bs2::signal<void(const TurnStartEvent&)> signal;
  signal.connect(Observe{});
  const TurnStartEvent event = turn_start_event();
  with_churn(
      state,
      [&] {
        bs2::connection connection = signal.connect(Observe{});
        connection.disconnect();
      },
      [&] { signal(event); });
}

// ------------------------------------------------------------ registration

template <class... Extra>
void add(const std::string& name, void (*function)(benchmark::State&, int, Extra...), int handlers, Extra... extra) {
  benchmark::RegisterBenchmark(name.c_str(), function, handlers, extra...);
}

template <class Hookbus, class Signals2, class Vector, class Sigc, class... Extra>
void add_case(const std::string& name, std::initializer_list<int> counts, Hookbus hookbus, Signals2 signals2,
              Vector vector, Sigc sigc, Extra... extra) {
  // fmt rather than string concatenation: GCC 12's -Wrestrict misfires on
  // inlined `"literal" + std::string` at -O3 (GCC bug 105329).
  for (const int n : counts) {
    add(fmt::format("{}/hookbus/{}", name, n), hookbus, n, extra...);
    add(fmt::format("{}/signals2/{}", name, n), signals2, n, extra...);
    add(fmt::format("{}/vector/{}", name, n), vector, n, extra...);
    add(fmt::format("{}/sigc/{}", name, n), sigc, n, extra...);
  }
}

}  // namespace

void register_emit_benchmarks() {
  const std::initializer_list<int> counts{kHandlerCounts[0], kHandlerCounts[1], kHandlerCounts[2]};
  add_case("observe", counts, observe_hookbus, observe_signals2, observe_vector, observe_sigc);
  add_case("block", counts, block_hookbus, block_signals2, block_vector, block_sigc, false);
  add_case("block_first", {1, 8}, block_hookbus, block_signals2, block_vector, block_sigc, true);
  add_case("patch", counts, patch_hookbus, patch_signals2, patch_vector, patch_sigc, false);
  add_case("patch_copy", {1, 8}, patch_hookbus, patch_signals2, patch_vector, patch_sigc, true);
  add_case("variant", counts, variant_hookbus, variant_signals2, variant_vector, variant_sigc);
  add_case("variant_typed", counts, variant_typed_hookbus, variant_typed_signals2, variant_typed_vector,
           variant_typed_sigc);
  add_case("catchall", {1}, catchall_hookbus, catchall_signals2, catchall_vector, catchall_sigc);
  benchmark::RegisterBenchmark("catchall_view/hookbus/1", catchall_view_hookbus);
  add_case("connect", {0, 8}, connect_hookbus, connect_signals2, connect_vector, connect_sigc);
  for (const int n : {0, 8}) add(fmt::format("connect/signals2_grouped/{}", n), connect_signals2_grouped, n);

  benchmark::RegisterBenchmark("threads2/hookbus/1", threads_hookbus)->Threads(2);
  benchmark::RegisterBenchmark("threads2/signals2/1", threads_signals2)->Threads(2);
  benchmark::RegisterBenchmark("threads2/vector/1", threads_vector)->Threads(2);
  benchmark::RegisterBenchmark("churn/hookbus/1", churn_hookbus);
  benchmark::RegisterBenchmark("churn/signals2/1", churn_signals2);
}

}  // namespace bench
