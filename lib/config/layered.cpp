// Merging the configuration of several layers: LayeredConfig (config.hpp).
#include <hookbus/config.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace hookbus {
namespace {

// Writers ranked for everything else, most specific first.
constexpr Layer kBySpecificity[] = {Layer::local, Layer::project, Layer::user, Layer::managed};

std::string describe(const Config& config) {
  return config.file.empty() ? fmt::format("{} config", layer_name(config.layer)) : config.file.string();
}

}  // namespace

LayeredConfig::LayeredConfig(std::vector<Config> layers) : layers_(std::move(layers)) {
  std::stable_sort(layers_.begin(), layers_.end(),
                   [](const Config& a, const Config& b) { return static_cast<int>(a.layer) < static_cast<int>(b.layer); });
  for (std::size_t i = 1; i < layers_.size(); ++i)
    if (layers_[i].layer == layers_[i - 1].layer)
      throw std::invalid_argument(fmt::format("hookbus: two configs for the {} layer ({} and {})",
                                              layer_name(layers_[i].layer), describe(layers_[i - 1]),
                                              describe(layers_[i])));
}

const Config* LayeredConfig::layer(Layer layer) const noexcept {
  const auto found = std::find_if(layers_.begin(), layers_.end(), [&](const Config& c) { return c.layer == layer; });
  return found == layers_.end() ? nullptr : &*found;
}

ResolvedHookSettings LayeredConfig::hook_settings(Layer owner, std::string_view name) const {
  ResolvedHookSettings resolved;
  resolved.timeout = default_timeout(owner);
  // The first governing writer in `order` that sets the member wins.
  const auto take = [&](const auto& order, auto member, std::string_view key, auto& target, auto is_set) {
    for (const Layer writer : order) {
      const Config* config = layer(writer);
      if (config == nullptr || !governs(writer, owner)) continue;
      const auto found = config->hooks.find(std::string(name));
      if (found == config->hooks.end() || !is_set(found->second.*member)) continue;
      const auto& value = found->second.*member;
      if constexpr (requires { value.value(); }) target.value = *value;
      else target.value = value;
      target.origin = found->second.location.key(key);
      return;
    }
  };
  const auto engaged = [](const auto& optional) { return optional.has_value(); };
  const auto nonempty = [](const auto& container) { return !container.empty(); };
  take(layers_by_trust, &HookSettings::failure, "failure", resolved.failure, engaged);
  take(layers_by_trust, &HookSettings::disabled, "disabled", resolved.disabled, engaged);
  take(layers_by_trust, &HookSettings::async, "async", resolved.async, engaged);
  take(layers_by_trust, &HookSettings::sequential, "sequential", resolved.sequential, engaged);
  take(kBySpecificity, &HookSettings::timeout, "timeout_ms", resolved.timeout, engaged);
  take(kBySpecificity, &HookSettings::protocol, "protocol", resolved.protocol, engaged);
  take(kBySpecificity, &HookSettings::events, "events", resolved.events, nonempty);
  take(kBySpecificity, &HookSettings::matcher, "matcher", resolved.matcher, nonempty);
  take(kBySpecificity, &HookSettings::tools, "tools", resolved.tools, nonempty);
  take(kBySpecificity, &HookSettings::mode, "mode", resolved.mode, engaged);
  take(kBySpecificity, &HookSettings::instances, "instances", resolved.instances, engaged);
  take(kBySpecificity, &HookSettings::start, "start", resolved.start, engaged);
  return resolved;
}

Sourced<Duration> LayeredConfig::default_timeout(Layer owner) const {
  for (const Layer writer : kBySpecificity) {
    const Config* config = layer(writer);
    if (config != nullptr && governs(writer, owner) && config->default_timeout)
      return {*config->default_timeout, ConfigLocation{.file = config->file, .project_dir = {}, .path = "timeout_ms"}};
  }
  return {default_hook_timeout, {}};
}

std::optional<std::string> LayeredConfig::hooks_forbidden(Layer owner) const {
  for (const Layer writer : layers_by_trust) {
    const Config* config = layer(writer);
    if (config == nullptr) continue;
    if (governs(writer, owner) && config->disable_all_hooks.value_or(false))
      return fmt::format("disable_all_hooks is set in {}", describe(*config));
    if (owner != Layer::managed && config->allow_managed_hooks_only.value_or(false))
      return fmt::format("allow_managed_hooks_only is set in {}", describe(*config));
  }
  return std::nullopt;
}

ProjectTrustPolicy LayeredConfig::project_trust(ProjectTrustPolicy engine_default) const {
  ProjectTrustPolicy strictest = engine_default;
  for (const Config& config : layers_)
    if (config.project_trust) strictest = std::max(strictest, *config.project_trust);
  return strictest;
}

ConfigLocation LayeredConfig::project_trust_origin(ProjectTrustPolicy engine_default) const {
  const ProjectTrustPolicy policy = project_trust(engine_default);
  if (policy == engine_default) return {};
  for (const Config& config : layers_)
    if (config.project_trust == policy) return {.file = config.file, .project_dir = {}, .path = "project_trust"};
  return {};
}

std::vector<Sourced<ProjectTrustPolicy>> LayeredConfig::project_trust_overruled(ProjectTrustPolicy engine_default) const {
  const ProjectTrustPolicy policy = project_trust(engine_default);
  std::vector<Sourced<ProjectTrustPolicy>> overruled;
  for (const Config& config : layers_)
    if (config.project_trust && *config.project_trust < policy)
      overruled.push_back({*config.project_trust, {.file = config.file, .project_dir = {}, .path = "project_trust"}});
  return overruled;
}

NetworkAllowance LayeredConfig::network_allowance() const {
  NetworkAllowance allowance;
  for (const Layer writer : {Layer::managed, Layer::user}) {  // read_config reads "network" of no other layer
    const Config* config = layer(writer);
    if (config == nullptr || !config->network) continue;
    for (const auto& origin : config->network->allowed_origins)
      if (std::find(allowance.origins.begin(), allowance.origins.end(), origin) == allowance.origins.end())
        allowance.origins.push_back(origin);
    if (allowance.ca_file.empty()) allowance.ca_file = config->network->ca_file;
  }
  return allowance;
}

Sourced<DetachedProcesses> LayeredConfig::detached_processes(Layer owner, DetachedProcesses engine_default) const {
  Sourced<DetachedProcesses> strictest{engine_default, {}};
  for (const Layer writer : layers_by_trust) {
    const Config* config = layer(writer);
    if (config == nullptr || !governs(writer, owner) || !config->detached_processes) continue;
    if (*config->detached_processes > strictest.value)
      strictest = {*config->detached_processes, {.file = config->file, .project_dir = {}, .path = "detached_processes"}};
  }
  return strictest;
}

std::optional<ClaudeCodeImport> LayeredConfig::claude_code() const {
  std::optional<ClaudeCodeImport> merged;
  for (const Layer writer : kBySpecificity) {
    const Config* config = layer(writer);
    if (config == nullptr || !config->claude_code) continue;
    const ClaudeCodeImport& import = *config->claude_code;
    if (!merged) merged.emplace().location = import.location;
    for (const Layer settings : import.settings)
      if (std::find(merged->settings.begin(), merged->settings.end(), settings) == merged->settings.end())
        merged->settings.push_back(settings);
    for (const auto& plugin : import.plugins)
      if (std::find(merged->plugins.begin(), merged->plugins.end(), plugin) == merged->plugins.end())
        merged->plugins.push_back(plugin);
  }
  return merged;
}

std::map<std::string, Sourced<std::string>> LayeredConfig::claude_code_tool_names(Layer owner) const {
  return agent_tool_names(HookProtocol::claude_code, owner);
}

std::map<std::string, Sourced<std::string>> LayeredConfig::agent_tool_names(HookProtocol agent, Layer owner) const {
  std::map<std::string, Sourced<std::string>> names;
  for (const Layer writer : kBySpecificity) {
    const Config* config = layer(writer);
    const ClaudeCodeImport* found = config == nullptr ? nullptr : agent_hooks_import(*config, agent);
    if (found == nullptr || more_trusted(owner, writer)) continue;
    const ClaudeCodeImport& import = *found;
    for (const auto& [ours, theirs] : import.tool_names)  // the first (most specific) writer wins
      names.emplace(ours, Sourced<std::string>{theirs, import.location.key("tool_names").key(ours)});
  }
  return names;
}

}  // namespace hookbus
