#pragma once
// Internal: one registered handler, shared by its Connection handle and its
// channel's registry, so that disconnecting through either happens exactly once
// and keeps the per-type listener count (the emit fast path) exact.

#include <boost/signals2/connection.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace hookbus::detail {

struct BusState;

class Registration {
 public:
  Registration(std::weak_ptr<BusState> bus, std::atomic<std::uint32_t>& listeners, std::string label, int priority,
               std::uint64_t sequence, bool reversed)
      : bus_(std::move(bus)),
        listeners_(&listeners),
        label_(std::move(label)),
        priority_(priority),
        sequence_(sequence),
        reversed_(reversed) {}

  // Called once, before the registration is published anywhere.
  void attach(boost::signals2::connection connection) { connection_ = std::move(connection); }

  // Disconnects and gives back the listener count, the first time only. The
  // count lives in the bus, so it is touched only while the bus is alive.
  void retire() noexcept {
    if (!live_.exchange(false, std::memory_order_acq_rel)) return;
    connection_.disconnect();
    if (auto bus = bus_.lock()) listeners_->fetch_sub(1, std::memory_order_relaxed);
  }

  bool connected() const noexcept { return live_.load(std::memory_order_acquire) && connection_.connected(); }
  const std::string& label() const noexcept { return label_; }

  // Call order within a channel: priority, then registration order (reversed
  // for closing events under nested ordering).
  bool runs_before(const Registration& other) const noexcept {
    if (priority_ != other.priority_) return priority_ < other.priority_;
    return reversed_ ? sequence_ > other.sequence_ : sequence_ < other.sequence_;
  }

 private:
  std::weak_ptr<BusState> bus_;
  std::atomic<std::uint32_t>* listeners_;
  std::string label_;
  int priority_;
  std::uint64_t sequence_;
  bool reversed_;
  boost::signals2::connection connection_;
  std::atomic<bool> live_{true};
};

}  // namespace hookbus::detail
