#pragma once
// Internal: a channel of the bus, the handlers of one event type (or the
// catch-all subscribers, the emission observers, the error listeners).
//
// Its registry (bus/slot_registry.hpp, a Boost.Signals2 signal) says who is
// connected, in which priority group and in which order (at the front of its
// group for a closing event under nested ordering). The emit does not call
// Signals2. It walks the channel's dispatch snapshot: the connected slots in
// call order, an immutable vector made from the registry by calling its
// signal once, after any change the first time an emit needs it, and read
// through a SnapshotCell, so that an emit takes no lock and copies no
// shared_ptr.
//
// A slot (bus/hooks.cpp) is a handler with its identity: it derives from
// SlotBase. The registry holds each slot while it is connected; a snapshot
// holds the slots it lists, so a slot outlives every emit that may call it.
//
// A Channel holds its slots as SlotBase, so that its code is the same for
// every channel and compiled once (bus/channel.cpp), not once per event type.
// Each channel's slots are all of one type, which only SlotsOf<Slot>, the
// typed view the bus connects and reads through, knows.

#include "bus/registration.hpp"
#include "bus/slot_registry.hpp"
#include "bus/snapshot_cell.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hookbus::detail {

class Channel final : public ChannelBase {
 public:
  // The connected slots in call order. An emit reads each entry's slot and
  // registration without following a shared_ptr: `slots` only keeps them alive.
  struct Entry {
    const SlotBase* slot;
    const Registration* identity;
    bool tracked;  // has a tracked owner to lock for the call
  };
  struct Snapshot {
    std::vector<Entry> entries;
    std::vector<std::shared_ptr<const SlotBase>> slots;
    bool runs_ahead = false;  // some slot's work can start ahead of its turn (bus/run_ahead.hpp)
  };

  Channel() = default;
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  std::uint64_t next_sequence() noexcept { return sequence_.fetch_add(1, std::memory_order_relaxed); }

  // Connects a slot whose identity was made for this channel.
  boost::signals2::connection connect(std::shared_ptr<const SlotBase> slot, int priority, bool at_front);

  void changed() noexcept override { snapshot_.clear(); }

  [[nodiscard]] std::size_t slot_count() const { return registry_.size(); }
  [[nodiscard]] std::vector<std::string> labels_in_call_order();
  // Retires every connected slot.
  void clear();

  // The connected slots in call order, made from the registry now. Slots
  // whose tracked owner is gone are retired and left out.
  Snapshot connected_slots();

  // One emit's read of the snapshot: while it lives, the slots it lists stay
  // alive. Every pass of an emit over its handlers walks the same snapshot,
  // so a handler connected during the emit is not called by it.
  class Reading {
   public:
    explicit Reading(Channel& channel) : read_(channel.snapshot_), slots_(read_.get()) {
      if (slots_ == nullptr) slots_ = channel.rebuild(built_);
    }

    // Calls `call(slot, position)` for every slot still connected, in call
    // order, until it returns Step::stop; `position` is the slot's place in
    // this snapshot. A slot whose tracked owner is gone is retired instead;
    // a live owner is held for the length of the call. Inlined into the
    // emit, as the handlers' calls are into it (bus/hooks.cpp).
    template <class Call>
    [[gnu::always_inline]] void each(Call&& call) const {
      const std::vector<Entry>& entries = slots_->entries;
      const std::size_t count = entries.size();
      for (std::size_t position = 0; position < count; ++position) {
        const Entry& entry = entries[position];
        if (!entry.identity->listed()) continue;
        if (entry.tracked) {
          const std::shared_ptr<const void> owner = entry.identity->track()->lock();
          if (!owner) {
            entry.slot->identity->retire();
            continue;
          }
          if (call(*entry.slot, position) == Step::stop) return;
        } else if (call(*entry.slot, position) == Step::stop) {
          return;
        }
      }
    }

    // For starting work ahead (bus/run_ahead.hpp): whether any slot can, and
    // the slot at `position` when it is still connected and has no tracked
    // owner (which would have to be held for the length of a run), else null.
    [[nodiscard]] bool runs_ahead() const noexcept { return slots_->runs_ahead; }
    [[nodiscard]] std::size_t size() const noexcept { return slots_->entries.size(); }
    [[nodiscard]] const SlotBase* untracked_at(std::size_t position) const noexcept {
      const Entry& entry = slots_->entries[position];
      return entry.identity->listed() && !entry.tracked ? entry.slot : nullptr;
    }

   private:
    std::unique_ptr<Snapshot> built_;  // a snapshot this read made and could not publish; freed last
    SnapshotCell<Snapshot>::Read read_;
    const Snapshot* slots_;
  };

 private:
  // Makes the snapshot from the registry and publishes it, unless the channel
  // changed meanwhile: then the caller keeps it in `built` for its own emit.
  const Snapshot* rebuild(std::unique_ptr<Snapshot>& built);

  SlotRegistry registry_;
  SnapshotCell<Snapshot> snapshot_;
  std::atomic<std::uint64_t> sequence_{0};
};

// A channel made when first connected to, so that a bus nobody connects to
// makes none: an engine may make a bus per session or per subagent, and a
// channel's registry (a Boost.Signals2 signal) costs about ten allocations.
// Read before it is made, it is an always-empty channel, one per process.
class LazyChannel {
 public:
  LazyChannel() = default;
  LazyChannel(const LazyChannel&) = delete;
  LazyChannel& operator=(const LazyChannel&) = delete;
  ~LazyChannel() { delete made_.load(std::memory_order_acquire); }

  // For connecting: the channel, made now if it was not yet; `making` is the
  // bus's lock for making its channels.
  Channel& connectable(std::mutex& making);
  // For reading (an emit, introspection, clearing): the channel, or the empty one.
  Channel& readable() const noexcept {
    Channel* made = made_.load(std::memory_order_acquire);
    return made != nullptr ? *made : empty();
  }

 private:
  static Channel& empty() noexcept;

  std::atomic<Channel*> made_{nullptr};  // owned
};

// A channel whose slots are all Slots: the bus connects them and reads them
// back through it, so a channel is never given, or read as, another type.
template <class Slot>
class SlotsOf {
 public:
  explicit SlotsOf(Channel& channel) noexcept : channel_(channel) {}

  Channel& channel() const noexcept { return channel_; }

  boost::signals2::connection connect(std::shared_ptr<const Slot> slot, int priority, bool at_front) const {
    return channel_.connect(std::move(slot), priority, at_front);
  }

  // Channel::Reading, calling each slot as the Slot it is.
  class Reading {
   public:
    explicit Reading(SlotsOf slots) : read_(slots.channel_) {}

    template <class Call>
    [[gnu::always_inline]] void each(Call&& call) const {
      read_.each([&](const SlotBase& slot, std::size_t position) __attribute__((always_inline)) {
        return call(static_cast<const Slot&>(slot), position);
      });
    }

    [[nodiscard]] bool runs_ahead() const noexcept { return read_.runs_ahead(); }
    [[nodiscard]] std::size_t size() const noexcept { return read_.size(); }
    [[nodiscard]] const Slot* untracked_at(std::size_t position) const noexcept {
      return static_cast<const Slot*>(read_.untracked_at(position));
    }

   private:
    Channel::Reading read_;
  };

 private:
  Channel& channel_;
};

}  // namespace hookbus::detail
