#pragma once
// Swapping the context (kodelet's swap_context): a turn_end handler, such as
// the `swap_context` built-in (builtins.hpp), asks the engine to replace the
// whole conversation with a summary (TurnEndResult::swap_context), and the
// engine applies that with apply_context_swap after emitting turn_end:
//
//   class Conversation : public hookbus::ContextSwapper {
//     void swap_context(const std::string& summary) override { messages_ = {user_message(summary)}; }
//   };
//   ...
//   const hookbus::TurnEndResult ended = hooks.emit(turn_end);
//   hookbus::apply_context_swap(ended, &conversation);  // or nullptr: this engine cannot swap
//
// As in kodelet, a swap that cannot happen is an error that is logged and
// reported, never thrown: the agent goes on with its conversation as it was.

#include <hookbus/results.hpp>

#include <string>

namespace hookbus {

// What an engine that can swap its context implements.
class ContextSwapper {
 public:
  virtual ~ContextSwapper() = default;
  // Replaces the conversation's messages with `summary`. Throws if it cannot.
  virtual void swap_context(const std::string& summary) = 0;
};

struct ContextSwapOutcome {
  bool swapped = false;
  std::string error{};  // why a swap that was asked for did not happen; empty otherwise
  bool operator==(const ContextSwapOutcome&) const = default;
};

// Applies `result.swap_context` to `engine`. Nothing asked (unset or empty):
// nothing done. Asked, with no engine that can swap (nullptr), or an engine
// whose swap throws: not swapped, the error logged through the `hookbus`
// logger and returned.
ContextSwapOutcome apply_context_swap(const TurnEndResult& result, ContextSwapper* engine);

}  // namespace hookbus
