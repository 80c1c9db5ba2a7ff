// The trace capture's reuse (lib/bus/recording/emission_capture.hpp, CapturePool) and
// the queue behind a queued observer telling when it goes idle
// (lib/bus/delivery_queue.hpp), which trims the pool.

#include "bus/delivery_queue.hpp"
#include "bus/recording/emission_capture.hpp"

#include <hookbus/events.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace hookbus::detail {
namespace {

TEST(CapturePool, KeepsEveryCaptureGivenBackAndTrimsToWhatItKeepsWhenIdle) {
  auto pool = std::make_shared<CapturePool>();
  const std::size_t flood = CapturePool::kept_when_idle + 100;
  {
    std::vector<boost::intrusive_ptr<EmissionCapture>> in_flight;
    for (std::size_t i = 0; i < flood; ++i) in_flight.push_back(pool->take(i, ToolCallEvent{}));
  }
  EXPECT_EQ(pool->kept(), flood);
  pool->trim();
  EXPECT_EQ(pool->kept(), CapturePool::kept_when_idle);
}

TEST(CapturePool, ACaptureIsReusedForTheNextEmit) {
  auto pool = std::make_shared<CapturePool>();
  const EmissionCapture* first = pool->take(1, ToolCallEvent{}).get();
  EXPECT_EQ(pool->kept(), 1u);
  EXPECT_EQ(pool->take(2, ToolCallEvent{}).get(), first);
}

TEST(DeliveryQueueIdle, TheIdleCallbackRunsOnTheDeliveringThreadOnceEverythingQueuedIsDelivered) {
  std::atomic<int> delivered{0};
  std::atomic<int> delivered_when_idle{-1};
  std::atomic<bool> on_delivering_thread{false};
  std::thread::id delivering;
  auto queue = DeliveryQueueOf<int>::start(
      DeliveryQueue{.capacity = 8}, "idle",
      [&](int&) {
        delivering = std::this_thread::get_id();
        ++delivered;
      },
      [](const std::string&) {},
      [&] {
        on_delivering_thread = delivering == std::this_thread::get_id();
        delivered_when_idle = delivered.load();
      });
  for (int i = 0; i < 3; ++i) queue->push(i);
  queue->flush();
  // Idle comes after the linger; waited for without a clock.
  while (delivered_when_idle.load() != 3) std::this_thread::yield();
  EXPECT_TRUE(on_delivering_thread);
  queue->close();
}

}  // namespace
}  // namespace hookbus::detail
