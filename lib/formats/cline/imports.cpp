// What setup() imports of Cline (formats/cline/format.hpp): the hook files of
// the directories config's "agent_hooks": {"cline": {"settings": [...]}}
// names, found by hookbus's discovery (lib/discovery: its file checks, its
// layers, trust), each file the hook of the event it is named after, never
// queried; what the project's trust covers of them (.clinerules/hooks whole).
#include <hookbus/discovery.hpp>
#include <hookbus/log.hpp>

#include "formats/claude_code/imports.hpp"
#include "formats/cline/format.hpp"
#include "support/logging.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <system_error>
#include <utility>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

class ClineImports final : public FormatImports {
 public:
  ClineImports(const HookFormat& format, Locations locations) : format_(format), locations_(std::move(locations)) {}

  // A project's own hook directory, whoever asks for it: every file in it.
  void add_to_fingerprint(const std::vector<const Config*>& importers, ProjectFiles& files) const override {
    for (const Config* importer : importers) {
      if (importer == nullptr) continue;
      for (const Source& source : sources(*importer))
        if (source.projects_own &&
            std::find(files.directories.begin(), files.directories.end(), source.directory) == files.directories.end())
          files.directories.push_back(source.directory);
    }
  }

  void read(const LayeredConfig& config, const std::vector<const Config*>& as_data, bool project_may_run,
            const TrustedFiles* trusted, std::vector<std::string>& warnings) override {
    HookDirectories directories;
    std::set<fs::path> added;  // a directory imported twice runs once, in the first (most trusted) import
    const auto add_imports = [&](const Config& importer, bool applied) {
      for (const Source& source : sources(importer)) {
        // A config not applied (an untrusted project's, read as data) lists what trusting it would run.
        if (!applied && !(is_project_layer(source.layer) && !project_may_run)) continue;
        if (added.insert(source.directory).second)
          directories.add(source.directory, fmt::format("{} {}", format_.agent, layer_name(source.layer)), "",
                          source.layer);
      }
    };
    for (const Config& layer : config.layers()) add_imports(layer, true);
    if (!project_may_run)
      for (const Config* layer : as_data)
        if (layer != nullptr) add_imports(*layer, false);
    if (directories.entries.empty()) return;

    const DiscoveryOptions options{
        .why_not_run = [&](Layer layer) -> std::optional<std::string> {
          if (is_project_layer(layer) && !project_may_run) return "the project may not run";  // report() says why
          return std::nullopt;
        },
        // Its name is its event: nothing is asked of the file.
        .declared = [&](Layer, std::string_view name) -> std::optional<HookDeclaration> {
          return HookDeclaration{.protocol = format_.protocol, .events = {std::string(name)}};
        },
        .why_file_not_run = [trusted](Layer layer, const fs::path& file) -> std::optional<std::string> {
          if (trusted == nullptr || !is_project_layer(layer)) return std::nullopt;
          return trusted->why_not_run(file);
        }};
    const DiscoveryReport found = discover_hooks(directories, options);
    for (const DiscoveredHook& hook : found.hooks) {
      if (auto why = cline_file_not_run(hook.name)) {
        warn(warnings, fmt::format("{}: {}", hook.path.string(), *why));
        continue;
      }
      std::error_code ec;
      run_by_.emplace(std::pair{hook.layer, fs::weakly_canonical(hook.path, ec)}, hook.path.string());
      // Cline's 30 s, unless config gives the hooks of its layer, or this one by its name, a timeout.
      const Sourced<Duration> timeout = config.hook_settings(hook.layer, hook.name).timeout;
      commands_.push_back({.event = hook.name,
                           .program = hook.path,
                           .timeout = timeout.origin.file.empty() ? format_.default_timeout : timeout.value,
                           .failure = FailurePolicy::fail_open,  // every failure of a Cline hook is Cline's cancel: false
                           .label = hook.name,
                           .source = hook.path.string(),
                           .layer = hook.layer,
                           .protocol = format_.protocol});
    }
    // What may not run (an untrusted project's, a file changed since it was
    // trusted) is listed if it is a hook; anything else skipped is said.
    for (const SkippedFile& skipped : found.skipped) {
      if (skipped.why != SkippedFile::Why::not_run)
        warn(warnings, fmt::format("{}: not run as a {} hook: {}", skipped.path.string(), format_.agent, skipped.reason));
      else if (!cline_file_not_run(skipped.name))
        not_run_.push_back(skipped);
    }
    project_may_run_ = project_may_run;
  }

  // A file one of its commands runs is left to it, in that command's layer only.
  std::optional<std::string> runs(Layer layer, const fs::path& file) const override {
    std::error_code ec;
    const auto found = run_by_.find({layer, fs::weakly_canonical(file, ec)});
    if (found == run_by_.end()) return std::nullopt;
    return fmt::format("run by the {} hook {}, not by discovery", format_.agent, found->second);
  }

  void prepare(Hooks&, const LayeredConfig& config, const DiscoveryReport&, ExternalInstallOptions& install,
               ConnectionGroup&) override {
    install.agent_tool_names[format_.protocol] = tool_names_by_layer(format_, config, {});
    std::move(commands_.begin(), commands_.end(), std::back_inserter(install.claude_code));
    commands_.clear();
  }

  // The hook files of a project that may not run, as not installed with why;
  // and what config asks of Cline that it does not have.
  void report(const LayeredConfig& config, const std::string& why, InstallReport& report,
              std::vector<std::string>& warnings) const override {
    for (const SkippedFile& file : not_run_)
      report.not_installed.push_back({file.name, file.layer, file.path,
                                      is_project_layer(file.layer) && !project_may_run_ ? why : file.reason,
                                      format_.protocol, {file.name}, "", file.path.string()});
    for (const Config& writer : config.layers()) {
      const ClaudeCodeImport* import = agent_hooks_import(writer, format_.protocol);
      if (import == nullptr) continue;
      if (!import->plugins.empty())
        warn(warnings, fmt::format("{}: {}: Cline has no plugins, so this changes nothing; its hooks are the files "
                                   "of .clinerules/hooks and of the user's Cline hooks directory",
                                   import->location.file.string(), import->location.key("plugins").path));
      if (std::find(import->settings.begin(), import->settings.end(), Layer::local) != import->settings.end())
        warn(warnings, fmt::format("{}: {}: Cline has no local hooks directory, so \"local\" changes nothing",
                                   import->location.file.string(), import->location.key("settings").path));
    }
  }

 private:
  // A hook directory a config imports, in the less trusted of its own scope and the importer's layer.
  struct Source {
    fs::path directory;
    Layer layer;
    bool projects_own;  // the project's .clinerules/hooks: fingerprinted
  };
  std::vector<Source> sources(const Config& importer) const {
    std::vector<Source> found;
    const ClaudeCodeImport* import = agent_hooks_import(importer, format_.protocol);
    if (import == nullptr) return found;
    for (const Layer scope : import->settings) {
      fs::path directory = cline_hooks_directory(locations_, scope);
      if (directory.empty()) continue;
      const Layer layer = more_trusted(scope, importer.layer) ? importer.layer : scope;
      found.push_back({std::move(directory), layer, is_project_layer(scope)});
    }
    return found;
  }

  const HookFormat& format_;
  Locations locations_;
  std::vector<ClaudeCodeCommand> commands_;  // what read() found to install
  std::vector<SkippedFile> not_run_;         // hook files that may not run, to list
  bool project_may_run_ = true;
  std::map<std::pair<Layer, fs::path>, std::string> run_by_;  // each command's file, by layer
};

}  // namespace

std::unique_ptr<FormatImports> cline_imports(const HookFormat& format, const Locations& locations) {
  return std::make_unique<ClineImports>(format, locations);
}

}  // namespace hookbus::detail
