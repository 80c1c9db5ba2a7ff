#pragma once
// Internal: a persistent hook (`"mode": "persistent"` in config): processes
// started with `HOOK serve` that stay up and answer one JSON line per event.
// docs/external-hooks.md ("Persistent hooks") is the contract for hook
// authors; this is how the library keeps it.
//
// Requests from any number of threads get an instance in arrival order: the
// first caller waiting gets the next instance that is free (one that runs,
// else one that may start now); each instance serves one request at a time.
// An instance that crashes, exits, times out, is cancelled or answers out of
// step (no or another id, not a JSON object) is killed whole and replaced on
// a later request; too many such ends in a row slow the restarts down, and
// too many within a window refuse the hook for good.

#include <hookbus/external.hpp>

#include "external/hook_run.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <memory>
#include <stop_token>
#include <string_view>

namespace hookbus::detail {

struct PersistentOptions {
  int instances = 1;   // processes serving the hook
  bool eager = false;  // start them all now, rather than each when a request first needs it
  Duration shutdown_grace = std::chrono::milliseconds(200);  // CoProcessSpec::shutdown_grace
  // After an instance ends unexpectedly, the next start is immediate; after
  // each further end in a row (no answer in between) it waits twice as long,
  // from first_backoff up to max_backoff. A request that finds no instance
  // running or free to start, and none busy, fails at once.
  Duration first_backoff = std::chrono::milliseconds(100);
  Duration max_backoff = std::chrono::seconds(5);
  // This many unexpected ends within crash_window refuse the hook: a warning,
  // its instances are shut down, and every later request fails.
  int crash_limit = 5;
  Duration crash_window = std::chrono::seconds(60);
};

class PersistentHook {
 public:
  // An eager hook's instances start here; one that cannot counts as an
  // unexpected end (logged), so the hook still installs.
  PersistentHook(ExternalHook hook, PersistentOptions options);
  // Shuts every instance down as a CoProcess does: stdin closed, a grace
  // period, SIGTERM, SIGKILL; everything reaped.
  ~PersistentHook();
  PersistentHook(const PersistentHook&) = delete;
  PersistentHook& operator=(const PersistentHook&) = delete;

  // One event: waits its turn for an instance (at most the hook's timeout),
  // sends the request and reads the answer (at most the hook's timeout
  // again). Returns the event's result; throws ExternalHookError for every
  // failure, which the bus hands to the hook's failure policy. `stop` cancels
  // the wait or the request (the instance is killed). Instantiated for every event.
  template <class E>
  HookAnswer<E> call(const E& event, std::string_view requested_name, std::stop_token stop);

 private:
  struct State;
  // The request of `payload` and its answer, "id" and "error" taken out.
  boost::json::value request(std::string_view requested_name, boost::json::object payload, std::stop_token stop);

  std::unique_ptr<State> state_;
};

}  // namespace hookbus::detail
