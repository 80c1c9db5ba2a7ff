// A handler's own working directory (formats/handler_directory.hpp).
#include "formats/handler_directory.hpp"

#include <hookbus/errors.hpp>

#include "support/file_safety.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <variant>

namespace hookbus::detail {

namespace fs = std::filesystem;

HandlerDirectory handler_directory(std::string_view cwd, const ProjectDirectory& project, bool confined) {
  fs::path path(cwd);
  if (cwd == "~" || cwd.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0')
      throw Error(fmt::format("\"{}\" starts in the home directory, and HOME is not set", cwd));
    path = fs::path(home) / cwd.substr(cwd.size() == 1 ? 1 : 2);
  }
  if (path.is_relative()) path = project.physical() / path;
  const auto resolution = resolve_path(path);
  if (const auto* unresolved = std::get_if<UnresolvedPath>(&resolution))
    throw Error(fmt::format("\"{}\" cannot be a hook's directory: {}", cwd, unresolved->reason));
  const auto& resolved = std::get<ResolvedPath>(resolution);
  HandlerDirectory directory{.physical = resolved.resolved, .not_there = std::nullopt};
  for (const auto& part : resolved.missing) directory.physical /= part;
  directory.physical = directory.physical.lexically_normal();
  if (confined && (!project.inside(resolved.resolved) || !project.inside(directory.physical)))
    throw Error(fmt::format("\"{}\" leads out of the project {} (to {}): a project's hook runs only inside its "
                            "project; name a directory of the project, relative to it",
                            cwd, project.given().string(), directory.physical.string()));
  if (!resolved.missing.empty())
    directory.not_there = fmt::format("its directory \"{}\" ({}) does not exist", cwd, directory.physical.string());
  else if (!S_ISDIR(resolved.st.st_mode))
    directory.not_there = fmt::format("its directory \"{}\" ({}) is not a directory", cwd, directory.physical.string());
  return directory;
}

}  // namespace hookbus::detail
