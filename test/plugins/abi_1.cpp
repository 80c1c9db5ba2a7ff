// A plugin as plugin ABI 1 built it: a descriptor of three members, which
// has no room for a plugin of built-ins. The engine must read only its version.
#include <hookbus/plugin.hpp>

#include <cstdint>

namespace {
struct DescriptorVersion1 {
  std::uint32_t abi_version;
  const char* name;
  void (*provide)(hookbus::Registrar& registrar);
};

void provide(hookbus::Registrar&) {}
}  // namespace

extern "C" __attribute__((visibility("default"))) const DescriptorVersion1* hookbus_plugin() {
  static const DescriptorVersion1 descriptor{1, "old", &provide};
  return &descriptor;
}
