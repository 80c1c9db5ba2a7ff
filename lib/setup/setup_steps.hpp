#pragma once
// Internal: the steps setup() and load_workspace() share.

#include <hookbus/setup.hpp>

#include "support/logging.hpp"

#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hookbus::detail {

// A project layer's config file (a project's, or a workspace's), read as data
// before trust is decided: a broken file of an untrusted project must not stop
// the engine.
struct ProjectLayerConfig {
  Layer layer;
  std::filesystem::path file;
  std::optional<Config> config;
  std::exception_ptr error;
};
ProjectLayerConfig read_project_layer(Layer layer, const std::filesystem::path& file);

// The managed and user layers' config files, which always apply: their errors
// are the caller's (a ConfigError naming the file). Records each in `report`.
std::vector<Config> read_always_applying_layers(const Locations& locations, SetupReport& report);

// The trust step of setup() and load_workspace(): whether the project layers
// (a project's, or a workspace's) may run. `files` is everything they would
// read or run (the fingerprint's inputs), `policy` the policy in force; an
// `owned` directory (the user's or the administrator's own) is trusted as
// it is, without a word. The fingerprint is checked against the trust
// store, and the layers' configs as read against the bytes it hashed (one
// that changed in between makes the project `changed`: what applies is what
// was trusted). Then the layers apply, appended to `applied` (a read error
// is then thrown: a ConfigError naming the file), or, when the project may
// not run, none does and the trust check's message is a warning. Sets
// report.trust and records each layer's file in report.config_files.
// Returns the trusted files, for checking them again right before they run:
// those the store recorded for a trusted project, none for one that brought
// nothing (so a file that appears later does not run); null, no check, for a
// project trusted by policy or one that may not run at all.
std::shared_ptr<const TrustedFiles> decide_trust(const Locations& locations, const ProjectFiles& files,
                                                 ProjectTrustPolicy policy, bool owned,
                                                 std::vector<ProjectLayerConfig>& layers, std::vector<Config>& applied,
                                                 SetupReport& report);

// DiscoveryOptions::why_file_not_run for a project's files (`trusted` may be null: no check).
std::function<std::optional<std::string>(Layer, const std::filesystem::path&)> why_file_not_run(const TrustedFiles* trusted);

// A warning for the report, logged too.
inline void warn(SetupReport& report, std::string message) { warn(report.warnings, std::move(message)); }

// Installs the built-ins and tracer of one applied layer's config (the
// tracer only with `trace`), unless `why_not` says the layer may not run
// (then a warning names the file and why); records each in report.builtins.
// A tracer that sends spans to a Collector sends them only where `network`
// (LayeredConfig::network_allowance) allows, whichever layer configured it.
void install_layer_builtins(Hooks& hooks, const Config& layer, const std::optional<std::string>& why_not,
                            const BuiltinRegistry& registry, bool trace, const NetworkAllowance& network,
                            ConnectionGroup& installed, SetupReport& report);

// Records the built-ins of a config that does not apply (an untrusted
// project's, read as data) as not installed, with why.
void report_builtins_not_run(const Config& layer, const std::string& why, SetupReport& report);

// Loads every plugin of `directory` (a layer's plugins/) unless `why_not`
// says the layer may not run, or `trusted` (when given) that the file changed
// since its project was trusted; records each in
// `installation.report.plugins`, and each failure as a warning (logged too).
// A project layer's plugin (`project`: the project or workspace directory)
// loads only once the libraries it would load from the project are checked
// (PluginLibraries). A plugin named like one already loaded (by
// `installation`, or on the bus) is refused, unless that one is in
// `replacing`: the workspace being switched away from.
void load_layer_plugins(Hooks& hooks, Layer layer, const std::filesystem::path& directory,
                        const std::filesystem::path& project, const std::optional<std::string>& why_not,
                        const TrustedFiles* trusted, Installation& installation,
                        const std::vector<LoadedPlugin>& replacing = {});

}  // namespace hookbus::detail
