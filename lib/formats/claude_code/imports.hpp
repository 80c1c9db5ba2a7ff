#pragma once
// Internal: what setup() imports of Claude Code (formats/hook_format.hpp,
// FormatImports): the settings files and plugins that config's
// "claude_code" in any layer, and the engine's SetupOptions::claude_code,
// ask for; what the project's trust covers of them; their commands, each in
// its layer; the tool names each layer's commands see; the transcript.

#include <hookbus/claude_code.hpp>
#include <hookbus/config.hpp>

#include "formats/hook_format.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hookbus::detail {

// The tool names each layer's commands of `format` see: the engine's, which
// win, then those config maps in the layers at least as trusted as that
// layer, then the format's own names of Claude Code's built-in tools.
std::map<Layer, ClaudeCodeToolNames> tool_names_by_layer(const HookFormat& format, const LayeredConfig& config,
                                                         const std::map<std::string, std::string>& engine);

class ClaudeCodeImports final : public FormatImports {
 public:
  // `engine`: what the engine asks for in code; it joins the trust
  // fingerprint and the import like a user-layer config that says only that.
  ClaudeCodeImports(const HookFormat& format, Locations locations, const std::optional<ClaudeCodeSetup>& engine);

  void add_to_fingerprint(const std::vector<const Config*>& importers, ProjectFiles& files) const override;
  void read(const LayeredConfig& config, const std::vector<const Config*>& as_data, bool project_may_run,
            const TrustedFiles* trusted, std::vector<std::string>& warnings) override;
  std::optional<std::string> runs(Layer layer, const std::filesystem::path& file) const override;
  void prepare(Hooks& hooks, const LayeredConfig& config, const DiscoveryReport& discovery,
               ExternalInstallOptions& install, ConnectionGroup& kept) override;
  void report(const LayeredConfig& config, const std::string& why, InstallReport& report,
              std::vector<std::string>& warnings) const override;

 private:
  // A settings file or plugin that a config imports.
  struct Source {
    std::filesystem::path file;         // the settings file, or the plugin's hooks file
    Layer layer;                        // its commands' layer
    std::filesystem::path plugin_root;  // a plugin's directory; empty for a settings file
    bool projects_own;                  // the project's settings, or a plugin a project layer names: fingerprinted
  };
  std::vector<Source> sources(const Config& importer) const;
  // A settings file's hooksConfig (ClaudeCodeSettings::hooks_config_disabled).
  struct SwitchedOff {
    Layer layer;                 // the file's
    std::filesystem::path file;
    bool all;                    // "enabled": false
    std::vector<std::string> names;
  };
  void switch_off(const std::vector<SwitchedOff>& switched_off, std::vector<std::string>& warnings);
  // The engine's ask first, then `configs` (null: a file that could not be read).
  std::vector<const Config*> importers(const std::vector<const Config*>& configs) const;

  const HookFormat& format_;
  Locations locations_;
  std::optional<Config> engine_;                        // the engine's ask, as a user-layer config
  std::optional<std::filesystem::path> transcript_dir_;  // the engine's, when it chose one
  std::vector<ClaudeCodeCommand> commands_;              // what read() found to install
  std::vector<Source> not_run_;                          // a project's that may not run, to list
  // The files each layer's commands run, with the settings entry that runs each.
  std::map<std::pair<Layer, std::filesystem::path>, std::string> run_by_;
  std::map<Layer, ClaudeCodeToolNames> tool_names_;  // each layer's commands', from prepare()
};

}  // namespace hookbus::detail
