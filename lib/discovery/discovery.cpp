// Hook discovery: scanning hook directories by the rules in
// include/hookbus/discovery.hpp, and learning each candidate's events.
#include <hookbus/discovery.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/process.hpp>

#include "support/logging.hpp"
#include "support/file_safety.hpp"
#include "discovery/query_cache.hpp"
#include "support/directory_tree.hpp"
#include "support/text.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <utility>
#include <variant>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

// Subdirectories of `dir` that are not dot-directories, by name (symlinked
// ones too: the fingerprint enters them as well); none if `dir` is missing.
std::vector<fs::path> plain_subdirectories(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : detail::directory_entries(dir, ec))
    if (entry.kind == detail::EntryKind::directory && !entry.path.filename().string().starts_with('.'))
      found.push_back(entry.path);
  return found;
}

// The directory a path names, with any trailing separator dropped, so that
// parent_path() is really its parent (`a/hooks/` has the parent_path `a/hooks`).
fs::path without_trailing_separator(const fs::path& path) {
  return path.has_filename() ? path : path.parent_path();
}

// A temporary directory, removed with its content when done: where `HOOK hook`
// runs, so a hook that writes into its working directory touches nothing of ours.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "hookbus-query-XXXXXX").string();
    if (ec || ::mkdtemp(pattern.data()) == nullptr) throw ProcessError("cannot create a scratch directory for the query");
    path_ = pattern;
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const noexcept { return path_; }

 private:
  fs::path path_;
};

// The query's environment: only what a program needs to start, plus ours.
std::vector<std::pair<std::string, std::string>> query_environment(const std::string& name) {
  std::vector<std::pair<std::string, std::string>> environment;
  for (const char* variable : {"PATH", "HOME", "LANG", "LC_ALL"})
    if (const char* value = std::getenv(variable)) environment.emplace_back(variable, value);
  environment.emplace_back("HOOKBUS_QUERY", "1");
  environment.emplace_back("HOOKBUS_HOOK_NAME", name);
  return environment;
}

// The events a hook asks for, or why it cannot be used.
using QueryAnswer = std::variant<std::vector<RequestedEvent>, std::string>;

// Checks the names a hook gave (one per element) against the catalogue.
QueryAnswer events_from_names(const std::vector<std::string>& names, std::string_view how) {
  std::vector<RequestedEvent> events;
  for (const auto& name : names) {
    const auto index = find_event(name);
    if (!index)
      return fmt::format("{} '{}', which is not an event name or alias; `hookctl events` lists them", how, name);
    const bool repeated = std::any_of(events.begin(), events.end(), [&](const auto& e) { return e.index == *index; });
    if (!repeated) events.push_back({*index, name});
  }
  if (events.empty()) return std::string("'hook' query printed no event name; print one per line, e.g. tool_call");
  return events;
}

// Runs `HOOK hook` in the sandbox; the non-empty lines it printed, or why it failed.
std::variant<std::vector<std::string>, std::string> query(const fs::path& path, const std::string& name,
                                                          Duration timeout) {
  ProcessResult answer;
  try {
    const ScratchDirectory scratch;
    // Nothing of it outlives the answer: it runs in a directory removed afterwards.
    answer = run_process({.program = path,
                          .arguments = {"hook"},
                          .extra_environment = query_environment(name),
                          .inherit_environment = false,
                          .working_directory = scratch.path(),
                          .timeout = timeout,
                          .detached_may_outlive = false});
  } catch (const ProcessError& e) {
    return std::string(e.what());
  }
  if (answer.timed_out) return fmt::format("'hook' query timed out after {} ms", timeout.count());
  if (!answer.succeeded()) {
    const std::string tail = answer.stderr_tail();
    return fmt::format("'hook' query failed: {}{}{}", answer.status(), tail.empty() ? "" : ": ", tail);
  }
  std::vector<std::string> lines;
  std::string_view rest = answer.stdout_text;
  while (!rest.empty()) {
    const auto end = std::min(rest.find('\n'), rest.size());
    const std::string_view line = detail::trim(rest.substr(0, end));
    rest.remove_prefix(std::min(end + 1, rest.size()));
    if (!line.empty()) lines.emplace_back(line);
  }
  return lines;
}

class Discovery {
 public:
  explicit Discovery(const DiscoveryOptions& options) : options_(options), cache_(options.query_cache) {}

  void scan(const HookDirectory& dir) {
    struct stat st {};
    if (::stat(dir.path.c_str(), &st) != 0) {
      const int error = errno;
      if (error != ENOENT && error != ENOTDIR)
        refuse(dir, "", dir.path, "cannot read the hook directory: " + std::generic_category().message(error));
      else if (std::error_code ec; fs::is_symlink(fs::symlink_status(dir.path, ec)))  // not "missing": broken
        refuse(dir, "", dir.path,
               fmt::format("the hook directory is a symlink to '{}', which does not exist",
                           fs::read_symlink(dir.path, ec).string()));
      return;  // a missing directory is simply empty
    }
    if (!S_ISDIR(st.st_mode)) return refuse(dir, "", dir.path, "is not a directory");
    if (auto why = detail::unsafe_path_reason(dir.path)) return refuse(dir, "", dir.path, "the hook directory: " + *why);
    if (!scanned_.insert({dir.layer, fs::weakly_canonical(dir.path)}).second) return;  // listed twice: the first counts

    std::error_code ec;
    const std::vector<detail::DirectoryEntry> entries = detail::directory_entries(dir.path, ec);  // in name order
    if (ec) return refuse(dir, "", dir.path, "cannot list the hook directory: " + ec.message());
    for (const auto& entry : entries) examine(dir, entry.path);
  }

  DiscoveryReport take() && {
    cache_.save();
    return std::move(report_);
  }

 private:
  void examine(const HookDirectory& dir, const fs::path& file) {
    protocol_ = HookProtocol::hookbus;
    const std::string file_name = file.filename().string();
    const std::string name = dir.prefix + file_name;
    if (file_name.starts_with('.')) return ignore(dir, name, file, "dot-files are never hooks");
    if (file_name.ends_with(".disable")) return ignore(dir, name, file, "disabled by its '.disable' suffix");
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) {
      const int error = errno;
      return refuse(dir, name, file, "cannot stat it: " + std::generic_category().message(error) + " (a broken symlink?)");
    }
    if (S_ISDIR(st.st_mode)) return ignore(dir, name, file, "a directory");
    if (!S_ISREG(st.st_mode)) return ignore(dir, name, file, "not a regular file");
    if (::access(file.c_str(), X_OK) != 0) return ignore(dir, name, file, "not executable (chmod +x makes it a hook)");
    if (auto runner = options_.run_elsewhere ? options_.run_elsewhere(dir.layer, file) : std::nullopt)
      return ignore(dir, name, file, std::move(*runner));

    // A hook from here on: what config declares says its protocol, also when it does not run.
    const auto declaration = options_.declared ? options_.declared(dir.layer, name) : std::nullopt;
    protocol_ = declaration ? declaration->protocol : HookProtocol::hookbus;
    const auto [owner, fresh] = claimed_.try_emplace({dir.layer, name}, file, dir.source);
    if (!fresh) {
      const auto& [path, source] = owner->second;
      return skip(dir, name, file, SkippedFile::Why::shadowed, fmt::format("shadowed by {} ({})", path.string(), source));
    }
    if (auto why = detail::unsafe_path_reason(file)) return refuse(dir, name, file, "the hook file: " + *why);
    if (auto why = detail::relative_interpreter_reason(file)) return refuse(dir, name, file, "the hook file: " + *why);
    if (auto why = options_.why_not_run ? options_.why_not_run(dir.layer) : std::nullopt)
      return skip(dir, name, file, SkippedFile::Why::not_run, std::move(*why));
    if (auto why = options_.why_file_not_run ? options_.why_file_not_run(dir.layer, file) : std::nullopt)
      return skip(dir, name, file, SkippedFile::Why::not_run, std::move(*why));

    DiscoveredHook hook{.name = name, .events = {}, .path = file, .source = dir.source, .layer = dir.layer};
    if (declaration) {
      hook.protocol = declaration->protocol;
      hook.declared_events = declaration->events;
      hook.events_from = EventsFrom::declared;
      if (!declared_like_claude_code(hook.protocol)) {
        auto events = events_from_names(declaration->events, "its config declares the event");
        if (auto* why = std::get_if<std::string>(&events)) return refuse(dir, name, file, std::move(*why));
        hook.events = std::get<std::vector<RequestedEvent>>(std::move(events));
      }
      report_.hooks.push_back(std::move(hook));
      return;
    }
    auto events = ask_events(file, name, hook.events_from);
    if (auto* why = std::get_if<std::string>(&events)) return refuse(dir, name, file, std::move(*why));
    hook.events = std::get<std::vector<RequestedEvent>>(std::move(events));
    report_.hooks.push_back(std::move(hook));
  }

  // From the cache when this exact file answered before, else by the query.
  QueryAnswer ask_events(const fs::path& file, const std::string& name, EventsFrom& from) {
    const auto identity = detail::identify(file);
    if (identity) {
      if (auto cached = cache_.find(file, *identity)) {
        from = EventsFrom::cache;
        return events_from_names(*cached, "'hook' query answered");
      }
    }
    from = EventsFrom::query;
    auto answer = query(file, name, options_.query_timeout);
    if (auto* why = std::get_if<std::string>(&answer)) return std::move(*why);
    auto& lines = std::get<std::vector<std::string>>(answer);
    auto events = events_from_names(lines, "'hook' query answered");
    // Only good answers are kept: a failing hook is asked again next time.
    if (identity && std::holds_alternative<std::vector<RequestedEvent>>(events))
      cache_.store(file, *identity, std::move(lines));
    return events;
  }

  void ignore(const HookDirectory& dir, const std::string& name, const fs::path& path, std::string reason) {
    skip(dir, name, path, SkippedFile::Why::ignored, std::move(reason));
  }

  void refuse(const HookDirectory& dir, const std::string& name, const fs::path& path, std::string reason) {
    detail::log(spdlog::level::warn, "external hook {} ({}) refused: {}", name.empty() ? "directory" : "'" + name + "'", path.string(),
                   reason);
    skip(dir, name, path, SkippedFile::Why::refused, std::move(reason));
  }

  void skip(const HookDirectory& dir, const std::string& name, const fs::path& path, SkippedFile::Why why,
            std::string reason) {
    report_.skipped.push_back({name, path, dir.source, dir.layer, why, std::move(reason), protocol_});
  }

  const DiscoveryOptions& options_;
  detail::QueryCache cache_;
  // (layer, hook name) -> the file and source that own it
  std::map<std::pair<Layer, std::string>, std::pair<fs::path, std::string>> claimed_;
  std::set<std::pair<Layer, fs::path>> scanned_;
  HookProtocol protocol_ = HookProtocol::hookbus;  // of the file being examined, as config declares it
  DiscoveryReport report_;
};

}  // namespace

void HookDirectories::add(std::filesystem::path path, std::string source, std::string prefix, Layer layer) {
  entries.push_back({std::move(path), std::move(prefix), std::move(source), layer});
}

void HookDirectories::add_with_plugins(const std::filesystem::path& path, const std::string& source, Layer layer) {
  add(path, source, "", layer);
  const fs::path plugins = without_trailing_separator(path).parent_path() / "plugins";
  for (const auto& org : plain_subdirectories(plugins))
    for (const auto& repo : plain_subdirectories(org)) {
      const std::string plugin = org.filename().string() + "/" + repo.filename().string();
      add(repo / "hooks", source + " plugin " + plugin, plugin + "/", layer);
    }
}

HookDirectories layer_hook_directories(const Locations& locations, const LayeredConfig& config) {
  HookDirectories directories;
  for (const Layer layer : all_layers) {
    if (const Config* layer_config = config.layer(layer)) {
      const std::string source = fmt::format("{} config {}", layer_name(layer), layer_config->file.string());
      for (const auto& dir : layer_config->hook_directories) directories.add(dir, source, "", layer);
    }
    const fs::path own = locations.hook_directory(layer);
    if (!own.empty()) directories.add_with_plugins(own, std::string(layer_name(layer)), layer);
  }
  return directories;
}

HookDirectories default_hook_directories(const std::filesystem::path& project_dir,
                                         const std::vector<std::filesystem::path>& extra) {
  const Locations locations = Locations::from_environment(project_dir);
  HookDirectories directories;
  for (const auto& dir : extra) directories.add(dir, "config", "", Layer::project);
  directories.add_with_plugins(locations.hook_directory(Layer::project), "project", Layer::project);
  if (!locations.user.empty()) directories.add_with_plugins(locations.hook_directory(Layer::user), "user", Layer::user);
  return directories;
}

std::string_view skip_reason_name(SkippedFile::Why why) noexcept {
  switch (why) {
    case SkippedFile::Why::ignored: return "ignored";
    case SkippedFile::Why::shadowed: return "shadowed";
    case SkippedFile::Why::refused: return "refused";
    case SkippedFile::Why::not_run: return "not run";
  }
  return "skipped";
}

DiscoveryReport discover_hooks(const HookDirectories& directories, const DiscoveryOptions& options) {
  // Layer order first, whatever order the directories were given in; precedence within a layer.
  std::vector<HookDirectory> ordered = directories.entries;
  // A hook starts elsewhere (the query in a scratch directory, a run in the
  // event's): a relative path names its file from here, where it was named.
  for (HookDirectory& dir : ordered)
    if (std::error_code ec; dir.path.is_relative())
      if (fs::path absolute = fs::absolute(dir.path, ec); !ec) dir.path = std::move(absolute);
  std::stable_sort(ordered.begin(), ordered.end(), [](const HookDirectory& a, const HookDirectory& b) {
    return static_cast<int>(a.layer) < static_cast<int>(b.layer);
  });
  Discovery discovery(options);
  for (const auto& dir : ordered) discovery.scan(dir);
  return std::move(discovery).take();
}

std::optional<std::string> unsafe_hook_file(const std::filesystem::path& file) {
  return detail::unsafe_path_reason(file);
}

}  // namespace hookbus
