#pragma once
// Internal: the directory a handler with a working directory of its own runs
// in (VS Code's and Copilot CLI's "cwd"), one rule for every format that has
// one (docs/security.md, "Trust"): a project's hook runs inside its project,
// wherever the project's links lead, and never through /proc. The settings
// reader checks it (an error naming the file and JSON path), the trust
// fingerprint resolves the command's scripts from it, and each run checks it
// again before the process starts.

#include "formats/claude_code/command_files.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace hookbus::detail {

struct HandlerDirectory {
  // Where the handler runs, every link followed (a part not there yet is
  // appended as written).
  std::filesystem::path physical{};
  // Why it cannot run there now (not there, not a directory); nullopt: it can.
  std::optional<std::string> not_there{};
};

// Where a handler whose "cwd" is `cwd` runs: relative to the project, or
// absolute, "~" the user's home (as VS Code expands it), resolved as the
// kernel resolves it (resolve_path). Throws Error with why for a path through
// /proc or a link loop, and, for a project layer's handler (`confined`), for
// one that leads out of the project: "..", an absolute path elsewhere, a link
// at any component.
HandlerDirectory handler_directory(std::string_view cwd, const ProjectDirectory& project, bool confined);

}  // namespace hookbus::detail
