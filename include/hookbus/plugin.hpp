#pragma once
// Plugins: in-process hooks in a shared library, loaded at run time from a
// layer's plugin directory (`.hookbus/plugins/*.so`, and the user's and the
// administrator's equivalents) by hookbus::setup(), or by load_plugin().
//
// A plugin is one `HOOKBUS_PLUGIN("name") { registrar.on<...>(...); }` built
// with `hookbus_add_plugin(name source.cpp)` after `find_package(hookbus)`;
// docs/plugins.md walks through a whole one (compiled by the doc tests). Its
// handlers are labelled "name/LABEL", their kind is HandlerKind::plugin and
// their source the library's path.
//
// A plugin runs in the engine's process with the engine's rights, so it is
// treated as the code it is: a project's plugins load only once the user
// trusted the project, a plugin file or directory that others could write is
// refused, and managed config can forbid them (docs/security.md).
//
// The engine's executable must export hookbus's symbols to its plugins, which
// link against hookbus's headers only: `hookbus_enable_plugins(engine)` in
// CMake. A plugin built against another plugin ABI, or against headers whose
// shared types have another layout, is refused, never called.
//
// A plugin can offer built-ins instead of handlers (HOOKBUS_BUILTIN_PLUGIN):
// factories that configuration enables by name, with settings, like
// `tool_policy` (builtins.hpp), added to a BuiltinRegistry
// (builtin_registry.hpp). hookbus's own `stt` and `tts` are such plugins
// (docs/voice.md); load_builtin_plugin() adds them to a BuiltinRegistry.

#include <hookbus/builtin_registry.hpp>
#include <hookbus/connection.hpp>
#include <hookbus/errors.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/layers.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

namespace hookbus {

// The plugin ABI: raised whenever a type a plugin shares with the engine
// changes its layout or meaning (events, results, Registrar, HandlerOptions,
// BuiltinRegistry, config values, this descriptor). A plugin records the
// version it was compiled with; the engine loads only its own.
//   1: abi_version, name, provide
//   2: + offer_builtins (plugins of configurable built-ins)
//   3: turn_end has a result (TurnEndResult: swap_context)
//   4: HandlerOptions gained `protocol` and `queued`, events, results and
//      config values changed; + layout (plugin_layout_fingerprint)
//   5: ConfigLocation gained `layer` (a project's files for hookbus to write
//      stay inside the project)
//   6: EventContext gained `agent_type`, Decision and HandlerAction `defer`
//   7: SessionStartResult gained `environment` (EnvironmentVariable)
//   8: EventContext gained `turn_id` and `model`
//   9: AgentEndEvent gained `status` (RunStatus, SubagentStatus's new name)
//  10: before_model_call and after_model_call have results
//      (BeforeModelCallResult, AfterModelCallResult); BeforeModelCallEvent
//      gained system_prompt, tools and settings, AfterModelCallEvent answered_by
// A layout change the version missed is still caught at load, by the
// fingerprint; the test PluginAbi.TheFingerprintIsPinnedForThisAbiVersion
// fails on any layout change, to have the version raised with it.
inline constexpr std::uint32_t plugin_abi_version = 10;

namespace detail {

// FNV-1a over the size and alignment of each type.
template <class... Types>
constexpr std::uint64_t layout_hash(std::uint64_t hash) {
  constexpr std::uint64_t prime = 1099511628211ULL;
  ((hash = (hash ^ sizeof(Types)) * prime, hash = (hash ^ alignof(Types)) * prime), ...);
  return hash;
}

template <class List>
struct list_layout_hash;
template <template <class...> class List, class... Types>
struct list_layout_hash<List<Types...>> {
  static constexpr std::uint64_t of(std::uint64_t hash) { return layout_hash<Types...>(hash); }
};

}  // namespace detail

// The size and alignment of every type a plugin and the engine share, as this
// header's compiler sees them: every event, every result, the value types,
// and what registration, built-ins and config hand across. A plugin built
// against headers (or with a compiler, standard library or flags) that lay
// them out otherwise has another fingerprint, and is refused at load.
inline constexpr std::uint64_t plugin_layout_fingerprint =
    detail::list_layout_hash<detail::value_types_of<HookEvent>>::of(detail::list_layout_hash<HookOutcome>::of(
        detail::list_layout_hash<HookEvent>::of(
            detail::layout_hash<HandlerOptions, RegistrarScope, Registrar, ConnectionGroup, BuiltinRegistry,
                                BuiltinProvider, ConfigObject, ConfigValue, ConfigLocation, HandlerFailure>(
                14695981039346656037ULL))));

// What a plugin's entry point returns: a C struct whose first member, the ABI
// version, is readable whatever the plugin was built with, so it is checked
// before anything else is used. One of the two functions is set.
struct PluginDescriptor {
  std::uint32_t abi_version{};
  std::uint64_t layout{};                               // plugin_layout_fingerprint as the plugin was compiled
  const char* name{};                                   // letters, digits, '.', '_', '-'; 1 to 64 of them
  void (*provide)(Registrar& registrar){};              // HOOKBUS_PLUGIN: handlers, installed on load
  void (*offer_builtins)(BuiltinRegistry& builtins){};  // HOOKBUS_BUILTIN_PLUGIN: built-ins config enables
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
//
// The wait has no end but the handler's: after a second it logs a warning
// naming the plugin, once, and goes on waiting. So never drop a plugin while
// holding a lock that one of its running handlers may wait for: that handler
// never returns, and neither does unload(). (Workspaces::activate holds none
// while it unloads the previous workspace.)
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
  friend LoadedPlugin load_plugin(Hooks& hooks, const std::filesystem::path& file, std::optional<Layer> layer,
                                  const std::function<std::optional<std::string>(std::string_view name)>& refuse_name);
  std::string name_;
  std::filesystem::path file_;
  std::shared_ptr<const void> library_;  // the loaded library; each handler holds it too
  ConnectionGroup connections_;
};

// Loads the library at `file` and installs its handlers. Throws PluginError
// naming the file for: a file that others could write (as for hook files), a
// library that fails to load (with the loader's message: a missing symbol, a
// wrong architecture), no `hookbus_plugin` entry point, another ABI version or
// layout fingerprint, an invalid name, a name `refuse_name` refuses (with its
// reason), a plugin of built-ins (it has no handlers), or a provider that
// throws (nothing it registered stays).
// `layer`: the layer the plugin comes from, which every handler it registers
// gets (HandlerOptions::layer); unset for a plugin the engine itself chose.
// `refuse_name`: asked with the plugin's name before anything of it is
// installed; a reason refuses it (setup() refuses a name already loaded).
[[nodiscard]] LoadedPlugin load_plugin(
    Hooks& hooks, const std::filesystem::path& file, std::optional<Layer> layer = std::nullopt,
    const std::function<std::optional<std::string>(std::string_view name)>& refuse_name = {});

// Loads the plugin of built-ins at `file` (HOOKBUS_BUILTIN_PLUGIN) and adds
// the built-ins it offers to `registry`, replacing any of the same name;
// returns their names. The library stays loaded while the registry's
// factories, the providers they make or the handlers those install live, and
// their handlers have the library's path as their source. Throws PluginError
// as load_plugin does, for a plugin that offers no built-ins, or one whose
// offer throws (the registry is then unchanged).
std::vector<std::string> load_builtin_plugin(BuiltinRegistry& registry, const std::filesystem::path& file);

// The plugin files of a directory: its regular files and symlinks named
// `*.so`, sorted by name. A missing directory has none.
std::vector<std::filesystem::path> plugin_files(const std::filesystem::path& directory);

}  // namespace hookbus

// Defines the plugin's entry point and the provider that registers its
// handlers through `registrar` (a hookbus::Registrar). Once per plugin, and
// not with HOOKBUS_BUILTIN_PLUGIN.
#define HOOKBUS_PLUGIN(plugin_name)                                                                        \
  static void hookbus_plugin_provide(::hookbus::Registrar& registrar);                                     \
  extern "C" __attribute__((visibility("default"))) const ::hookbus::PluginDescriptor* hookbus_plugin() { \
    static const ::hookbus::PluginDescriptor descriptor{::hookbus::plugin_abi_version,                     \
                                                        ::hookbus::plugin_layout_fingerprint, plugin_name, \
                                                        &hookbus_plugin_provide, nullptr};                 \
    return &descriptor;                                                                                   \
  }                                                                                                        \
  static void hookbus_plugin_provide([[maybe_unused]] ::hookbus::Registrar& registrar)

// Defines the entry point of a plugin of built-ins, and the function that adds
// them to `builtins` (a hookbus::BuiltinRegistry). Once per plugin.
#define HOOKBUS_BUILTIN_PLUGIN(plugin_name)                                                                \
  static void hookbus_plugin_offer_builtins(::hookbus::BuiltinRegistry& builtins);                         \
  extern "C" __attribute__((visibility("default"))) const ::hookbus::PluginDescriptor* hookbus_plugin() { \
    static const ::hookbus::PluginDescriptor descriptor{::hookbus::plugin_abi_version,                     \
                                                        ::hookbus::plugin_layout_fingerprint, plugin_name, \
                                                        nullptr, &hookbus_plugin_offer_builtins};          \
    return &descriptor;                                                                                   \
  }                                                                                                        \
  static void hookbus_plugin_offer_builtins([[maybe_unused]] ::hookbus::BuiltinRegistry& builtins)
