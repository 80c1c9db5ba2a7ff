// A library whose entry point has the plugin's name but returns no descriptor.
#include <hookbus/plugin.hpp>

extern "C" __attribute__((visibility("default"))) const hookbus::PluginDescriptor* hookbus_plugin() { return nullptr; }
