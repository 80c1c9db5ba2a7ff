// The emit stop token of each thread (include/hookbus/hooks.hpp): set for the
// length of an emit(…, std::stop_token), read by external hook runs.
#include <hookbus/hooks.hpp>

#include <utility>

namespace hookbus {
namespace {
thread_local std::stop_token current_stop;
}  // namespace

std::stop_token emit_stop_token() noexcept { return current_stop; }

namespace detail {
EmitStopScope::EmitStopScope(std::stop_token stop) noexcept : previous_(std::exchange(current_stop, std::move(stop))) {}
EmitStopScope::~EmitStopScope() { current_stop = std::move(previous_); }
}  // namespace detail

}  // namespace hookbus
