#include "bus/kept_alive.hpp"

#include <algorithm>
#include <vector>

namespace hookbus::detail {
namespace {
// The owners of the kept-alive handlers this thread is in, innermost last.
thread_local std::vector<const void*> running_owners;
}  // namespace

void KeptAliveCall::enter() noexcept {
  try {
    running_owners.push_back(owner_);
  } catch (...) {  // out of memory: the call goes on unmarked, as an in-process handler
    owner_ = nullptr;
  }
}

void KeptAliveCall::leave() noexcept { running_owners.pop_back(); }

std::size_t kept_alive_calls_on_this_thread(const void* owner) noexcept {
  return static_cast<std::size_t>(std::count(running_owners.begin(), running_owners.end(), owner));
}

}  // namespace hookbus::detail
