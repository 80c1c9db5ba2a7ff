#pragma once
// What installing external hooks takes and reports (install_external_hooks,
// external.hpp): its options, with the hook formats' commands
// (claude_code.hpp), and the report of what was installed, left out or
// refusing. Its own header, so that the hook formats, which setup() asks to
// fill both (FormatImports), need nothing of the installer itself.

#include <hookbus/background.hpp>
#include <hookbus/claude_code.hpp>
#include <hookbus/config.hpp>
#include <hookbus/layers.hpp>
#include <hookbus/process.hpp>
#include <hookbus/trust.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hookbus {

// What installing did with each hook and each config entry.
struct InstallReport {
  struct Installed {
    std::string name{};
    Layer layer = Layer::project;
    std::filesystem::path path{};       // the hook file; empty for a settings command
    std::vector<std::string> events{};  // wire names; Claude Code's names for claude_code
    ResolvedHookSettings settings{};
    HookProtocol protocol = HookProtocol::hookbus;
    std::string matcher{};  // claude_code
    std::string command{};  // claude_code settings commands
    std::string source{};   // where it comes from: the directory's source, or the settings entry
    // A Claude-Code-format settings command's "if", "once", "asyncRewake"
    // (its settings.async says "async") and "statusMessage".
    std::string if_rule{};
    bool once = false;
    bool async_rewake = false;
    std::string status_message{};
  };
  struct NotInstalled {
    std::string name{};
    Layer layer = Layer::project;
    std::filesystem::path path{};       // the hook file; empty for a settings command
    std::string reason{};
    HookProtocol protocol = HookProtocol::hookbus;
    std::vector<std::string> events{};  // as for Installed
    std::string command{};              // claude_code settings commands
    std::string source{};               // the directory's source, or the settings entry
  };
  // A hook that config says must fail closed but that cannot run: its events refuse.
  struct Refusing {
    std::string name{};
    std::vector<std::string> events{};  // wire names it refuses
    std::string reason{};
  };
  std::vector<Installed> installed{};
  // disabled, forbidden by disable_all_hooks / allow_managed_hooks_only, or
  // (from setup) a Claude Code command of a project that may not run
  std::vector<NotInstalled> not_installed{};
  std::vector<Refusing> refusing{};
  std::vector<std::string> warnings{};        // config entries that change nothing, and why (also logged)
};

// How install_external_hooks installs (external.hpp).
struct ExternalInstallOptions {
  std::filesystem::path project_dir{};  // empty: the current directory
  // Claude Code commands from settings files and plugins (claude_code.hpp),
  // installed with the hooks of their layer.
  std::vector<ClaudeCodeCommand> claude_code{};
  ClaudeCodeOptions claude_code_options{};  // tool names and the transcript directory
  // The tool names a layer's Claude Code commands see, for layers that see
  // others than claude_code_options.tool_names: setup() gives each layer the
  // engine's names and those of the layers at least as trusted as it
  // (LayeredConfig::claude_code_tool_names), so that no less trusted layer
  // changes what a more trusted layer's commands match or read.
  std::map<Layer, ClaudeCodeToolNames> claude_code_tool_names{};
  // The same for the other agents whose hooks are declared as Claude Code's
  // (Codex, Qwen Code: ClaudeCodeCommand::protocol), per agent.
  std::map<HookProtocol, std::map<Layer, ClaudeCodeToolNames>> agent_tool_names{};
  // The trusted project's files: each hook file and Claude Code command
  // script of the project and local layers is checked against them right
  // before every run, and one that changed since refuses to run (a failure,
  // under its failure policy). Unset: no check (no trust needed, or trust_all).
  std::shared_ptr<const TrustedFiles> trusted_project{};
  BackgroundOptions background{};            // the pool of the async hooks
  // When the installation goes, each persistent hook's instance gets this long
  // after its stdin is closed to exit on its own, before SIGTERM.
  Duration persistent_shutdown_grace = std::chrono::milliseconds(200);
  std::string workspace{};  // the workspace these hooks belong to (ExternalHook::workspace)
  // The engine's choice for what the hooks' runs leave running (ExternalHook,
  // ClaudeCodeOptions::detached_processes); each layer's config may make it
  // stricter for its hooks and those of the layers it governs
  // (LayeredConfig::detached_processes), never looser. A persistent hook's
  // instance takes everything it started with it when it ends, whatever this says.
  DetachedProcesses detached_processes = DetachedProcesses::allow;
};

}  // namespace hookbus
