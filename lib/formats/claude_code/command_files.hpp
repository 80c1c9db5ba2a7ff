#pragma once
// Internal: what a Claude Code command runs, resolved as /bin/sh will run it
// in the project with the variables Claude Code gives it
// (trust/shell_command.hpp), and which of those files are the project's. One
// resolution for the trust fingerprint and discovery, which leaves to a
// command the hook files it runs (imports.cpp), and the checks before each
// run (run.cpp).

#include <hookbus/claude_code.hpp>

#include "formats/hook_format.hpp"
#include "trust/shell_command.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hookbus::detail {

// A project directory as given (CLAUDE_PROJECT_DIR, and what trust records
// names under) and where it physically is (what tells a path inside it from
// one a link leads out of it).
class ProjectDirectory {
 public:
  explicit ProjectDirectory(const std::filesystem::path& given);

  [[nodiscard]] const std::filesystem::path& given() const noexcept { return given_; }
  [[nodiscard]] const std::filesystem::path& physical() const noexcept { return physical_; }
  // A physical path inside the project, named below the project as given; nullopt when it is outside.
  [[nodiscard]] std::optional<std::filesystem::path> inside(const std::filesystem::path& path) const;

 private:
  std::filesystem::path given_;
  std::filesystem::path physical_;
};

// The command as /bin/sh reads it: `command`, or an exec handler's program
// and arguments, each a quoted word (what trust resolves, and what is shown);
// for an HTTP handler, "POST <url>" (never a header: they may hold secrets).
std::string command_line(const ClaudeCodeCommand& command);

// What `command` runs, started in the project (or in its own directory,
// handler_directory.hpp, which throws Error for one that may not be) with
// the format's variables (CLAUDE_PROJECT_DIR, a plugin's CLAUDE_PLUGIN_ROOT),
// its own and the engine's HOME and PATH. An HTTP handler runs no file: nothing.
ShellCommandFiles resolve_command(const HookFormat& format, const ClaudeCodeCommand& command,
                                  const ProjectDirectory& project);

// The files of `found` inside the project, as trust names them: each file as
// the command reaches it and, where a link leads elsewhere in the project, its target.
std::vector<std::filesystem::path> files_inside(const ShellCommandFiles& found, const ProjectDirectory& project);

}  // namespace hookbus::detail
