#pragma once
// Shared pieces of hookbus_bench: the sample events, the handler bodies every
// implementation runs (hookbus and the three baselines get the very same
// functors), the baselines' combiners, and the allocation counter that main.cpp
// feeds from its global operator new/delete.

#include <hookbus/hooks.hpp>

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace bench {

using namespace hookbus;

// ------------------------------------------------------------- allocations

// Heap accounting, active only inside an AllocationScope (the hook in main.cpp
// checks one relaxed flag otherwise). Bytes are malloc_usable_size of each
// block: what the allocator really hands out, rounding included, headers not.
struct AllocationStats {
  std::atomic<bool> counting{false};
  std::atomic<std::int64_t> live_bytes{0};   // allocated minus freed while counting
  std::atomic<std::int64_t> allocations{0};  // operator new calls while counting
};
AllocationStats& allocation_stats() noexcept;

class AllocationScope {
 public:
  AllocationScope() noexcept {
    auto& s = allocation_stats();
    start_bytes_ = s.live_bytes.load();
    start_allocations_ = s.allocations.load();
    s.counting.store(true);
  }
  ~AllocationScope() { stop(); }
  AllocationScope(const AllocationScope&) = delete;
  AllocationScope& operator=(const AllocationScope&) = delete;

  void stop() noexcept {
    auto& s = allocation_stats();
    if (!s.counting.exchange(false)) return;
    bytes_ = s.live_bytes.load() - start_bytes_;
    allocations_ = s.allocations.load() - start_allocations_;
  }
  std::int64_t bytes() const noexcept { return bytes_; }
  std::int64_t allocations() const noexcept { return allocations_; }

 private:
  std::int64_t start_bytes_ = 0, start_allocations_ = 0;
  std::int64_t bytes_ = 0, allocations_ = 0;
};

// ------------------------------------------------------------ sample events

// A realistic context: a UUID session id and a project path, both longer than
// the small-string buffer, so copying an event allocates as it would in an engine.
inline EventContext sample_context() {
  return EventContext{.session_id = "0b7f6c2e-3d4a-4e8b-9a51-2f6d8c1e7a90",
                      .cwd = "/home/dev/projects/agent-runtime",
                      .agent_id = "main",
                      .invoked_by = InvokedBy::main};
}

inline TurnStartEvent turn_start_event() {
  return TurnStartEvent{.context = sample_context(), .turn_index = 7, .timestamp = {}};
}

inline ToolCallEvent tool_call_event() {
  return ToolCallEvent{.context = sample_context(),
                       .tool_call_id = "call_01",
                       .tool_name = "bash",
                       .input = {{"command", "ls -la src"}}};
}

inline ToolResultEvent tool_result_event() {
  return ToolResultEvent{.context = sample_context(),
                         .tool_call_id = "call_01",
                         .tool_name = "bash",
                         .input = {{"command", "ls -la src"}},
                         .content = {TextPart{"total 8\n-rw-r--r-- 1 dev dev 120 hooks.cpp\n"}},
                         .is_error = false};
}

// ----------------------------------------------------------- handler bodies
// Each touches one field of the event through benchmark::DoNotOptimize: enough
// that no call can be optimised away, cheap enough that the dispatch dominates.

// turn_start, observe-only.
struct Observe {
  void operator()(const TurnStartEvent& e) const { benchmark::DoNotOptimize(e.turn_index); }
};

// tool_call through the block reducer: the same functors are connected to
// hookbus and to every baseline, which fold their optional results themselves.
struct Allow {
  std::optional<ToolCallResult> operator()(const ToolCallEvent& e) const {
    benchmark::DoNotOptimize(e.tool_name.size());
    return std::nullopt;
  }
};
struct Block {
  std::optional<ToolCallResult> operator()(const ToolCallEvent& e) const {
    benchmark::DoNotOptimize(e.tool_name.size());
    return ToolCallResult{.decision = Decision::deny, .reason = "policy"};  // fits the small-string buffer
  }
};

// tool_result through the patch reducer: every handler flips is_error. hookbus
// handlers return the patch (the bus writes it into the moved-in event); the
// baselines' handler does the same write in place.
struct PatchResult {
  std::optional<ToolResultResult> operator()(const ToolResultEvent& e) const {
    return ToolResultResult{.is_error = !e.is_error};
  }
};
struct PatchInPlace {
  void operator()(ToolResultEvent& e) const { e.is_error = !e.is_error; }
};

// Handlers written against the variant (by-name and catch-all).
inline void touch_variant(const HookEvent& e) {
  const auto* start = std::get_if<TurnStartEvent>(&e);
  benchmark::DoNotOptimize(start != nullptr ? start->turn_index : 0u);
}
struct NamedObserve {
  HookOutcome operator()(const HookEvent& e) const {
    touch_variant(e);
    return std::monostate{};
  }
};
struct VariantObserve {
  void operator()(const HookEvent& e) const { touch_variant(e); }
};

// ------------------------------------------------------ baseline combiners

// Short-circuit fold for the block case, for Signals2 and libsigc++ alike: the
// first result that blocks is the outcome and no further slot runs.
struct FirstBlock {
  using result_type = ToolCallResult;
  template <class It>
  ToolCallResult operator()(It first, It last) const {
    for (; first != last; ++first) {
      auto&& result = *first;
      if (result && result->decision == Decision::deny) return ToolCallResult(std::move(*result));
    }
    return ToolCallResult();
  }
};

// Registration of the benchmark groups, called by main() in this order.
void register_emit_benchmarks();
void register_session_benchmarks();
void register_memory_benchmarks();
void register_process_benchmarks();
void register_trace_benchmarks();
void register_external_benchmarks();
void register_wrap_benchmarks();

}  // namespace bench
