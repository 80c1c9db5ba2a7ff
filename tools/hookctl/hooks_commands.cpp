// `hookctl list`, `hookctl emit` and `hookctl run-hook`: external hooks from
// the command line (docs/external-hooks.md). Each accepts `--project DIR`
// (default: the current directory), whose `.hookbus/config.json` and hook
// directories it uses.

#include "commands.hpp"

#include <hookbus/builtins.hpp>
#include <hookbus/config.hpp>
#include <hookbus/external.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace hookctl {
namespace {

namespace fs = std::filesystem;
using namespace hookbus;

// The command's arguments with `--project DIR` taken out.
struct ProjectArguments {
  fs::path project_dir;  // absolute
  std::vector<std::string_view> rest;
};

ProjectArguments take_project_option(Arguments args) {
  ProjectArguments parsed{fs::current_path(), {}};
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "--project") {
      parsed.rest.push_back(args[i]);
      continue;
    }
    if (i + 1 == args.size()) throw UsageError("--project needs a directory");
    parsed.project_dir = fs::absolute(args[++i]);
    if (!fs::is_directory(parsed.project_dir))
      throw UsageError("--project " + parsed.project_dir.string() + ": not a directory");
  }
  return parsed;
}

// The project's `.hookbus/config.json`, or the defaults when it has none. A bad
// file is bad input.
Config project_config(const fs::path& project_dir) {
  try {
    return load_project_config(project_dir).value_or(Config{.project_dir = project_dir});
  } catch (const ConfigError& error) {
    throw UsageError(error.what());
  }
}

// The event NAME from JSON given as an argument, or read from stdin for "-";
// no JSON is the empty object (every field at its default, where allowed).
HookEvent read_event(std::string_view name, std::optional<std::string_view> json_argument) {
  const std::size_t index = resolve_event(name);  // UnknownEventError: a usage error, listing the names
  try {
    if (!json_argument) return event_from_json(index, boost::json::object{});
    if (*json_argument == "-") {
      const std::string text(std::istreambuf_iterator<char>(std::cin), {});
      return event_from_json(index, parse_json(text, "stdin"));
    }
    return event_from_json(index, parse_json(*json_argument, "the JSON argument"));
  } catch (const JsonError& error) {
    throw UsageError(error.what());
  }
}

std::optional<std::string_view> optional_argument(const std::vector<std::string_view>& args, std::size_t index) {
  return index < args.size() ? std::optional(args[index]) : std::nullopt;
}

void expect_at_most(const std::vector<std::string_view>& args, std::size_t count) {
  if (args.size() > count) throw UsageError("unexpected argument '" + std::string(args[count]) + "'");
}

// ------------------------------------------------------------------- list

std::string_view why_name(SkippedFile::Why why) {
  switch (why) {
    case SkippedFile::Why::ignored: return "ignored";
    case SkippedFile::Why::shadowed: return "shadowed";
    case SkippedFile::Why::refused: return "refused";
  }
  return "skipped";
}

std::string event_list(const DiscoveredHook& hook) {
  std::string list;
  for (const auto& event : hook.events) {
    if (!list.empty()) list += ", ";
    list += event.name;
    if (event.name != event_name(event.index)) list += fmt::format(" (= {})", event_name(event.index));
  }
  return list;
}

// What the config changes about a hook, if anything: " [disabled in config]".
std::string configured_notes(const Config& config, const std::string& name) {
  const auto found = config.hooks.find(name);
  if (found == config.hooks.end()) return "";
  const HookOverride& settings = found->second;
  std::vector<std::string> notes;
  if (settings.disabled) notes.emplace_back("disabled in config");
  if (settings.timeout) notes.push_back(fmt::format("timeout {} ms", settings.timeout->count()));
  if (settings.failure == FailurePolicy::fail_closed) notes.emplace_back("fail-closed");
  return notes.empty() ? "" : fmt::format(" [{}]", fmt::join(notes, ", "));
}

void print_directories(const HookDirectories& directories) {
  fmt::print("hook directories, highest precedence first:\n");
  for (const auto& dir : directories.entries) {
    std::error_code ec;
    fmt::print("  {}  ({}{})\n", dir.path.string(), dir.source, fs::is_directory(dir.path, ec) ? "" : ", missing");
  }
}

void print_hooks(const DiscoveryReport& report, const Config& config) {
  fmt::print("\nhooks, in run order:\n");
  if (report.hooks.empty()) fmt::print("  (none)\n");
  for (const auto& hook : report.hooks)
    fmt::print("  {}: {}\n    {}  ({}){}\n", hook.name, event_list(hook), hook.path.string(), hook.source,
               configured_notes(config, hook.name));
}

void print_skipped(const DiscoveryReport& report) {
  if (report.skipped.empty()) return;
  fmt::print("\nskipped:\n");
  for (const auto& file : report.skipped)
    fmt::print("  {} {}: {}\n    {}  ({})\n", why_name(file.why), file.name.empty() ? "directory" : file.name,
               file.reason, file.path.string(), file.source);
}

// -------------------------------------------------------------- run-hook

void print_stream(std::string_view name, const std::string& text, bool truncated) {
  fmt::print("{} ({} bytes{}):\n", name, text.size(), truncated ? ", cut at the limit" : "");
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto end = std::min(rest.find('\n'), rest.size());
    fmt::print("  | {}\n", rest.substr(0, end));
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
}

Duration timeout_for(const Config& config, const std::string& name) {
  const auto found = config.hooks.find(name);
  if (found != config.hooks.end() && found->second.timeout) return *found->second.timeout;
  return config.default_timeout;
}

}  // namespace

int list_command(Arguments args) {
  const auto [project_dir, rest] = take_project_option(args);
  expect_at_most(rest, 0);
  const Config config = project_config(project_dir);
  const HookDirectories directories = hook_directories(config);
  logger()->set_level(spdlog::level::off);  // refusals are in the report: no second copy on stderr
  const DiscoveryReport report = discover_hooks(directories);
  print_directories(directories);
  print_hooks(report, config);
  print_skipped(report);
  return exit_ok;
}

int emit_command(Arguments args) {
  const auto [project_dir, rest] = take_project_option(args);
  if (rest.empty()) throw UsageError("missing event name");
  expect_at_most(rest, 2);
  const HookEvent event = read_event(rest[0], optional_argument(rest, 1));
  const Config config = project_config(project_dir);

  Hooks hooks;
  ConnectionGroup builtins;
  try {
    builtins = install_builtins(hooks, config);
  } catch (const ConfigError& error) {
    throw UsageError(error.what());
  }
  const ConnectionGroup external = install_external_hooks(hooks, discover_hooks(hook_directories(config)), config);
  fmt::print("{}\n", pretty_json(to_json(hooks.emit(event))));
  return exit_ok;
}

int run_hook_command(Arguments args) {
  const auto [project_dir, rest] = take_project_option(args);
  if (rest.size() < 2) throw UsageError(rest.empty() ? "missing hook path" : "missing event name");
  expect_at_most(rest, 3);
  const std::string_view requested_name = rest[1];
  const HookEvent event = read_event(requested_name, optional_argument(rest, 2));
  const Config config = project_config(project_dir);
  const fs::path path = fs::absolute(rest[0]).lexically_normal();
  const ExternalHook hook{path.filename().string(), path, timeout_for(config, path.filename().string()), project_dir};

  const ProcessResult run = run_external_hook(hook, event, requested_name);  // ProcessError: cannot start it
  const std::string_view wire_name = event_name(event);
  fmt::print("hook:     {}\nevent:    {}{}\nstatus:   {}\nduration: {} ms\n", path.string(), wire_name,
             requested_name == wire_name ? "" : fmt::format(" (as {})", requested_name), run.status(),
             run.duration.count());
  print_stream("stdout", run.stdout_text, run.stdout_truncated);
  print_stream("stderr", run.stderr_text, run.stderr_truncated);
  try {
    const HookOutcome outcome = hook_outcome(hook, event, run);
    if (std::holds_alternative<std::monostate>(outcome)) fmt::print("result:   no change\n");
    else fmt::print("result:\n{}\n", pretty_json(to_json(outcome)));
    return exit_ok;
  } catch (const ExternalHookError& error) {
    fmt::print("result:   failure: {}\n", error.what());
    return exit_failure;
  }
}

}  // namespace hookctl
