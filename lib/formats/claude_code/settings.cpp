// Claude Code's settings files and plugins: where they are, and their
// `hooks` block read as commands (include/hookbus/claude_code.hpp), for any
// format that declares its hooks as Claude Code does (formats/hook_format.hpp).
#include "formats/claude_code/settings.hpp"

#include <hookbus/json.hpp>

#include "formats/claude_code/command_files.hpp"
#include "formats/claude_code/permission_rule.hpp"
#include "formats/codex/codex_toml.hpp"
#include "formats/handler_directory.hpp"
#include "config/http_request_entry.hpp"
#include "support/files.hpp"
#include "support/sha256.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

// A handler's timeout: a positive number of the format's unit, up to a day.
// An HTTP handler's counts its own unit where the format says so (Qwen Code's seconds).
Duration read_timeout(const detail::HookFormat& format, const ConfigValue& value, bool http = false) {
  const bool own_unit = http && format.http_timeout_unit != Duration::zero();
  const Duration unit = own_unit ? format.http_timeout_unit : format.timeout_unit;
  const std::string_view unit_name = own_unit ? format.http_timeout_unit_name : format.timeout_unit_name;
  const auto& json = value.json();
  if (!json.is_number()) value.fail_expected(fmt::format("number of {}", unit_name));
  const double count = json.to_number<double>();
  const double a_day = std::chrono::duration<double>(std::chrono::hours(24)) / unit;
  if (!(count > 0 && count <= a_day))
    throw ConfigError(value.location(), fmt::format("expected a number of {} from 0 to {}, got {}", unit_name, a_day, count));
  const double milliseconds = std::chrono::duration<double, Duration::period>(unit).count();
  return Duration(static_cast<Duration::rep>(std::ceil(count * milliseconds)));
}

// The words of a shell command, with quotes removed (no other shell syntax is interpreted).
std::vector<std::string> words_of(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  bool in_word = false;
  for (const char c : command) {
    if (quote != 0) {
      if (c == quote) quote = 0;
      else word += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c)) != 0 || c == ';' || c == '|' || c == '&' || c == '(' ||
               c == ')' || c == '<' || c == '>') {
      if (in_word) words.push_back(std::exchange(word, {}));
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// A name for the bus: the file name of the script the command runs, or the command itself.
std::string label_of(const std::string& command) {
  for (const auto& word : words_of(command))
    if (word.find('/') != std::string::npos && !word.ends_with('/')) return fs::path(word).filename().string();
  constexpr std::size_t kMax = 48;
  return command.size() <= kMax ? command : command.substr(0, kMax) + "...";
}

// A name for the bus of an HTTP handler: its URL, without the scheme, cut as a command is.
std::string label_of_url(std::string_view url) {
  if (const std::size_t scheme = url.find("://"); scheme != std::string_view::npos) url.remove_prefix(scheme + 3);
  constexpr std::size_t kMax = 48;
  return url.size() <= kMax ? std::string(url) : std::string(url.substr(0, kMax)) + "...";
}

// The keys of a command handler that hookbus reads.
constexpr std::array<std::string_view, 9> kHandlerKeys = {"type", "command",       "timeout", "async", "asyncRewake",
                                                          "once", "statusMessage", "if",      "shell"};

// The keys of an HTTP handler (`"type": "http"`) besides those of every
// handler (type, timeout, once, statusMessage, if), and the command
// handler's keys that mean nothing for one.
constexpr std::array<std::string_view, 3> kHttpHandlerKeys = {"url", "headers", "allowedEnvVars"};
constexpr std::array<std::string_view, 4> kCommandOnlyKeys = {"command", "async", "asyncRewake", "shell"};

// An HTTP handler's request (ClaudeCodeCommand::url): its URL, checked now
// (an http:// or https:// URL, no credentials in it), its headers and the
// variables they may name. Where the request may go is decided when it is
// sent, by the user's and the managed config (docs/security.md, "Network").
void read_http_handler(const ConfigObject& entry, ClaudeCodeCommand& command) {
  detail::HttpRequestEntry request =
      detail::read_http_request(entry.required("url", "string"), entry.find("headers"), "allowedEnvVars");
  command.url = std::move(request.url);
  command.headers = std::move(request.headers);
  if (auto names = entry.find("allowedEnvVars"))
    for (const auto& name : names->as_array()) command.allowed_env_vars.push_back(name.as_nonempty_string());
}

// The events on which a handler's "if" is evaluated; Claude Code never runs
// a handler with one on any other.
constexpr std::string_view kToolEvents[] = {"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest",
                                            "PermissionDenied"};

// Whether `key` names a command of one system (VS Code's "linux", "osx", "windows").
bool os_command_key(const detail::HookFormat& format, std::string_view key) {
  return (!format.os_command_key.empty() && key == format.os_command_key) ||
         std::any_of(format.other_os_command_keys.begin(), format.other_os_command_keys.end(),
                     [&](const auto& other) { return other.first == key; });
}

bool tool_event(std::string_view event) {
  return std::find(std::begin(kToolEvents), std::end(kToolEvents), event) != std::end(kToolEvents);
}

// Whether a handler of `event` may ask for a follow-up (Cursor's stop and subagentStop).
bool asks_for_follow_ups(const detail::HookFormat& format, std::string_view event) {
  const std::vector<std::size_t> targets = detail::event_targets(format, event);
  return std::any_of(targets.begin(), targets.end(), [](std::size_t index) {
    return index == event_index<AgentEndEvent> || index == event_index<SubagentEndEvent>;
  });
}

// Where an "if" rule's `/path` starts: the project for its .claude/settings*.json
// (for settings.local.json Claude Code takes the directory it started in, the
// project here), the directory of any other settings file (~/.claude).
fs::path rule_root(const fs::path& file, Layer layer) {
  const fs::path directory = file.parent_path();
  return layer == Layer::user || layer == Layer::managed ? directory : directory.parent_path();
}

// A handler's "cwd": a directory it may run in (handler_directory.hpp), checked against the project as it is now.
std::string read_working_directory(const ConfigValue& value, Layer layer, const fs::path& project_dir) {
  const std::string cwd = value.as_nonempty_string();
  try {
    const detail::ProjectDirectory project(project_dir.empty() ? fs::current_path() : project_dir);
    (void)detail::handler_directory(cwd, project, is_project_layer(layer));
  } catch (const Error& error) {
    throw ConfigError(value.location(), error.what());
  }
  return cwd;
}

// A handler's "env": an object of strings, each a variable its process gets;
// never one that makes the loader or a shell run code no trust covers, nor
// one hookbus sets for the command.
std::vector<std::pair<std::string, std::string>> read_environment(const detail::HookFormat& format,
                                                                   const ConfigValue& value) {
  std::vector<std::string_view> set_here = {format.project_dir_variable, format.plugin_root_variable};
  set_here.insert(set_here.end(), format.plugin_root_aliases.begin(), format.plugin_root_aliases.end());
  if (!format.env_file_variable.empty()) set_here.push_back(format.env_file_variable);
  std::vector<std::pair<std::string, std::string>> environment;
  for (const auto& [name, variable] : value.as_object().members()) {
    const ConfigLocation where = variable.location();
    if (name.empty() || name.find_first_of(std::string_view("=\0", 2)) != std::string::npos)
      throw ConfigError(where, "not a variable name: a name is not empty and has no '=' or NUL");
    if (const auto why = environment_refusal(name))
      throw ConfigError(where, fmt::format("a hook may not set {}: {}; remove it", name, *why));
    if (std::find(set_here.begin(), set_here.end(), name) != set_here.end())
      throw ConfigError(where, fmt::format("hookbus sets {} for every {} hook; remove it", name, format.agent));
    std::string text = variable.as_string();
    if (text.find('\0') != std::string::npos)
      throw ConfigError(where, "a variable's value has no NUL character");
    environment.emplace_back(name, std::move(text));
  }
  return environment;
}

// A string that becomes one argument of a process: no NUL, which would cut it short.
std::string read_exec_argument(const ConfigValue& value, bool nonempty) {
  std::string text = nonempty ? value.as_nonempty_string() : value.as_string();
  if (text.find('\0') != std::string::npos)
    throw ConfigError(value.location(), "a program's name or argument has no NUL character");
  return text;
}

// A handler's program run without a shell and its arguments (Copilot CLI's
// "exec" and "args"), which the agent rejects beside a command.
void read_exec_handler(const detail::HookFormat& format, const ConfigObject& entry, const ConfigValue& exec,
                       ClaudeCodeCommand& command) {
  std::vector<std::string_view> commands = {"command"};
  if (!format.os_command_key.empty()) commands.push_back(format.os_command_key);
  for (const auto& [key, system] : format.other_os_command_keys) commands.push_back(key);
  for (const std::string_view key : commands)
    if (entry.find(key))
      throw ConfigError(exec.location(),
                        fmt::format("\"{}\" runs a program without a shell, and \"{}\" a command with one: {} "
                                    "rejects a hook with both; keep one of them",
                                    format.exec_key, key, format.agent));
  command.exec = read_exec_argument(exec, true);
  if (auto arguments = entry.find(format.exec_arguments_key))
    for (const auto& argument : arguments->as_array()) command.arguments.push_back(read_exec_argument(argument, false));
}

}  // namespace

std::filesystem::path claude_code_settings_file(const Locations& locations, Layer scope) {
  switch (scope) {
    case Layer::user: return locations.claude.empty() ? fs::path() : locations.claude / "settings.json";
    case Layer::project: return locations.project / ".claude" / "settings.json";
    case Layer::local: return locations.project / ".claude" / "settings.local.json";
    case Layer::managed: break;
  }
  return {};
}

ClaudeCodeSettings detail::read_format_settings(const HookFormat& format, const std::filesystem::path& file,
                                                Layer layer, const std::filesystem::path& plugin_root,
                                                const std::filesystem::path& project_dir) {
  ClaudeCodeSettings settings{file, {}, {}, false, {}};
  const ConfigLocation root{.file = file, .project_dir = {}, .path = {}};
  std::optional<std::string> text;
  try {
    text = read_regular_file_if_exists(file, max_config_file_size);
  } catch (const FileReadError& error) {
    throw ConfigError(root, error.what());
  }
  if (!text) return settings;
  settings.sha256 = sha256_hex(*text);
  boost::json::value document;
  if (file.extension() == ".toml") {  // Codex's config.toml: its [hooks] tables are a hooks.json's "hooks"
    boost::json::object hooks = parse_codex_toml_hooks(*text, file).hooks;
    document = hooks.empty() ? boost::json::object() : boost::json::object{{"hooks", std::move(hooks)}};
  } else {
    try {
      document = parse_json(*text, "");
    } catch (const JsonError& error) {
      throw ConfigError(root, error.what());
    }
  }
  const ConfigObject top = ConfigValue(document, root).as_object();
  if (format.shares_settings_directory_with && top.find("version").has_value() != (format.required_version != 0)) {
    settings.other_format = format.shares_settings_directory_with;
    return settings;
  }
  if (format.required_version != 0) {
    const auto version = top.find("version");
    if (!version)
      throw ConfigError(root, fmt::format("no \"version\": {} reads a hooks file that declares \"version\": {}; add it "
                                          "at the top ({})",
                                          format.agent, format.required_version, format.documentation));
    if (!version->json().is_int64() || version->json().get_int64() != format.required_version) {
      const ConfigError error(version->location(),
                              fmt::format("expected {}, got {}: {} reads hooks files of version {} only ({})",
                                          format.required_version, write_json(version->json()), format.agent,
                                          format.required_version, format.documentation));
      if (!format.shares_settings_directory_with) throw error;
      // As the agent does: this file is refused, its sibling files still load.
      settings.skipped.push_back(fmt::format("error: {}; none of its hooks is imported", error.what()));
      return settings;
    }
  }
  if (auto disable = top.find("disableAllHooks")) settings.disable_all_hooks = disable->as_bool();
  if (auto config = format.hooks_config_key.empty() ? std::nullopt : top.find(format.hooks_config_key)) {
    const ConfigObject switches = config->as_object();
    if (auto enabled = switches.find("enabled")) settings.hooks_config_disables_all = !enabled->as_bool();
    if (auto disabled = switches.find("disabled"))
      for (const auto& name : disabled->as_array()) settings.hooks_config_disabled.push_back(name.as_nonempty_string());
  }
  const auto hooks = top.find("hooks");
  if (!hooks) return settings;
  const auto note = [&](const ConfigLocation& where, std::string_view what) {
    settings.skipped.push_back(fmt::format("{}: {}: {}", file.string(), where.path, what));
  };
  const auto note_unknown_keys = [&](const ConfigObject& object, const std::vector<std::string_view>& known) {
    for (const auto& [key, value] : object.members())
      if (std::find(known.begin(), known.end(), key) == known.end())
        note(value.location(), "not a key hookbus knows; ignored");
  };
  // A group's matcher, checked; a handler's own (HandlerLists::handlers) is read the same way.
  const auto read_matcher = [&](const ConfigObject& object, std::string_view event) {
    std::string matcher;
    if (auto m = object.find("matcher")) matcher = m->as_string();
    try {
      (void)format_matcher(format, event, matcher);
    } catch (const ConfigError& error) {
      throw ConfigError(object.location().key("matcher"), error.what());
    }
    return matcher;
  };
  for (const auto& [event, groups] : hooks->as_object().members()) {
    const auto targets = event_targets(format, event);
    const auto group_list = groups.as_array();
    if (targets.empty()) {
      note(groups.location(), fmt::format("hookbus has no equivalent of the {} event '{}'; its {} {} are not imported "
                                          "({} lists the events)",
                                          format.agent, event, group_list.size(),
                                          format.handler_lists == HandlerLists::groups ? "hook group(s)" : "hook(s)", format.documentation));
      continue;
    }
    // Claude Code's groups, {"matcher", "hooks": [handlers]}, each with its
    // matcher (and its format's sequential key); a format without groups
    // lists the handlers, each with its own.
    struct HandlerList {
      std::string matcher;
      bool sequential = false;
      std::vector<ConfigValue> entries;
    };
    std::vector<HandlerList> handler_lists;
    if (format.handler_lists == HandlerLists::handlers) handler_lists.push_back({"", false, group_list});
    const bool ignores_matchers = format.handler_lists == HandlerLists::matchers_ignored;
    // A matcher the agent ignores (VS Code's): said, unless it matches everything anyway.
    const auto note_ignored_matcher = [&](const ConfigObject& object) {
      if (auto m = object.find("matcher"); m && !m->as_string().empty() && m->as_string() != "*")
        note(m->location(), fmt::format("{0} ignores a matcher: the hook runs on every occurrence of its event, "
                                        "as in {0}; check the tool name in the hook",
                                        format.agent));
    };
    for (const auto& group_value :
         format.handler_lists == HandlerLists::handlers ? std::vector<ConfigValue>() : group_list) {
      const ConfigObject group = group_value.as_object();
      if (ignores_matchers && !group.find("hooks")) {  // a handler of the event's own list
        note_ignored_matcher(group);
        handler_lists.push_back({"", false, {group_value}});
        continue;
      }
      std::vector<std::string_view> group_keys = {"matcher", "hooks"};
      if (!format.sequential_key.empty()) group_keys.push_back(format.sequential_key);
      note_unknown_keys(group, group_keys);
      bool sequential = false;
      if (auto key = format.sequential_key.empty() ? std::nullopt : group.find(format.sequential_key))
        sequential = key->as_bool();
      if (ignores_matchers) note_ignored_matcher(group);
      handler_lists.push_back({ignores_matchers ? std::string() : read_matcher(group, event), sequential,
                               group.required("hooks", "array of hooks").as_array()});
    }
    for (const auto& [group_matcher, sequential, entries] : handler_lists) {
      for (const auto& entry_value : entries) {
        const ConfigObject entry = entry_value.as_object();
        const std::string matcher =
            format.handler_lists == HandlerLists::handlers ? read_matcher(entry, event) : group_matcher;
        const bool flat = format.handler_lists != HandlerLists::groups;  // a command unless its type says otherwise
        const std::string type = !flat || entry.find("type") ? entry.required("type", "string").as_string() : "command";
        const bool http = type == "http" && format.http_handlers;
        if (type != "command" && !http) {
          note(entry.location(), fmt::format("hook type \"{}\" is not supported (only {} hooks run outside {}); "
                                             "not imported",
                                             type, format.http_handlers ? "\"command\" and \"http\"" : "\"command\"",
                                             format.agent));
          continue;
        }
        for (const auto& [key, why] : format.inert_handler_keys)
          if (const auto inert = entry.find(key)) note(inert->location(), why);
        for (const auto& [key, value] : entry.members()) {
          const auto is = [&key](const auto& keys) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
          if (http && is(kCommandOnlyKeys)) {
            note(value.location(), "a command handler's key; an HTTP handler has none; ignored");
            continue;
          }
          if (http && is(kHttpHandlerKeys)) continue;
          if (std::none_of(format.inert_handler_keys.begin(), format.inert_handler_keys.end(),
                           [&](const auto& inert) { return inert.first == key; }) &&
              std::find(kHandlerKeys.begin(), kHandlerKeys.end(), key) == kHandlerKeys.end() &&
              (format.fail_mode_key.empty() || key != format.fail_mode_key) &&
              (format.fail_closed_key.empty() || key != format.fail_closed_key) &&
              (format.timeout_key.empty() || key != format.timeout_key) &&
              (format.loop_limit_key.empty() || key != format.loop_limit_key) &&
              (format.hook_name_key.empty() || key != format.hook_name_key) && !os_command_key(format, key) &&
              !(flat && key == "matcher") &&
              (format.working_directory_key.empty() || key != format.working_directory_key) &&
              (format.environment_key.empty() || key != format.environment_key) &&
              (format.exec_key.empty() || (key != format.exec_key && key != format.exec_arguments_key)))
            note(value.location(), "not a key hookbus knows; ignored");
        }
        if (auto shell = http ? std::nullopt : entry.find("shell")) {
          const std::string name = shell->as_string();
          if (name == "powershell") {
            note(shell->location(), "a PowerShell command is not imported: hookbus runs commands with /bin/sh, and "
                                    "runs no PowerShell (pwsh) command; write it for sh, or leave it to " +
                                        std::string(format.agent));
            continue;
          }
          if (name != "bash")
            throw ConfigError(shell->location(), fmt::format("expected \"bash\" or \"powershell\", got \"{}\"", name));
        }
        ClaudeCodeCommand command;
        if (http) read_http_handler(entry, command);
        const std::optional<ConfigValue> exec =
            http || format.exec_key.empty() ? std::nullopt : entry.find(format.exec_key);
        if (exec) {
          read_exec_handler(format, entry, *exec, command);
        } else if (auto arguments = http || format.exec_arguments_key.empty() ? std::nullopt
                                                                      : entry.find(format.exec_arguments_key)) {
          throw ConfigError(arguments->location(),
                            fmt::format("\"{}\" gives the arguments of \"{}\", which this hook does not have; add "
                                        "the program as \"{}\", or remove \"{}\"",
                                        format.exec_arguments_key, format.exec_key, format.exec_key,
                                        format.exec_arguments_key));
        }
        if (auto cwd = http || format.working_directory_key.empty() ? std::nullopt
                                                                    : entry.find(format.working_directory_key))
          command.working_directory = read_working_directory(*cwd, layer, project_dir);
        if (auto env = http || format.environment_key.empty() ? std::nullopt : entry.find(format.environment_key))
          command.environment = read_environment(format, *env);
        if (auto rule = entry.find("if")) {
          command.if_rule = rule->as_string();
          if (!tool_event(event)) {
            note(rule->location(), fmt::format("an \"if\" applies only on tool events ({}); {} never runs a handler "
                                               "with one on {}, so it is not imported",
                                               fmt::join(kToolEvents, ", "), format.agent, event));
            continue;
          }
          try {
            (void)detail::parse_permission_rule(command.if_rule);
          } catch (const detail::PermissionRuleError& error) {
            throw ConfigError(rule->location(), error.what());
          }
          command.rule_root = plugin_root.empty() ? rule_root(file, layer) : plugin_root;
        }
        command.event = event;
        command.timeout = http && format.http_default_timeout != Duration::zero() ? format.http_default_timeout
                                                                                  : event_default_timeout(format, event);
        command.matcher = matcher;
        // The command for this system (VS Code's "linux"), else "command"; one for other systems only is skipped.
        std::optional<ConfigValue> command_value = entry.find("command");
        if (auto own = format.os_command_key.empty() ? std::nullopt : entry.find(format.os_command_key))
          command_value = own;
        if (!command_value && !exec && !http) {
          const auto other = std::find_if(format.other_os_command_keys.begin(), format.other_os_command_keys.end(),
                                          [&](const auto& key_system) { return entry.find(key_system.first); });
          if (other != format.other_os_command_keys.end()) {
            note(entry.find(other->first)->location(),
                 fmt::format("a command for {} only: {} runs \"{}\" or \"command\" on Linux, where hookbus runs, "
                             "and this hook has neither; not imported",
                             other->second, format.agent, format.os_command_key));
            continue;
          }
        }
        if (!exec && !http)
          command.command = command_value ? command_value->as_nonempty_string()
                                          : entry.required("command", "string").as_nonempty_string();
        const FormatEvent& format_event = *find_format_event(format, event);
        std::optional<ConfigValue> timeout = format.timeout_key.empty() ? std::nullopt : entry.find(format.timeout_key);
        if (!timeout) timeout = entry.find("timeout");
        if (timeout) {
          command.timeout = read_timeout(format, *timeout, http);
          if (format_event.max_timeout != Duration::zero() && command.timeout > format_event.max_timeout) {
            command.timeout = format_event.max_timeout;
            note(timeout->location(), fmt::format("{} gives a {} handler at most {} {}, and so does hookbus",
                                                  format.agent, event, format_event.max_timeout / format.timeout_unit,
                                                  format.timeout_unit_name));
          }
        }
        if (auto mode = format.fail_mode_key.empty() ? std::nullopt : entry.find(format.fail_mode_key)) {
          const std::string value = mode->as_string();
          if (value != "open" && value != "closed")
            throw ConfigError(mode->location(), fmt::format("expected \"open\" or \"closed\", got \"{}\"", value));
          if (value == "closed") command.failure = FailurePolicy::fail_closed;
        }
        if (format_event.fails_closed) command.failure = FailurePolicy::fail_closed;
        if (auto closed = format.fail_closed_key.empty() ? std::nullopt : entry.find(format.fail_closed_key);
            closed && closed->as_bool())
          command.failure = FailurePolicy::fail_closed;
        if (auto async = entry.find("async")) command.async = async->as_bool();
        if (auto rewake = entry.find("asyncRewake"); rewake && rewake->as_bool()) {
          command.async = command.async_rewake = true;
          note(rewake->location(),
               fmt::format("hookbus cannot wake an idle agent as {} does: the command runs in the background, as with "
                           "\"async\", and what its exit 2 prints goes to the model at the next event that takes "
                           "context ({})",
                           format.agent, format.documentation));
        }
        if (command.async && !format_event.runs_async) {
          command.async = command.async_rewake = false;
          note(entry.location(), fmt::format("{} runs its {} handlers in the foreground, \"async\" or not, and so "
                                             "does hookbus",
                                             format.agent, event));
        }
        if (!format.loop_limit_key.empty() && asks_for_follow_ups(format, event)) {
          command.follow_up_limit = format.default_loop_limit;
          if (auto limit = entry.find(format.loop_limit_key))
            command.follow_up_limit = limit->json().is_null()
                                          ? std::nullopt
                                          : std::optional(static_cast<std::uint32_t>(limit->as_integer(0, UINT32_MAX)));
        }
        if (auto once = entry.find("once")) command.once = once->as_bool();
        command.sequential = sequential || format.handlers_run_in_order;
        if (auto status = entry.find("statusMessage")) command.status_message = status->as_string();
        if (auto name = format.hook_name_key.empty() ? std::nullopt : entry.find(format.hook_name_key))
          command.name = name->as_string();
        command.label = http ? label_of_url(command.url) : label_of(command_line(command));
        command.source = fmt::format("{}: {}", file.string(), entry.location().path);
        command.layer = layer;
        command.plugin_root = plugin_root;
        command.protocol = format.protocol;
        settings.commands.push_back(std::move(command));
      }
    }
  }
  return settings;
}

ClaudeCodeSettings read_claude_code_settings(const std::filesystem::path& file, Layer layer,
                                             const std::filesystem::path& plugin_root) {
  return detail::read_format_settings(detail::claude_code_format(), file, layer, plugin_root);
}

}  // namespace hookbus
