#pragma once
// How the bus treats a handler, in the words configuration uses too: what a
// handler's failure turns into, and how a queued one is delivered. The bus
// (hooks.hpp, HandlerOptions) and configuration (config.hpp, the tracer's
// settings) both name them, so they live apart from the bus. Each enum is
// described (Boost.Describe): its wire names are its enumerators'
// (enum_names.hpp), as config files write them.

#include <boost/describe/enum.hpp>

#include <cstddef>

namespace hookbus {

// What a throwing handler turns into.
enum class FailurePolicy {
  fail_open,    // logged, reported, skipped: the chain continues from the last good value
  fail_closed,  // for gating events (deny, cancel, reject), also a refusal naming the handler
};
BOOST_DESCRIBE_ENUM(FailurePolicy, fail_open, fail_closed)

// What a queued registration does when its queue is full.
enum class Overflow {
  drop_newest,  // the new item is dropped (and counted)
  drop_oldest,  // the oldest queued item is dropped (and counted) to make room
  block,        // the emit waits for room (never on the delivering thread itself: it drops the newest there)
};
BOOST_DESCRIBE_ENUM(Overflow, drop_newest, drop_oldest, block)

// Queued delivery (docs/semantics.md, "Queued delivery"): a catch-all
// subscriber or emission observer registered with it is called on a thread of
// its own, in emit order, through a bounded queue.
struct DeliveryQueue {
  std::size_t capacity = 4096;  // items queued at most; at least 1
  Overflow overflow = Overflow::block;

  bool operator==(const DeliveryQueue&) const = default;
};

}  // namespace hookbus
