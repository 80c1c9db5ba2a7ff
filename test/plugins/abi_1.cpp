// A plugin as plugin ABI 1 built it: a descriptor of three members, which
// has no room for a plugin of built-ins. The engine must read only its version.
// It declares the types as ABI 1's header did, not today's header, so the
// entry point has the type the engine calls it through (UBSan's function
// check compares the two) while the descriptor has the old layout.
#include <cstdint>

namespace hookbus {
class Registrar;
struct PluginDescriptor {
  std::uint32_t abi_version;
  const char* name;
  void (*provide)(Registrar& registrar);
};
}  // namespace hookbus

namespace {
void provide(hookbus::Registrar&) {}
}  // namespace

extern "C" __attribute__((visibility("default"))) const hookbus::PluginDescriptor* hookbus_plugin() {
  static const hookbus::PluginDescriptor descriptor{1, "old", &provide};
  return &descriptor;
}
