#pragma once
// Internal: which HandlerOptions::keep_alive owners have a handler running on
// the current thread. Unloading a plugin waits until none of its handlers runs
// anywhere, except those running on the unloading thread itself (a handler
// that drops its own plugin), which it cannot wait for without deadlocking.

#include <cstddef>

namespace hookbus::detail {

// Marks a call into a handler kept alive by `owner` (nothing when null: the
// engine's own handlers, checked inline on every call).
class KeptAliveCall {
 public:
  explicit KeptAliveCall(const void* owner) noexcept : owner_(owner) {
    if (owner_ != nullptr) enter();
  }
  ~KeptAliveCall() {
    if (owner_ != nullptr) leave();
  }
  KeptAliveCall(const KeptAliveCall&) = delete;
  KeptAliveCall& operator=(const KeptAliveCall&) = delete;

 private:
  void enter() noexcept;
  void leave() noexcept;

  const void* owner_;
};

// How many calls into handlers kept alive by `owner` the current thread is in.
std::size_t kept_alive_calls_on_this_thread(const void* owner) noexcept;

}  // namespace hookbus::detail
