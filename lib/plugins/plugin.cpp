// Loading and unloading plugins (include/hookbus/plugin.hpp) with Boost.DLL.
#define BOOST_DLL_USE_STD_FS
#include <hookbus/plugin.hpp>

#include "bus/kept_alive.hpp"
#include "support/directory_tree.hpp"
#include "support/file_safety.hpp"
#include "support/logging.hpp"

#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <string_view>
#include <thread>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t max_name_length = 64;
// How long unload() waits for a running handler before it says so.
constexpr auto unload_patience = std::chrono::seconds(1);
constexpr std::string_view define_a_plugin = "define the plugin with HOOKBUS_PLUGIN(\"name\") { ... }";

bool valid_plugin_name(std::string_view name) {
  return !name.empty() && name.size() <= max_name_length && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

// The loader's own words from Boost.DLL's message ("... (dlerror system
// message: /x.so: undefined symbol: f): ..."), or the whole message.
std::string loader_message(std::string_view what) {
  constexpr std::string_view marker = "dlerror system message: ";
  const auto start = what.find(marker);
  if (start == std::string_view::npos) return std::string(what);
  const auto text = what.substr(start + marker.size());
  const auto end = text.rfind(')');
  return std::string(end == std::string_view::npos ? text : text.substr(0, end));
}

PluginError plugin_error(const fs::path& file, std::string_view what, std::string_view fix = {}) {
  return PluginError(fmt::format("plugin {}: {}{}{}", file.string(), what, fix.empty() ? "" : "; ", fix));
}

}  // namespace

LoadedPlugin& LoadedPlugin::operator=(LoadedPlugin&& other) noexcept {
  if (this != &other) {
    unload();
    name_ = std::move(other.name_);
    file_ = std::move(other.file_);
    library_ = std::move(other.library_);
    connections_ = std::move(other.connections_);
  }
  return *this;
}

LoadedPlugin::~LoadedPlugin() { unload(); }

void LoadedPlugin::unload() noexcept {
  connections_.disconnect();
  if (!library_) return;
  // Every stored handler holds the library too. Once disconnected, a handler
  // is destroyed as soon as no emit is inside it, so the count falls back to
  // ours when the last call on another thread returns. Calls on this thread
  // (a handler dropping its own plugin) cannot end while we wait here.
  const long own_calls = static_cast<long>(detail::kept_alive_calls_on_this_thread(library_.get()));
  if (own_calls == 0) {
    const auto since = std::chrono::steady_clock::now();
    bool said = false;
    while (library_.use_count() > 1) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      if (!said && std::chrono::steady_clock::now() - since >= unload_patience) {
        said = true;
        detail::log(spdlog::level::warn,
                    "plugin {} ({}): unloading has waited {} s for a handler of it still running on another "
                    "thread, and waits on; should that handler wait for this thread (for a lock this thread "
                    "holds), neither returns",
                    name_, file_.string(), unload_patience.count());
      }
    }
  }
  library_.reset();  // the last reference unloads the library
}

namespace {

// A plugin's library, loaded and checked up to its name.
struct OpenedPlugin {
  std::shared_ptr<const void> library;  // the last reference unloads it
  const PluginDescriptor* descriptor = nullptr;
  std::string name;
};

OpenedPlugin open_plugin(const fs::path& file) {
  if (const auto unsafe = detail::unsafe_path_reason(file)) throw plugin_error(file, *unsafe);
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw plugin_error(file, ec ? ec.message() : "is not a regular file", "a plugin is a shared library (.so)");

  auto library = std::make_shared<boost::dll::shared_library>();
  try {
    // Symbols resolved now, so a missing one is this error and not a crash at the first call.
    library->load(fs::absolute(file), boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& error) {
    throw plugin_error(file, "cannot be loaded: " + loader_message(error.what()),
                       "build it with hookbus_add_plugin() against this hookbus, and load it from an engine "
                       "built with hookbus_enable_plugins()");
  }
  if (!library->has(plugin_entry_point))
    throw plugin_error(file, fmt::format("has no '{}' entry point", plugin_entry_point),
                       define_a_plugin);
  const PluginDescriptor* descriptor = library->get<const PluginDescriptor*()>(plugin_entry_point)();
  if (descriptor == nullptr) throw plugin_error(file, fmt::format("'{}' returned nothing", plugin_entry_point),
                       define_a_plugin);
  // Only the version is read before it matches: the rest of another ABI's descriptor may differ.
  if (descriptor->abi_version != plugin_abi_version)
    throw plugin_error(file,
                       fmt::format("was built for plugin ABI {}, this engine has plugin ABI {}",
                                   descriptor->abi_version, plugin_abi_version),
                       "rebuild the plugin against this engine's hookbus");
  if (descriptor->layout != plugin_layout_fingerprint)
    throw plugin_error(file,
                       fmt::format("was built with hookbus types laid out otherwise than this engine's (layout "
                                   "fingerprint {:#018x}, this engine has {:#018x}): other hookbus headers, "
                                   "compiler, standard library or flags",
                                   descriptor->layout, plugin_layout_fingerprint),
                       "rebuild the plugin against this engine's hookbus, with the engine's compiler and flags");
  const std::string_view name = descriptor->name == nullptr ? std::string_view() : descriptor->name;
  if (!valid_plugin_name(name))
    throw plugin_error(file, fmt::format("has an invalid name '{}'", name.substr(0, max_name_length)),
                       "use 1 to 64 letters, digits, '.', '_' or '-'");
  const boost::dll::shared_library* raw = library.get();
  return OpenedPlugin{std::shared_ptr<const void>(std::move(library), raw), descriptor, std::string(name)};
}

// A factory of a plugin's built-in, and the providers it makes: each holds the
// library, declared first so that the plugin's own objects (declared after it)
// are destroyed while the library is still loaded.
//
// What they throw is made again here: an exception the plugin made has its
// code in the plugin, which may be unloaded while the exception travels
// (when the last factory or provider holding it is destroyed on the way).
struct PluginBuiltinProvider {
  std::shared_ptr<const void> library;
  std::string file;
  std::string name;
  BuiltinProvider provider;

  void operator()(Registrar& registrar) const {
    // The caller's scope (the layer of the config that enabled it), with this library as source and keep-alive.
    RegistrarScope scope = registrar.scope();
    scope.source = file;
    scope.keep_alive = library;
    try {
      registrar.add(registrar.hooks().add(provider, std::move(scope)));
    } catch (const std::exception& error) {
      throw plugin_error(file, fmt::format("built-in {} failed while registering its handlers: {}", name, error.what()));
    }
  }
};

struct PluginBuiltinFactory {
  std::shared_ptr<const void> library;
  std::string file;
  std::shared_ptr<const BuiltinRegistry> offered;
  std::string name;

  BuiltinProvider operator()(const ConfigObject& settings) const {
    try {
      return PluginBuiltinProvider{library, file, name, offered->make(name, settings)};
    } catch (const ConfigError& error) {
      throw ConfigError(error);
    } catch (const std::exception& error) {
      throw plugin_error(file, fmt::format("built-in {} failed while checking its settings: {}", name, error.what()));
    }
  }
};

}  // namespace

LoadedPlugin load_plugin(Hooks& hooks, const fs::path& file, std::optional<Layer> layer,
                         const std::function<std::optional<std::string>(std::string_view name)>& refuse_name) {
  OpenedPlugin opened = open_plugin(file);
  if (opened.descriptor->provide == nullptr)
    throw plugin_error(file, "has no handlers to install: it is a plugin of built-ins (HOOKBUS_BUILTIN_PLUGIN)",
                       "add its built-ins to a registry with load_builtin_plugin() and enable them in config");
  if (refuse_name)
    if (const auto reason = refuse_name(opened.name)) throw plugin_error(file, *reason);

  LoadedPlugin plugin;
  plugin.name_ = std::move(opened.name);
  plugin.file_ = file;
  plugin.library_ = std::move(opened.library);  // from now on, the plugin's
  // Whatever the provider registered before failing is disconnected before
  // `plugin` lets go of the library.
  try {
    plugin.connections_ = hooks.add(opened.descriptor->provide, RegistrarScope{.label_prefix = plugin.name_ + "/",
                                                                               .kind = HandlerKind::plugin,
                                                                               .source = file.string(),
                                                                               .keep_alive = plugin.library_,
                                                                               .layer = layer});
  } catch (const std::exception& error) {
    throw plugin_error(file, fmt::format("failed while registering its handlers: {}", error.what()));
  } catch (...) {
    throw plugin_error(file, "failed while registering its handlers: an exception not derived from std::exception");
  }
  return plugin;
}

std::vector<std::string> load_builtin_plugin(BuiltinRegistry& registry, const fs::path& file) {
  OpenedPlugin opened = open_plugin(file);
  if (opened.descriptor->offer_builtins == nullptr)
    throw plugin_error(file, "offers no built-ins: it is a plugin of handlers (HOOKBUS_PLUGIN)",
                       "put it in a plugin directory, or load it with load_plugin()");
  // Declared after `opened`, so should the offer fail, the plugin's factories go before its library.
  auto offered = std::make_shared<BuiltinRegistry>();
  try {
    opened.descriptor->offer_builtins(*offered);
  } catch (const std::exception& error) {
    throw plugin_error(file, fmt::format("failed while offering its built-ins: {}", error.what()));
  } catch (...) {
    throw plugin_error(file, "failed while offering its built-ins: an exception not derived from std::exception");
  }
  std::vector<std::string> names = offered->names();
  for (const auto& name : names)
    registry.add(name, PluginBuiltinFactory{opened.library, file.string(), offered, name});
  return names;
}

std::vector<fs::path> plugin_files(const fs::path& directory) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : detail::directory_entries(directory, ec))  // as the trust fingerprint lists it
    if (entry.path.extension() == ".so" && (entry.kind == detail::EntryKind::file || entry.symlink))
      files.push_back(entry.path);
  return files;
}

}  // namespace hookbus
