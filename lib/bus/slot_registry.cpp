#include "bus/slot_registry.hpp"

#include <boost/signals2/signal.hpp>

#include <utility>

namespace hookbus::detail {

namespace {
// What the signal holds for each connected slot. Called, it adds the slot to
// the list being made: calling the signal lists the slots in order.
struct Listing {
  std::shared_ptr<const SlotBase> slot;
  void operator()(SlotRegistry::Listed& listed) const {
    if (!slot->identity->connected()) listed.expired.push_back(slot->identity);
    else listed.connected.push_back(slot);
  }
};

struct CallEvery {
  using result_type = void;
  template <class Iterator>
  void operator()(Iterator first, Iterator last) const {
    for (; first != last; ++first) *first;
  }
};
}  // namespace

class SlotRegistry::Signal : public boost::signals2::signal<void(Listed&), CallEvery, int> {};

SlotRegistry::SlotRegistry() : signal_(std::make_unique<Signal>()) {}

SlotRegistry::~SlotRegistry() = default;

boost::signals2::connection SlotRegistry::connect(std::shared_ptr<const SlotBase> slot, int priority, bool at_front) {
  return signal_->connect(priority, Listing{std::move(slot)},
                          at_front ? boost::signals2::at_front : boost::signals2::at_back);
}

std::size_t SlotRegistry::size() const { return signal_->num_slots(); }

SlotRegistry::Listed SlotRegistry::list() const {
  Listed listed;
  (*signal_)(listed);
  return listed;
}

}  // namespace hookbus::detail
