// The libraries a project's plugin would load with it (plugins/plugin_libraries.hpp).
#include "plugins/plugin_libraries.hpp"

#include "support/directory_tree.hpp"
#include "support/file_safety.hpp"
#include "support/elf_dynamic.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <set>
#include <string_view>
#include <variant>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;

// Where a path leads, physically: resolved as far as it exists, the rest as
// written; or why it cannot be told (a path through procfs, a loop).
std::variant<fs::path, std::string> physical(const fs::path& path) {
  auto resolution = resolve_path(path);
  if (auto* unresolved = std::get_if<UnresolvedPath>(&resolution)) return std::move(unresolved->reason);
  const ResolvedPath& resolved = std::get<ResolvedPath>(resolution);
  fs::path where = resolved.resolved;
  for (const auto& step : resolved.missing) where /= step;
  where = where.lexically_normal();
  return where.has_filename() ? where : where.parent_path();
}

bool inside(const fs::path& path, const fs::path& directory) {
  return std::mismatch(directory.begin(), directory.end(), path.begin(), path.end()).first == directory.end();
}

// The length of the dynamic string token `name` at the start of `text` (just
// after its '$'), as the loader recognises it: NAME not followed by a letter,
// digit or '_', or {NAME}; 0 when it is not there.
std::size_t token_length(std::string_view text, std::string_view name) {
  if (text.starts_with('{')) return text.substr(1).starts_with(name) && text.substr(1 + name.size()).starts_with('}') ? name.size() + 2 : 0;
  if (!text.starts_with(name)) return 0;
  const std::string_view after = text.substr(name.size());
  return after.empty() || !(std::isalnum(static_cast<unsigned char>(after[0])) || after[0] == '_') ? name.size() : 0;
}

// `text` with $ORIGIN (and ${ORIGIN}) replaced by `origin`, as the loader
// expands it; or the token it uses that hookbus does not expand ($LIB,
// $PLATFORM: their value is the loader's own).
struct Expanded {
  std::string text;
  std::string unexpanded;  // "$LIB", "$PLATFORM"; empty when all is expanded
};
Expanded expand(std::string_view text, std::string_view origin) {
  Expanded out;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] != '$') {
      out.text += text[at];
      continue;
    }
    const std::string_view after = text.substr(at + 1);
    if (const std::size_t length = token_length(after, "ORIGIN")) {
      out.text += origin;
      at += length;
      continue;
    }
    // fmt::format, not "$" + std::string(other): g++ 12 at -O3 warns of an overlapping memcpy inside
    // operator+ (a false -Wrestrict, GCC bug 105329), which -Werror made a failed release build.
    for (const std::string_view other : {"LIB", "PLATFORM"})
      if (token_length(after, other) != 0 && out.unexpanded.empty()) out.unexpanded = fmt::format("${}", other);
    out.text += '$';
  }
  return out;
}

constexpr std::string_view keep_inside =
    "keep the libraries it loads inside its plugin directory, found through a run path of $ORIGIN "
    "(-Wl,-rpath,'$ORIGIN/lib' for a lib/ beside it)";

// One library to read: its path as the loader opens it, and the DT_RPATH
// directories of the libraries that load it, which the loader searches for
// its libraries too unless it has a DT_RUNPATH.
struct Library {
  fs::path path;
  std::vector<fs::path> inherited;
};

}  // namespace

PluginLibraries::PluginLibraries(const fs::path& project, const fs::path& directory, const TrustedFiles* trusted)
    : directory_(directory), trusted_(trusted) {
  const auto project_place = physical(project);
  const auto directory_place = physical(directory);
  if (const auto* why = std::get_if<std::string>(&project_place)) {
    unusable_ = *why;
    return;
  }
  if (const auto* why = std::get_if<std::string>(&directory_place)) {
    unusable_ = *why;
    return;
  }
  project_ = std::get<fs::path>(project_place);
  covered_directories_.push_back(std::get<fs::path>(directory_place));
  // Listed as the fingerprint lists it, so a file's name here is its name there.
  walk_below(directory, [&](const DirectoryEntry& entry) {
    struct stat st {};
    if (entry.kind == EntryKind::file && ::stat(entry.path.c_str(), &st) == 0)
      files_.try_emplace({st.st_dev, st.st_ino}, entry.path);
    if (entry.kind != EntryKind::directory) return;
    const auto where = physical(entry.path);
    if (const auto* entered = std::get_if<fs::path>(&where)) covered_directories_.push_back(*entered);
  });
}

std::optional<std::string> PluginLibraries::why_not_load(const fs::path& file) const {
  const auto refuse = [&](std::string_view what, std::string_view fix = {}) {
    return fmt::format("plugin {}: {}{}{}", file.string(), what, fix.empty() ? "" : "; ", fix);
  };
  if (unusable_) return refuse(fmt::format("its libraries cannot be checked: {}", *unusable_));
  const auto is_covered = [&](const fs::path& where) {
    return std::any_of(covered_directories_.begin(), covered_directories_.end(),
                       [&](const fs::path& covered) { return inside(where, covered); });
  };
  const auto outside_the_plugin_directory = [&](const fs::path& where) {
    return fmt::format("{}, inside {} but outside its plugin directory {}, which is what trust fingerprints: a "
                       "library there could change after `hookctl trust` and load unchecked",
                       where.string(), project_.string(), directory_.string());
  };

  std::error_code ec;
  const fs::path plugin = fs::absolute(file, ec);  // as load_plugin loads it: $ORIGIN is its directory as named
  if (ec) return refuse(ec.message());
  struct stat st {};
  if (::stat(plugin.c_str(), &st) != 0) return std::nullopt;  // load_plugin says why it cannot be loaded
  std::set<std::pair<dev_t, ino_t>> read{{st.st_dev, st.st_ino}};
  std::deque<Library> pending{{plugin, {}}};
  while (!pending.empty()) {
    const Library library = std::move(pending.front());
    pending.pop_front();
    const std::string which = library.path == plugin ? "it" : fmt::format("the library {} it loads", library.path.string());
    ElfDynamic dynamic;
    try {
      dynamic = read_elf_dynamic(library.path);
    } catch (const ElfError& error) {
      return refuse(fmt::format("{} cannot be read as the dynamic loader reads it: {} {}", which, library.path.string(),
                                error.what()),
                    "a plugin is an ELF64 little-endian shared library (.so)");
    }
    if (dynamic.needed.size() > max_needed_libraries)
      return refuse(fmt::format("{} names more than {} libraries to load", which, max_needed_libraries));
    const bool by_rpath = dynamic.runpath.empty();
    const std::vector<std::string>& entries = by_rpath ? dynamic.rpath : dynamic.runpath;
    const std::string_view tag = by_rpath ? "DT_RPATH" : "DT_RUNPATH";
    if (entries.size() > max_run_path_entries)
      return refuse(fmt::format("{} has more than {} run path entries", which, max_run_path_entries));

    // Its run path: each directory absolute, none in the project outside the plugin directory.
    const std::string origin = library.path.parent_path().string();
    std::vector<fs::path> own;
    for (const std::string& entry : entries) {
      const Expanded expanded = expand(entry, origin);
      const std::string named = fmt::format("{} has the run path entry '{}' ({})", which, entry, tag);
      if (!expanded.unexpanded.empty())
        return refuse(fmt::format("{}, which uses {}: hookbus cannot tell where it leads", named, expanded.unexpanded),
                      keep_inside);
      if (!expanded.text.starts_with('/'))
        return refuse(fmt::format("{}, which is relative: the loader would look for libraries in the engine's working "
                                  "directory, not beside the plugin",
                                  named),
                      keep_inside);
      const auto place = physical(expanded.text);
      if (const auto* why = std::get_if<std::string>(&place)) return refuse(fmt::format("{}: {}", named, *why));
      const fs::path& where = std::get<fs::path>(place);
      if (is_covered(where) && by_rpath)
        return refuse(fmt::format("{}, which leads into its plugin directory; the loader also searches DT_RPATH for the "
                                  "libraries of every library under the plugin, the system's too, which hookbus does not "
                                  "read",
                                  named),
                      "link it with -Wl,--enable-new-dtags, which makes the run path DT_RUNPATH");
      if (!is_covered(where) && inside(where, project_))
        return refuse(fmt::format("{}, which leads to {}", named, outside_the_plugin_directory(where)), keep_inside);
      own.emplace_back(expanded.text);
    }
    // Where the loader searches for each library it names (the libraries a
    // search finds outside the project are not the project's, and load as usual).
    std::vector<fs::path> search = own;
    std::vector<fs::path> inherited = library.inherited;
    if (by_rpath) {
      search.insert(search.end(), library.inherited.begin(), library.inherited.end());
      inherited.insert(inherited.begin(), own.begin(), own.end());
    }
    for (const std::string& name : dynamic.needed) {
      std::vector<fs::path> candidates;
      if (name.find('/') == std::string::npos) {
        for (const fs::path& directory : search) candidates.push_back(directory / name);
      } else {
        const Expanded expanded = expand(name, origin);
        if (!expanded.unexpanded.empty() || !expanded.text.starts_with('/'))
          return refuse(fmt::format("{} needs '{}' (DT_NEEDED), a {} path: the loader would resolve it against the engine's "
                                    "working directory, not beside the plugin",
                                    which, name, expanded.unexpanded.empty() ? "relative" : "partly unknown"),
                        keep_inside);
        candidates.emplace_back(expanded.text);
      }
      for (const fs::path& candidate : candidates) {
        auto resolution = resolve_path(candidate);
        if (auto* unresolved = std::get_if<UnresolvedPath>(&resolution)) {
          if (unresolved->per_process)
            return refuse(fmt::format("{} would load '{}' as {}: {}", which, name, candidate.string(), unresolved->reason));
          continue;  // the loader cannot open it either
        }
        const ResolvedPath& found = std::get<ResolvedPath>(resolution);
        if (!found.missing.empty() || !S_ISREG(found.st.st_mode)) continue;  // the loader looks further
        const std::string loads = fmt::format("{} would load '{}' as {}", which, name, candidate.string());
        if (!is_covered(found.resolved)) {
          if (inside(found.resolved, project_))
            return refuse(fmt::format("{}, which is {}", loads, outside_the_plugin_directory(found.resolved)), keep_inside);
          continue;  // not the project's
        }
        const auto listed = files_.find({found.st.st_dev, found.st.st_ino});
        if (listed == files_.end())
          return refuse(fmt::format("{}, which appeared in its plugin directory after setup listed it", loads));
        if (auto why = unsafe_path_reason(candidate)) return refuse(fmt::format("{}, which is refused: {}", loads, *why));
        if (trusted_ != nullptr)
          if (auto why = trusted_->why_not_run(listed->second)) return refuse(fmt::format("{}: {}", loads, *why));
        if (!read.insert({found.st.st_dev, found.st.st_ino}).second) continue;
        if (read.size() > max_plugin_libraries)
          return refuse(fmt::format("it loads more than {} libraries from its plugin directory", max_plugin_libraries));
        pending.push_back({candidate, inherited});
      }
    }
  }
  return std::nullopt;
}

}  // namespace hookbus::detail
