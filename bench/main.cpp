// hookbus_bench's own main: parks one extra thread, then runs every benchmark.
//
// Why the parked thread: glibc and libstdc++ take single-threaded shortcuts
// until a process first starts a thread. libstdc++'s shared_ptr reference
// counts use plain increments while __libc_single_threaded (glibc >= 2.32) is
// true, and Boost.Signals2 copies shared_ptrs on every emit; glibc's own
// locking takes cheaper paths too. A benchmark process that never started a
// thread therefore hides most of the synchronisation an emit costs in a real
// agent engine, which always has threads (a mutex lock/unlock goes from ~3 ns
// to ~15 ns). glibc never flips the flag back, but the thread stays parked on a
// condition variable for the whole run anyway, so the process is honestly
// multi-threaded throughout, exactly like an engine with an idle worker.
//
// This file also replaces the global operator new/delete with a counting hook,
// off except inside a bench::AllocationScope (memory_bench.cpp).

#include "build_info.hpp"
#include "common.hpp"

#include <benchmark/benchmark.h>

#include <malloc.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <new>
#include <thread>

namespace bench {
AllocationStats& allocation_stats() noexcept {
  static AllocationStats stats;  // constant-initialised: usable from the first allocation
  return stats;
}
}  // namespace bench

namespace {

void* counted_allocate(std::size_t size) noexcept {
  void* block = std::malloc(size == 0 ? 1 : size);
  auto& stats = bench::allocation_stats();
  if (block != nullptr && stats.counting.load(std::memory_order_relaxed)) {
    stats.live_bytes.fetch_add(static_cast<std::int64_t>(malloc_usable_size(block)), std::memory_order_relaxed);
    stats.allocations.fetch_add(1, std::memory_order_relaxed);
  }
  return block;
}

void counted_free(void* block) noexcept {
  if (block == nullptr) return;
  auto& stats = bench::allocation_stats();
  if (stats.counting.load(std::memory_order_relaxed))
    stats.live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(block)), std::memory_order_relaxed);
  std::free(block);
}

void* allocate_or_throw(std::size_t size) {
  if (void* block = counted_allocate(size)) return block;
  throw std::bad_alloc();
}

}  // namespace

// Aligned forms (std::align_val_t) are left to libstdc++: nothing measured uses them.
void* operator new(std::size_t size) { return allocate_or_throw(size); }
void* operator new[](std::size_t size) { return allocate_or_throw(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_allocate(size); }
void operator delete(void* block) noexcept { counted_free(block); }
void operator delete[](void* block) noexcept { counted_free(block); }
void operator delete(void* block, std::size_t) noexcept { counted_free(block); }
void operator delete[](void* block, std::size_t) noexcept { counted_free(block); }
void operator delete(void* block, const std::nothrow_t&) noexcept { counted_free(block); }
void operator delete[](void* block, const std::nothrow_t&) noexcept { counted_free(block); }

namespace {

// One thread that does nothing but wait until the benchmarks are over.
class ParkedThread {
 public:
  ParkedThread()
      : thread_([this] {
          std::unique_lock lock(mutex_);
          wake_.wait(lock, [this] { return done_; });
        }) {}
  ~ParkedThread() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  ParkedThread(const ParkedThread&) = delete;
  ParkedThread& operator=(const ParkedThread&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace

int main(int argc, char** argv) {
  const ParkedThread parked;

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  benchmark::AddCustomContext("hookbus_compiler", HOOKBUS_BENCH_COMPILER);
  benchmark::AddCustomContext("hookbus_build_type", HOOKBUS_BENCH_BUILD_TYPE);
  benchmark::AddCustomContext("hookbus_cxx_flags", HOOKBUS_BENCH_CXX_FLAGS);
  benchmark::AddCustomContext("hookbus_tracer", HOOKBUS_BENCH_HAVE_FORMAT_LINE ? "hookbus::format_line" : "fmt");
  benchmark::AddCustomContext("hookbus_event_count", std::to_string(hookbus::event_count));
  benchmark::AddCustomContext("hookbus_parked_thread", "1 extra thread parked for the whole run");

  bench::register_emit_benchmarks();
  bench::register_session_benchmarks();
  bench::register_memory_benchmarks();
  bench::register_process_benchmarks();
  bench::register_trace_benchmarks();
  bench::register_external_benchmarks();
  bench::register_wrap_benchmarks();

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
