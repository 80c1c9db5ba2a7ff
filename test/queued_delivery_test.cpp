// Queued delivery (HandlerOptions::queued, docs/semantics.md "Queued
// delivery"): catch-all subscribers and emission observers called on a thread
// of their own, in emit order, through a bounded queue. No test waits for a
// time: a subscriber that must hold the queue still blocks on a Gate the test
// opens.
#include <hookbus/hooks.hpp>
#include <hookbus/trace.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <pthread.h>

#include <atomic>
#include <memory>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace hookbus {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::SizeIs;

// A door a delivery waits at until the test opens it; the test can wait until
// a delivery is waiting there.
class Gate {
 public:
  void wait_here() {
    std::unique_lock lock(mutex_);
    ++waiting_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
  }
  void wait_until_someone_waits() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return waiting_ > 0; });
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int waiting_ = 0;
  bool open_ = false;
};

// Turn numbers a subscriber saw, safe to read from the test's thread.
class Seen {
 public:
  void add(std::uint32_t turn) {
    std::lock_guard lock(mutex_);
    turns_.push_back(turn);
  }
  std::vector<std::uint32_t> turns() const {
    std::lock_guard lock(mutex_);
    return turns_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::uint32_t> turns_;
};

std::uint32_t turn_of(const HookEvent& event) { return std::get<TurnStartEvent>(event).turn_index; }

std::vector<std::uint32_t> turns(std::uint32_t first, std::uint32_t last) {
  std::vector<std::uint32_t> all;
  for (std::uint32_t turn = first; turn <= last; ++turn) all.push_back(turn);
  return all;
}

// A queued subscriber that holds its first delivery at a gate, so the test
// can fill the queue behind it.
struct HeldSubscriber {
  Hooks hooks;
  Gate gate;
  Seen seen;
  Connection subscriber;

  explicit HeldSubscriber(DeliveryQueue queue) {
    subscriber = hooks.subscribe(
        [this](const HookEvent& event) {
          if (turn_of(event) == 0) gate.wait_here();
          seen.add(turn_of(event));
        },
        {.label = "held", .queued = queue});
    hooks.emit(TurnStartEvent{.turn_index = 0});
    gate.wait_until_someone_waits();  // turn 0 is out of the queue, being delivered
  }
  void emit_turns(std::uint32_t first, std::uint32_t last) {
    for (std::uint32_t turn = first; turn <= last; ++turn) hooks.emit(TurnStartEvent{.turn_index = turn});
  }
  DeliveryQueueState queue_state() const { return hooks.delivery_queues().at(0); }
};

// ------------------------------------------------------------------ order

TEST(QueuedDelivery, ASubscriberGetsEveryEventInEmitOrderOnAnotherThread) {
  Hooks hooks;
  Seen seen;
  std::atomic<bool> on_emitting_thread{false};
  const auto emitting_thread = std::this_thread::get_id();
  auto subscriber = hooks.subscribe(
      [&](const HookEvent& event) {
        if (std::this_thread::get_id() == emitting_thread) on_emitting_thread = true;
        seen.add(turn_of(event));
      },
      {.queued = DeliveryQueue{.capacity = 16}});
  for (std::uint32_t turn = 0; turn < 100; ++turn) hooks.emit(TurnStartEvent{.turn_index = turn});
  hooks.flush();
  EXPECT_EQ(seen.turns(), turns(0, 99));
  EXPECT_FALSE(on_emitting_thread);
}

TEST(QueuedDelivery, EmitsFromSeveralThreadsAreEachDeliveredInTheirThreadsOrder) {
  Hooks hooks;
  Seen seen;
  auto subscriber = hooks.subscribe([&](const HookEvent& e) { seen.add(turn_of(e)); }, {.queued = DeliveryQueue{}});
  std::vector<std::thread> threads;
  for (std::uint32_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::uint32_t i = 0; i < 50; ++i) hooks.emit(TurnStartEvent{.turn_index = t * 1000 + i});
    });
  for (auto& thread : threads) thread.join();
  hooks.flush();
  const auto delivered = seen.turns();
  ASSERT_THAT(delivered, SizeIs(200));
  // Per thread, the order of its emits.
  for (std::uint32_t t = 0; t < 4; ++t) {
    std::vector<std::uint32_t> of_thread;
    for (auto turn : delivered)
      if (turn / 1000 == t) of_thread.push_back(turn);
    EXPECT_EQ(of_thread, turns(t * 1000, t * 1000 + 49));
  }
}

TEST(QueuedDelivery, AnObserverGetsEveryRecordInEmitOrder) {
  Hooks hooks;
  std::mutex mutex;
  std::vector<std::uint64_t> seqs;
  auto observer = hooks.on_emission(
      [&](const EmissionRecord& record) {
        std::lock_guard lock(mutex);
        seqs.push_back(record.seq);
      },
      {.queued = DeliveryQueue{.capacity = 8}});
  for (int i = 0; i < 50; ++i) hooks.emit(TurnStartEvent{});
  hooks.flush();
  std::lock_guard lock(mutex);
  ASSERT_THAT(seqs, SizeIs(50));
  for (std::size_t i = 1; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], seqs[i - 1] + 1);
}

// --------------------------------------------------------------- overflow

TEST(QueuedDelivery, DropNewestDropsWhatComesIntoAFullQueueAndCountsIt) {
  HeldSubscriber held(DeliveryQueue{.capacity = 3, .overflow = Overflow::drop_newest});
  held.emit_turns(1, 5);  // 1..3 fill the queue, 4 and 5 are dropped
  EXPECT_EQ(held.queue_state().dropped, 2u);
  EXPECT_EQ(held.queue_state().queued, 3u);
  held.gate.open();
  held.hooks.flush();
  EXPECT_EQ(held.seen.turns(), turns(0, 3));
  EXPECT_EQ(held.queue_state().delivered, 4u);
}

TEST(QueuedDelivery, DropOldestMakesRoomByDroppingTheOldestQueuedAndCountsIt) {
  HeldSubscriber held(DeliveryQueue{.capacity = 3, .overflow = Overflow::drop_oldest});
  held.emit_turns(1, 5);  // 1 and 2 make room for 4 and 5
  EXPECT_EQ(held.queue_state().dropped, 2u);
  held.gate.open();
  held.hooks.flush();
  EXPECT_EQ(held.seen.turns(), (std::vector<std::uint32_t>{0, 3, 4, 5}));
}

TEST(QueuedDelivery, DropOldestKeepsTheNewestThroughAFloodManyTimesItsCapacity) {
  HeldSubscriber held(DeliveryQueue{.capacity = 3, .overflow = Overflow::drop_oldest});
  held.emit_turns(1, 20);  // the places of those dropped are reclaimed along the way
  EXPECT_EQ(held.queue_state().dropped, 17u);
  EXPECT_EQ(held.queue_state().queued, 3u);
  held.gate.open();
  held.hooks.flush();
  EXPECT_EQ(held.seen.turns(), (std::vector<std::uint32_t>{0, 18, 19, 20}));
}

TEST(QueuedDelivery, TheDeliveringThreadIsNamedForDebuggersAndProfilers) {
  Hooks hooks;
  std::string name;
  auto subscriber = hooks.subscribe(
      [&](const HookEvent&) {
        char buffer[16] = {};
        pthread_getname_np(pthread_self(), buffer, sizeof buffer);
        name = buffer;
      },
      {.queued = DeliveryQueue{}});
  hooks.emit(TurnStartEvent{});
  hooks.flush();
  EXPECT_EQ(name, "hookbus-queue");
}

TEST(QueuedDelivery, BlockMakesTheEmitWaitForRoomAndDropsNothing) {
  HeldSubscriber held(DeliveryQueue{.capacity = 2, .overflow = Overflow::block});
  std::atomic<bool> gate_opened{false};
  std::atomic<bool> returned_before_the_gate_opened{false};
  std::thread emitter([&] {
    held.emit_turns(1, 3);  // 1 and 2 fill the queue; 3 waits for room, which comes once turn 0 is delivered
    if (!gate_opened) returned_before_the_gate_opened = true;
  });
  // Wait (without a clock) until the queue is full behind the held delivery.
  while (held.queue_state().queued < 2) std::this_thread::yield();
  gate_opened = true;
  held.gate.open();
  emitter.join();
  held.hooks.flush();
  EXPECT_FALSE(returned_before_the_gate_opened);
  EXPECT_EQ(held.seen.turns(), turns(0, 3));
  EXPECT_EQ(held.queue_state().dropped, 0u);
}

TEST(QueuedDelivery, AnEmitFromTheDeliveringThreadIntoItsOwnFullBlockingQueueDropsInsteadOfWaitingForItself) {
  Hooks hooks;
  Seen seen;
  auto subscriber = hooks.subscribe(
      [&](const HookEvent& event) {
        seen.add(turn_of(event));
        if (turn_of(event) == 0)
          for (std::uint32_t turn = 100; turn < 103; ++turn) hooks.emit(TurnStartEvent{.turn_index = turn});
      },
      {.queued = DeliveryQueue{.capacity = 2, .overflow = Overflow::block}});
  hooks.emit(TurnStartEvent{.turn_index = 0});
  hooks.flush();
  hooks.flush();  // what turn 0's delivery queued
  EXPECT_EQ(seen.turns(), (std::vector<std::uint32_t>{0, 100, 101}));
  EXPECT_EQ(hooks.delivery_queues().at(0).dropped, 1u);
}

// ---------------------------------------------------------------- flush

TEST(QueuedDelivery, FlushReturnsOnceEverythingQueuedBeforeItIsDelivered) {
  HeldSubscriber held(DeliveryQueue{.capacity = 10});
  held.emit_turns(1, 4);
  std::thread opener([&] { held.gate.open(); });
  held.hooks.flush();
  EXPECT_EQ(held.seen.turns(), turns(0, 4));
  opener.join();
}

TEST(QueuedDelivery, FlushFromTheDeliveringThreadDoesNotWaitForItself) {
  Hooks hooks;
  std::atomic<int> delivered{0};
  auto subscriber = hooks.subscribe(
      [&](const HookEvent&) {
        hooks.flush();
        ++delivered;
      },
      {.queued = DeliveryQueue{}});
  hooks.emit(TurnStartEvent{});
  hooks.flush();
  EXPECT_EQ(delivered, 1);
}

// -------------------------------------------------------------- shutdown

TEST(QueuedDelivery, DestroyingTheBusDeliversEverythingQueuedFirst) {
  Gate gate;
  Seen seen;
  auto hooks = std::make_unique<Hooks>();
  hooks->subscribe(
           [&](const HookEvent& event) {
             if (turn_of(event) == 0) gate.wait_here();
             seen.add(turn_of(event));
           },
           {.queued = DeliveryQueue{.capacity = 10}})
      .release();  // only the bus's destruction ends it
  hooks->emit(TurnStartEvent{.turn_index = 0});
  gate.wait_until_someone_waits();
  for (std::uint32_t turn = 1; turn <= 6; ++turn) hooks->emit(TurnStartEvent{.turn_index = turn});
  std::thread opener([&] { gate.open(); });
  hooks.reset();
  EXPECT_EQ(seen.turns(), turns(0, 6));
  opener.join();
}

TEST(QueuedDelivery, DisconnectingDeliversEverythingQueuedFirst) {
  HeldSubscriber held(DeliveryQueue{.capacity = 10});
  held.emit_turns(1, 6);
  std::thread opener([&] { held.gate.open(); });
  held.subscriber.disconnect();
  EXPECT_EQ(held.seen.turns(), turns(0, 6));
  EXPECT_THAT(held.hooks.delivery_queues(), SizeIs(0));
  opener.join();
}

TEST(QueuedDelivery, ASubscriberMayDisconnectItselfWhileItIsDelivered) {
  Hooks hooks;
  Seen seen;
  Connection subscriber;
  std::mutex mutex;
  subscriber = hooks.subscribe(
      [&](const HookEvent& event) {
        seen.add(turn_of(event));
        std::lock_guard lock(mutex);
        if (turn_of(event) == 1) subscriber.disconnect();
      },
      {.queued = DeliveryQueue{}});
  {
    std::lock_guard lock(mutex);
    for (std::uint32_t turn = 0; turn < 4; ++turn) hooks.emit(TurnStartEvent{.turn_index = turn});
  }
  hooks.flush();
  EXPECT_EQ(seen.turns(), turns(0, 3));  // what was queued before the disconnect is still delivered
  hooks.emit(TurnStartEvent{.turn_index = 9});
  hooks.flush();
  EXPECT_EQ(seen.turns(), turns(0, 3));
}

// ----------------------------------------------------------------- errors

TEST(QueuedDelivery, ASubscriberThatThrowsIsReportedAndDeliveryGoesOn) {
  Hooks hooks;
  Seen seen;
  std::mutex mutex;
  std::vector<HandlerFailure> errors;
  auto listener = hooks.on_handler_error([&](const HandlerFailure& e) {
    std::lock_guard lock(mutex);
    errors.push_back(e);
  });
  auto subscriber = hooks.subscribe(
      [&](const HookEvent& event) {
        if (turn_of(event) == 1) throw std::runtime_error("log full");
        seen.add(turn_of(event));
      },
      {.label = "log", .queued = DeliveryQueue{}});
  for (std::uint32_t turn = 0; turn < 3; ++turn) hooks.emit(TurnStartEvent{.turn_index = turn});
  hooks.flush();
  EXPECT_EQ(seen.turns(), (std::vector<std::uint32_t>{0, 2}));
  std::lock_guard lock(mutex);
  ASSERT_THAT(errors, SizeIs(1));
  EXPECT_EQ(errors[0].handler, "log");
  EXPECT_EQ(errors[0].event, "*");
  EXPECT_EQ(errors[0].message, "log full");
}

TEST(QueuedDelivery, AnObserverThatThrowsIsReportedAndDeliveryGoesOn) {
  Hooks hooks;
  std::atomic<int> delivered{0};
  std::atomic<int> errors{0};
  auto listener = hooks.on_handler_error([&](const HandlerFailure&) { ++errors; });
  auto observer = hooks.on_emission(
      [&](const EmissionRecord& record) {
        if (record.seq == 0) throw std::runtime_error("disk full");
        ++delivered;
      },
      {.queued = DeliveryQueue{}});
  for (int i = 0; i < 3; ++i) hooks.emit(TurnStartEvent{});
  hooks.flush();
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(delivered, 2);
}

TEST(QueuedDelivery, ATypedHandlerCannotBeQueued) {
  Hooks hooks;
  EXPECT_THROW((void)hooks.on<TurnStartEvent>([](const TurnStartEvent&) {}, {.queued = DeliveryQueue{}}),
               std::invalid_argument);
}

TEST(QueuedDelivery, AQueueNeedsRoomForOneItem) {
  Hooks hooks;
  EXPECT_THROW((void)hooks.subscribe([](const HookEvent&) {}, {.queued = DeliveryQueue{.capacity = 0}}),
               std::invalid_argument);
}

TEST(QueuedDelivery, IntrospectionListsEachQueueWithItsLabelAndPolicy) {
  Hooks hooks;
  auto a = hooks.subscribe([](const HookEvent&) {}, {.label = "a", .queued = DeliveryQueue{.capacity = 5}});
  auto b = hooks.on_emission([](const EmissionRecord&) {},
                             {.label = "b", .queued = DeliveryQueue{.capacity = 7, .overflow = Overflow::drop_oldest}});
  auto in_place = hooks.subscribe([](const HookEvent&) {});
  const auto queues = hooks.delivery_queues();
  ASSERT_THAT(queues, SizeIs(2));
  EXPECT_EQ(queues[0].label, "a");
  EXPECT_EQ(queues[0].capacity, 5u);
  EXPECT_EQ(queues[1].label, "b");
  EXPECT_EQ(queues[1].overflow, Overflow::drop_oldest);
}

}  // namespace
}  // namespace hookbus
