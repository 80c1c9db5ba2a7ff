#pragma once
// Result types: what a handler returns to change what the engine does next.
// A default-constructed result means "no change"; it is also the neutral outcome
// an emit returns when nobody listens. The reduced outcome of an emit has the
// same type as a single handler's result, so an engine applies either the same way.
// Optional members are "set only what you set": absent means unchanged.

#include <hookbus/types.hpp>

namespace hookbus {

// ---- gating results carry a reason so a refusal is never silent ----

struct ToolCallResult {
  bool block = false;
  std::string reason;                          // "Tool call blocked by hook" when blocked without one
  std::optional<boost::json::object> input;    // replacement tool input; chains across handlers
  bool operator==(const ToolCallResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolCallResult, (), (block, reason, input))

struct ChannelConnectResult {
  bool allow = true;
  std::string reason;
  bool operator==(const ChannelConnectResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ChannelConnectResult, (), (allow, reason))

struct SessionBeforeSwitchResult {
  bool cancel = false;
  std::string reason;
  bool operator==(const SessionBeforeSwitchResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeSwitchResult, (), (cancel, reason))

struct SessionBeforeForkResult {
  bool cancel = false;
  std::string reason;
  bool operator==(const SessionBeforeForkResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeForkResult, (), (cancel, reason))

struct SessionBeforeCompactResult {
  bool cancel = false;
  std::string reason;
  std::optional<Compaction> compaction;        // a pre-computed compaction replaces the LLM's
  bool operator==(const SessionBeforeCompactResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeCompactResult, (), (cancel, reason, compaction))

struct SessionBeforeTreeResult {
  bool cancel = false;
  std::string reason;
  std::optional<std::string> summary;
  std::optional<std::string> custom_instructions;
  std::optional<std::string> label;
  bool operator==(const SessionBeforeTreeResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeTreeResult, (), (cancel, reason, summary, custom_instructions, label))

enum class InputAction { continue_, transform, handled, reject };
BOOST_DESCRIBE_ENUM(InputAction, continue_, transform, handled, reject)

struct InputResult {
  InputAction action = InputAction::continue_;
  std::optional<std::string> text;             // with transform: the new text
  std::optional<std::vector<ImagePart>> images;// with transform: replaces images; absent keeps them
  std::string reason;                          // with reject
  bool operator==(const InputResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(InputResult, (), (action, text, images, reason))

enum class ReceiveAction { continue_, transform, reject };
BOOST_DESCRIBE_ENUM(ReceiveAction, continue_, transform, reject)

struct MessageReceiveResult {
  ReceiveAction action = ReceiveAction::continue_;
  std::optional<std::vector<ContentPart>> parts;  // with transform: the new parts
  std::string reason;                             // with reject: sent back to the channel
  bool operator==(const MessageReceiveResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageReceiveResult, (), (action, parts, reason))

// ---- patch / replace / last-wins ----

struct ToolResultResult {
  std::optional<std::vector<ContentPart>> content;
  std::optional<bool> is_error;
  std::optional<bool> terminate;               // stop the agent loop after this tool
  bool operator==(const ToolResultResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolResultResult, (), (content, is_error, terminate))

struct ToolResultPersistResult {
  std::optional<std::vector<ContentPart>> content;  // what history stores instead (e.g. redacted)
  bool operator==(const ToolResultPersistResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolResultPersistResult, (), (content))

struct ContextResult {
  std::optional<std::vector<Message>> messages;
  bool operator==(const ContextResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ContextResult, (), (messages))

struct BeforeAgentStartResult {
  std::optional<std::string> system_prompt;
  bool operator==(const BeforeAgentStartResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(BeforeAgentStartResult, (), (system_prompt))

// ---- collect: every handler's items, in handler order ----

struct AgentEndResult {
  std::vector<std::string> follow_up_messages;
  bool operator==(const AgentEndResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(AgentEndResult, (), (follow_up_messages))

struct BootstrapFilesResult {
  std::vector<std::string> contents;           // extra prompt contents
  bool operator==(const BootstrapFilesResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(BootstrapFilesResult, (), (contents))

struct MessageSendResult {
  std::vector<ContentPart> parts;              // extra parts published before DONE
  bool operator==(const MessageSendResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageSendResult, (), (parts))

struct ResourcesDiscoverResult {
  std::vector<std::string> paths;
  bool operator==(const ResourcesDiscoverResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ResourcesDiscoverResult, (), (paths))

// ---- first wins ----

struct UserBashResult {
  bool handled = false;
  std::string output;
  std::optional<int> exit_code;
  bool operator==(const UserBashResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(UserBashResult, (), (handled, output, exit_code))

}  // namespace hookbus

namespace hookbus {

// The outcome of emitting a HookEvent: the reduced result of the event's type,
// or monostate for observe-only events. One alternative per result type.
using HookOutcome = std::variant<std::monostate, ToolCallResult, ChannelConnectResult, SessionBeforeSwitchResult,
                                 SessionBeforeForkResult, SessionBeforeCompactResult, SessionBeforeTreeResult,
                                 InputResult, MessageReceiveResult, ToolResultResult, ToolResultPersistResult,
                                 ContextResult, BeforeAgentStartResult, AgentEndResult, BootstrapFilesResult,
                                 MessageSendResult, ResourcesDiscoverResult, UserBashResult>;

}  // namespace hookbus
