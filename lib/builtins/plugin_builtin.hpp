#pragma once
// Internal: the built-ins that are plugins of hookbus's own (stt, tts).

#include <hookbus/builtins.hpp>

#include <string>
#include <string_view>

namespace hookbus::detail {

// The built-in `name` of the plugin `<name>.so`, found in the first of
// builtin_plugin_directories() that has it. `not_built` names the packages
// this build of hookbus lacked for it ("" when it was built): making it is
// then a ConfigError saying to install them. `not_built` is kept as a view:
// pass a literal.
BuiltinFactory plugin_builtin(std::string name, std::string_view not_built);

}  // namespace hookbus::detail
