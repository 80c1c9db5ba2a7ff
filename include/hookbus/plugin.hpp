#pragma once
// Plugins: in-process hooks in a shared library, loaded at run time from a
// layer's plugin directory (`.hookbus/plugins/*.so`, and the user's and the
// administrator's equivalents) by hookbus::setup(), or by load_plugin().
//
// Writing one (docs/plugins.md has the whole walk-through):
//
//   #include <hookbus/plugin.hpp>
//
//   HOOKBUS_PLUGIN("no-force-push") {
//     registrar.on<hookbus::ToolCallEvent>([](const hookbus::ToolCallEvent& call) {
//       hookbus::ToolCallResult result;
//       if (call.tool_name == "bash" && call.input.contains("force")) result.decision = hookbus::Decision::deny;
//       return result;
//     }, {.label = "guard"});
//   }
//
// and building it with `hookbus_add_plugin(no-force-push no_force_push.cpp)`
// after `find_package(hookbus)`. The handler above is labelled
// "no-force-push/guard"; its kind is HandlerKind::plugin and its source the
// library's path.
//
// A plugin runs in the engine's process with the engine's rights, so it is
// treated as the code it is: a project's plugins load only once the user
// trusted the project, a plugin file or directory that others could write is
// refused, and managed config can forbid them (docs/security.md).
//
// The engine's executable must export hookbus's symbols to its plugins, which
// link against hookbus's headers only: `hookbus_enable_plugins(engine)` in
// CMake. A plugin built against another plugin ABI is refused, never called.

#include <hookbus/connection.hpp>
#include <hookbus/errors.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/layers.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hookbus {

// The plugin ABI: bumped whenever a type a plugin shares with the engine
// changes its layout or meaning (events, results, Registrar, HandlerOptions).
// A plugin records the version it was compiled with; the engine loads only its own.
inline constexpr std::uint32_t plugin_abi_version = 1;

// What a plugin's entry point returns: a C struct, readable whatever the plugin
// was built with, so the ABI version is checked before anything else is used.
struct PluginDescriptor {
  std::uint32_t abi_version{};
  const char* name{};                  // letters, digits, '.', '_', '-'; 1 to 64 of them
  void (*provide)(Registrar& registrar){};
};

// The entry point every plugin exports (HOOKBUS_PLUGIN defines it).
inline constexpr const char* plugin_entry_point = "hookbus_plugin";

class PluginError : public Error {
 public:
  using Error::Error;
};

// A plugin's handlers, installed, and its library, loaded. Dropping it (or
// unload()) disconnects the handlers, waits until none of them is running on
// another thread, and then unloads the library. A handler that drops its own
// plugin cannot be waited for: the library is then unloaded as soon as that
// handler has returned and nothing else of the plugin runs.
class LoadedPlugin {
 public:
  LoadedPlugin() = default;
  LoadedPlugin(LoadedPlugin&&) noexcept = default;
  LoadedPlugin& operator=(LoadedPlugin&& other) noexcept;
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;
  ~LoadedPlugin();

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }
  [[nodiscard]] bool loaded() const noexcept { return library_ != nullptr; }
  void unload() noexcept;

 private:
  friend LoadedPlugin load_plugin(Hooks& hooks, const std::filesystem::path& file, std::optional<Layer> layer);
  std::string name_;
  std::filesystem::path file_;
  std::shared_ptr<const void> library_;  // the loaded library; each handler holds it too
  ConnectionGroup connections_;
};

// Loads the library at `file` and installs its handlers. Throws PluginError
// naming the file for: a file that others could write (as for hook files), a
// library that fails to load (with the loader's message: a missing symbol, a
// wrong architecture), no `hookbus_plugin` entry point, another ABI version, an
// invalid name, or a provider that throws (nothing it registered stays).
// `layer`: the layer the plugin comes from, which every handler it registers
// gets (HandlerOptions::layer); unset for a plugin the engine itself chose.
[[nodiscard]] LoadedPlugin load_plugin(Hooks& hooks, const std::filesystem::path& file,
                                       std::optional<Layer> layer = std::nullopt);

// The plugin files of a directory: its regular files and symlinks named
// `*.so`, sorted by name. A missing directory has none.
std::vector<std::filesystem::path> plugin_files(const std::filesystem::path& directory);

}  // namespace hookbus

// Defines the plugin's entry point and the provider that registers its
// handlers through `registrar` (a hookbus::Registrar). Once per plugin.
#define HOOKBUS_PLUGIN(plugin_name)                                                                        \
  static void hookbus_plugin_provide(::hookbus::Registrar& registrar);                                     \
  extern "C" __attribute__((visibility("default"))) const ::hookbus::PluginDescriptor* hookbus_plugin() { \
    static const ::hookbus::PluginDescriptor descriptor{::hookbus::plugin_abi_version, plugin_name,         \
                                                        &hookbus_plugin_provide};                          \
    return &descriptor;                                                                                   \
  }                                                                                                        \
  static void hookbus_plugin_provide([[maybe_unused]] ::hookbus::Registrar& registrar)
