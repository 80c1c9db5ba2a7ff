// The trace clock's ticks and their conversion (lib/bus/recording/trace_clock.hpp).

#include "bus/recording/trace_clock.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace hookbus::detail {
namespace {
#if defined(__x86_64__)

std::int64_t steady_ns_now() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The counter between two steady clock reads, from the narrowest of a few
// tries: a thread preempted between its reads would otherwise pair the
// counter with a time milliseconds off.
ClockReading read_both_clocks() noexcept {
  ClockReading best;
  std::int64_t narrowest = INT64_MAX;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const std::int64_t before = steady_ns_now();
    const TraceTicks ticks = __builtin_ia32_rdtsc();
    const std::int64_t after = steady_ns_now();
    if (after - before < narrowest) {
      narrowest = after - before;
      best = {ticks, before + (after - before) / 2};
    }
  }
  return best;
}

bool invariant_tsc() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;  // the counter runs at one rate in every power state
}

// Linux's own steady clock counts with the time-stamp counter only when the
// kernel found it synchronised across CPUs and stable.
bool linux_keeps_time_with_tsc() {
  std::ifstream source("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string name;
  return static_cast<bool>(source >> name) && name == "tsc";
}

// The first reading, taken when the ticks were decided.
ClockReading& first_reading() {
  static ClockReading reading;
  return reading;
}

#endif
}  // namespace

bool detect_tsc_ticks() noexcept {
#if defined(__x86_64__)
  try {
    if (!invariant_tsc() || !linux_keeps_time_with_tsc()) return false;
  } catch (...) {  // the file could not be read: the steady clock, then
    return false;
  }
  // Taken before the decision is published, which the first conversion waits for.
  first_reading() = read_both_clocks();
  return true;
#else
  return false;
#endif
}

TickTimeline::TickTimeline(ClockReading first, ClockReading second)
    : anchor_(first),
      measured_ns_per_tick_(static_cast<double>(second.steady_ns - first.steady_ns) /
                            static_cast<double>(second.ticks - first.ticks)) {
  pieces_.push_back({first.ticks, first.steady_ns, measured_ns_per_tick_});
}

bool TickTimeline::due(std::int64_t steady_ns) const noexcept {
  return steady_ns - pieces_.back().steady_ns >= resync_ns;
}

void TickTimeline::observe(ClockReading now) {
  if (!due(now.steady_ns)) return;
  const std::int64_t mapped = steady_ns_at(now.ticks);
  const std::int64_t error = mapped - now.steady_ns;  // > 0: the map runs ahead
  if (now.ticks <= anchor_.ticks || std::abs(error) > step_limit_ns) {
    // Stepped over, with the rate measured so far; measured anew from here.
    anchor_ = now;
    pieces_.push_back({now.ticks, now.steady_ns, measured_ns_per_tick_});
  } else {
    measured_ns_per_tick_ = static_cast<double>(now.steady_ns - anchor_.steady_ns) /
                            static_cast<double>(now.ticks - anchor_.ticks);
    // Makes up the difference over the next resync_ns: at most a thousandth of the rate.
    const double correction = std::clamp(-static_cast<double>(error) / resync_ns, -1e-3, 1e-3);
    pieces_.push_back({now.ticks, mapped, measured_ns_per_tick_ * (1.0 + correction)});
  }
  if (pieces_.size() > kept_pieces) pieces_.pop_front();
}

std::int64_t TickTimeline::steady_ns_at(TraceTicks ticks) const noexcept {
  // Mostly the latest piece: searched from the back.
  auto piece = std::find_if(pieces_.rbegin(), pieces_.rend(), [&](const Piece& p) { return p.ticks <= ticks; });
  const Piece& on = piece == pieces_.rend() ? pieces_.front() : *piece;
  const auto since = static_cast<double>(static_cast<std::int64_t>(ticks - on.ticks));
  return on.steady_ns + std::llround(since * on.ns_per_tick);
}

SteadyTime steady_time_at(TraceTicks ticks) {
  if (!trace_ticks_are_tsc()) return SteadyTime(std::chrono::nanoseconds(static_cast<std::int64_t>(ticks)));
#if defined(__x86_64__)
  // The first rate is measured over at least a millisecond from the first
  // reading; the conversion that needs it sooner waits for the rest, once.
  static constexpr std::int64_t first_span_ns = 1'000'000;
  static std::mutex mutex;
  static std::optional<TickTimeline> timeline;
  const std::lock_guard lock(mutex);
  if (!timeline) {
    const ClockReading first = first_reading();
    const std::int64_t waited = steady_ns_now() - first.steady_ns;
    if (waited < first_span_ns) std::this_thread::sleep_for(std::chrono::nanoseconds(first_span_ns - waited));
    timeline.emplace(first, read_both_clocks());
  }
  const std::int64_t at = timeline->steady_ns_at(ticks);
  // Ticks a resync past the latest piece mean a reading now is due too: so
  // a conversion reads the clocks only when it recalibrates. The new piece
  // starts after `ticks`, whose time it leaves as it was.
  if (timeline->due(at)) timeline->observe(read_both_clocks());
  return SteadyTime(std::chrono::nanoseconds(at));
#else
  return {};  // not reached: the ticks are the counter only on x86-64
#endif
}

}  // namespace hookbus::detail
