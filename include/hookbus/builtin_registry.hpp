#pragma once
// The registry of built-ins by name: what built-ins fill (default_builtins(),
// builtins.hpp) and plugins offer to (HOOKBUS_BUILTIN_PLUGIN, plugin.hpp),
// and what config's "builtins" are made from (install_builtins.hpp). A
// header of its own so that plugins need none of the built-ins themselves.

#include <hookbus/config.hpp>
#include <hookbus/connection.hpp>
#include <hookbus/hooks.hpp>

#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus {

// What a built-in registers, once per install.
using BuiltinProvider = std::function<void(Registrar&)>;

// Checks the settings (ConfigError naming the path) and builds everything the
// built-in needs (compiled patterns, open files) before returning, so that
// installing the provider it returns cannot fail on bad configuration.
using BuiltinFactory = std::function<BuiltinProvider(const ConfigObject& settings)>;

// Built-in providers by name. A plain value: copy it and add to the copy to
// make a registry of your own; not synchronised, like a standard container.
class BuiltinRegistry {
 public:
  // Registering a name again replaces the earlier factory.
  void add(std::string name, BuiltinFactory factory);
  [[nodiscard]] bool contains(std::string_view name) const;
  [[nodiscard]] std::vector<std::string> names() const;  // sorted

  // Throws ConfigError for an unknown name, listing the available ones, or for
  // bad settings. `settings.location()` names the built-in in error messages.
  [[nodiscard]] BuiltinProvider make(std::string_view name, const ConfigObject& settings) const;

  // make, then register. Errors name the built-in: "tool_policy.deny[0]: …".
  ConnectionGroup install(Hooks& hooks, std::string_view name, const boost::json::object& settings) const;

 private:
  std::map<std::string, BuiltinFactory, std::less<>> factories_;
};

}  // namespace hookbus
