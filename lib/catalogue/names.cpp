#include <hookbus/errors.hpp>
#include <hookbus/names.hpp>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>

namespace hookbus {
namespace {

template <std::size_t... I>
constexpr auto make_names(std::index_sequence<I...>) {
  return std::array<std::string_view, sizeof...(I)>{std::variant_alternative_t<I, HookEvent>::type...};
}
constexpr auto kNames = make_names(std::make_index_sequence<event_count>{});

constexpr EventAlias kAliases[] = {
    // kodelet, Calute, and most Python agent frameworks
    {"before_tool_call", "tool_call"},
    {"after_tool_call", "tool_result"},
    {"user_message_send", "input"},
    {"agent_stop", "agent_end"},
    {"on_turn_start", "turn_start"},
    {"on_turn_end", "turn_end"},
    {"on_error", "agent_error"},
    // tool-orchestrator style (on_*)
    {"on_before_tool", "tool_call"},
    {"on_after_tool", "tool_result"},
    {"on_tool_error", "tool_execution_failure"},
    {"on_permission_denied", "permission_denied"},
    {"on_token_budget_exceeded", "token_budget_exceeded"},
    {"on_tools_disabled", "tools_disabled"},
    {"on_loop_warning", "loop_warning"},
    // Operator-Use's older names
    {"after_agent_end", "agent_end"},
    {"before_llm_call", "before_model_call"},
    {"after_llm_call", "after_model_call"},
    // Strands-style event class names
    {"AgentInitializedEvent", "agent_initialized"},
    {"BeforeInvocationEvent", "agent_start"},
    {"AfterInvocationEvent", "agent_end"},
    {"MessageAddedEvent", "message_end"},
    {"BeforeToolCallEvent", "tool_call"},
    {"AfterToolCallEvent", "tool_result"},
    {"BeforeToolInvocationEvent", "tool_call"},
    {"AfterToolInvocationEvent", "tool_result"},
    {"BeforeModelCallEvent", "before_model_call"},
    {"AfterModelCallEvent", "after_model_call"},
    {"BeforeModelInvocationEvent", "before_model_call"},
    {"AfterModelInvocationEvent", "after_model_call"},
};

constexpr std::optional<std::size_t> index_of_name(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return i;
  return std::nullopt;
}

// Every alias must point at a real name: checked when this file compiles.
static_assert(std::ranges::all_of(kAliases, [](const EventAlias& a) { return index_of_name(a.name).has_value(); }));

template <std::size_t... I>
HookEvent make_event_at(std::size_t index, std::index_sequence<I...>) {
  static constexpr HookEvent (*kMakers[])() = {[]() -> HookEvent { return std::variant_alternative_t<I, HookEvent>{}; }...};
  return kMakers[index]();
}

}  // namespace

std::span<const std::string_view> event_names() noexcept { return kNames; }

std::span<const EventAlias> event_aliases() noexcept { return kAliases; }

std::string_view event_name(std::size_t index) {
  if (index >= kNames.size())
    throw std::out_of_range("hookbus: event index " + std::to_string(index) + " is past the catalogue's " +
                            std::to_string(kNames.size()) + " events");
  return kNames[index];
}

std::string_view event_name(const HookEvent& event) noexcept { return kNames[event.index()]; }

std::optional<std::size_t> find_event(std::string_view name_or_alias) noexcept {
  if (auto index = index_of_name(name_or_alias)) return index;
  for (const auto& alias : kAliases)
    if (alias.alias == name_or_alias) return index_of_name(alias.name);
  return std::nullopt;
}

std::size_t resolve_event(std::string_view name_or_alias) {
  if (auto index = find_event(name_or_alias)) return *index;
  std::string message = "unknown event '" + std::string(name_or_alias) + "'; valid names are: ";
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (i != 0) message += ", ";
    message += kNames[i];
  }
  message += " (aliases such as before_tool_call are also accepted; `hookctl events` lists everything)";
  throw UnknownEventError(message);
}

HookEvent make_event(std::size_t index) {
  event_name(index);  // bounds check with a clear message
  return make_event_at(index, std::make_index_sequence<event_count>{});
}

}  // namespace hookbus
