// A plugin whose name could forge a label.
#include <hookbus/plugin.hpp>

HOOKBUS_PLUGIN("guard/evil name") {}
