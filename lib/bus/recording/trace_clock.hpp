#pragma once
// Internal: the clock of a recorded emit's times. A recorded emit reads it
// once per handler on the emitting thread, so it must be cheap to read: where
// Linux keeps its own steady clock with the CPU's time-stamp counter
// (x86-64, an invariant counter, clocksource "tsc"), a read is the counter
// itself (`rdtsc`, about 10 ns on the machines measured, against about 25 ns
// for the steady clock's vDSO call), and the ticks are converted to the steady
// clock where the record is made, off the emit's path (on a queued observer's
// thread). Elsewhere the ticks are the steady clock's nanoseconds.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>

namespace hookbus::detail {

using SteadyTime = std::chrono::steady_clock::time_point;
using TraceTicks = std::uint64_t;

// A reading of both clocks, taken together.
struct ClockReading {
  TraceTicks ticks = 0;
  std::int64_t steady_ns = 0;
};

// Decides once per process whether the ticks are the time-stamp counter, and
// takes the first reading of both clocks the conversion starts from.
bool detect_tsc_ticks() noexcept;

// Inline, with its decision in a function-local static: one load and a
// branch on each read, and safe from other translation units' initialisers.
inline bool trace_ticks_are_tsc() noexcept {
  static const bool tsc = detect_tsc_ticks();
  return tsc;
}

inline TraceTicks trace_ticks() noexcept {
#if defined(__x86_64__)
  // The builtin, not <x86intrin.h>: every file that records includes this one.
  if (trace_ticks_are_tsc()) return __builtin_ia32_rdtsc();
#endif
  const auto since_epoch = std::chrono::steady_clock::now().time_since_epoch();
  return static_cast<TraceTicks>(std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch).count());
}

// The steady time at `ticks` read in this process (by trace_ticks): the
// same ticks give the same time whenever they are converted, and later
// ticks never an earlier time, so that a record's times, and a nested
// emit's against its parent's, keep their order.
SteadyTime steady_time_at(TraceTicks ticks);

// The map from counter ticks to steady nanoseconds behind steady_time_at, as
// pieces of straight lines. Its rate is measured between the first reading
// and the latest, so it grows more exact as the process runs. At most once
// per `resync_ns`, a reading begins a new piece where the last one is at that
// moment (so the map stays continuous and increasing, and ticks converted
// before keep their time), whose rate makes up the difference between the
// map and the steady clock over the next `resync_ns`. A difference of more
// than `step_limit_ns` (the counter reset or stopped, as across a suspend)
// is not made up but stepped over: the new piece starts at the reading.
// Ticks older than the oldest of the `kept_pieces` kept are converted on it.
class TickTimeline {
 public:
  static constexpr std::int64_t resync_ns = 1'000'000'000;
  static constexpr std::int64_t step_limit_ns = 1'000'000;
  static constexpr std::size_t kept_pieces = 64;

  // `first` and `second` must be apart (in ticks and in time): they set the first rate.
  TickTimeline(ClockReading first, ClockReading second);

  // Whether a reading taken at `steady_ns` would begin a new piece.
  [[nodiscard]] bool due(std::int64_t steady_ns) const noexcept;
  // A reading taken now; begins a new piece when due.
  void observe(ClockReading now);

  [[nodiscard]] std::int64_t steady_ns_at(TraceTicks ticks) const noexcept;

 private:
  struct Piece {
    TraceTicks ticks;
    std::int64_t steady_ns;
    double ns_per_tick;
  };
  ClockReading anchor_;         // where the measured rate starts
  double measured_ns_per_tick_;  // between the anchor and the latest reading
  std::deque<Piece> pieces_;    // by their first tick
};

}  // namespace hookbus::detail
