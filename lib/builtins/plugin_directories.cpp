// Where hookbus's own plugins of built-ins are (builtins.hpp,
// builtin_plugin_directories()): found from where hookbus itself was loaded
// from, so an installed prefix can be moved, or installed anywhere with
// `cmake --install --prefix`.
#include <hookbus/builtins.hpp>

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <system_error>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

// The file of the loaded object (the executable or a shared libhookbus) that
// holds this code: what dl_iterate_phdr says holds `anchor`'s address; the
// executable has no name there, /proc/self/exe has its path.
const char anchor = 0;

struct ObjectHoldingHookbus {
  fs::path file;
  bool executable = false;
};

std::optional<ObjectHoldingHookbus> object_holding_hookbus() {
  struct Search {
    std::uintptr_t address;
    std::optional<ObjectHoldingHookbus> found;
  } search{reinterpret_cast<std::uintptr_t>(&anchor), std::nullopt};
  ::dl_iterate_phdr(
      [](dl_phdr_info* object, std::size_t, void* data) {
        auto& search = *static_cast<Search*>(data);
        for (ElfW(Half) i = 0; i < object->dlpi_phnum; ++i) {
          const ElfW(Phdr)& segment = object->dlpi_phdr[i];
          const std::uintptr_t start = object->dlpi_addr + segment.p_vaddr;
          if (segment.p_type == PT_LOAD && search.address >= start && search.address < start + segment.p_memsz) {
            const bool executable = object->dlpi_name == nullptr || *object->dlpi_name == '\0';
            search.found = ObjectHoldingHookbus{executable ? fs::path("/proc/self/exe") : fs::path(object->dlpi_name),
                                                executable};
            return 1;
          }
        }
        return 0;
      },
      &search);
  if (!search.found) return std::nullopt;
  std::error_code ec;
  search.found->file = fs::weakly_canonical(search.found->file, ec);  // the real file, links resolved
  if (ec) return std::nullopt;
  return search.found;
}

}  // namespace

std::vector<BuiltinPluginDirectory> builtin_plugin_directories() {
  const char* overridden = std::getenv("HOOKBUS_BUILTIN_PLUGIN_DIR");
  if (overridden != nullptr && *overridden != '\0')
    return {{fs::path(overridden), "$HOOKBUS_BUILTIN_PLUGIN_DIR"}};

  std::vector<BuiltinPluginDirectory> directories;
  if (const auto holder = object_holding_hookbus()) {
    const fs::path directory = holder->file.parent_path();
    if (holder->executable)  // <prefix>/bin/engine: <prefix>/<libdir>/hookbus/plugins
      directories.push_back({(directory.parent_path() / HOOKBUS_INSTALL_LIBDIR / "hookbus" / "plugins").lexically_normal(),
                             "the prefix of the executable holding hookbus, " + holder->file.string()});
    else  // <prefix>/<libdir>/libhookbus.so: <prefix>/<libdir>/hookbus/plugins
      directories.push_back({directory / "hookbus" / "plugins", "next to libhookbus, " + holder->file.string()});
  }
  // hookbus_enable_plugins() puts this in an engine built against an installed package.
  if (const void* recorded = ::dlsym(RTLD_DEFAULT, "hookbus_package_plugin_directory"))
    directories.push_back({fs::path(static_cast<const char*>(recorded)),
                           "the hookbus package the engine was built against (hookbus_enable_plugins)"});
  directories.push_back({fs::path(HOOKBUS_BUILTIN_PLUGIN_DIR), HOOKBUS_BUILTIN_PLUGIN_DIR_WHY});
  // One place found two ways is looked in once, under its first reason.
  std::vector<BuiltinPluginDirectory> distinct;
  for (auto& directory : directories)
    if (std::none_of(distinct.begin(), distinct.end(), [&](const auto& seen) { return seen.path == directory.path; }))
      distinct.push_back(std::move(directory));
  return distinct;
}

}  // namespace hookbus
