// Applying turn_end's context swap (include/hookbus/context_swap.hpp).
#include <hookbus/context_swap.hpp>

#include "support/logging.hpp"

#include <exception>

namespace hookbus {

ContextSwapOutcome apply_context_swap(const TurnEndResult& result, ContextSwapper* engine) {
  if (!result.swap_context || result.swap_context->empty()) return {};
  ContextSwapOutcome outcome;
  if (engine == nullptr) {
    outcome.error = "swap_context: the engine does not support context swapping";
  } else {
    try {
      engine->swap_context(*result.swap_context);
      outcome.swapped = true;
    } catch (const std::exception& error) {
      outcome.error = std::string("swap_context: swapping the context failed: ") + error.what();
    } catch (...) {
      outcome.error = "swap_context: swapping the context failed: an exception not derived from std::exception";
    }
  }
  if (!outcome.error.empty()) detail::log(spdlog::level::err, "{}", outcome.error);
  return outcome;
}

}  // namespace hookbus
