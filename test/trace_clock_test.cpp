// The trace clock (lib/bus/recording/trace_clock.hpp): ticks a recorded emit reads
// cheaply, converted to the steady clock where the record is made.

#include "bus/recording/trace_clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>

namespace hookbus::detail {
namespace {

using namespace std::chrono_literals;

// Three ticks a nanosecond, as a 3 GHz counter.
constexpr std::uint64_t kTicksPerNs = 3;

TickTimeline three_ticks_a_nanosecond() {
  return TickTimeline({.ticks = 0, .steady_ns = 0}, {.ticks = 3'000'000, .steady_ns = 1'000'000});
}

TEST(TraceClock, TicksReadNowConvertToTheSteadyTimeBetweenReadsTakenAroundThem) {
  const auto before = std::chrono::steady_clock::now();
  const TraceTicks ticks = trace_ticks();
  const auto after = std::chrono::steady_clock::now();
  const SteadyTime converted = steady_time_at(ticks);
  // A millisecond of slack: the first rate is measured over a millisecond.
  EXPECT_GE(converted, before - 1ms);
  EXPECT_LE(converted, after + 1ms);
}

TEST(TraceClock, TheSameTicksConvertToTheSameTimeWhenConvertedAgain) {
  const TraceTicks ticks = trace_ticks();
  const SteadyTime first = steady_time_at(ticks);
  EXPECT_GE(steady_time_at(trace_ticks()), first);
  EXPECT_EQ(steady_time_at(ticks), first);
}

TEST(TickTimeline, ConvertsOnTheLineThroughItsFirstTwoReadings) {
  const TickTimeline timeline({.ticks = 1'000, .steady_ns = 5'000}, {.ticks = 3'001'000, .steady_ns = 1'005'000});
  EXPECT_EQ(timeline.steady_ns_at(1'000), 5'000);
  EXPECT_EQ(timeline.steady_ns_at(1'501'000), 505'000);
  EXPECT_EQ(timeline.steady_ns_at(30'001'000), 10'005'000);  // beyond the second reading too
}

TEST(TickTimeline, IsDueForANewPieceOnlyOnceResyncHasPassedSinceTheLast) {
  TickTimeline timeline = three_ticks_a_nanosecond();
  EXPECT_FALSE(timeline.due(TickTimeline::resync_ns - 1));
  EXPECT_TRUE(timeline.due(TickTimeline::resync_ns));
  // A reading before it is due changes nothing, even one far off the line.
  timeline.observe({.ticks = 3'000'000'000, .steady_ns = 900'000'000});
  EXPECT_EQ(timeline.steady_ns_at(3'000'000'000), 1'000'000'000);
}

TEST(TickTimeline, ANewPieceStartsWhereTheLastOneIsSoTicksConvertedBeforeKeepTheirTime) {
  TickTimeline timeline = three_ticks_a_nanosecond();
  const TraceTicks earlier = 2'000'000'000;
  const TraceTicks now = 3'000'000'000;
  const std::int64_t earlier_before = timeline.steady_ns_at(earlier);
  const std::int64_t now_before = timeline.steady_ns_at(now);
  timeline.observe({.ticks = now, .steady_ns = 1'000'200'000});  // the map is 200 µs behind the clock
  EXPECT_EQ(timeline.steady_ns_at(earlier), earlier_before);
  EXPECT_EQ(timeline.steady_ns_at(now), now_before);
}

TEST(TickTimeline, MakesUpADifferenceWithTheSteadyClockOverTheNextResync) {
  TickTimeline timeline = three_ticks_a_nanosecond();
  // The counter runs 200 ppm slower than the first two readings said.
  const auto clock_at = [](TraceTicks ticks) {
    return static_cast<std::int64_t>(static_cast<double>(ticks) / kTicksPerNs * 1.0002);
  };
  const TraceTicks now = 3'000'000'000;
  timeline.observe({.ticks = now, .steady_ns = clock_at(now)});
  const TraceTicks second_later = now + 3'000'000'000;
  EXPECT_NEAR(static_cast<double>(timeline.steady_ns_at(second_later)), static_cast<double>(clock_at(second_later)),
              1'000.0);  // the 200 µs made up, to within a microsecond
}

TEST(TickTimeline, LaterTicksNeverConvertToAnEarlierTimeAcrossPieces) {
  TickTimeline timeline = three_ticks_a_nanosecond();
  // The clock wanders against the counter, ahead and behind by up to 300 µs.
  const std::int64_t wander[] = {300'000, -300'000, 150'000, -50'000, 0, 299'000};
  TraceTicks ticks = 0;
  for (std::int64_t offset : wander) {
    ticks += 3'000'000'000;
    timeline.observe({.ticks = ticks, .steady_ns = static_cast<std::int64_t>(ticks / kTicksPerNs) + offset});
  }
  std::int64_t last = timeline.steady_ns_at(0);
  for (TraceTicks t = 0; t <= ticks + 3'000'000'000; t += 7'000'001) {
    const std::int64_t at = timeline.steady_ns_at(t);
    ASSERT_GE(at, last) << "at tick " << t;
    last = at;
  }
}

TEST(TickTimeline, ADifferenceOverTheStepLimitIsSteppedOverToTheReading) {
  TickTimeline timeline({.ticks = 3'000'000'000, .steady_ns = 1'000'000'000},
                        {.ticks = 3'003'000'000, .steady_ns = 1'001'000'000});
  // The counter was reset (a suspend): it reads less than at the first reading.
  timeline.observe({.ticks = 1'000, .steady_ns = 5'000'000'000});
  EXPECT_EQ(timeline.steady_ns_at(1'000), 5'000'000'000);
  EXPECT_EQ(timeline.steady_ns_at(3'001'000), 5'001'000'000);  // at the rate measured before
  // And a jump of the clock more than the limit ahead of the map.
  timeline.observe({.ticks = 6'000'001'000, .steady_ns = 7'000'000'000 + 10 * TickTimeline::step_limit_ns});
  EXPECT_EQ(timeline.steady_ns_at(6'000'001'000), 7'000'000'000 + 10 * TickTimeline::step_limit_ns);
}

}  // namespace
}  // namespace hookbus::detail
