#pragma once
// Internal: a channel's registry (bus/channel.hpp): who is connected, in which
// priority group and in which order. It is a Boost.Signals2 signal whose
// slots list themselves when it is called. Every channel's signal has the one
// type, its slots held as their common base, so the signal's code is compiled
// once, in bus/slot_registry.cpp, rather than once per event type in
// bus/hooks.cpp (where it was most of the object code, 54 instantiations).

#include "bus/registration.hpp"

#include <boost/signals2/connection.hpp>

#include <cstddef>
#include <memory>
#include <vector>

namespace hookbus::detail {

// What every slot has besides its handler. Each channel's slots are of one
// type derived from it; the channel casts back to that type.
struct SlotBase {
  // First: released after the handler (in the derived slot) is destroyed, so
  // the code the handler lives in (a plugin's library) outlives its destructor.
  std::shared_ptr<const void> keep_alive;
  std::shared_ptr<Registration> identity;
  bool runs_ahead = false;  // its work can start ahead of its turn (bus/run_ahead.hpp)
};

class SlotRegistry {
 public:
  // The registry's slots as calling it found them.
  struct Listed {
    std::vector<std::shared_ptr<const SlotBase>> connected;  // in call order
    std::vector<std::shared_ptr<Registration>> expired;      // tracked owner gone, or retired meanwhile
  };

  SlotRegistry();
  SlotRegistry(const SlotRegistry&) = delete;
  SlotRegistry& operator=(const SlotRegistry&) = delete;
  ~SlotRegistry();

  // At the front or the back of its priority group.
  boost::signals2::connection connect(std::shared_ptr<const SlotBase> slot, int priority, bool at_front);
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] Listed list() const;

 private:
  class Signal;
  std::unique_ptr<Signal> signal_;
};

}  // namespace hookbus::detail
