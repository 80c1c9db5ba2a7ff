#pragma once
// Result types: what a handler returns to change what the engine does next.
// A default-constructed result means "no change"; it is also the neutral outcome
// an emit returns when nobody listens. The reduced outcome of an emit has the
// same type as a single handler's result, so an engine applies either the same way.
// Optional members are "set only what you set": absent means unchanged.

#include <hookbus/types.hpp>

namespace hookbus {

// ---- decisions, who made them, and "stop the agent" ----

// What a hook decides about an action (a tool call, a permission request).
// Combined over every handler: deny wins over ask, ask over allow, allow over none.
enum class Decision {
  none,   // no opinion: the engine does what it would do without hooks
  allow,  // run it without asking the user
  ask,    // ask the user first (the engine shows its own confirmation)
  deny,   // do not run it; `reason` says why (the model sees it)
};
BOOST_DESCRIBE_ENUM(Decision, none, allow, ask, deny)

// Who made a decision, a refusal or a stop: the handler's label and, for hooks
// loaded from files, settings or plugins, where it came from (a path, a
// settings entry). The bus fills it in; see docs/semantics.md.
struct Decider {
  std::string handler{};
  std::string source{};  // empty for handlers registered in-process
  bool operator==(const Decider&) const = default;
};
BOOST_DESCRIBE_STRUCT(Decider, (), (handler, source))

// "Stop the agent": the engine ends the agent's run after this event, telling
// the user `reason`. The first stop of an emit wins; it does not end the chain.
struct StopRequest {
  std::string reason{};
  std::optional<Decider> decided_by{};
  bool operator==(const StopRequest&) const = default;
};
BOOST_DESCRIBE_STRUCT(StopRequest, (), (reason, decided_by))

// Fields that several results share, with one rule each on every event:
//   additional_context  text for the model; accumulates in handler order
//   system_messages     text for the user; accumulates in handler order
//   stop                StopRequest; the first one wins
//   decided_by          set by the bus for the handler whose refusal, ask or
//                       decision won (a handler may name a decider itself)

// ---- gating results carry a reason so a refusal is never silent ----

struct ToolCallResult {
  Decision decision = Decision::none;
  std::string reason{};                        // for deny and ask; a default names the hook when empty
  std::optional<boost::json::object> input{};  // replacement tool input; chains across handlers
  std::vector<std::string> additional_context{};
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  std::optional<Decider> decided_by{};
  bool operator==(const ToolCallResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolCallResult, (),
                      (decision, reason, input, additional_context, system_messages, stop, decided_by))

// The engine is about to show the user a permission dialog for a tool call.
// `allow` and `deny` answer it instead of the user; `none` (and `ask`) show the dialog.
struct PermissionRequestResult {
  Decision decision = Decision::none;
  std::string reason{};
  std::optional<boost::json::object> input{};    // replacement tool input when allowed; chains
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  std::optional<Decider> decided_by{};
  bool operator==(const PermissionRequestResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(PermissionRequestResult, (), (decision, reason, input, system_messages, stop, decided_by))

struct ChannelConnectResult {
  bool allow = true;
  std::string reason{};
  std::optional<Decider> decided_by{};
  bool operator==(const ChannelConnectResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ChannelConnectResult, (), (allow, reason, decided_by))

struct SessionBeforeSwitchResult {
  bool cancel = false;
  std::string reason{};
  std::optional<Decider> decided_by{};
  bool operator==(const SessionBeforeSwitchResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeSwitchResult, (), (cancel, reason, decided_by))

struct SessionBeforeForkResult {
  bool cancel = false;
  std::string reason{};
  std::optional<Decider> decided_by{};
  bool operator==(const SessionBeforeForkResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeForkResult, (), (cancel, reason, decided_by))

struct SessionBeforeCompactResult {
  bool cancel = false;
  std::string reason{};
  std::optional<Compaction> compaction{};        // a pre-computed compaction replaces the LLM's
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  std::optional<Decider> decided_by{};
  bool operator==(const SessionBeforeCompactResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeCompactResult, (), (cancel, reason, compaction, system_messages, stop, decided_by))

struct SessionBeforeTreeResult {
  bool cancel = false;
  std::string reason{};
  std::optional<std::string> summary{};
  std::optional<std::string> custom_instructions{};
  std::optional<std::string> label{};
  std::optional<Decider> decided_by{};
  bool operator==(const SessionBeforeTreeResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeTreeResult, (), (cancel, reason, summary, custom_instructions, label, decided_by))

enum class InputAction { continue_, transform, handled, reject };
BOOST_DESCRIBE_ENUM(InputAction, continue_, transform, handled, reject)

struct InputResult {
  InputAction action = InputAction::continue_;
  std::optional<std::string> text{};             // with transform: the new text
  std::optional<std::vector<ImagePart>> images{};// with transform: replaces images; absent keeps them
  std::string reason{};                           // with reject
  std::vector<std::string> additional_context{};  // with any action but reject: context for the model
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  std::optional<Decider> decided_by{};
  bool operator==(const InputResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(InputResult, (), (action, text, images, reason, additional_context, system_messages, stop, decided_by))

enum class ReceiveAction { continue_, transform, reject };
BOOST_DESCRIBE_ENUM(ReceiveAction, continue_, transform, reject)

struct MessageReceiveResult {
  ReceiveAction action = ReceiveAction::continue_;
  std::optional<std::vector<ContentPart>> parts{};  // with transform: the new parts
  std::string reason{};                             // with reject: sent back to the channel
  std::optional<Decider> decided_by{};
  bool operator==(const MessageReceiveResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageReceiveResult, (), (action, parts, reason, decided_by))

// ---- patch / replace / last-wins ----

struct ToolResultResult {
  std::optional<std::vector<ContentPart>> content{};
  std::optional<bool> is_error{};
  std::vector<std::string> additional_context{}; // given to the model with the tool result
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};             // stop the agent after this tool
  bool operator==(const ToolResultResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolResultResult, (), (content, is_error, additional_context, system_messages, stop))

struct ToolResultPersistResult {
  std::optional<std::vector<ContentPart>> content{};  // what history stores instead (e.g. redacted)
  bool operator==(const ToolResultPersistResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolResultPersistResult, (), (content))

struct ContextResult {
  std::optional<std::vector<Message>> messages{};
  bool operator==(const ContextResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ContextResult, (), (messages))

struct BeforeAgentStartResult {
  std::optional<std::string> system_prompt{};
  bool operator==(const BeforeAgentStartResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(BeforeAgentStartResult, (), (system_prompt))

// kodelet's swap_context: after this turn, the engine replaces the whole
// conversation with `swap_context` as its summary, and the agent goes on from
// there (apply_context_swap, context_swap.hpp, applies it).
struct TurnEndResult {
  std::optional<std::string> swap_context{};  // the summary; empty is no change
  bool operator==(const TurnEndResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(TurnEndResult, (), (swap_context))

// ---- collect: every handler's items, in handler order ----

// Follow-up messages keep the agent going: the engine sends them as new user
// turns (and sets the next agent_end's `after_follow_up`).
struct AgentEndResult {
  std::vector<std::string> follow_up_messages{};
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  bool operator==(const AgentEndResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(AgentEndResult, (), (follow_up_messages, system_messages, stop))

struct SubagentEndResult {
  std::vector<std::string> follow_up_messages{};  // keep the subagent going
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  bool operator==(const SubagentEndResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SubagentEndResult, (), (follow_up_messages, system_messages, stop))

struct SessionStartResult {
  std::vector<std::string> additional_context{};  // added to the session's context for the model
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  bool operator==(const SessionStartResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionStartResult, (), (additional_context, system_messages, stop))

struct ToolExecutionFailureResult {
  std::vector<std::string> additional_context{};  // given to the model with the failure
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  bool operator==(const ToolExecutionFailureResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolExecutionFailureResult, (), (additional_context, system_messages, stop))

struct BootstrapFilesResult {
  std::vector<std::string> contents{};           // extra prompt contents
  bool operator==(const BootstrapFilesResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(BootstrapFilesResult, (), (contents))

struct MessageSendResult {
  std::vector<ContentPart> parts{};              // extra parts published before DONE
  bool operator==(const MessageSendResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageSendResult, (), (parts))

struct ResourcesDiscoverResult {
  std::vector<std::string> paths{};
  bool operator==(const ResourcesDiscoverResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ResourcesDiscoverResult, (), (paths))

// ---- first wins ----

struct UserBashResult {
  bool handled = false;
  std::string output{};
  std::optional<int> exit_code{};
  std::optional<Decider> decided_by{};
  bool operator==(const UserBashResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(UserBashResult, (), (handled, output, exit_code, decided_by))

}  // namespace hookbus

namespace hookbus {

// The outcome of emitting a HookEvent: the reduced result of the event's type,
// or monostate for observe-only events. One alternative per result type.
using HookOutcome = std::variant<std::monostate, ToolCallResult, PermissionRequestResult, ChannelConnectResult,
                                 SessionBeforeSwitchResult, SessionBeforeForkResult, SessionBeforeCompactResult,
                                 SessionBeforeTreeResult, InputResult, MessageReceiveResult, ToolResultResult,
                                 ToolResultPersistResult, ContextResult, BeforeAgentStartResult, TurnEndResult, AgentEndResult,
                                 SubagentEndResult, SessionStartResult, ToolExecutionFailureResult,
                                 BootstrapFilesResult, MessageSendResult, ResourcesDiscoverResult, UserBashResult>;

}  // namespace hookbus
