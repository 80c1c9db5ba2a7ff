// Must not compile under a user's -Werror: the result of a gating emit left
// unread (the engine would run a call the hooks denied). With -DCOMPILES the
// engine reads it and it must compile (the control).
#include <hookbus/hooks.hpp>

bool may_run(hookbus::Hooks& hooks, const hookbus::ToolCallEvent& call) {
#ifdef COMPILES
  const hookbus::ToolCallResult outcome = hooks.emit(call);
  return outcome.decision != hookbus::Decision::deny;
#else
  hooks.emit(call);
  return true;
#endif
}
