// Hook formats (formats/hook_format.hpp): the formats hookbus reads, their
// event maps, what config asks of them, and what setup() imports of each.
#include "formats/hook_format.hpp"

#include <hookbus/names.hpp>

#include "config/format_checks.hpp"
#include "formats/claude_code/imports.hpp"
#include "formats/cline/format.hpp"
#include "formats/codex/format.hpp"
#include "formats/copilot_cli/format.hpp"
#include "formats/cursor/format.hpp"
#include "formats/gemini_cli/format.hpp"
#include "formats/qwen_code/format.hpp"
#include "formats/vscode/format.hpp"
#include "support/text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

namespace hookbus::detail {

const FormatEvent* find_format_event(const HookFormat& format, std::string_view name) {
  const auto found = std::find_if(format.events.begin(), format.events.end(),
                                  [&](const FormatEvent& event) { return event.name == name; });
  return found == format.events.end() ? nullptr : &*found;
}

std::span<const HookFormat* const> hook_formats() {
  static const HookFormat* const formats[] = {&codex_format(),  &qwen_code_format(), &gemini_cli_format(),
                                                &cursor_format(), &vscode_format(),    &copilot_cli_format(), &cline_format(),
                                                &claude_code_format()};
  return formats;
}

const HookFormat* find_hook_format(HookProtocol protocol) {
  for (const HookFormat* format : hook_formats())
    if (format->protocol == protocol) return format;
  return nullptr;
}

const HookFormat& hook_format_of(HookProtocol protocol) {
  if (const HookFormat* format = find_hook_format(protocol)) return *format;
  throw std::invalid_argument(fmt::format("{} hooks are not declared as an agent's: they have no hook format",
                                          hook_protocol_name(protocol)));
}

ClaudeCodeToolNames format_tool_names(const HookFormat& format, std::map<std::string, std::string> engine_to_agent) {
  std::map<std::string, std::string> builtins;
  for (const auto& [claude, agent] : format.claude_tool_names) builtins.emplace(claude, agent);
  return {std::move(engine_to_agent), std::move(builtins)};
}

std::vector<std::size_t> event_targets(const HookFormat& format, std::string_view event) {
  std::vector<std::size_t> targets;
  if (const FormatEvent* found = find_format_event(format, event))
    for (const auto target : found->targets)
      if (!target.empty()) targets.push_back(*find_event(target));
  return targets;
}

bool event_has_matcher(const HookFormat& format, std::string_view event) {
  const FormatEvent* found = find_format_event(format, event);
  return found == nullptr || found->has_matcher;
}

namespace {
// `pattern` as a ClaudeCodeMatcher reads it under `syntax`.
std::string matcher_text(MatcherSyntax syntax, std::string_view pattern) {
  if (pattern.empty() || pattern == "*") return std::string(pattern);
  switch (syntax) {
    case MatcherSyntax::claude_code: return std::string(pattern);
    case MatcherSyntax::searched: return fmt::format("(?:{})", pattern);  // never a list of exact names
    case MatcherSyntax::whole: return fmt::format("^(?:{})$", pattern);
  }
  return std::string(pattern);
}
}  // namespace

ClaudeCodeMatcher format_matcher(const HookFormat& format, std::string_view event, std::string_view pattern) {
  const FormatEvent* found = find_format_event(format, event);
  if (found != nullptr && !found->has_matcher) return ClaudeCodeMatcher("");
  return ClaudeCodeMatcher(matcher_text(found != nullptr && found->matchers ? *found->matchers : format.matchers, pattern));
}

Duration event_default_timeout(const HookFormat& format, std::string_view event) {
  const FormatEvent* found = find_format_event(format, event);
  return found == nullptr || found->default_timeout == Duration::zero() ? format.default_timeout
                                                                        : found->default_timeout;
}

bool format_matcher_matches(const HookFormat& format, const ClaudeCodeMatcher& matcher, std::string_view value) {
  if (matcher.matches(value)) return true;
  // The tool's own name, when `value` is one of its aliases; then its other aliases.
  std::string_view own = value;
  for (const auto& [name, alias] : format.tool_aliases)
    if (alias == value) own = name;
  if (own != value && matcher.matches(own)) return true;
  return std::any_of(format.tool_aliases.begin(), format.tool_aliases.end(), [&](const auto& tool_alias) {
    return tool_alias.first == own && tool_alias.second != value && matcher.matches(tool_alias.second);
  });
}

bool event_applies(const HookFormat& format, std::string_view format_event, std::size_t index, bool tool_error,
                   bool resumed, RunStatus run_status) {
  const FormatEvent* found = find_format_event(format, format_event);
  if (found == nullptr) return false;
  if (index == event_index<ToolResultEvent>) {
    if (found->tool_results == ToolResults::succeeded) return !tool_error;
    if (found->tool_results == ToolResults::failed) return tool_error;
  }
  if (index == event_index<SessionStartEvent>) {
    if (found->session_starts == SessionStarts::fresh) return !resumed;
    if (found->session_starts == SessionStarts::resumed) return resumed;
  }
  if (index == event_index<AgentEndEvent> && found->run_status && *found->run_status != run_status) return false;
  const auto targets = event_targets(format, format_event);
  return std::find(targets.begin(), targets.end(), index) != targets.end();
}

void check_event(const HookFormat& format, std::string_view name, const ConfigLocation& where) {
  if (!event_targets(format, name).empty()) return;
  std::vector<std::string_view> valid;
  std::vector<std::string_view> meant;  // the format's names for what `name` means, in hookbus's words or another case
  const auto index = find_event(name);
  for (const auto& event : format.events) {
    valid.push_back(event.name);
    const bool targets_it =
        index && std::find(event.targets.begin(), event.targets.end(), event_name(*index)) != event.targets.end();
    if (targets_it || equal_ignoring_case(event.name, name)) meant.push_back(event.name);
  }
  const std::string hint = meant.empty() ? "" : fmt::format(" (did you mean {}?)", fmt::join(meant, " or "));
  throw ConfigError(where, fmt::format("\"{}\" is not a {} event that hookbus runs hooks on{}; a {} hook declares {}'s "
                                       "event names: {}",
                                       name, format.agent, hint, hook_protocol_name(format.protocol), format.agent,
                                       fmt::join(valid, ", ")));
}

void check_format_hook_entry(HookProtocol protocol, const ConfigObject& entry) {
  const HookFormat* format = find_hook_format(protocol);
  if (format == nullptr) return;
  if (const auto events = entry.find("events"))
    for (const auto& event : events->as_array()) check_event(*format, event.as_string(), event.location());
  if (const auto matcher = entry.find("matcher")) {
    try {
      (void)format_matcher(*format, "", matcher->as_string());
    } catch (const ConfigError& error) {
      throw ConfigError(matcher->location(), error.what());
    }
  }
}

std::vector<std::unique_ptr<FormatImports>> format_imports(const Locations& locations,
                                                           const std::optional<ClaudeCodeSetup>& engine) {
  // Claude Code's last: its transcript is kept for the other formats' commands too.
  std::vector<std::unique_ptr<FormatImports>> imports;
  for (const HookFormat* format : hook_formats())
    imports.push_back(format->imports != nullptr
                          ? format->imports(*format, locations)
                          : std::make_unique<ClaudeCodeImports>(
                                *format, locations, format->protocol == HookProtocol::claude_code ? engine : std::nullopt));
  return imports;
}

}  // namespace hookbus::detail
