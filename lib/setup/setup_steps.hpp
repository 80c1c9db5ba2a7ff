#pragma once
// Internal: the steps setup() and load_workspace() share.

#include <hookbus/setup.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hookbus::detail {

// The managed and user layers' config files, which always apply: their errors
// are the caller's (a ConfigError naming the file). Records each in `report`.
std::vector<Config> read_always_applying_layers(const Locations& locations, SetupReport& report);

// The trusted files a trust check found, for checking them again before
// they run: for a trusted project, and for one that brought nothing (so a
// file that appears later does not run); none for a project trusted by
// policy or one that may not run at all.
std::shared_ptr<const TrustedFiles> trusted_files(const TrustReport& trust, const ProjectFiles& files);

// DiscoveryOptions::why_file_not_run for a project's files (`trusted` may be null: no check).
std::function<std::optional<std::string>(Layer, const std::filesystem::path&)> why_file_not_run(const TrustedFiles* trusted);

// Loads every plugin of `directory` (a layer's plugins/) unless `why_not`
// says the layer may not run, or `trusted` (when given) that the file changed
// since its project was trusted; records each in
// `installation.report.plugins`, and each failure as a warning (logged too).
// A plugin named like one already loaded (by `installation`, or on the bus)
// is refused, unless that one is in `replacing`: the workspace being switched
// away from.
void load_layer_plugins(Hooks& hooks, Layer layer, const std::filesystem::path& directory,
                        const std::optional<std::string>& why_not, const TrustedFiles* trusted,
                        Installation& installation, const std::vector<LoadedPlugin>& replacing = {});

}  // namespace hookbus::detail
