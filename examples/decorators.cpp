// Decorator-style registration, the C++ way:
//   1. a member Connection initialised at the definition site: the handler
//      lives exactly as long as the object that owns it;
//   2. HOOKBUS_STATIC_PROVIDER: registration next to the code, into a
//      process-wide list that a bus installs explicitly.

#include <hookbus/hooks.hpp>

#include <fmt/format.h>

using namespace hookbus;

// (2) Registered when the program starts, installed by install_static_providers().
HOOKBUS_STATIC_PROVIDER(count_turns) {
  registrar.on<TurnStartEvent>([](const TurnStartEvent& e) { fmt::print("static provider: turn {}\n", e.turn_index); },
                               {.label = "count_turns"});
}

// (1) The handler is declared with the state it uses, and goes with it.
class BudgetGuard {
 public:
  BudgetGuard(Hooks& hooks, int budget)
      : budget_(budget),
        on_call_(hooks.on<ToolCallEvent>(
            [this](const ToolCallEvent& e) -> std::optional<ToolCallResult> {
              if (++calls_ <= budget_) return std::nullopt;
              return ToolCallResult{.decision = Decision::deny,
                                    .reason = fmt::format("tool budget of {} calls used up ({})", budget_, e.tool_name)};
            },
            {.label = "budget-guard"})) {}

 private:
  int budget_;
  int calls_ = 0;
  Connection on_call_;  // last member: disconnected before the state it uses is destroyed
};

int main() {
  Hooks hooks;
  ConnectionGroup statics = hooks.install_static_providers();
  hooks.emit(TurnStartEvent{.turn_index = 1});
  {
    BudgetGuard guard(hooks, 1);
    for (int i = 0; i < 2; ++i) {
      auto outcome = hooks.emit(ToolCallEvent{.tool_name = "read"});
      const bool denied = outcome.decision == Decision::deny;
      fmt::print("call {}: {}\n", i + 1, denied ? "denied: " + outcome.reason : std::string("allowed"));
    }
  }
  auto outcome = hooks.emit(ToolCallEvent{.tool_name = "read"});
  const bool denied = outcome.decision == Decision::deny;
  fmt::print("after the guard is gone: {}\n", denied ? "denied" : "allowed");
  return denied ? 1 : 0;
}
