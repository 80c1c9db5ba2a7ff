#include "bus/channel.hpp"

#include <utility>

namespace hookbus::detail {

boost::signals2::connection Channel::connect(std::shared_ptr<const SlotBase> slot, int priority, bool at_front) {
  auto connection = registry_.connect(std::move(slot), priority, at_front);
  changed();
  return connection;
}

std::vector<std::string> Channel::labels_in_call_order() {
  std::vector<std::string> labels;
  for (const auto& slot : connected_slots().slots) labels.push_back(slot->identity->label());
  return labels;
}

void Channel::clear() {
  for (const auto& slot : connected_slots().slots) slot->identity->retire();
}

Channel::Snapshot Channel::connected_slots() {
  SlotRegistry::Listed listed = registry_.list();
  for (const auto& identity : listed.expired) identity->retire();
  Snapshot snapshot;
  snapshot.entries.reserve(listed.connected.size());
  for (const auto& slot : listed.connected) {
    snapshot.entries.push_back({slot.get(), slot->identity.get(), slot->identity->track().has_value()});
    snapshot.runs_ahead = snapshot.runs_ahead || slot->runs_ahead;
  }
  snapshot.slots = std::move(listed.connected);
  return snapshot;
}

const Channel::Snapshot* Channel::rebuild(std::unique_ptr<Snapshot>& built) {
  const std::uint64_t version = snapshot_.version();
  built = std::make_unique<Snapshot>(connected_slots());
  const Snapshot* slots = built.get();
  snapshot_.publish_if_unchanged(built, version);
  return slots;
}

Channel& LazyChannel::connectable(std::mutex& making) {
  if (Channel* made = made_.load(std::memory_order_acquire)) return *made;
  const std::lock_guard lock(making);
  Channel* made = made_.load(std::memory_order_relaxed);
  if (made == nullptr) {
    made = new Channel();
    made_.store(made, std::memory_order_release);  // a reader that sees it sees it made
  }
  return *made;
}

Channel& LazyChannel::empty() noexcept {
  // Never connected to and never destroyed: a bus may be read while statics go at exit.
  static Channel* const none = new Channel();
  return *none;
}

}  // namespace hookbus::detail
