#pragma once
// Internal: one registered handler's identity (label, source, policy, order)
// and its place in its channel's registry. Its Connection handle, its slot
// (bus/channel.hpp) and the records of emits that reached it
// (bus/recording/emission_capture.hpp) each hold it.
//
// The handler itself is not in here: it lives in the slot, which the channel
// holds while it is connected and the dispatch snapshots of emits in flight
// hold while they run. So a handler's captures are released once it is
// disconnected and the emits that were calling it have returned, whoever
// still holds the Registration.

#include <hookbus/hooks.hpp>

#include "bus/reducers.hpp"

#include <boost/signals2/connection.hpp>

#include <atomic>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// A channel of the bus (bus/channel.hpp), as its registrations see it (the
// channel's header includes this one).
class ChannelBase {
 public:
  virtual ~ChannelBase() = default;
  // A slot was connected or disconnected: the dispatch snapshot is out of date.
  virtual void changed() noexcept = 0;
};

// What connecting a handler needs to know besides the handler, for the one
// constructor call: it refers to the bus's shared_ptr rather than copying it
// (two locked operations fewer per connect).
struct RegistrationSite {
  const std::shared_ptr<BusState>& bus;
  ChannelBase* channel;
  std::atomic<std::uint32_t>* listeners;  // the count the emit fast path reads; lives in the bus
  std::string_view event;                 // wire name, or "*" / "on_handler_error"; static storage
  std::uint64_t sequence;                 // registration order within the channel
};

class Registration {
 public:
  // Takes the options' label, source, protocol and track (moved: they are the
  // connect's, and copying them was a measurable part of its cost); the
  // others are left for the slot.
  Registration(const RegistrationSite& site, HandlerOptions& options)
      : bus_(site.bus),
        channel_(site.channel),
        listeners_(site.listeners),
        event_(site.event),
        label_(std::move(options.label)),
        source_(std::move(options.source)),
        protocol_(std::move(options.protocol)),
        failure_(options.failure),
        kind_(options.kind),
        layer_(options.layer),
        rank_(trust_rank(options.layer)),
        sequence_(site.sequence),
        track_(std::move(options.track)) {}

  // Before the slot is connected: its queue, when it is queued.
  void attach(std::shared_ptr<QueueControl> queue) { queue_ = std::move(queue); }

  // Once the slot is connected: its registry connection. A retire() that came
  // in between (a clear() on another thread found the slot already) is
  // finished here, since it could not disconnect what was not yet attached.
  void attach(boost::signals2::connection connection) {
    connection_ = std::move(connection);
    State connecting = State::connecting;
    if (!state_.compare_exchange_strong(connecting, State::listed)) unlist();
  }

  // Disconnects, the first time only: no emit that reaches the handler
  // afterwards calls it, the listener count goes down, and the channel's
  // snapshot is rebuilt without it. A queue first delivers what it holds,
  // while the handler is still there. The bus's state lives as long as a
  // registration does (the bus retires every registration when it is
  // destroyed, which ends the channels' hold on them), so a handle that
  // outlives its bus, or is disconnected while the bus is being destroyed,
  // touches live memory.
  void retire() noexcept {
    if (state_.exchange(State::retired) == State::listed) unlist();
  }

  // Until retired. Read on every handler call, so relaxed: an emit that the
  // disconnect happened before sees it; one running at that moment on another
  // thread may still call the handler (docs/semantics.md, section 7).
  [[nodiscard]] bool listed() const noexcept { return state_.load(std::memory_order_relaxed) != State::retired; }

  // Listed, and its tracked owner (if any) still alive.
  [[nodiscard]] bool connected() const noexcept { return listed() && !(track_ && track_->expired()); }

  // HandlerOptions::track: the handler stops by itself once this owner is
  // gone. The emit locks it for the length of each call (bus/channel.hpp).
  const std::optional<std::weak_ptr<const void>>& track() const noexcept { return track_; }

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
  std::uint64_t sequence() const noexcept { return sequence_; }

  // What error listeners are told when this handler fails.
  HandlerFailure error(std::string label, std::string message) const {
    return HandlerFailure{std::string(event_), std::move(label), std::move(message), kind_, source_};
  }

  BusState& bus() const noexcept { return *bus_; }

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

  std::shared_ptr<BusState> bus_;
  ChannelBase* channel_;
  std::atomic<std::uint32_t>* listeners_;
  std::string_view event_;
  std::string label_;
  std::string source_;
  std::string protocol_;
  FailurePolicy failure_;
  HandlerKind kind_;
  std::optional<Layer> layer_;
  int rank_;
  std::uint64_t sequence_;
  std::optional<std::weak_ptr<const void>> track_;
  enum class State : std::uint8_t { connecting, listed, retired };

  void unlist() noexcept {
    if (queue_) queue_->close();
    connection_.disconnect();
    listeners_->fetch_sub(1, std::memory_order_relaxed);
    channel_->changed();
  }

  boost::signals2::connection connection_;
  std::shared_ptr<QueueControl> queue_;
  std::atomic<State> state_{State::connecting};
};

}  // namespace hookbus::detail
