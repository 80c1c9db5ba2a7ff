// What a Claude Code command runs, and which of those files are the
// project's (formats/claude_code/command_files.hpp).
#include "formats/claude_code/command_files.hpp"

#include "formats/handler_directory.hpp"
#include "support/text.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

namespace hookbus {

namespace fs = std::filesystem;

namespace detail {

ProjectDirectory::ProjectDirectory(const std::filesystem::path& given) : given_(given.lexically_normal()) {
  std::error_code ec;
  physical_ = fs::weakly_canonical(given_, ec);
  if (ec) physical_ = given_;
}

std::optional<std::filesystem::path> ProjectDirectory::inside(const std::filesystem::path& path) const {
  const fs::path relative = path.lexically_relative(physical_);
  if (relative.empty() || *relative.begin() == "..") return std::nullopt;
  return relative == "." ? given_ : given_ / relative;
}

std::string command_line(const ClaudeCodeCommand& command) {
  if (!command.url.empty()) return "POST " + command.url;
  if (command.exec.empty()) return command.command;
  std::string line = shell_quoted(command.exec);
  for (const auto& argument : command.arguments) line += ' ' + shell_quoted(argument);
  return line;
}

ShellCommandFiles resolve_command(const HookFormat& format, const ClaudeCodeCommand& command,
                                  const ProjectDirectory& project) {
  if (!command.url.empty()) return {};
  // It starts in its own directory, if it has one (a script it names relative to that is found there).
  ShellStart shell{.working_directory = command.working_directory.empty()
                                            ? project.physical()
                                            : handler_directory(command.working_directory, project,
                                                                is_project_layer(command.layer))
                                                  .physical,
                   .variables = {{std::string(format.project_dir_variable), project.given().string()}}};
  if (!command.plugin_root.empty()) {
    shell.variables.emplace(std::string(format.plugin_root_variable), command.plugin_root.string());
    for (const std::string_view alias : format.plugin_root_aliases)
      shell.variables.emplace(std::string(alias), command.plugin_root.string());
  }
  // The hook runs with the engine's environment and its own variables on
  // top: its HOME, PATH and CDPATH are what the command sees.
  for (const auto& [name, value] : command.environment) shell.variables.emplace(name, value);
  for (const char* inherited : {"HOME", "PATH", "CDPATH"})
    if (const char* value = std::getenv(inherited); value != nullptr && *value != '\0')
      shell.variables.emplace(inherited, value);
  return resolve_shell_command(command_line(command), shell);
}

std::vector<std::filesystem::path> files_inside(const ShellCommandFiles& found, const ProjectDirectory& project) {
  std::vector<fs::path> files;
  for (const auto& file : found.files)
    for (const fs::path& path : {file.path, file.resolved})
      if (auto inside = project.inside(path); inside && std::find(files.begin(), files.end(), *inside) == files.end())
        files.push_back(std::move(*inside));
  return files;
}

}  // namespace detail

std::vector<std::filesystem::path> claude_code_command_files(std::string_view command,
                                                             const std::filesystem::path& project_dir) {
  const detail::ProjectDirectory project(project_dir);
  return detail::files_inside(
      detail::resolve_command(detail::claude_code_format(), {.command = std::string(command)}, project), project);
}

std::vector<std::filesystem::path> claude_code_named_files(const ClaudeCodeCommand& command,
                                                           const std::filesystem::path& project_dir) {
  std::vector<fs::path> files;
  for (auto& file :
       detail::resolve_command(detail::claude_code_format(), command, detail::ProjectDirectory(project_dir)).files)
    files.push_back(std::move(file.path));
  return files;
}

}  // namespace hookbus
