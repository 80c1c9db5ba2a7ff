#pragma once
// Internal: the steps setup() and load_workspace() share.

#include <hookbus/setup.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hookbus::detail {

// The managed and user layers' config files, which always apply: their errors
// are the caller's (a ConfigError naming the file). Records each in `report`.
std::vector<Config> read_always_applying_layers(const Locations& locations, SetupReport& report);

// Loads every plugin of `directory` (a layer's plugins/) unless `why_not`
// says the layer may not run; records each in `installation.report.plugins`,
// and each failure as a warning (logged too).
void load_layer_plugins(Hooks& hooks, Layer layer, const std::filesystem::path& directory,
                        const std::optional<std::string>& why_not, Installation& installation);

}  // namespace hookbus::detail
