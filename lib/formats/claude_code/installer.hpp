#pragma once
// Internal: installing the commands of a Claude-Code-like format
// (formats/hook_format.hpp) on one bus in several calls that share their
// runs: the external-hook installer installs each layer's Claude Code
// commands right after that layer's other hooks, and a command that an
// earlier layer already ran in an emit still runs only once, as Claude Code
// runs identical commands once (include/hookbus/claude_code.hpp).

#include <hookbus/claude_code.hpp>
#include <hookbus/config.hpp>
#include <hookbus/discovery.hpp>
#include <hookbus/trust.hpp>

#include "formats/hook_format.hpp"

#include <memory>
#include <vector>

namespace hookbus::detail {

class BackgroundPool;

class ClaudeCodeInstaller {
 public:
  // Commands of `format`. Async ones run on `background`, which the installed handlers share.
  ClaudeCodeInstaller(Hooks& hooks, const HookFormat& format, std::shared_ptr<BackgroundPool> background);
  ClaudeCodeInstaller(const ClaudeCodeInstaller&) = delete;
  ClaudeCodeInstaller& operator=(const ClaudeCodeInstaller&) = delete;
  ~ClaudeCodeInstaller();

  // install_claude_code_hooks for one call: its matching commands of one
  // event run in parallel; those of earlier calls ran before them. Each
  // call's commands see its own `options` (a layer's, its tool names).
  ConnectionGroup install(const std::vector<ClaudeCodeCommand>& commands, const ClaudeCodeOptions& options);

 private:
  struct State;
  Hooks& hooks_;
  std::unique_ptr<State> state_;
};

// The commands of a hook file that config declares of the format's protocol
// (`"protocol": "claude_code"`): one per event it declares, its file run
// directly, with the settings its layers give it (a project's checked
// against `trusted` before each run). Throws ConfigError, at the event in
// config, for a name the format does not have: config checks the names of
// each file it reads, this what several layers set together (one the
// protocol, another the events) and what an engine made in code.
std::vector<ClaudeCodeCommand> hook_file_commands(const HookFormat& format, const DiscoveredHook& found,
                                                  const ResolvedHookSettings& settings,
                                                  const std::shared_ptr<const TrustedFiles>& trusted);

}  // namespace hookbus::detail
