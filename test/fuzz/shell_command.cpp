// What a shell command runs (trust/shell_command.hpp), as the trust
// fingerprint and the checks before each run of a Claude Code command find
// it: the input is the command, resolved in a project made on first use (a
// script, a link to it, a Python package, a makefile, a sourced file, a
// directory). Nothing is thrown and the resolver ends (its step and depth
// bounds); each file found exists, is a regular file, its path and what it
// opens are absolute, and it comes once; each directory is absolute and comes
// once; each unresolved construct comes once, it and its reason in valid UTF-8.
#include "oracle.hpp"
#include "scratch_directory.hpp"

#include "trust/shell_command.hpp"

#include <filesystem>
#include <set>
#include <string>
#include <utility>

namespace {

namespace fs = std::filesystem;

// The project the commands run in: a script, a link to it, a Python package,
// a makefile, a sourced file, a directory.
class Project : public hookbus::fuzz::ScratchDirectory {
 public:
  Project() {
    write("hooks/guard.sh", "#!/bin/sh\n. ./hooks/common.sh\nexit 0\n");
    write("hooks/common.sh", "PATTERN=x\n");
    write("tools/pkg/__init__.py", "");
    write("tools/pkg/__main__.py", "print('ok')\n");
    write("Makefile", "check:\n\t./hooks/guard.sh\n");
    fs::permissions(root() / "hooks/guard.sh", fs::perms::owner_all);
    fs::create_symlink("hooks/guard.sh", root() / "guard-link");
    fs::create_directories(root() / "empty");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hookbus;
  static const Project project;
  static const detail::ShellStart start{.working_directory = project.root(),
                                        .variables = {{"CLAUDE_PROJECT_DIR", project.root().string()},
                                                      {"CLAUDE_PLUGIN_ROOT", (project.root() / "hooks").string()},
                                                      {"HOME", (project.root() / "empty").string()},
                                                      {"PATH", "/usr/bin:/bin"}}};
  const std::string_view command = fuzz::text_of(data, size);
  const detail::ShellCommandFiles found = detail::resolve_shell_command(command, start);

  std::set<fs::path> paths;
  for (const detail::CommandFile& file : found.files) {
    if (!file.path.is_absolute() || !file.resolved.is_absolute())
      fuzz::broken("a file found has a relative path", file.path.string());
    std::error_code error;
    if (!fs::is_regular_file(file.resolved, error)) fuzz::broken("a file found is no regular file", file.resolved.string());
    if (!paths.insert(file.path).second) fuzz::broken("a file is found twice", file.path.string());
  }
  std::set<fs::path> directories;
  for (const fs::path& directory : found.directories) {
    if (!directory.is_absolute()) fuzz::broken("a directory found is relative", directory.string());
    if (!directories.insert(directory).second) fuzz::broken("a directory is found twice", directory.string());
  }
  std::set<std::pair<std::string, std::string>> unresolved;
  for (const detail::UnresolvedConstruct& construct : found.unresolved) {
    fuzz::expect_valid_utf8(construct.construct, "a construct reported unresolved");
    fuzz::expect_valid_utf8(construct.why, "why a construct is unresolved");
    if (!unresolved.emplace(construct.construct, construct.why).second)
      fuzz::broken("an unresolved construct is reported twice", construct.construct);
  }
  return 0;
}
