// A plugin built for another plugin ABI: its entry point written by hand.
#include <hookbus/plugin.hpp>

namespace {
void provide(hookbus::Registrar&) {}
}  // namespace

extern "C" __attribute__((visibility("default"))) const hookbus::PluginDescriptor* hookbus_plugin() {
  static const hookbus::PluginDescriptor descriptor{hookbus::plugin_abi_version + 1, hookbus::plugin_layout_fingerprint,
                                                    "future", &provide};
  return &descriptor;
}
