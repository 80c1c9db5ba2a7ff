// Hook discovery: scanning hook directories by the rules in
// include/hookbus/discovery.hpp, and asking each candidate `HOOK hook`.
#include <hookbus/discovery.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/process.hpp>

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

// Subdirectories of `dir` that are not dot-directories, by name; none if `dir` is missing.
std::vector<fs::path> plain_subdirectories(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code not_a_dir;
    if (it->path().filename().string().starts_with('.') || !it->is_directory(not_a_dir)) continue;
    found.push_back(it->path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// The directory a path names, with any trailing separator dropped, so that
// parent_path() is really its parent (`a/hooks/` has the parent_path `a/hooks`).
fs::path without_trailing_separator(const fs::path& path) {
  return path.has_filename() ? path : path.parent_path();
}

std::optional<fs::path> user_config_directory() {
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && xdg[0] == '/') return fs::path(xdg);
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') return fs::path(home) / ".config";
  return std::nullopt;
}

bool writable_by_others(const struct stat& st) noexcept { return (st.st_mode & (S_IWGRP | S_IWOTH)) != 0; }

std::string insecure_reason(std::string_view what, const fs::path& path, const struct stat& st) {
  return fmt::format("{} is writable by group or others (mode {:04o}), so anyone who can write it could run code "
                     "as the agent; fix with: chmod go-w '{}'",
                     what, st.st_mode & 07777, path.string());
}

// The events a hook asks for, or why it cannot be used.
using QueryAnswer = std::variant<std::vector<RequestedEvent>, std::string>;

QueryAnswer ask_events(const fs::path& path, const std::string& name, Duration timeout) {
  ProcessResult answer;
  try {
    answer = run_process(
        {.program = path, .arguments = {"hook"}, .extra_environment = {{"HOOKBUS_HOOK_NAME", name}}, .timeout = timeout});
  } catch (const ProcessError& e) {
    return std::string(e.what());
  }
  if (answer.timed_out) return fmt::format("'hook' query timed out after {} ms", timeout.count());
  if (!answer.succeeded()) {
    const std::string tail = answer.stderr_tail();
    return fmt::format("'hook' query failed: {}{}{}", answer.status(), tail.empty() ? "" : ": ", tail);
  }
  std::vector<RequestedEvent> events;
  std::string_view rest = answer.stdout_text;
  while (!rest.empty()) {
    const auto end = std::min(rest.find('\n'), rest.size());
    const std::string_view line = detail::trim(rest.substr(0, end));
    rest.remove_prefix(std::min(end + 1, rest.size()));
    if (line.empty()) continue;
    const auto index = find_event(line);
    if (!index)
      return fmt::format("'hook' query answered '{}', which is not an event name or alias; `hookctl events` "
                         "lists them",
                         line);
    const bool repeated = std::any_of(events.begin(), events.end(), [&](const auto& e) { return e.index == *index; });
    if (!repeated) events.push_back({*index, std::string(line)});
  }
  if (events.empty()) return std::string("'hook' query printed no event name; print one per line, e.g. tool_call");
  return events;
}

class Discovery {
 public:
  explicit Discovery(Duration query_timeout) : query_timeout_(query_timeout) {}

  void scan(const HookDirectory& dir) {
    struct stat st {};
    if (::stat(dir.path.c_str(), &st) != 0) {
      const int error = errno;
      if (error != ENOENT && error != ENOTDIR)
        refuse(dir, "", dir.path, "cannot read the hook directory: " + std::generic_category().message(error));
      return;  // a missing directory is simply empty
    }
    if (!S_ISDIR(st.st_mode)) return refuse(dir, "", dir.path, "is not a directory");
    if (writable_by_others(st)) return refuse(dir, "", dir.path, insecure_reason("the hook directory", dir.path, st));
    if (!scanned_.insert(fs::weakly_canonical(dir.path)).second) return;  // listed twice: the first one counts

    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir.path, ec), end; !ec && it != end; it.increment(ec)) files.push_back(it->path());
    if (ec) return refuse(dir, "", dir.path, "cannot list the hook directory: " + ec.message());
    std::sort(files.begin(), files.end());  // name order within a directory
    for (const auto& file : files) examine(dir, file);
  }

  DiscoveryReport take() && { return std::move(report_); }

 private:
  void examine(const HookDirectory& dir, const fs::path& file) {
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

    const auto [owner, fresh] = claimed_.try_emplace(name, file, dir.source);
    if (!fresh) {
      const auto& [path, source] = owner->second;
      return skip(dir, name, file, SkippedFile::Why::shadowed,
                  fmt::format("shadowed by {} ({})", path.string(), source));
    }
    if (writable_by_others(st)) return refuse(dir, name, file, insecure_reason("the hook file", file, st));

    auto answer = ask_events(file, name, query_timeout_);
    if (auto* why = std::get_if<std::string>(&answer)) return refuse(dir, name, file, std::move(*why));
    report_.hooks.push_back({name, std::get<std::vector<RequestedEvent>>(std::move(answer)), file, dir.source});
  }

  void ignore(const HookDirectory& dir, const std::string& name, const fs::path& path, std::string reason) {
    skip(dir, name, path, SkippedFile::Why::ignored, std::move(reason));
  }

  void refuse(const HookDirectory& dir, const std::string& name, const fs::path& path, std::string reason) {
    logger()->warn("external hook {} ({}) refused: {}", name.empty() ? "directory" : "'" + name + "'", path.string(),
                   reason);
    skip(dir, name, path, SkippedFile::Why::refused, std::move(reason));
  }

  void skip(const HookDirectory& dir, const std::string& name, const fs::path& path, SkippedFile::Why why,
            std::string reason) {
    report_.skipped.push_back({name, path, dir.source, why, std::move(reason)});
  }

  Duration query_timeout_;
  std::map<std::string, std::pair<fs::path, std::string>> claimed_;  // hook name -> the file and source that own it
  std::set<fs::path> scanned_;
  DiscoveryReport report_;
};

}  // namespace

void HookDirectories::add(std::filesystem::path path, std::string source, std::string prefix) {
  entries.push_back({std::move(path), std::move(prefix), std::move(source)});
}

void HookDirectories::add_with_plugins(const std::filesystem::path& path, const std::string& source) {
  add(path, source);
  const fs::path plugins = without_trailing_separator(path).parent_path() / "plugins";
  for (const auto& org : plain_subdirectories(plugins))
    for (const auto& repo : plain_subdirectories(org)) {
      const std::string plugin = org.filename().string() + "/" + repo.filename().string();
      add(repo / "hooks", source + " plugin " + plugin, plugin + "/");
    }
}

HookDirectories default_hook_directories(const std::filesystem::path& project_dir,
                                         const std::vector<std::filesystem::path>& extra) {
  HookDirectories directories;
  for (const auto& dir : extra) directories.add(dir, "config");
  directories.add_with_plugins(project_dir / ".hookbus" / "hooks", "project");
  if (auto user = user_config_directory()) directories.add_with_plugins(*user / "hookbus" / "hooks", "user");
  return directories;
}

DiscoveryReport discover_hooks(const HookDirectories& directories, Duration query_timeout) {
  Discovery discovery(query_timeout);
  for (const auto& dir : directories.entries) discovery.scan(dir);
  return std::move(discovery).take();
}

}  // namespace hookbus
