// `hookctl list`, `emit`, `run-hook`, `trust` and `config`: hooks, layers and
// trust from the command line (docs/external-hooks.md, docs/security.md).
// Each accepts `--project DIR` (default: the current directory); list and emit
// set the bus up exactly as an engine's hookbus::setup() would.

#include "commands.hpp"

#include <hookbus/config.hpp>
#include <hookbus/external.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trust.hpp>

#include <boost/json/serialize.hpp>
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

// The command's arguments with `--project DIR` and `--project-trust POLICY` taken out.
struct ProjectArguments {
  fs::path project_dir;  // absolute
  ProjectTrustPolicy trust = ProjectTrustPolicy::require;
  std::vector<std::string_view> rest;
};

ProjectTrustPolicy trust_policy(std::string_view name) {
  if (name == "require") return ProjectTrustPolicy::require;
  if (name == "trust_all") return ProjectTrustPolicy::trust_all;
  if (name == "ignore") return ProjectTrustPolicy::ignore;
  throw UsageError("--project-trust must be require, trust_all or ignore, not '" + std::string(name) + "'");
}

ProjectArguments take_project_options(Arguments args) {
  ProjectArguments parsed{fs::current_path(), ProjectTrustPolicy::require, {}};
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "--project" && args[i] != "--project-trust") {
      parsed.rest.push_back(args[i]);
      continue;
    }
    if (i + 1 == args.size()) throw UsageError(std::string(args[i]) + " needs a value");
    if (args[i] == "--project-trust") {
      parsed.trust = trust_policy(args[++i]);
      continue;
    }
    const std::string_view dir = args[++i];
    if (dir.empty()) throw UsageError("--project needs a directory, not an empty string");
    parsed.project_dir = fs::absolute(dir).lexically_normal();
    std::error_code ec;
    if (!fs::is_directory(parsed.project_dir, ec))
      throw UsageError("--project " + parsed.project_dir.string() + ": not a directory");
  }
  return parsed;
}

// The bus set up for the project as an engine would; a bad config is bad input.
Installation set_up(Hooks& hooks, const ProjectArguments& args) {
  try {
    return setup(hooks, {.project_dir = args.project_dir, .project_trust = args.trust});
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

std::string event_list(const DiscoveredHook& hook) {
  if (hook.protocol == HookProtocol::claude_code) return fmt::format("{}", fmt::join(hook.declared_events, ", "));
  std::string list;
  for (const auto& event : hook.events) {
    if (!list.empty()) list += ", ";
    list += event.name;
    if (event.name != event_name(event.index)) list += fmt::format(" (= {})", event_name(event.index));
  }
  return list;
}

std::string_view events_from_name(EventsFrom from) {
  switch (from) {
    case EventsFrom::declared: return "declared in config";
    case EventsFrom::cache: return "cached answer";
    case EventsFrom::query: return "asked";
  }
  return "";
}

// What the config changes about an installed hook: " [fail-closed, timeout 500 ms]".
std::string settings_notes(const ResolvedHookSettings& settings) {
  std::vector<std::string> notes;
  if (!settings.timeout.origin.file.empty()) notes.push_back(fmt::format("timeout {} ms", settings.timeout.value.count()));
  if (settings.failure.value == FailurePolicy::fail_closed) notes.emplace_back("fail-closed");
  if (!settings.tools.value.empty()) notes.push_back("tools " + settings.tools.value);
  return notes.empty() ? "" : fmt::format(" [{}]", fmt::join(notes, ", "));
}

std::string_view file_state_name(ConfigFileState::State state) {
  switch (state) {
    case ConfigFileState::State::absent: return "absent";
    case ConfigFileState::State::applied: return "applied";
    case ConfigFileState::State::not_applied: return "not applied";
  }
  return "";
}

void print_trust(const SetupReport& report) {
  fmt::print("project {}: {}\n", report.locations.project.string(), trust_state_name(report.trust.state));
  if (!report.trust.project_may_run() && !report.trust.message.empty()) fmt::print("  {}\n", report.trust.message);
}

void print_config_files(const SetupReport& report) {
  fmt::print("\nconfig files, most trusted first:\n");
  for (const auto& file : report.config_files)
    fmt::print("  {:<8} {}  ({}{})\n", layer_name(file.layer), file.file.string(), file_state_name(file.state),
               file.note.empty() ? "" : ": " + file.note);
}

void print_directories(const HookDirectories& directories) {
  fmt::print("\nhook directories, by layer and precedence:\n");
  for (const auto& dir : directories.entries) {
    std::error_code ec;
    fmt::print("  {:<8} {}  ({}{})\n", layer_name(dir.layer), dir.path.string(), dir.source,
               fs::is_directory(dir.path, ec) ? "" : ", missing");
  }
}

void print_hooks(const SetupReport& report) {
  fmt::print("\nhooks, in run order:\n");
  if (report.hooks.installed.empty()) fmt::print("  (none)\n");
  for (const auto& installed : report.hooks.installed) {
    if (installed.protocol == HookProtocol::claude_code) {
      fmt::print("  {}: {}{}\n    {}  ({} layer, claude_code protocol)\n", installed.name,
                 fmt::join(installed.events, ", "),
                 installed.matcher.empty() ? "" : fmt::format(" (matcher {})", installed.matcher),
                 installed.command.empty() ? installed.path.string() : installed.source + ": " + installed.command,
                 layer_name(installed.layer));
      continue;
    }
    const auto found = std::find_if(report.discovery.hooks.begin(), report.discovery.hooks.end(), [&](const auto& h) {
      return h.name == installed.name && h.layer == installed.layer;
    });
    fmt::print("  {}: {}\n    {}  ({}, hookbus protocol, events {}){}\n", installed.name, event_list(*found),
               installed.path.string(), found->source, events_from_name(found->events_from),
               settings_notes(installed.settings));
  }
  if (!report.hooks.refusing.empty()) {
    fmt::print("\nrefusing, in place of fail-closed hooks that cannot run:\n");
    for (const auto& refusing : report.hooks.refusing)
      fmt::print("  {}: {}\n    {}\n", refusing.name, fmt::join(refusing.events, ", "), refusing.reason);
  }
  if (!report.hooks.not_installed.empty()) {
    fmt::print("\nnot installed:\n");
    for (const auto& hook : report.hooks.not_installed)
      fmt::print("  {} ({}): {}\n    {}\n", hook.name, layer_name(hook.layer), hook.reason, hook.path.string());
  }
}

void print_skipped(const DiscoveryReport& report) {
  if (report.skipped.empty()) return;
  fmt::print("\nskipped:\n");
  for (const auto& file : report.skipped)
    fmt::print("  {} {}: {}\n    {}  ({})\n", skip_reason_name(file.why), file.name.empty() ? "directory" : file.name,
               file.reason, file.path.string(), file.source);
}

void print_builtins_and_warnings(const SetupReport& report) {
  if (!report.builtins.empty()) {
    fmt::print("\nbuilt-ins:\n");
    for (const auto& builtin : report.builtins) fmt::print("  {}\n", builtin);
  }
  if (!report.warnings.empty()) {
    fmt::print("\nwarnings:\n");
    for (const auto& warning : report.warnings) fmt::print("  {}\n", warning);
  }
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

// ------------------------------------------------------------------ trust

void print_files(const ProjectFingerprint& fingerprint) {
  for (const auto& file : fingerprint.files) fmt::print("  {:04o}  {}  {}\n", file.mode, file.sha256.substr(0, 16), file.path);
}

std::string_view change_name(FileChange::Kind kind) {
  switch (kind) {
    case FileChange::Kind::added: return "added";
    case FileChange::Kind::removed: return "removed";
    case FileChange::Kind::modified: return "modified";
  }
  return "";
}

}  // namespace

int list_command(Arguments args) {
  const ProjectArguments parsed = take_project_options(args);
  expect_at_most(parsed.rest, 0);
  logger()->set_level(spdlog::level::off);  // everything is in the report: no second copy on stderr
  Hooks hooks;
  const Installation setup = set_up(hooks, parsed);
  const SetupReport& report = setup.report;
  print_trust(report);
  print_config_files(report);
  print_directories(report.directories);
  print_hooks(report);
  print_skipped(report.discovery);
  print_builtins_and_warnings(report);
  return exit_ok;
}

int emit_command(Arguments args) {
  const ProjectArguments parsed = take_project_options(args);
  if (parsed.rest.empty()) throw UsageError("missing event name");
  expect_at_most(parsed.rest, 2);
  const HookEvent event = read_event(parsed.rest[0], optional_argument(parsed.rest, 1));
  Hooks hooks;
  const Installation setup = set_up(hooks, parsed);
  fmt::print("{}\n", pretty_json(to_json(hooks.emit(event))));
  return exit_ok;
}

int run_hook_command(Arguments args) {
  const ProjectArguments parsed = take_project_options(args);
  std::vector<std::string_view> rest;
  bool force = false;
  for (const auto arg : parsed.rest) {
    if (arg == "--force") force = true;
    else rest.push_back(arg);
  }
  if (rest.size() < 2) throw UsageError(rest.empty() ? "missing hook path" : "missing event name");
  expect_at_most(rest, 3);
  if (rest[0].empty()) throw UsageError("the hook path is an empty string");
  const std::string_view requested_name = rest[1];
  const HookEvent event = read_event(requested_name, optional_argument(rest, 2));
  const fs::path path = fs::absolute(rest[0]).lexically_normal();
  std::error_code ec;
  if (!fs::exists(path, ec)) throw UsageError(path.string() + ": no such file");
  if (auto why = unsafe_hook_file(path)) {
    if (!force) {
      fmt::print(stderr, "hookctl run-hook: refusing to run {}: {}\n(--force runs it anyway)\n", path.string(), *why);
      return exit_failure;
    }
    fmt::print(stderr, "hookctl run-hook: warning: {} is not safe ({}); running it because of --force\n", path.string(),
               *why);
  }
  const Locations locations = Locations::from_environment(parsed.project_dir);
  const std::string name = path.filename().string();
  std::vector<Config> layers;
  for (const Layer layer : all_layers)
    if (auto config = load_layer_config(locations.config_file(layer), layer)) layers.push_back(std::move(*config));
  const Duration timeout = LayeredConfig(std::move(layers)).hook_settings(Layer::project, name).timeout.value;
  const ExternalHook hook{name, path, timeout, parsed.project_dir};

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

int trust_command(Arguments args) {
  ProjectArguments parsed = take_project_options(args);
  bool dry_run = false;
  bool revoke = false;
  bool list = false;
  for (const auto arg : parsed.rest) {
    if (arg == "--dry-run") dry_run = true;
    else if (arg == "--revoke") revoke = true;
    else if (arg == "--list") list = true;
    else throw UsageError("unexpected argument '" + std::string(arg) + "'");
  }
  if (dry_run + revoke + list > 1) throw UsageError("--dry-run, --revoke and --list exclude each other");
  const Locations locations = Locations::from_environment(parsed.project_dir);
  TrustStore store = TrustStore::at(locations);
  if (list) {
    for (const auto& record : store.list())
      fmt::print("{}  (trusted {}, {} files, fingerprint {})\n", record.project.string(), record.trusted_at,
                 record.fingerprint.files.size(), record.fingerprint.digest.substr(0, 16));
    return exit_ok;
  }
  if (revoke) {
    const bool was_trusted = store.revoke(locations.project);
    fmt::print("{} {}\n", locations.project.string(), was_trusted ? "is no longer trusted" : "was not trusted");
    return exit_ok;
  }
  // What the project would run, as setup sees it: the same files, whatever the policy says.
  logger()->set_level(spdlog::level::off);
  Hooks hooks;
  parsed.trust = ProjectTrustPolicy::require;
  const Installation setup = set_up(hooks, parsed);
  const TrustReport& report = setup.report.trust;
  if (report.state == TrustState::nothing_to_trust) {
    fmt::print("{} brings no hooks, plugins or config: nothing to trust\n", locations.project.string());
    return exit_ok;
  }
  fmt::print("{} {} these files (mode, SHA-256, path):\n", dry_run ? "trusting would record" : "trusting",
             locations.project.string());
  print_files(report.now);
  if (!report.changes.empty()) {
    fmt::print("changed since it was last trusted:\n");
    for (const auto& change : report.changes)
      fmt::print("  {} {}{}\n", change_name(change.kind), change.path, change.detail.empty() ? "" : " (" + change.detail + ")");
  }
  if (dry_run) return exit_ok;
  store.trust(locations.project, report.now);
  fmt::print("recorded in {}\n", store.file().string());
  return exit_ok;
}

int config_command(Arguments args) {
  const ProjectArguments parsed = take_project_options(args);
  expect_at_most(parsed.rest, 0);
  logger()->set_level(spdlog::level::off);
  Hooks hooks;
  const Installation setup = set_up(hooks, parsed);
  const SetupReport& report = setup.report;
  print_trust(report);
  print_config_files(report);
  // Every value with the file it came from.
  fmt::print("\nmerged settings (value  <- where it was set):\n");
  const auto from = [](const ConfigLocation& where) {
    return where.file.empty() ? std::string("default") : fmt::format("{}: {}", where.file.string(), where.path);
  };
  for (const Layer layer : all_layers)
    fmt::print("  timeout_ms for {} hooks: {}  <- {}\n", layer_name(layer), report.config.default_timeout(layer).value.count(),
               from(report.config.default_timeout(layer).origin));
  for (const Config& layer : report.config.layers()) {
    const std::string file = layer.file.string();
    for (const auto& builtin : layer.builtins) fmt::print("  builtins.{}  <- {}\n", builtin.name, file);
    for (const auto& dir : layer.hook_directories) fmt::print("  hook_directories: {}  <- {}\n", dir.string(), file);
    if (layer.disable_all_hooks) fmt::print("  disable_all_hooks: {}  <- {}\n", *layer.disable_all_hooks, file);
    if (layer.allow_managed_hooks_only)
      fmt::print("  allow_managed_hooks_only: {}  <- {}\n", *layer.allow_managed_hooks_only, file);
  }
  for (const auto& installed : report.hooks.installed) {
    const ResolvedHookSettings& s = installed.settings;
    fmt::print("  hook {} ({}): timeout {} ms <- {}; failure {} <- {}\n", installed.name, layer_name(installed.layer),
               s.timeout.value.count(), from(s.timeout.origin),
               s.failure.value == FailurePolicy::fail_closed ? "fail_closed" : "fail_open", from(s.failure.origin));
  }
  if (!report.warnings.empty()) {
    fmt::print("\nwarnings:\n");
    for (const auto& warning : report.warnings) fmt::print("  {}\n", warning);
  }
  return exit_ok;
}

}  // namespace hookctl
