#pragma once
// Internal: one registered handler. Shared by its Connection handle, its
// channel's registry and its slot, so that disconnecting through any of them
// happens exactly once and keeps the per-type listener count (the emit fast
// path) exact. It is also the slot's identity for error reports and failure
// policies: one allocation per registration carries all of it.
//
// The handler itself is not in here: it lives in the Signals2 slot, which
// Signals2 destroys at disconnect, so a handler's captures are released then,
// whoever still holds the Registration.

#include <hookbus/hooks.hpp>

#include "bus/reducers.hpp"

#include <boost/signals2/connection.hpp>

#include <atomic>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

namespace hookbus::detail {

struct BusState;

// A queued registration's queue, as the registration and the bus see it
// (bus/delivery_queue.hpp).
class QueueControl {
 public:
  virtual ~QueueControl() = default;
  // Delivers what is queued, then stops; returns once it has (at once on the
  // delivering thread itself).
  virtual void close() noexcept = 0;
  virtual void flush() = 0;
  // Closed, and everything it held delivered: its thread is done.
  [[nodiscard]] virtual bool finished() const = 0;
  [[nodiscard]] virtual DeliveryQueueState state() const = 0;
};

// What connecting a handler needs to know besides the handler.
struct RegistrationSite {
  BusState* bus;
  std::atomic<std::uint32_t>* listeners;  // the count the emit fast path reads; lives in the bus
  std::string_view event;                 // wire name, or "*" / "on_handler_error"; static storage
  std::uint64_t sequence;                 // registration order within the channel
  bool reversed = false;                  // nested ordering of a closing event
};

class Registration {
 public:
  Registration(const RegistrationSite& site, const HandlerOptions& options)
      : bus_(site.bus),
        listeners_(site.listeners),
        event_(site.event),
        label_(options.label),
        source_(options.source),
        protocol_(options.protocol),
        failure_(options.failure),
        kind_(options.kind),
        priority_(options.priority),
        layer_(options.layer),
        rank_(trust_rank(options.layer)),
        sequence_(site.sequence),
        reversed_(site.reversed) {}

  // Called once, before the registration is published anywhere.
  void attach(boost::signals2::connection connection) { connection_ = std::move(connection); }
  void attach(std::shared_ptr<QueueControl> queue) { queue_ = std::move(queue); }

  // Disconnects and gives back the listener count, the first time only. The
  // count lives in the bus, so it is touched only while the bus is alive. A
  // queue delivers what it holds first, while the slot (and what keeps its
  // code loaded) is still there.
  void retire() noexcept {
    if (!live_.exchange(false, std::memory_order_acq_rel)) return;
    if (queue_) queue_->close();
    connection_.disconnect();
    if (bus_alive_.load(std::memory_order_acquire)) listeners_->fetch_sub(1, std::memory_order_relaxed);
  }

  // Called by the bus's destructor for every registration not yet retired
  // (the channel registries hold all of them), so that a handle outliving the
  // bus never touches its counts. Cheaper than a weak_ptr to the bus, which
  // cost every connect and disconnect two atomic operations more.
  void bus_destroyed() noexcept { bus_alive_.store(false, std::memory_order_release); }

  bool retired() const noexcept { return !live_.load(std::memory_order_acquire); }
  // False once retired, or once Signals2 dropped the slot because a tracked owner died.
  bool connected() const noexcept { return !retired() && connection_.connected(); }

  // The label given at registration, or "<event>#<n>", made only when asked:
  // most handlers are never listed and never fail.
  std::string label() const {
    std::string label;
    write_label(label);
    return label;
  }

  // Who this handler is in a result's decided_by, written in place: this runs
  // on every refusal, on the emit path.
  void name(Decider& decider) const {
    write_label(decider.handler);
    decider.source.assign(source_);
  }
  std::string_view event() const noexcept { return event_; }
  FailurePolicy failure() const noexcept { return failure_; }
  int rank() const noexcept { return rank_; }  // trust_rank of its layer
  HandlerKind kind() const noexcept { return kind_; }
  const std::string& source() const noexcept { return source_; }
  const std::string& protocol() const noexcept { return protocol_; }
  std::optional<Layer> layer() const noexcept { return layer_; }

  // What error listeners are told when this handler fails.
  HookError error(std::string label, std::string message) const {
    return HookError{std::string(event_), std::move(label), std::move(message), kind_, source_};
  }

  // Only slots call this, and slots live inside the bus's signals: the bus is
  // alive whenever they run.
  BusState& bus() const noexcept { return *bus_; }

  // Whether this was registered before an emit that began when its channel's
  // next sequence was `horizon` (ChannelBase::horizon).
  bool registered_before(std::uint64_t horizon) const noexcept { return sequence_ < horizon; }

  // Call order within a channel: priority, then registration order (reversed
  // for closing events under nested ordering).
  bool runs_before(const Registration& other) const noexcept {
    if (priority_ != other.priority_) return priority_ < other.priority_;
    return reversed_ ? sequence_ > other.sequence_ : sequence_ < other.sequence_;
  }
  // The same for registrations known only as pointers (ChangeLog::RunsBefore).
  static bool runs_before(const void* first, const void* second) noexcept {
    return static_cast<const Registration*>(first)->runs_before(*static_cast<const Registration*>(second));
  }

 private:
  void write_label(std::string& out) const {
    if (!label_.empty()) {
      out.assign(label_);
      return;
    }
    char digits[std::numeric_limits<std::uint64_t>::digits10 + 1];
    const auto end = std::to_chars(std::begin(digits), std::end(digits), sequence_).ptr;
    out.assign(event_);
    out += '#';
    out.append(digits, end);
  }

  BusState* bus_;
  std::atomic<std::uint32_t>* listeners_;
  std::string_view event_;
  std::string label_;
  std::string source_;
  std::string protocol_;
  FailurePolicy failure_;
  HandlerKind kind_;
  int priority_;
  std::optional<Layer> layer_;
  int rank_;
  std::uint64_t sequence_;
  bool reversed_;
  boost::signals2::connection connection_;
  std::shared_ptr<QueueControl> queue_;
  std::atomic<bool> live_{true};
  std::atomic<bool> bus_alive_{true};
};

}  // namespace hookbus::detail
