#pragma once
// Installing Claude Code commands on one bus in several calls that share
// their runs (library-internal): the external-hook installer installs each
// layer's Claude Code commands right after that layer's other hooks, and a
// command that an earlier layer already ran in an emit still runs only once,
// as Claude Code runs identical commands once (include/hookbus/claude_code.hpp).

#include <hookbus/claude_code.hpp>

#include <memory>
#include <vector>

namespace hookbus::detail {

class BackgroundPool;

class ClaudeCodeInstaller {
 public:
  // Async commands run on `background`, which the installed handlers share.
  ClaudeCodeInstaller(Hooks& hooks, std::shared_ptr<BackgroundPool> background);
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

}  // namespace hookbus::detail
