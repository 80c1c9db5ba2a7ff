#pragma once
// Wire names: lookup both ways between a name and its position in HookEvent,
// the list of every name, and the aliases other agent systems use for ours.

#include <hookbus/events.hpp>

#include <optional>
#include <span>
#include <string_view>

namespace hookbus {

struct EventAlias {
  std::string_view alias{};  // the other system's name, e.g. "before_tool_call"
  std::string_view name{};   // ours, e.g. "tool_call"
};

// Every wire name, in HookEvent order (event_names()[event_index<E>] == E::type).
std::span<const std::string_view> event_names() noexcept;

// Every accepted alias.
std::span<const EventAlias> event_aliases() noexcept;

// The wire name at a HookEvent index; throws std::out_of_range past the end.
std::string_view event_name(std::size_t index);

// The wire name of the event a variant holds.
std::string_view event_name(const HookEvent& event) noexcept;

// The HookEvent index of a wire name or alias, or nullopt.
std::optional<std::size_t> find_event(std::string_view name_or_alias) noexcept;

// Like find_event, but an unknown name throws UnknownEventError listing the valid names.
std::size_t resolve_event(std::string_view name_or_alias);

// A default-constructed event of the alternative at `index`.
HookEvent make_event(std::size_t index);

}  // namespace hookbus
