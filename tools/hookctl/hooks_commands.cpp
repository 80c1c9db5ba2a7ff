// `hookctl list`, `emit`, `run-hook`, `trust` and `config`: hooks, layers and
// trust from the command line (docs/external-hooks.md, docs/security.md).
// Each reads the project given by --project DIR (default: the current
// directory); list and emit set the bus up exactly as an engine's
// hookbus::setup() would. Everything shown that came from outside (names,
// paths, a hook's output, reasons, warnings) is escaped for the terminal;
// --json output is JSON.

#include "commands.hpp"
#include "formats/claude_code/run.hpp"
#include "formats/hook_format.hpp"
#include "support/file_safety.hpp"

#include <hookbus/claude_code.hpp>
#include <hookbus/config.hpp>
#include <hookbus/enum_names.hpp>
#include <hookbus/external.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/names.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trace_analysis.hpp>
#include <hookbus/workspace.hpp>
#include <hookbus/trust.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookctl {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace hookbus;

// How `hookctl config` names an agent's settings.
std::string agent_hooks_key(HookProtocol agent) {
  const std::string name(hook_protocol_name(agent));
  return agent == HookProtocol::claude_code ? name : "agent_hooks." + name;
}

std::string_view agent_name(HookProtocol agent) {
  switch (agent) {
    case HookProtocol::codex: return "Codex";
    case HookProtocol::qwen_code: return "Qwen Code";
    case HookProtocol::gemini_cli: return "Gemini CLI";
    case HookProtocol::cursor: return "Cursor";
    case HookProtocol::vscode: return "VS Code";
    case HookProtocol::copilot: return "Copilot CLI";
    case HookProtocol::cline: return "Cline";
    default: return "Claude Code";
  }
}

std::optional<fs::path> workspace_of(const Invocation& invocation) {
  const auto given = invocation.path("--workspace");
  if (!given) return std::nullopt;
  return given->lexically_normal();
}


// The most of stdin an event's JSON may take: far more than any event, far
// less than a mistaken `cat /dev/zero |` could fill memory with.
constexpr std::size_t max_event_json_size = 64 << 20;

std::string read_event_json_from_stdin() {
  std::string text;
  std::array<char, 65536> buffer{};
  while (std::cin.read(buffer.data(), buffer.size()) || std::cin.gcount() > 0) {
    text.append(buffer.data(), static_cast<std::size_t>(std::cin.gcount()));
    if (text.size() > max_event_json_size)
      throw UsageError(fmt::format("stdin: more than {} bytes; an event's JSON is smaller", max_event_json_size));
  }
  return text;
}

// The event NAME from JSON given as an argument, or read from stdin for "-";
// no JSON is the empty object. A field the JSON leaves out, at any depth,
// takes the catalogue's default (event_with_defaults), so a command line needs
// only the fields that matter; the library's own reader stays strict (json.hpp).
// A field the event does not have is a warning, or with --strict an error.
HookEvent read_event(const Invocation& invocation, std::string_view name, std::optional<std::string_view> json_argument) {
  const std::size_t index = resolve_event(name);  // UnknownEventError: a usage error, listing the names
  json::value given = json::object{};
  try {
    if (json_argument == "-") given = parse_json(read_event_json_from_stdin(), "stdin");
    else if (json_argument) given = parse_json(*json_argument, "the JSON argument");
  } catch (const JsonError& error) {
    throw UsageError(printable(error.what()));
  }
  std::vector<std::string> unknown;
  for (const UnknownField& field : event_unknown_fields(index, given)) unknown.push_back(field.message());
  check_unknown_fields(invocation, unknown, event_name(index));
  try {
    return event_with_defaults(index, given);
  } catch (const JsonError& error) {
    throw UsageError(printable(error.what()));
  }
}

std::string shown_path(const fs::path& path) { return printable(path.string()); }

// A setting's value as config writes it: "fail_closed", "persistent", "eager", ...
template <reflect::DescribedEnum E>
std::string_view wire_name_of(E value) {
  return reflect::enum_wire_name(value).value_or("?");
}

// ------------------------------------------------------------ outcomes

// " by block-rm-rf": the handler that decided, when the result names one.
std::string decider_of(const HookOutcome& outcome) {
  return std::visit(
      []<class R>(const R& result) -> std::string {
        if constexpr (requires { result.decided_by; }) {
          if (result.decided_by) return " by " + printable(result.decided_by->handler);
        }
        return "";
      },
      outcome);
}

bool asks_the_user(const HookOutcome& outcome) {
  return std::visit(
      []<class R>(const R& result) {
        if constexpr (DecidingResult<R>) return result.*result_rules<R>::decision == Decision::ask;
        else return false;
      },
      outcome);
}

bool is_gating_event(const HookEvent& event) {
  return std::visit([]<class E>(const E&) { return is_gating(reduction_of<E>); }, event);
}


// ------------------------------------------------------------------- list

std::string event_list(const DiscoveredHook& hook) {
  std::vector<std::string> names;
  if (declared_like_claude_code(hook.protocol)) {
    for (const auto& name : hook.declared_events) names.push_back(printable(name));
  } else {
    for (const auto& event : hook.events)
      names.push_back(event.name == event_name(event.index)
                          ? printable(event.name)
                          : fmt::format("{} (= {})", printable(event.name), event_name(event.index)));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

// A skipped file that is a hook (shadowed, refused or not run), which has a protocol; not an ignored file or a directory.
bool is_a_hook(const SkippedFile& file) { return !file.name.empty() && file.why != SkippedFile::Why::ignored; }

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
  if (!settings.tools.value.empty()) notes.push_back("tools " + printable(settings.tools.value));
  if (settings.mode.value == HookMode::persistent)
    notes.push_back(fmt::format("persistent, {} instance{}{}", settings.instances.value,
                                settings.instances.value == 1 ? "" : "s",
                                settings.start.value == HookStart::eager ? ", eager" : ""));
  if (settings.async.value) notes.emplace_back("async");
  if (settings.sequential.value) notes.emplace_back(*settings.sequential.value ? "sequential" : "not sequential");
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

// The discovery entry of an installed hook of the hookbus protocol.
// An HTTP hook config declares (HookSettings::url): no file, its request as its command.
bool is_http_hook(const InstallReport::Installed& installed) {
  return !declared_like_claude_code(installed.protocol) && installed.path.empty() && !installed.command.empty();
}

// The discovered file of an installed hookbus-protocol hook (not an HTTP hook: is_http_hook).
const DiscoveredHook& discovered(const SetupReport& report, const InstallReport::Installed& installed) {
  return *std::find_if(report.discovery.hooks.begin(), report.discovery.hooks.end(), [&](const DiscoveredHook& h) {
    return h.name == installed.name && h.layer == installed.layer;
  });
}

// A hook's trust state: "n/a" for the managed and user layers, which need
// none; for the project's layers whether the project is trusted.
std::string_view hook_trust(Layer layer, TrustState project) {
  if (!is_project_layer(layer)) return "n/a";
  switch (project) {
    case TrustState::nothing_to_trust:
    case TrustState::trusted:
    case TrustState::trusted_by_policy: return "trusted";
    case TrustState::changed: return "changed";
    case TrustState::ignored_by_policy: return "ignored";
    case TrustState::untrusted:
    case TrustState::store_unusable: return "untrusted";
  }
  return "untrusted";
}

// "project layer, trusted" or "user layer, trust n/a": where a hook comes from and its trust.
std::string layer_and_trust(const SetupReport& report, Layer layer) {
  const std::string_view trust = hook_trust(layer, report.trust.state);
  return fmt::format("{} layer, {}{}", layer_name(layer), trust == "n/a" ? "trust " : "", trust);
}

// ", from project plugin acme/tools" when a hook's directory says more than its layer.
std::string from_source(Layer layer, const std::string& source) {
  return source.empty() || source == layer_name(layer) ? "" : ", from " + printable(source);
}

// A project's Claude Code command that trust could not fully resolve, said
// where the command is listed and by `trust` (docs/security.md, "Trust").
constexpr std::string_view kNotCovered = "what it runs through this is not covered by the project's trust";

std::vector<const UnresolvedCommand*> unresolved_of(const SetupReport& report, Layer layer, const std::string& source) {
  std::vector<const UnresolvedCommand*> found;
  if (!is_project_layer(layer)) return found;
  for (const auto& unresolved : report.trust.unresolved)
    if (unresolved.source == source) found.push_back(&unresolved);
  return found;
}

void print_unresolved(const SetupReport& report, Layer layer, const std::string& source) {
  for (const UnresolvedCommand* unresolved : unresolved_of(report, layer, source))
    fmt::print("    not fully resolved: {}: {}; {}\n", printable(unresolved->construct), printable(unresolved->why),
               kNotCovered);
}

json::array unresolved_json(const SetupReport& report, Layer layer, const std::string& source) {
  json::array found;
  for (const UnresolvedCommand* unresolved : unresolved_of(report, layer, source))
    found.push_back(json::object{{"construct", unresolved->construct}, {"why", unresolved->why}});
  return found;
}

// What a Claude-Code-format command's entry says of when and how it runs,
// as its keys: " (matcher Bash, if Bash(git push:*), once, async, status
// \"Checking...\")"; empty when it says nothing of it.
std::string handler_keys(const InstallReport::Installed& installed) {
  std::vector<std::string> keys;
  if (!installed.matcher.empty()) keys.push_back("matcher " + installed.matcher);
  if (!installed.if_rule.empty()) keys.push_back("if " + installed.if_rule);
  if (installed.once) keys.emplace_back("once");
  if (installed.async_rewake) keys.emplace_back("asyncRewake");
  else if (installed.settings.async.value) keys.emplace_back("async");
  if (!installed.status_message.empty())
    keys.push_back("status " + write_json(boost::json::string(installed.status_message)));
  return keys.empty() ? "" : fmt::format(" ({})", fmt::join(keys, ", "));
}

// What `list` says plugins and built-ins speak, beside the hooks' protocols.
constexpr std::string_view kPluginProtocol = "plugin";
constexpr std::string_view kBuiltinProtocol = "built-in";

// A plugin's own name once loaded, else its file's.
std::string plugin_name(const PluginReport& plugin) {
  return plugin.loaded ? plugin.name : plugin.file.filename().string();
}

// "project DIR: trusted" (or "workspace DIR: ...").
void print_trust(const SetupReport& report, std::string_view kind = "project") {
  fmt::print("{} {}: {}\n", kind, shown_path(report.trust.project), trust_state_name(report.trust.state));
  if (!report.trust.project_may_run() && !report.trust.message.empty())
    fmt::print("  {}\n", printable(report.trust.message));
}

void print_config_files(const SetupReport& report) {
  fmt::print("\nconfig files, most trusted first:\n");
  for (const auto& file : report.config_files)
    fmt::print("  {:<8} {}  ({}{})\n", layer_name(file.layer), shown_path(file.file), file_state_name(file.state),
               file.note.empty() ? "" : ": " + printable(file.note));
}

void print_list_text(const SetupReport& report, std::string_view kind = "project") {
  print_trust(report, kind);
  print_config_files(report);

  fmt::print("\nhook directories, by layer and precedence:\n");
  for (const auto& dir : report.directories.entries) {
    std::error_code ec;
    fmt::print("  {:<8} {}  ({}{})\n", layer_name(dir.layer), shown_path(dir.path), printable(dir.source),
               fs::is_directory(dir.path, ec) ? "" : ", missing");
  }

  fmt::print("\nhooks, in run order:\n");
  if (report.hooks.installed.empty()) fmt::print("  (none)\n");
  for (const auto& installed : report.hooks.installed) {
    if (declared_like_claude_code(installed.protocol)) {
      fmt::print("  {}: {}{}\n    {}  ({}, {} protocol)\n", printable(installed.name),
                 printable(fmt::format("{}", fmt::join(installed.events, ", "))), printable(handler_keys(installed)),
                 installed.command.empty() ? shown_path(installed.path)
                                           : printable(installed.source + ": " + installed.command),
                 layer_and_trust(report, installed.layer), hook_protocol_name(installed.protocol));
      print_unresolved(report, installed.layer, installed.source);
      continue;
    }
    if (is_http_hook(installed)) {
      fmt::print("  {}: {}\n    {}  ({}, hookbus protocol, events declared){}\n", printable(installed.name),
                 printable(fmt::format("{}", fmt::join(installed.events, ", "))),
                 printable(installed.source + ": " + installed.command), layer_and_trust(report, installed.layer),
                 settings_notes(installed.settings));
      continue;
    }
    const DiscoveredHook& found = discovered(report, installed);
    fmt::print("  {}: {}\n    {}  ({}, hookbus protocol, events {}{}){}\n", printable(installed.name),
               event_list(found), shown_path(installed.path), layer_and_trust(report, installed.layer),
               events_from_name(found.events_from), from_source(found.layer, found.source),
               settings_notes(installed.settings));
  }
  if (!report.hooks.refusing.empty()) {
    fmt::print("\nrefusing, in place of fail-closed hooks that cannot run:\n");
    for (const auto& refusing : report.hooks.refusing)
      fmt::print("  {}: {}\n    {}\n", printable(refusing.name), fmt::join(refusing.events, ", "), printable(refusing.reason));
  }
  if (!report.hooks.not_installed.empty()) {
    fmt::print("\nnot installed, and why:\n");
    for (const auto& hook : report.hooks.not_installed) {
      fmt::print("  {}: {}\n    {}  ({}, {} protocol)\n    {}\n", printable(hook.name),
                 printable(fmt::format("{}", fmt::join(hook.events, ", "))),
                 hook.command.empty() ? shown_path(hook.path) : printable(hook.source + ": " + hook.command),
                 layer_and_trust(report, hook.layer), hook_protocol_name(hook.protocol), printable(hook.reason));
      if (declared_like_claude_code(hook.protocol)) print_unresolved(report, hook.layer, hook.source);
    }
  }
  if (!report.discovery.skipped.empty()) {
    fmt::print("\nskipped:\n");
    for (const auto& file : report.discovery.skipped)
      fmt::print("  {} {}: {}\n    {}  ({}{}{})\n", skip_reason_name(file.why),
                 file.name.empty() ? "directory" : printable(file.name), printable(file.reason), shown_path(file.path),
                 layer_and_trust(report, file.layer),
                 is_a_hook(file) ? fmt::format(", {} protocol", hook_protocol_name(file.protocol)) : "",
                 from_source(file.layer, file.source));
  }
  if (!report.plugins.empty()) {
    fmt::print("\nplugins:\n");
    for (const auto& plugin : report.plugins)
      fmt::print("  {}: {}\n    {}  ({}, {})\n", printable(plugin_name(plugin)),
                 plugin.loaded ? "loaded" : "not loaded: " + printable(plugin.reason), shown_path(plugin.file),
                 layer_and_trust(report, plugin.layer), kPluginProtocol);
  }
  if (!report.builtins.empty()) {
    fmt::print("\nbuilt-ins:\n");
    for (const auto& builtin : report.builtins)
      fmt::print("  {}: {}\n    {}  ({}, {})\n", printable(builtin.name),
                 builtin.installed ? "installed" : "not installed: " + printable(builtin.reason), shown_path(builtin.file),
                 layer_and_trust(report, builtin.layer), kBuiltinProtocol);
  }
  if (!report.warnings.empty()) {
    fmt::print("\nwarnings:\n");
    for (const auto& warning : report.warnings) fmt::print("  {}\n", printable(warning));
  }
}

json::array strings_json(const std::vector<std::string>& strings) { return json::array(strings.begin(), strings.end()); }

json::object list_json(const SetupReport& report) {
  json::array config_files;
  for (const auto& file : report.config_files)
    config_files.push_back(json::object{{"layer", layer_name(file.layer)},
                                        {"file", file.file.string()},
                                        {"state", file_state_name(file.state)},
                                        {"note", file.note}});
  json::array directories;
  for (const auto& dir : report.directories.entries) {
    std::error_code ec;
    directories.push_back(json::object{{"layer", layer_name(dir.layer)},
                                       {"path", dir.path.string()},
                                       {"source", dir.source},
                                       {"exists", fs::is_directory(dir.path, ec)}});
  }
  json::array hooks;
  for (const auto& installed : report.hooks.installed) {
    const bool claude_code = declared_like_claude_code(installed.protocol);
    const bool declared_here = claude_code || is_http_hook(installed);  // by a settings file or config entry
    const ResolvedHookSettings& settings = installed.settings;
    hooks.push_back(json::object{
        {"name", installed.name},
        {"layer", layer_name(installed.layer)},
        {"trust", hook_trust(installed.layer, report.trust.state)},
        {"events", strings_json(installed.events)},
        {"path", installed.path.string()},
        {"source", declared_here ? installed.source : discovered(report, installed).source},
        {"protocol", hook_protocol_name(installed.protocol)},
        {"events_from", claude_code              ? "settings"
                        : is_http_hook(installed) ? "config"
                                                  : events_from_name(discovered(report, installed).events_from)},
        {"matcher", installed.matcher},
        {"command", installed.command},
        {"timeout_ms", settings.timeout.value.count()},
        {"failure", wire_name_of(settings.failure.value)},
        {"tools", settings.tools.value},
        {"mode", wire_name_of(settings.mode.value)},
        {"instances", settings.instances.value},
        {"start", wire_name_of(settings.start.value)},
        {"async", settings.async.value},
        {"sequential", settings.sequential.value ? json::value(*settings.sequential.value) : json::value(nullptr)}});
    if (claude_code) {
      json::object& hook = hooks.back().as_object();
      hook["unresolved"] = unresolved_json(report, installed.layer, installed.source);
      hook["if"] = installed.if_rule;
      hook["once"] = installed.once;
      hook["async_rewake"] = installed.async_rewake;
      hook["status_message"] = installed.status_message;
    }
  }
  json::array refusing;
  for (const auto& hook : report.hooks.refusing)
    refusing.push_back(json::object{{"name", hook.name}, {"events", strings_json(hook.events)}, {"reason", hook.reason}});
  json::array not_installed;
  for (const auto& hook : report.hooks.not_installed) {
    not_installed.push_back(json::object{{"name", hook.name},
                                         {"layer", layer_name(hook.layer)},
                                         {"trust", hook_trust(hook.layer, report.trust.state)},
                                         {"protocol", hook_protocol_name(hook.protocol)},
                                         {"events", strings_json(hook.events)},
                                         {"path", hook.path.string()},
                                         {"command", hook.command},
                                         {"source", hook.source},
                                         {"reason", hook.reason}});
    if (declared_like_claude_code(hook.protocol))
      not_installed.back().as_object()["unresolved"] = unresolved_json(report, hook.layer, hook.source);
  }
  json::array skipped;
  for (const auto& file : report.discovery.skipped)
    skipped.push_back(json::object{{"why", skip_reason_name(file.why)},
                                   {"name", file.name},
                                   {"layer", layer_name(file.layer)},
                                   {"trust", hook_trust(file.layer, report.trust.state)},
                                   {"protocol", is_a_hook(file) ? json::value(hook_protocol_name(file.protocol)) : json::value(nullptr)},
                                   {"path", file.path.string()},
                                   {"source", file.source},
                                   {"reason", file.reason}});
  json::array plugins;
  for (const auto& plugin : report.plugins)
    plugins.push_back(json::object{{"name", plugin_name(plugin)},
                                   {"layer", layer_name(plugin.layer)},
                                   {"trust", hook_trust(plugin.layer, report.trust.state)},
                                   {"protocol", kPluginProtocol},
                                   {"file", plugin.file.string()},
                                   {"loaded", plugin.loaded},
                                   {"reason", plugin.reason}});
  json::array builtins;
  for (const auto& builtin : report.builtins)
    builtins.push_back(json::object{{"name", builtin.name},
                                    {"layer", layer_name(builtin.layer)},
                                    {"trust", hook_trust(builtin.layer, report.trust.state)},
                                    {"protocol", kBuiltinProtocol},
                                    {"file", builtin.file.string()},
                                    {"installed", builtin.installed},
                                    {"reason", builtin.reason}});
  return json::object{
                         {"project", report.trust.project.string()},
                         {"trust", json::object{{"state", trust_state_name(report.trust.state)},
                                                {"may_run", report.trust.project_may_run()},
                                                {"message", report.trust.message}}},
                         {"config_files", std::move(config_files)},
                         {"directories", std::move(directories)},
                         {"hooks", std::move(hooks)},
                         {"refusing", std::move(refusing)},
                         {"not_installed", std::move(not_installed)},
                         {"skipped", std::move(skipped)},
                         {"plugins", std::move(plugins)},
                         {"builtins", std::move(builtins)},
                         {"warnings", strings_json(report.warnings)},
                     };
}

// -------------------------------------------------------------- run-hook

// A hook's stdout or stderr: escaped, one quoted line per line; or, with
// --raw, the bytes as they are.
void print_stream(std::string_view name, const std::string& text, bool truncated, bool raw) {
  fmt::print("{} ({} bytes{}):\n", name, text.size(), truncated ? ", cut at the limit" : "");
  if (raw) {
    fmt::print("{}{}", text, text.empty() || text.ends_with('\n') ? "" : "\n");
    return;
  }
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto end = std::min(rest.find('\n'), rest.size());
    fmt::print("  | {}\n", printable(rest.substr(0, end)));
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
}

// What came of one run: the hook's result, or why it is a failure.
struct HookRun {
  ProcessResult process{};
  std::optional<HookOutcome> outcome{};  // none: the hook failed
  std::string failure{};
};

// `as`: the name the hook ran the event as (the alias given, its agent's event name).
void print_run_text(const Invocation& invocation, const fs::path& path, const HookEvent& event, std::string_view as,
                    const HookRun& run) {
  const std::string_view wire_name = event_name(event);
  if (!invocation.quiet()) {
    fmt::print("hook:     {}\nevent:    {}{}\nstatus:   {}\nduration: {} ms\n", shown_path(path), wire_name,
               as == wire_name ? "" : fmt::format(" (as {})", printable(as)), run.process.status(),
               run.process.duration.count());
    const bool raw = invocation.has("--raw");
    print_stream("stdout", run.process.stdout_text, run.process.stdout_truncated, raw);
    print_stream("stderr", run.process.stderr_text, run.process.stderr_truncated, raw);
  }
  if (!run.outcome) fmt::print("result:   failure: {}\n", printable(run.failure));
  else if (std::holds_alternative<std::monostate>(*run.outcome)) fmt::print("result:   no change\n");
  else fmt::print("result:   {}\n{}\n", verdict(event, *run.outcome), pretty_json(to_json(*run.outcome)));
}

json::value optional_json(const std::optional<int>& value) {
  return value ? json::value(*value) : json::value(nullptr);
}

void print_run_json(const fs::path& path, const HookEvent& event, std::string_view as, const HookRun& run) {
  const ProcessResult& process = run.process;
  fmt::print("{}\n", pretty_json(json::object{
                         {"hook", path.string()},
                         {"event", event_name(event)},
                         {"requested_as", as},
                         {"status", process.status()},
                         {"exit_code", optional_json(process.exit_code)},
                         {"signal", optional_json(process.signal)},
                         {"timed_out", process.timed_out},
                         {"duration_ms", process.duration.count()},
                         {"stdout", process.stdout_text},
                         {"stdout_truncated", process.stdout_truncated},
                         {"stderr", process.stderr_text},
                         {"stderr_truncated", process.stderr_truncated},
                         {"refused", run.outcome && refusal_of(*run.outcome).has_value()},
                         {"result", run.outcome ? to_json(*run.outcome) : json::value(nullptr)},
                         {"failure", run.outcome ? json::value(nullptr) : json::value(run.failure)},
                     }));
}

// The config that governs a hook file run in the project. The project's and
// the local config count as they do for setup(): only while the project may
// run under the trust policy, and only as trusted; an untrusted project's
// config changes nothing, and its errors stop nothing.
LayeredConfig run_hook_config(const fs::path& project_dir, ProjectTrustPolicy engine_policy) {
  const Locations locations = Locations::from_environment(project_dir);
  std::vector<Config> layers;
  for (const Layer layer : {Layer::managed, Layer::user})
    if (auto config = load_layer_config(locations.config_file(layer), layer)) layers.push_back(std::move(*config));
  const ProjectTrustPolicy policy = LayeredConfig(layers).project_trust(engine_policy);
  const ProjectFiles files = project_files(locations);
  const TrustReport trust =
      check_trust(TrustStore(locations.state.empty() ? fs::path() : locations.state / "trust.json"), files, policy);
  if (trust.project_may_run()) {
    std::vector<Config> project_layers;
    for (const Layer layer : {Layer::project, Layer::local})
      if (auto config = load_layer_config(locations.config_file(layer), layer)) project_layers.push_back(std::move(*config));
    // What applies is what was trusted: a config changed since it was hashed does not.
    const TrustedFiles trusted(files, trust.trusted);
    const bool as_trusted = std::none_of(project_layers.begin(), project_layers.end(), [&](const Config& config) {
      return trust.state == TrustState::trusted && trusted.why_not_apply(config.file, config.sha256).has_value();
    });
    if (as_trusted) std::move(project_layers.begin(), project_layers.end(), std::back_inserter(layers));
  }
  return LayeredConfig(std::move(layers));
}

// The hook file at `path` as the config would run a hook of its name in the
// project: its timeout, and what becomes of what it leaves running.
ExternalHook configured_hook(const fs::path& path, const fs::path& project_dir, const LayeredConfig& config) {
  const std::string name = path.filename().string();
  return {.name = name,
          .path = path,
          .timeout = config.hook_settings(Layer::project, name).timeout.value,
          .project_dir = project_dir,
          .detached_processes = config.detached_processes(Layer::project, DetachedProcesses::allow).value};
}

// The agent --protocol names, by its format; null for hookbus's own protocol
// (the default) and kodelet's, which is hookbus's.
const detail::HookFormat* run_hook_format(const Invocation& invocation) {
  const std::optional<std::string_view> name = invocation.value("--protocol");
  if (!name) return nullptr;
  const auto protocol = reflect::enum_from_wire_name<HookProtocol>(*name);
  if (!protocol) {
    std::vector<std::string_view> known{hook_protocol_name(HookProtocol::hookbus), hook_protocol_name(HookProtocol::kodelet)};
    for (const HookProtocol agent : agents_with_hook_files()) known.push_back(hook_protocol_name(agent));
    throw UsageError(fmt::format("--protocol: no agent is called '{}'; the protocols: {}", printable(*name),
                                 fmt::join(known, ", ")));
  }
  return detail::find_hook_format(*protocol);
}

// Why the agent of `format` has no event for `given`, listing its events.
UsageError no_agent_event(const detail::HookFormat& format, std::string_view given) {
  std::vector<std::string_view> events;
  for (const detail::FormatEvent& event : format.events) events.push_back(event.name);
  return UsageError(fmt::format("{} runs no hook on {}; {}'s events: {}", format.agent, printable(given), format.agent,
                                fmt::join(events, ", ")));
}

// A hook file run once as its agent runs a command that is that file
// (run_claude_code_command), for the event given as one of the agent's
// events or as a catalogue event; `as` is set to the agent's event it ran as.
HookRun run_agent_hook(const Invocation& invocation, const detail::HookFormat& format, const fs::path& path,
                       HookEvent& event, std::string& as) {
  const std::string_view given = *invocation.argument(1);
  const std::vector<std::size_t> targets = detail::event_targets(format, given);
  if (targets.empty() && !find_event(given)) throw no_agent_event(format, given);
  event = read_event(invocation, targets.empty() ? given : event_name(targets.front()), invocation.argument(2));
  const ClaudeCodeToolNames tool_names = detail::format_tool_names(format, {});
  if (targets.empty()) {
    const auto agent_event = detail::format_event_of(format, event, tool_names);
    if (!agent_event) throw no_agent_event(format, given);
    as = *agent_event;
  } else if (!detail::format_event_fires(format, given, event, tool_names)) {
    throw UsageError(fmt::format("{}'s {} does not fire for this {} (not for its tool, or its is_error); name the "
                                 "catalogue event {} to run the {} event that does",
                                 format.agent, printable(given), event_name(event), event_name(event), format.agent));
  } else {
    as = given;
  }
  const LayeredConfig config = run_hook_config(invocation.project_dir(), trust_policy(invocation));
  const std::string name = path.filename().string();
  // The config's timeout for a hook of its name, as for a hook file it
  // declares with the agent's protocol; else the agent's for the event.
  const Sourced<Duration> timeout = config.hook_settings(Layer::project, name).timeout;
  const ClaudeCodeCommand command{.event = as,
                                  .program = path,
                                  .timeout = timeout.origin.file.empty() ? detail::event_default_timeout(format, as)
                                                                         : timeout.value,
                                  .label = name,
                                  .source = path.string(),
                                  .protocol = format.protocol};
  const ClaudeCodeOptions options{
      .tool_names = tool_names,
      .project_dir = invocation.project_dir(),
      .detached_processes = config.detached_processes(Layer::project, DetachedProcesses::allow).value};
  // ExternalHookError: refused before it ran, or cannot start it.
  HookRun run{.process = run_claude_code_command(command, event, options)};
  try {
    run.outcome = claude_code_outcome(command, event, run.process, tool_names);
  } catch (const ExternalHookError& error) {
    run.failure = error.what();
  }
  return run;
}

// ----------------------------------------------------------------- config

// One value of the merged configuration and where it was set.
struct MergedSetting {
  std::string key;         // as config writes it: "timeout_ms", "builtins.tool_policy", "hooks.guard.failure"
  std::string applies_to;  // "project hooks", "hook guard of the user layer (installed)"; "" for the whole bus
  json::value value;
  ConfigLocation from{};   // empty file: not set in any file
  std::string default_name = "default";  // what `from` is when no file set it
};

// Settings as written, but each value of a "headers" object (the OTLP
// exporter's), which may hold a secret: shown as "(hidden)".
json::value without_header_values(json::value settings) {
  if (auto* object = settings.if_object()) {
    for (auto& [key, value] : *object) {
      if (key == "headers" && value.is_object()) {
        for (auto& header : value.as_object()) header.value() = "(hidden)";
      } else {
        value = without_header_values(std::move(value));
      }
    }
  }
  return settings;
}

// What became of the hook of `name` in `layer`: installed, not installed, skipped.
std::string hook_state(const SetupReport& report, Layer layer, const std::string& name) {
  for (const auto& hook : report.hooks.installed)
    if (hook.layer == layer && hook.name == name) return "installed";
  for (const auto& hook : report.hooks.not_installed)
    if (hook.layer == layer && hook.name == name) return "not installed";
  for (const auto& file : report.discovery.skipped)
    if (file.layer == layer && file.name == name) return std::string(skip_reason_name(file.why));
  for (const auto& hook : report.hooks.refusing)
    if (hook.name == name) return "missing, its events refuse";
  return "no such hook";
}

// The resolved settings of every hook a hook directory or a config entry names.
void add_hook_settings(const SetupReport& report, std::vector<MergedSetting>& out) {
  std::vector<std::pair<Layer, std::string>> named;
  const auto add = [&](Layer layer, const std::string& name) {
    if (!name.empty() && std::find(named.begin(), named.end(), std::pair(layer, name)) == named.end())
      named.emplace_back(layer, name);
  };
  for (const auto& hook : report.discovery.hooks) add(hook.layer, hook.name);
  for (const auto& file : report.discovery.skipped)
    if (file.why != SkippedFile::Why::ignored) add(file.layer, file.name);
  // An entry for no hook its layer governs is shown as its own layer's.
  for (const Config& layer : report.config.layers())
    for (const auto& [name, entry] : layer.hooks)
      if (std::none_of(named.begin(), named.end(),
                       [&](const auto& hook) { return hook.second == name && governs(layer.layer, hook.first); }))
        add(layer.layer, name);
  for (const auto& [layer, name] : named) {
    const ResolvedHookSettings s = report.config.hook_settings(layer, name);
    const std::string key = "hooks." + name + ".";
    const std::string of = fmt::format("hook {} of the {} layer, {}", name, layer_name(layer), hook_state(report, layer, name));
    out.push_back({key + "timeout_ms", of, s.timeout.value.count(), s.timeout.origin});
    out.push_back({key + "failure", of, json::string(wire_name_of(s.failure.value)), s.failure.origin});
    out.push_back({key + "disabled", of, s.disabled.value, s.disabled.origin});
    out.push_back({key + "protocol", of, json::string(hook_protocol_name(s.protocol.value)), s.protocol.origin});
    out.push_back({key + "events", of, strings_json(s.events.value), s.events.origin, "default (asked)"});
    out.push_back({key + "matcher", of, json::string(s.matcher.value), s.matcher.origin});
    out.push_back({key + "tools", of, json::string(s.tools.value), s.tools.origin, "default (every tool)"});
    out.push_back({key + "mode", of, json::string(wire_name_of(s.mode.value)), s.mode.origin});
    out.push_back({key + "instances", of, s.instances.value, s.instances.origin});
    out.push_back({key + "start", of, json::string(wire_name_of(s.start.value)), s.start.origin});
    out.push_back({key + "async", of, s.async.value, s.async.origin});
    out.push_back({key + "sequential", of, s.sequential.value ? json::value(*s.sequential.value) : json::value(nullptr),
                   s.sequential.origin, "default (the protocol's)"});
  }
}

// Every value of the configuration that applies, each with the file and key
// it was set by: what `hookctl config` prints.
std::vector<MergedSetting> merged_settings(const SetupReport& report, ProjectTrustPolicy engine_policy) {
  const LayeredConfig& config = report.config;
  std::vector<MergedSetting> out;
  const ProjectTrustPolicy policy = config.project_trust(engine_policy);
  out.push_back({"project_trust", "", json::string(project_trust_name(policy)), config.project_trust_origin(engine_policy),
                 "the engine (hookctl --project-trust)"});
  for (const auto& overruled : config.project_trust_overruled(engine_policy))
    out.push_back({"project_trust", fmt::format("ignored: looser than {}", project_trust_name(policy)),
                   json::string(project_trust_name(overruled.value)), overruled.origin});
  for (const Layer layer : all_layers) {
    const auto timeout = config.default_timeout(layer);
    out.push_back({"timeout_ms", fmt::format("{} hooks", layer_name(layer)), timeout.value.count(), timeout.origin});
  }
  for (const Layer layer : all_layers) {
    const auto detached = config.detached_processes(layer, DetachedProcesses::allow);
    out.push_back({"detached_processes", fmt::format("{} hooks", layer_name(layer)),
                   json::string(detached_processes_name(detached.value)), detached.origin});
  }
  for (const Config& layer : config.layers()) {
    const ConfigLocation file{.file = layer.file, .project_dir = {}, .path = {}};
    const std::string of = fmt::format("{} layer", layer_name(layer.layer));
    if (layer.disable_all_hooks) out.push_back({"disable_all_hooks", of, *layer.disable_all_hooks, file.key("disable_all_hooks")});
    if (layer.allow_managed_hooks_only)
      out.push_back({"allow_managed_hooks_only", "", *layer.allow_managed_hooks_only, file.key("allow_managed_hooks_only")});
    for (const auto& builtin : layer.builtins)
      out.push_back({"builtins." + builtin.name, of, builtin.settings, file.key("builtins").key(builtin.name)});
    if (layer.trace) out.push_back({"trace", of, without_header_values(layer.trace->settings), file.key("trace")});
    if (layer.network) {
      for (std::size_t i = 0; i < layer.network->allowed_origins.size(); ++i)
        out.push_back({"network.allowed_origins", "", json::string(layer.network->allowed_origins[i]),
                       file.key("network").key("allowed_origins").element(i)});
      if (!layer.network->ca_file.empty())
        out.push_back({"network.ca_file", "", json::string(layer.network->ca_file.string()),
                       file.key("network").key("ca_file")});
    }
    for (const auto& [name, entry] : layer.hooks)
      if (!entry.url.empty())
        out.push_back({"hooks." + name + ".url", of, json::string("POST " + entry.url), file.key("hooks").key(name).key("url")});
    for (std::size_t i = 0; i < layer.hook_directories.size(); ++i)
      out.push_back({"hook_directories", of, json::string(layer.hook_directories[i].string()),
                     file.key("hook_directories").element(i)});
    for (const HookProtocol agent : agents_with_hook_files()) {
      const ClaudeCodeImport* import = agent_hooks_import(layer, agent);
      if (import == nullptr) continue;
      const std::string key = agent_hooks_key(agent);
      for (std::size_t i = 0; i < import->settings.size(); ++i)
        out.push_back({key + ".settings", "", json::string(layer_name(import->settings[i])),
                       import->location.key("settings").element(i)});
      for (std::size_t i = 0; i < import->plugins.size(); ++i)
        out.push_back({key + ".plugins", of, json::string(import->plugins[i].string()),
                       import->location.key("plugins").element(i)});
    }
  }
  // Tool names: each layer's commands of an agent see those of the layers at
  // least as trusted as theirs; one line per name and entry, with the layers that see it.
  struct SeenName {
    Sourced<std::string> name;
    std::vector<std::string_view> layers;
  };
  for (const HookProtocol agent : agents_with_hook_files()) {
    std::map<std::string, std::vector<SeenName>> tool_names;
    for (const Layer layer : all_layers)
      for (auto& [ours, theirs] : config.agent_tool_names(agent, layer)) {
        std::vector<SeenName>& entries = tool_names[ours];
        const auto same = std::find_if(entries.begin(), entries.end(), [&](const SeenName& entry) {
          return entry.name.origin.file == theirs.origin.file && entry.name.origin.path == theirs.origin.path;
        });
        if (same == entries.end()) entries.push_back({std::move(theirs), {layer_name(layer)}});
        else same->layers.push_back(layer_name(layer));
      }
    for (const auto& [ours, entries] : tool_names)
      for (const SeenName& entry : entries)
        out.push_back({agent_hooks_key(agent) + ".tool_names." + ours,
                       fmt::format("{} commands of the {} layer{}", agent_name(agent), fmt::join(entry.layers, ", "),
                                   entry.layers.size() == 1 ? "" : "s"),
                       json::string(entry.name.value), entry.name.origin});
  }
  add_hook_settings(report, out);
  return out;
}

// ------------------------------------------------------------------ trust

// A fingerprinted file whose content was not hashed: its sha256 holds why,
// "unreadable: ..." (no regular file, or one that cannot be read) or
// "refused: ..." (reached through procfs).
constexpr std::string_view kUnreadable = "unreadable: ";
constexpr std::string_view kRefused = "refused: ";

void print_files(const ProjectFingerprint& fingerprint) {
  for (const auto& file : fingerprint.files) {
    const std::string_view sha256 = file.sha256;
    const std::string_view unhashed = sha256.starts_with(kUnreadable) ? kUnreadable
                                      : sha256.starts_with(kRefused)  ? kRefused
                                                                      : std::string_view();
    if (!unhashed.empty())
      fmt::print("  {:04o}  {:<16}  {} ({})\n", file.mode, unhashed.substr(0, unhashed.size() - 2), printable(file.path),
                 printable(sha256.substr(unhashed.size())));
    else
      fmt::print("  {:04o}  {}  {}\n", file.mode, sha256.substr(0, 16), printable(file.path));
  }
}

json::array files_json(const ProjectFingerprint& fingerprint) {
  json::array files;
  for (const auto& file : fingerprint.files)
    files.push_back(json::object{{"path", file.path}, {"mode", fmt::format("{:04o}", file.mode)}, {"sha256", file.sha256}});
  return files;
}

// `trust --list`: every trusted project, with when and what.
int print_trusted_projects(const Invocation& invocation, const std::vector<TrustStore::Record>& records) {
  if (invocation.json()) {
    json::array projects;
    for (const auto& record : records)
      projects.push_back(json::object{{"project", record.project.string()},
                                      {"trusted_at", record.trusted_at},
                                      {"fingerprint", record.fingerprint.digest},
                                      {"files", files_json(record.fingerprint)}});
    fmt::print("{}\n", pretty_json(json::object{{"projects", std::move(projects)}}));
    return exit_ok;
  }
  for (const auto& record : records)
    fmt::print("{}  (trusted {}, {} files, fingerprint {})\n", shown_path(record.project), record.trusted_at,
               record.fingerprint.files.size(), record.fingerprint.digest.substr(0, 16));
  return exit_ok;
}

// When the managed or user config's `project_trust` keeps the project from
// running whatever is recorded: why.
std::optional<std::string> policy_note(const Locations& locations) {
  std::vector<Config> layers;
  for (const Layer layer : {Layer::managed, Layer::user})
    if (auto config = load_layer_config(locations.config_file(layer), layer)) layers.push_back(std::move(*config));
  const LayeredConfig config(std::move(layers));
  if (config.project_trust(ProjectTrustPolicy::require) != ProjectTrustPolicy::ignore) return std::nullopt;
  return fmt::format("project_trust is \"ignore\" in {}, so the project's hooks and config do not run while it is set",
                     config.project_trust_origin(ProjectTrustPolicy::require).file.string());
}

// What of the config that trust records would not apply (a key its layer
// may not set) or stops the engine once trusted (an error): said before it runs.
std::vector<std::string> config_warnings(const std::vector<std::pair<fs::path, Layer>>& files) {
  std::vector<std::string> warnings;
  for (const auto& [file, layer] : files) {
    try {
      if (auto config = load_layer_config(file, layer))
        for (auto& warning : config->warnings) warnings.push_back(std::move(warning));
    } catch (const ConfigError& error) {
      warnings.push_back(std::string(error.what()) + " (once trusted, this stops the engine)");
    }
  }
  return warnings;
}

// The files trusting records that fail the file checks (docs/security.md,
// "File checks"), with why and the fix: trust does not make a file safe, and
// what is not safe is refused when it would run or apply.
std::vector<std::string> unsafe_file_warnings(const TrustReport& report) {
  std::vector<std::string> warnings;
  for (const auto& file : report.now.files) {
    if (file.sha256.starts_with(kUnreadable)) continue;  // no file to run or read: a config's error is said with its warnings
    const fs::path path = fs::path(file.path).is_absolute() ? fs::path(file.path) : report.project / file.path;
    if (auto why = unsafe_hook_file(path))
      warnings.push_back(fmt::format("{} is not safe: {} (hookbus refuses to run a hook, plugin or script, or to apply "
                                     "a config, that is not safe)",
                                     path.string(), *why));
  }
  return warnings;
}

// What the fingerprint does not cover, in words: data in the hook trees,
// files outside the project, constructs not resolved (docs/security.md, "Trust").
void print_not_covered(const TrustReport& report) {
  if (report.data_files.empty() && report.outside.empty() && report.unresolved.empty()) return;
  fmt::print("not covered by the trust:\n");
  if (!report.data_files.empty()) {
    fmt::print("  data files in the hook directories (nothing runs them, and hooks may write them):\n");
    for (const auto& file : report.data_files) fmt::print("    {}\n", printable(file));
  }
  if (!report.outside.empty()) {
    fmt::print("  files outside the project that its commands run or name (not the project's to change):\n");
    for (const auto& file : report.outside)
      fmt::print("    {}  (by {})\n", shown_path(file.path), printable(file.source));
  }
  if (!report.unresolved.empty()) {
    fmt::print("  commands it could not fully resolve:\n");
    for (const auto& unresolved : report.unresolved)
      fmt::print("    {}: {}: {}; {}\n", printable(unresolved.source), printable(unresolved.construct),
                 printable(unresolved.why), kNotCovered);
  }
}

json::object not_covered_json(const TrustReport& report) {
  json::array outside;
  for (const auto& file : report.outside)
    outside.push_back(json::object{{"path", file.path.string()}, {"source", file.source}});
  json::array unresolved;
  for (const auto& item : report.unresolved)
    unresolved.push_back(json::object{
        {"source", item.source}, {"command", item.command}, {"construct", item.construct}, {"why", item.why}});
  return {{"data", strings_json(report.data_files)}, {"outside", std::move(outside)}, {"unresolved", std::move(unresolved)}};
}

void print_trust_json(const TrustReport& report, bool recorded, const TrustStore& store,
                      const std::optional<std::string>& note, const std::vector<std::string>& warnings) {
  json::array changes;
  for (const auto& change : report.changes)
    changes.push_back(json::object{{"kind", wire_name_of(change.kind)}, {"path", change.path}, {"detail", change.detail}});
  fmt::print("{}\n", pretty_json(json::object{{"project", report.project.string()},
                                               {"state", trust_state_name(report.state)},
                                               {"fingerprint", report.now.digest},
                                               {"files", files_json(report.now)},
                                               {"changes", std::move(changes)},
                                               {"not_covered", not_covered_json(report)},
                                               {"recorded", recorded},
                                               {"store", store.file().string()},
                                               {"note", note ? json::value(*note) : json::value(nullptr)},
                                               {"warnings", strings_json(warnings)}}));
}

}  // namespace

ProjectTrustPolicy trust_policy(const Invocation& invocation) {
  const std::string_view name = invocation.value("--project-trust").value_or("require");
  if (const auto policy = reflect::enum_from_wire_name<ProjectTrustPolicy>(name)) return *policy;
  throw UsageError(fmt::format("--project-trust must be require, trust_all or ignore, not '{}'", printable(name)));
}

SetUp set_up(Hooks& hooks, const Invocation& invocation, ProjectTrustPolicy policy, bool trace) {
  SetUp bus{setup(hooks, {.project_dir = invocation.project_dir(), .project_trust = policy, .trace = trace}),
            std::nullopt};
  if (const auto workspace = workspace_of(invocation))
    bus.workspace = load_workspace(hooks, *workspace,
                                   {.locations = bus.project.report.locations, .trust = policy, .trace = trace});
  return bus;
}

std::string verdict(const HookEvent& event, const HookOutcome& outcome) {
  if (const auto refusal = refusal_of(outcome))
    return fmt::format("{}{}: {}", refusal->verb, decider_of(outcome), printable(refusal->reason));
  if (std::holds_alternative<std::monostate>(outcome)) return "observed (the event has no result)";
  if (asks_the_user(outcome)) return fmt::format("ask the user{}", decider_of(outcome));
  return is_gating_event(event) ? "allowed" : "result";
}

int list_command(const Invocation& invocation) {
  logger()->set_level(spdlog::level::off);  // everything is in the report: no second copy on stderr
  Hooks hooks;
  const SetUp bus = set_up(hooks, invocation, trust_policy(invocation), /*trace=*/false);  // creates no trace directory
  if (invocation.json()) {
    json::object listing = list_json(bus.project.report);
    if (bus.workspace) listing["workspace"] = list_json(bus.workspace->report);
    fmt::print("{}\n", pretty_json(listing));
  } else {
    print_list_text(bus.project.report);
    if (bus.workspace) {
      fmt::print("\n");
      print_list_text(bus.workspace->report, "workspace");
    }
  }
  return exit_ok;
}

int emit_command(const Invocation& invocation) {
  HookEvent event = read_event(invocation, *invocation.argument(0), invocation.argument(1));
  // The workspace's name for every hook, as an engine with a workspace active passes it.
  if (const auto workspace = workspace_of(invocation))
    std::visit([&](auto& e) { if (e.context.workspace.empty()) e.context.workspace = workspace_name(*workspace); }, event);
  Hooks hooks;
  const SetUp bus = set_up(hooks, invocation, trust_policy(invocation));
  const HookOutcome outcome = hooks.emit(event);
  const bool refused = refusal_of(outcome).has_value();
  // Async hooks run to their end: hookctl's exit would stop them.
  bus.project.background.wait();
  if (bus.workspace) bus.workspace->background.wait();

  if (invocation.json()) {
    fmt::print("{}\n", pretty_json(json::object{
                           {"event", event_name(event)}, {"refused", refused}, {"result", to_json(outcome)}}));
  } else {
    fmt::print("{}: {}\n", event_name(event), verdict(event, outcome));
    if (!std::holds_alternative<std::monostate>(outcome)) fmt::print("{}\n", pretty_json(to_json(outcome)));
  }
  return refused && invocation.has("--exit-code") ? exit_refused : exit_ok;
}

int run_hook_command(const Invocation& invocation) {
  if (invocation.json() && invocation.has("--raw")) throw UsageError("--raw shows bytes on a terminal; --json escapes them");
  const fs::path path = invocation.argument_path(0);
  const detail::HookFormat* format = run_hook_format(invocation);
  // Not even with --force: the hook would run another file than the one named here.
  auto elsewhere = detail::per_process_path_reason(path);
  if (!elsewhere) elsewhere = detail::relative_interpreter_reason(path);
  if (elsewhere) {
    print_to_stderr("hookctl run-hook: refusing to run {}: {}\n", shown_path(path), printable(*elsewhere));
    return exit_failure;
  }
  if (auto why = unsafe_hook_file(path)) {
    if (format != nullptr && invocation.has("--force")) {  // the agent's run refuses it whatever is forced
      print_to_stderr("hookctl run-hook: refusing to run {}: {}\n(--force is for hookbus's protocol: {}'s hooks run "
                      "only once what they run passed the checks, as the engine runs them)\n",
                      shown_path(path), printable(*why), format->agent);
      return exit_failure;
    }
    if (!invocation.has("--force")) {
      print_to_stderr("hookctl run-hook: refusing to run {}: {}\n(--force runs it anyway)\n", shown_path(path),
                      printable(*why));
      return exit_failure;
    }
    print_to_stderr("hookctl run-hook: warning: {} is not safe ({}); running it because of --force\n",
                    shown_path(path), printable(*why));
  }
  HookEvent event;
  std::string as(*invocation.argument(1));
  HookRun run;
  if (format != nullptr) {
    run = run_agent_hook(invocation, *format, path, event, as);
  } else {
    event = read_event(invocation, as, invocation.argument(2));
    const LayeredConfig config = run_hook_config(invocation.project_dir(), trust_policy(invocation));
    const ExternalHook hook = configured_hook(path, invocation.project_dir(), config);
    run.process = run_external_hook(hook, event, as);  // ProcessError: cannot start it
    try {
      run.outcome = hook_outcome(hook, event, run.process);
    } catch (const ExternalHookError& error) {
      run.failure = error.what();
    }
  }
  if (invocation.json()) print_run_json(path, event, as, run);
  else print_run_text(invocation, path, event, as, run);
  if (!run.outcome) return exit_failure;
  return refusal_of(*run.outcome) && invocation.has("--exit-code") ? exit_refused : exit_ok;
}

int trust_command(const Invocation& invocation) {
  const bool dry_run = invocation.has("--dry-run");
  const bool revoke = invocation.has("--revoke");
  const bool list = invocation.has("--list");
  if (dry_run + revoke + list > 1) throw UsageError("--dry-run, --revoke and --list exclude each other");
  const Locations locations = Locations::from_environment(invocation.project_dir());
  TrustStore store = TrustStore::at(locations);
  if (list) return print_trusted_projects(invocation, store.list());
  // The project, or with --workspace the workspace, is what gets trusted.
  const std::optional<fs::path> workspace = workspace_of(invocation);
  const fs::path subject = workspace.value_or(locations.project);
  if (revoke) {
    const bool was_trusted = store.revoke(subject);
    if (invocation.json())
      fmt::print("{}\n", pretty_json(json::object{{"project", subject.string()}, {"revoked", was_trusted}}));
    else
      fmt::print("{} {}\n", shown_path(subject), was_trusted ? "is no longer trusted" : "was not trusted");
    return exit_ok;
  }
  // Exactly what setup() fingerprints, whatever the policy; a fingerprint
  // that stops at a limit is an error, never recorded.
  TrustReport report;
  try {
    report = review_trust(store, workspace ? workspace_files(*workspace) : project_files(locations));
  } catch (const TrustError& error) {
    throw TrustError(std::string(error.what()) + "; nothing was recorded");
  }
  const bool record = !dry_run && report.state != TrustState::nothing_to_trust;
  if (record) store.trust(subject, report.now);
  const std::optional<std::string> note = policy_note(locations);
  std::vector<std::string> warnings =
      config_warnings(workspace ? std::vector<std::pair<fs::path, Layer>>{{*workspace / "config.json", Layer::project}}
                                : std::vector<std::pair<fs::path, Layer>>{
                                      {locations.config_file(Layer::project), Layer::project},
                                      {locations.config_file(Layer::local), Layer::local}});
  for (auto& warning : unsafe_file_warnings(report)) warnings.push_back(std::move(warning));
  if (invocation.json()) {
    print_trust_json(report, record, store, note, warnings);
    return exit_ok;
  }
  if (report.state == TrustState::nothing_to_trust) {
    fmt::print("{} brings no hooks, plugins or config: nothing to trust\n", shown_path(subject));
    return exit_ok;
  }
  fmt::print("{} {} these files (mode, SHA-256, path):\n", dry_run ? "trusting would record" : "trusting",
             shown_path(subject));
  print_files(report.now);
  print_not_covered(report);
  if (!report.changes.empty()) {
    fmt::print("changed since it was last trusted:\n");
    for (const auto& change : report.changes)
      fmt::print("  {} {}{}\n", wire_name_of(change.kind), printable(change.path),
                 change.detail.empty() ? "" : " (" + printable(change.detail) + ")");
  }
  if (record) fmt::print("recorded in {}\n", shown_path(store.file()));
  for (const auto& warning : warnings) fmt::print("warning: {}\n", printable(warning));
  if (note) fmt::print("note: {}\n", printable(*note));
  return exit_ok;
}

int config_command(const Invocation& invocation) {
  logger()->set_level(spdlog::level::off);
  Hooks hooks;
  const ProjectTrustPolicy engine_policy = trust_policy(invocation);
  const SetUp bus = set_up(hooks, invocation, engine_policy, /*trace=*/false);  // creates no trace directory
  const SetupReport& report = bus.project.report;
  const std::vector<MergedSetting> settings = merged_settings(report, engine_policy);
  if (invocation.json()) {
    json::array rows;
    for (const auto& setting : settings)
      rows.push_back(json::object{{"key", setting.key},
                                  {"applies_to", setting.applies_to},
                                  {"value", setting.value},
                                  {"file", setting.from.file.empty() ? json::value(nullptr) : json::value(setting.from.file.string())},
                                  {"path", setting.from.file.empty() ? json::value(nullptr) : json::value(setting.from.path)}});
    json::object listing = list_json(report);
    fmt::print("{}\n", pretty_json(json::object{{"project", listing.at("project")},
                                                 {"trust", listing.at("trust")},
                                                 {"config_files", listing.at("config_files")},
                                                 {"settings", std::move(rows)},
                                                 {"warnings", listing.at("warnings")}}));
    return exit_ok;
  }
  print_trust(report);
  print_config_files(report);
  fmt::print("\nmerged settings (value  <- where it was set):\n");
  for (const auto& setting : settings)
    fmt::print("  {}{}: {}  <- {}\n", printable(setting.key),
               setting.applies_to.empty() ? "" : " (" + printable(setting.applies_to) + ")",
               setting.value.is_string() && !setting.value.get_string().empty() ? printable(setting.value.get_string())
                                                                                : printable(write_json(setting.value)),
               setting.from.file.empty() ? setting.default_name
                                         : fmt::format("{}: {}", shown_path(setting.from.file), printable(setting.from.path)));
  if (!report.warnings.empty()) {
    fmt::print("\nwarnings:\n");
    for (const auto& warning : report.warnings) fmt::print("  {}\n", printable(warning));
  }
  return exit_ok;
}

}  // namespace hookctl
