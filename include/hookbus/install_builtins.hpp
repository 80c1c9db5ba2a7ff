#pragma once
// install_builtins: a config's built-ins and its tracer, installed on a bus
// (implemented with the built-ins, lib/builtins/). builtins.hpp includes this;
// so does config.hpp, where 0.2 declared it, so that code calling it there
// still compiles. The types are only named here: what includes this
// does not depend on the bus or the built-ins.

namespace hookbus {

class BuiltinRegistry;  // builtins.hpp
class ConnectionGroup;  // connection.hpp
class Hooks;            // hooks.hpp
struct Config;          // config.hpp

// Installs the configured built-ins from the default registry, or from
// `registry`, in order, and the tracer when the config has "trace"
// (Config::trace). Every built-in is built (settings checked, patterns
// compiled, files opened) before any is installed, so on ConfigError nothing
// is installed. Each is ranked as the config's layer. Dropping the group
// uninstalls them.
ConnectionGroup install_builtins(Hooks& hooks, const Config& config);
ConnectionGroup install_builtins(Hooks& hooks, const Config& config, const BuiltinRegistry& registry);

}  // namespace hookbus
