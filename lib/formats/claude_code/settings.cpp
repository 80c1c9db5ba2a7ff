// Claude Code's settings files and plugins: the `hooks` block, the event
// table, matchers and tool names (include/hookbus/claude_code.hpp).
#include <hookbus/claude_code.hpp>
#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

#include "formats/claude_code/command_files.hpp"
#include "support/files.hpp"
#include "support/sha256.hpp"
#include "support/text.hpp"

#include <boost/regex.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace hookbus {
namespace {

namespace fs = std::filesystem;

// Claude Code's events, the hookbus events they stand for, and whether
// Claude Code filters them by a matcher (it ignores the matcher of the others).
struct ClaudeEvent {
  std::string_view name;
  std::array<std::string_view, 2> targets;  // hookbus wire names; "" unused
  bool has_matcher = true;
};
constexpr ClaudeEvent kClaudeEvents[] = {
    {"PreToolUse", {"tool_call", ""}},
    {"PermissionRequest", {"permission_request", ""}},
    {"PostToolUse", {"tool_result", ""}},
    {"PostToolUseFailure", {"tool_result", "tool_execution_failure"}},
    {"UserPromptSubmit", {"input", ""}, false},
    {"Notification", {"notification", ""}},
    {"Stop", {"agent_end", ""}, false},
    {"SubagentStart", {"subagent_start", ""}},
    {"SubagentStop", {"subagent_end", ""}},
    {"PreCompact", {"session_before_compact", ""}},
    {"SessionStart", {"session_start", ""}},
    {"SessionEnd", {"session_shutdown", ""}},
};

constexpr std::string_view kBuiltinTools[] = {
    "Bash",  "Read",     "Write",        "Edit",        "MultiEdit",    "Glob",      "Grep",
    "LS",    "WebFetch", "WebSearch",    "NotebookEdit", "NotebookRead", "Task",      "TodoWrite",
    "ExitPlanMode", "KillShell", "BashOutput", "SlashCommand", "Skill", "AskUserQuestion"};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Claude Code's timeout: seconds, a positive number.
Duration read_timeout_seconds(const ConfigValue& value) {
  const auto& json = value.json();
  if (!json.is_number()) value.fail_expected("number of seconds");
  const double seconds = json.to_number<double>();
  if (!(seconds > 0 && seconds <= 86400))
    throw ConfigError(value.location(), fmt::format("expected a number of seconds from 0 to 86400, got {}", seconds));
  return Duration(static_cast<Duration::rep>(std::ceil(seconds * 1000)));
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

}  // namespace

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

ShellCommandFiles resolve_claude_code_command(const ClaudeCodeCommand& command, const ProjectDirectory& project) {
  ShellStart shell{.working_directory = project.physical(), .variables = {{"CLAUDE_PROJECT_DIR", project.given().string()}}};
  if (!command.plugin_root.empty()) shell.variables.emplace("CLAUDE_PLUGIN_ROOT", command.plugin_root.string());
  // The hook runs with the engine's environment: its HOME, PATH and CDPATH are what the command sees.
  for (const char* inherited : {"HOME", "PATH", "CDPATH"})
    if (const char* value = std::getenv(inherited); value != nullptr && *value != '\0')
      shell.variables.emplace(inherited, value);
  return resolve_shell_command(command.command, shell);
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
  return detail::files_inside(detail::resolve_claude_code_command({.command = std::string(command)}, project), project);
}

std::vector<std::filesystem::path> claude_code_named_files(const ClaudeCodeCommand& command,
                                                           const std::filesystem::path& project_dir) {
  std::vector<fs::path> files;
  for (auto& file : detail::resolve_claude_code_command(command, detail::ProjectDirectory(project_dir)).files)
    files.push_back(std::move(file.path));
  return files;
}

// ------------------------------------------------------------ tool names

ClaudeCodeToolNames::ClaudeCodeToolNames(std::map<std::string, std::string> engine_to_claude) {
  for (auto& [engine, claude] : engine_to_claude) {
    to_engine_.emplace(claude, engine);
    to_claude_.emplace(std::move(engine), std::move(claude));
  }
}

std::string ClaudeCodeToolNames::to_claude(std::string_view engine_name) const {
  if (const auto found = to_claude_.find(engine_name); found != to_claude_.end()) return found->second;
  for (const auto builtin : kBuiltinTools)
    if (equal_ignoring_case(builtin, engine_name)) return std::string(builtin);
  return std::string(engine_name);
}

std::string ClaudeCodeToolNames::to_engine(std::string_view claude_name) const {
  if (const auto found = to_engine_.find(claude_name); found != to_engine_.end()) return found->second;
  return std::string(claude_name);
}

std::span<const std::string_view> claude_code_tool_names() noexcept { return kBuiltinTools; }

// -------------------------------------------------------------- matchers

struct ClaudeCodeMatcher::Expression {
  boost::regex regex;
};

ClaudeCodeMatcher::ClaudeCodeMatcher(std::string_view pattern) {
  if (pattern.empty() || pattern == "*") return;
  const bool names = std::all_of(pattern.begin(), pattern.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == ' ' || c == ',' || c == '|';
  });
  if (names) {
    std::string_view rest = pattern;
    while (!rest.empty()) {
      const std::size_t end = std::min(rest.find_first_of("|,"), rest.size());
      if (const std::string_view name = detail::trim(rest.substr(0, end)); !name.empty()) names_.emplace_back(name);
      rest.remove_prefix(std::min(end + 1, rest.size()));
    }
    if (names_.empty())
      throw ConfigError({}, fmt::format("matcher \"{}\" names no tool: write \"*\" (or leave it out) to match every one",
                                        pattern));
    return;
  }
  try {
    // ECMAScript syntax, as Claude Code's JavaScript RegExp.
    expression_ = std::make_shared<const Expression>(
        Expression{boost::regex(pattern.begin(), pattern.end(), boost::regex::ECMAScript)});
  } catch (const boost::regex_error& error) {
    throw ConfigError({}, fmt::format("matcher \"{}\" is not a valid regular expression: {}", pattern, error.what()));
  }
}

bool ClaudeCodeMatcher::matches(std::string_view value) const {
  if (expression_) return boost::regex_search(value.begin(), value.end(), expression_->regex);
  return names_.empty() || std::find(names_.begin(), names_.end(), value) != names_.end();
}

// ------------------------------------------------------------ the events

std::vector<std::size_t> claude_code_event_targets(std::string_view claude_event) {
  std::vector<std::size_t> targets;
  for (const auto& event : kClaudeEvents)
    if (event.name == claude_event)
      for (const auto target : event.targets)
        if (!target.empty()) targets.push_back(*find_event(target));
  return targets;
}

void check_claude_code_event(std::string_view name, const ConfigLocation& where) {
  if (!claude_code_event_targets(name).empty()) return;
  std::vector<std::string_view> valid;
  std::vector<std::string_view> meant;  // Claude Code's names for what `name` means, in hookbus's words or another case
  const auto index = find_event(name);
  for (const auto& event : kClaudeEvents) {
    valid.push_back(event.name);
    const bool targets_it = index && std::find(event.targets.begin(), event.targets.end(), event_name(*index)) != event.targets.end();
    if (targets_it || equal_ignoring_case(event.name, name)) meant.push_back(event.name);
  }
  const std::string hint = meant.empty() ? "" : fmt::format(" (did you mean {}?)", fmt::join(meant, " or "));
  throw ConfigError(where, fmt::format("\"{}\" is not a Claude Code event that hookbus runs hooks on{}; a claude_code "
                                       "hook declares Claude Code's event names: {}",
                                       name, hint, fmt::join(valid, ", ")));
}

bool claude_code_event_has_matcher(std::string_view claude_event) {
  for (const auto& event : kClaudeEvents)
    if (event.name == claude_event) return event.has_matcher;
  return true;
}

bool claude_code_event_applies(std::string_view claude_event, const HookEvent& event) {
  if (const auto* result = std::get_if<ToolResultEvent>(&event)) {
    if (claude_event == "PostToolUse") return !result->is_error;
    if (claude_event == "PostToolUseFailure") return result->is_error;
  }
  const auto targets = claude_code_event_targets(claude_event);
  return std::find(targets.begin(), targets.end(), event.index()) != targets.end();
}

// -------------------------------------------------------------- settings

std::filesystem::path claude_code_settings_file(const Locations& locations, Layer scope) {
  switch (scope) {
    case Layer::user: return locations.claude.empty() ? fs::path() : locations.claude / "settings.json";
    case Layer::project: return locations.project / ".claude" / "settings.json";
    case Layer::local: return locations.project / ".claude" / "settings.local.json";
    case Layer::managed: break;
  }
  return {};
}

ClaudeCodeSettings read_claude_code_settings(const std::filesystem::path& file, Layer layer,
                                             const std::filesystem::path& plugin_root) {
  ClaudeCodeSettings settings{file, {}, {}, false, {}};
  const ConfigLocation root{.file = file, .project_dir = {}, .path = {}};
  std::optional<std::string> text;
  try {
    text = detail::read_regular_file_if_exists(file, max_config_file_size);
  } catch (const detail::FileReadError& error) {
    throw ConfigError(root, error.what());
  }
  if (!text) return settings;
  settings.sha256 = detail::sha256_hex(*text);
  boost::json::value document;
  try {
    document = parse_json(*text, "");
  } catch (const JsonError& error) {
    throw ConfigError(root, error.what());
  }
  const ConfigObject top = ConfigValue(document, root).as_object();
  if (auto disable = top.find("disableAllHooks")) settings.disable_all_hooks = disable->as_bool();
  const auto hooks = top.find("hooks");
  if (!hooks) return settings;
  const auto note = [&](const ConfigLocation& where, std::string_view what) {
    settings.skipped.push_back(fmt::format("{}: {}: {}", file.string(), where.path, what));
  };
  const auto note_unknown_keys = [&](const ConfigObject& object, std::initializer_list<std::string_view> known) {
    for (const auto& [key, value] : object.members())
      if (std::find(known.begin(), known.end(), key) == known.end())
        note(value.location(), "not a key hookbus knows; ignored");
  };
  for (const auto& [event, groups] : hooks->as_object().members()) {
    const auto targets = claude_code_event_targets(event);
    const auto group_list = groups.as_array();
    if (targets.empty()) {
      note(groups.location(), fmt::format("hookbus has no equivalent of the Claude Code event '{}'; its {} hook "
                                          "group(s) are not imported (docs/claude-code.md lists the events)",
                                          event, group_list.size()));
      continue;
    }
    for (const auto& group_value : group_list) {
      const ConfigObject group = group_value.as_object();
      note_unknown_keys(group, {"matcher", "hooks"});
      std::string matcher;
      if (auto m = group.find("matcher")) matcher = m->as_string();
      try {
        if (claude_code_event_has_matcher(event)) (void)ClaudeCodeMatcher(matcher);
      } catch (const ConfigError& error) {
        throw ConfigError(group.location().key("matcher"), error.what());
      }
      for (const auto& entry_value : group.required("hooks", "array of hooks").as_array()) {
        const ConfigObject entry = entry_value.as_object();
        const std::string type = entry.required("type", "string").as_string();
        if (type != "command") {
          note(entry.location(), fmt::format("hook type \"{}\" is not supported (only \"command\" hooks run "
                                             "outside Claude Code); not imported",
                                             type));
          continue;
        }
        note_unknown_keys(entry, {"type", "command", "timeout", "async", "once", "statusMessage"});
        ClaudeCodeCommand command;
        command.event = event;
        command.matcher = matcher;
        command.command = entry.required("command", "string").as_nonempty_string();
        if (auto timeout = entry.find("timeout")) command.timeout = read_timeout_seconds(*timeout);
        if (auto async = entry.find("async")) command.async = async->as_bool();
        if (auto once = entry.find("once")) command.once = once->as_bool();
        if (auto status = entry.find("statusMessage")) (void)status->as_string();  // shown by Claude Code's UI only
        command.label = label_of(command.command);
        command.source = fmt::format("{}: {}", file.string(), entry.location().path);
        command.layer = layer;
        command.plugin_root = plugin_root;
        settings.commands.push_back(std::move(command));
      }
    }
  }
  return settings;
}

}  // namespace hookbus
