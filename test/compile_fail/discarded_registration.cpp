// Must not compile under a user's -Werror: a registration whose Connection is
// dropped at once (the handler would be gone at the end of the statement).
// With -DCOMPILES the Connection is kept and it must compile (the control).
#include <hookbus/hooks.hpp>

hookbus::Connection install_audit(hookbus::Hooks& hooks) {
#ifdef COMPILES
  return hooks.on<hookbus::ToolCallEvent>([](const hookbus::ToolCallEvent&) {});
#else
  hooks.on<hookbus::ToolCallEvent>([](const hookbus::ToolCallEvent&) {});
  return {};
#endif
}
