#pragma once
// The event catalogue: every lifecycle event an agent engine emits, as plain
// described structs, and `HookEvent`, the one variant that holds any of them.
//
// Each event carries
//   - `type`: its wire name, a compile-time constant;
//   - `Result` and `reduction`, when handlers can change what happens next
//     (see results.hpp and docs/semantics.md); observe-only events have neither;
//   - `closing = true` for the second half of a before/after pair, which the bus
//     can run in reverse registration order (HooksOptions::nested_ordering).
// The compile-time index of an event in HookEvent is the bus's dispatch key:
// no string is compared on the emit path.
//
// Every event's `context` is value-initialised (`= EventContext()`: zeroed,
// then its defaults): otherwise g++ 12 at -O3 reports a false
// -Wmaybe-uninitialized inside a user's designated initialiser of an event
// (`ToolCallEvent{.tool_name = "bash"}`), which breaks builds with -Werror.

#include <hookbus/results.hpp>

#include <boost/describe/members.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/set.hpp>
#include <boost/mp11/utility.hpp>

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace hookbus {

enum class Reduction {
  observe,     // no result; handlers only look
  block,       // decisions combine deny > defer > ask > allow; the first deny (block) stops; input replacements chain
  patch,       // each patch sets only its fields; handlers see earlier patches
  replace,     // each handler sees and may replace the previous replacement
  last_wins,   // the last non-empty value wins
  cancel,      // first cancel stops; otherwise supplied fields, last wins
  collect,     // every handler's items accumulate in handler order
  transform,   // transforms chain; handled/reject stops
  first_wins,  // the first handler that handles it wins
};
BOOST_DESCRIBE_ENUM(Reduction, observe, block, patch, replace, last_wins, cancel, collect, transform, first_wins)

// ------------------------------------------------------------------ session

enum class SessionStartReason { startup, reload, new_session, resume, fork, compact };
BOOST_DESCRIBE_ENUM(SessionStartReason, startup, reload, new_session, resume, fork, compact)

enum class SessionSwitchReason { new_session, resume };
BOOST_DESCRIBE_ENUM(SessionSwitchReason, new_session, resume)

enum class SessionShutdownReason { quit, switch_session, new_session, reload, error };
BOOST_DESCRIBE_ENUM(SessionShutdownReason, quit, switch_session, new_session, reload, error)

struct SessionStartEvent {
  static constexpr std::string_view type = "session_start";
  using Result = SessionStartResult;
  static constexpr Reduction reduction = Reduction::collect;
  EventContext context = EventContext();
  SessionStartReason reason = SessionStartReason::startup;
  std::optional<std::string> previous_session_file{};
  bool operator==(const SessionStartEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionStartEvent, (), (context, reason, previous_session_file))

struct SessionBeforeSwitchEvent {
  static constexpr std::string_view type = "session_before_switch";
  using Result = SessionBeforeSwitchResult;
  static constexpr Reduction reduction = Reduction::cancel;
  EventContext context = EventContext();
  SessionSwitchReason reason = SessionSwitchReason::new_session;
  std::optional<std::string> target_session_file{};
  bool operator==(const SessionBeforeSwitchEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeSwitchEvent, (), (context, reason, target_session_file))

struct SessionBeforeForkEvent {
  static constexpr std::string_view type = "session_before_fork";
  using Result = SessionBeforeForkResult;
  static constexpr Reduction reduction = Reduction::cancel;
  EventContext context = EventContext();
  std::string entry_id{};
  std::uint64_t position = 0;  // index of the entry in the current branch
  bool operator==(const SessionBeforeForkEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeForkEvent, (), (context, entry_id, position))

// What started a compaction: the user (a command) or the engine (a full context window).
enum class CompactTrigger { manual, auto_ };
BOOST_DESCRIBE_ENUM(CompactTrigger, manual, auto_)

struct SessionBeforeCompactEvent {
  static constexpr std::string_view type = "session_before_compact";
  using Result = SessionBeforeCompactResult;
  static constexpr Reduction reduction = Reduction::cancel;
  EventContext context = EventContext();
  CompactionPreparation preparation{};
  std::vector<boost::json::object> branch_entries{};
  std::optional<std::string> custom_instructions{};
  CompactTrigger trigger = CompactTrigger::manual;
  bool operator==(const SessionBeforeCompactEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeCompactEvent, (), (context, preparation, branch_entries, custom_instructions, trigger))

struct SessionCompactEvent {
  static constexpr std::string_view type = "session_compact";
  EventContext context = EventContext();
  CompactionEntry compaction_entry{};
  bool from_extension = false;
  bool operator==(const SessionCompactEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionCompactEvent, (), (context, compaction_entry, from_extension))

struct SessionShutdownEvent {
  static constexpr std::string_view type = "session_shutdown";
  EventContext context = EventContext();
  SessionShutdownReason reason = SessionShutdownReason::quit;
  std::optional<std::string> target_session_file{};
  bool operator==(const SessionShutdownEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionShutdownEvent, (), (context, reason, target_session_file))

struct SessionBeforeTreeEvent {
  static constexpr std::string_view type = "session_before_tree";
  using Result = SessionBeforeTreeResult;
  static constexpr Reduction reduction = Reduction::cancel;
  EventContext context = EventContext();
  TreePreparation preparation{};
  bool operator==(const SessionBeforeTreeEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeTreeEvent, (), (context, preparation))

struct SessionTreeEvent {
  static constexpr std::string_view type = "session_tree";
  EventContext context = EventContext();
  std::optional<std::string> new_leaf_id{};
  std::optional<std::string> old_leaf_id{};
  std::optional<BranchSummaryEntry> summary_entry{};
  bool operator==(const SessionTreeEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionTreeEvent, (), (context, new_leaf_id, old_leaf_id, summary_entry))

// -------------------------------------------------------------------- agent

enum class InputSource { interactive, rpc, extension };
BOOST_DESCRIBE_ENUM(InputSource, interactive, rpc, extension)

struct AgentInitializedEvent {
  static constexpr std::string_view type = "agent_initialized";
  EventContext context = EventContext();
  std::string agent_id{};
  std::string name{};
  bool operator==(const AgentInitializedEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(AgentInitializedEvent, (), (context, agent_id, name))

struct InputEvent {
  static constexpr std::string_view type = "input";
  using Result = InputResult;
  static constexpr Reduction reduction = Reduction::transform;
  EventContext context = EventContext();
  std::string text{};
  InputSource source = InputSource::interactive;
  std::vector<ImagePart> images{};
  bool operator==(const InputEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(InputEvent, (), (context, text, source, images))

struct BeforeAgentStartEvent {
  static constexpr std::string_view type = "before_agent_start";
  using Result = BeforeAgentStartResult;
  static constexpr Reduction reduction = Reduction::last_wins;
  EventContext context = EventContext();
  std::string prompt{};
  std::string system_prompt{};
  bool operator==(const BeforeAgentStartEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(BeforeAgentStartEvent, (), (context, prompt, system_prompt))

struct BootstrapFilesEvent {
  static constexpr std::string_view type = "bootstrap_files";
  using Result = BootstrapFilesResult;
  static constexpr Reduction reduction = Reduction::collect;
  EventContext context = EventContext();
  std::string agent_id{};
  bool operator==(const BootstrapFilesEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(BootstrapFilesEvent, (), (context, agent_id))

struct ContextEvent {
  static constexpr std::string_view type = "context";
  using Result = ContextResult;
  static constexpr Reduction reduction = Reduction::replace;
  EventContext context = EventContext();
  std::vector<Message> messages{};
  bool operator==(const ContextEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ContextEvent, (), (context, messages))

struct AgentStartEvent {
  static constexpr std::string_view type = "agent_start";
  EventContext context = EventContext();
  bool operator==(const AgentStartEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(AgentStartEvent, (), (context))

// Why an agent's run (agent_end) or a subagent's (subagent_end) ended: it
// finished, an error ended it, or the user stopped it.
enum class RunStatus { completed, failed, cancelled };
BOOST_DESCRIBE_ENUM(RunStatus, completed, failed, cancelled)

struct AgentEndEvent {
  static constexpr std::string_view type = "agent_end";
  using Result = AgentEndResult;
  static constexpr Reduction reduction = Reduction::collect;
  static constexpr bool closing = true;
  EventContext context = EventContext();
  std::vector<Message> messages{};
  bool after_follow_up = false;  // this run was started by a hook's follow-up message
  RunStatus status = RunStatus::completed;  // an engine that does not say: completed
  bool operator==(const AgentEndEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(AgentEndEvent, (), (context, messages, after_follow_up, status))

struct AgentErrorEvent {
  static constexpr std::string_view type = "agent_error";
  EventContext context = EventContext();
  std::string error{};
  bool operator==(const AgentErrorEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(AgentErrorEvent, (), (context, error))

struct SavePointEvent {
  static constexpr std::string_view type = "save_point";
  EventContext context = EventContext();
  bool operator==(const SavePointEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SavePointEvent, (), (context))

struct SettledEvent {
  static constexpr std::string_view type = "settled";
  EventContext context = EventContext();
  bool operator==(const SettledEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SettledEvent, (), (context))

// --------------------------------------------------------- turn and message

struct TurnStartEvent {
  static constexpr std::string_view type = "turn_start";
  EventContext context = EventContext();
  std::uint32_t turn_index = 0;
  Timestamp timestamp = timestamp_now();  // when the turn started: now, unless the engine says otherwise
  bool operator==(const TurnStartEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(TurnStartEvent, (), (context, turn_index, timestamp))

struct TurnEndEvent {
  static constexpr std::string_view type = "turn_end";
  using Result = TurnEndResult;
  static constexpr Reduction reduction = Reduction::last_wins;
  EventContext context = EventContext();
  std::uint32_t turn_index = 0;
  Message message{.role = Role::assistant};  // the model's message of this turn (Message::assistant)
  std::vector<ToolResult> tool_results{};
  bool operator==(const TurnEndEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(TurnEndEvent, (), (context, turn_index, message, tool_results))

struct MessageStartEvent {
  static constexpr std::string_view type = "message_start";
  EventContext context = EventContext();
  Message message{};
  bool operator==(const MessageStartEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageStartEvent, (), (context, message))

struct MessageUpdateEvent {
  static constexpr std::string_view type = "message_update";
  EventContext context = EventContext();
  Message message{};
  bool operator==(const MessageUpdateEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageUpdateEvent, (), (context, message))

struct MessageEndEvent {
  static constexpr std::string_view type = "message_end";
  EventContext context = EventContext();
  Message message{};
  bool operator==(const MessageEndEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageEndEvent, (), (context, message))

// -------------------------------------------------------------------- model

enum class ModelSelectSource { set, cycle, restore };
BOOST_DESCRIBE_ENUM(ModelSelectSource, set, cycle, restore)

enum class ThinkingLevel { off, minimal, low, medium, high, xhigh };
BOOST_DESCRIBE_ENUM(ThinkingLevel, off, minimal, low, medium, high, xhigh)

// The engine is about to call the model with this request. Handlers may
// change any part of it (each sees the earlier changes) or answer the call
// with a response, and then the model is not called (BeforeModelCallResult).
struct BeforeModelCallEvent {
  static constexpr std::string_view type = "before_model_call";
  using Result = BeforeModelCallResult;
  static constexpr Reduction reduction = Reduction::transform;
  EventContext context = EventContext();
  std::string model{};
  std::vector<Message> messages{};
  std::string system_prompt{};
  std::vector<ToolSpec> tools{};  // the tools offered to the model in this call
  ModelSettings settings{};
  bool operator==(const BeforeModelCallEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(BeforeModelCallEvent, (), (context, model, messages, system_prompt, tools, settings))

// The model answered (or a before_model_call handler did: `answered_by`), or
// the call failed. Handlers may replace the response or reject it
// (AfterModelCallResult).
struct AfterModelCallEvent {
  static constexpr std::string_view type = "after_model_call";
  using Result = AfterModelCallResult;
  static constexpr Reduction reduction = Reduction::transform;
  static constexpr bool closing = true;
  EventContext context = EventContext();
  std::string model{};
  std::optional<Message> response{};   // set on success
  std::optional<std::string> error{};  // set on failure
  // The before_model_call handler that answered the call (the outcome's
  // decided_by) when the model was not called; absent when it was.
  std::optional<Decider> answered_by{};
  bool operator==(const AfterModelCallEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(AfterModelCallEvent, (), (context, model, response, error, answered_by))

struct ModelSelectEvent {
  static constexpr std::string_view type = "model_select";
  EventContext context = EventContext();
  std::string model{};
  std::optional<std::string> previous_model{};
  ModelSelectSource source = ModelSelectSource::set;
  bool operator==(const ModelSelectEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ModelSelectEvent, (), (context, model, previous_model, source))

struct ThinkingLevelSelectEvent {
  static constexpr std::string_view type = "thinking_level_select";
  EventContext context = EventContext();
  ThinkingLevel level = ThinkingLevel::off;
  std::optional<ThinkingLevel> previous_level{};
  bool operator==(const ThinkingLevelSelectEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ThinkingLevelSelectEvent, (), (context, level, previous_level))

// --------------------------------------------------------------------- tool

enum class CallerRole { agent, user, system };
BOOST_DESCRIBE_ENUM(CallerRole, agent, user, system)

struct ToolCallEvent {
  static constexpr std::string_view type = "tool_call";
  using Result = ToolCallResult;
  static constexpr Reduction reduction = Reduction::block;
  EventContext context = EventContext();
  std::string tool_call_id{};
  std::string tool_name{};
  boost::json::object input{};
  bool operator==(const ToolCallEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolCallEvent, (), (context, tool_call_id, tool_name, input))

// The engine is about to ask the user whether a tool call may run (its own
// permission dialog). Handlers may answer in the user's place.
struct PermissionRequestEvent {
  static constexpr std::string_view type = "permission_request";
  using Result = PermissionRequestResult;
  static constexpr Reduction reduction = Reduction::block;
  EventContext context = EventContext();
  std::string tool_call_id{};
  std::string tool_name{};
  boost::json::object input{};
  std::vector<boost::json::object> permission_suggestions{};  // the "always allow" options the dialog would offer
  bool operator==(const PermissionRequestEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(PermissionRequestEvent, (), (context, tool_call_id, tool_name, input, permission_suggestions))

struct ToolResultEvent {
  static constexpr std::string_view type = "tool_result";
  using Result = ToolResultResult;
  static constexpr Reduction reduction = Reduction::patch;
  static constexpr bool closing = true;
  EventContext context = EventContext();
  std::string tool_call_id{};
  std::string tool_name{};
  boost::json::object input{};
  std::vector<ContentPart> content{};
  bool is_error = false;
  bool operator==(const ToolResultEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolResultEvent, (), (context, tool_call_id, tool_name, input, content, is_error))

struct ToolResultPersistEvent {
  static constexpr std::string_view type = "tool_result_persist";
  using Result = ToolResultPersistResult;
  static constexpr Reduction reduction = Reduction::replace;
  EventContext context = EventContext();
  std::string tool_call_id{};
  std::string tool_name{};
  std::vector<ContentPart> content{};
  bool operator==(const ToolResultPersistEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolResultPersistEvent, (), (context, tool_call_id, tool_name, content))

struct ToolExecutionStartEvent {
  static constexpr std::string_view type = "tool_execution_start";
  EventContext context = EventContext();
  ToolCall tool_call{};
  bool operator==(const ToolExecutionStartEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolExecutionStartEvent, (), (context, tool_call))

struct ToolExecutionUpdateEvent {
  static constexpr std::string_view type = "tool_execution_update";
  EventContext context = EventContext();
  ToolResult partial_tool_result{};
  bool operator==(const ToolExecutionUpdateEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolExecutionUpdateEvent, (), (context, partial_tool_result))

struct ToolExecutionEndEvent {
  static constexpr std::string_view type = "tool_execution_end";
  static constexpr bool closing = true;
  EventContext context = EventContext();
  ToolResult tool_result{};
  Duration duration{};
  bool operator==(const ToolExecutionEndEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolExecutionEndEvent, (), (context, tool_result, duration))

struct ToolExecutionFailureEvent {
  static constexpr std::string_view type = "tool_execution_failure";
  using Result = ToolExecutionFailureResult;
  static constexpr Reduction reduction = Reduction::collect;
  EventContext context = EventContext();
  std::string tool_call_id{};
  std::string tool_name{};
  boost::json::object input{};
  std::string error{};
  std::uint32_t attempt = 1;
  bool operator==(const ToolExecutionFailureEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolExecutionFailureEvent, (), (context, tool_call_id, tool_name, input, error, attempt))

struct PermissionDeniedEvent {
  static constexpr std::string_view type = "permission_denied";
  EventContext context = EventContext();
  std::string tool_name{};
  boost::json::object parameters{};
  CallerRole role = CallerRole::agent;
  bool operator==(const PermissionDeniedEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(PermissionDeniedEvent, (), (context, tool_name, parameters, role))

struct TokenBudgetExceededEvent {
  static constexpr std::string_view type = "token_budget_exceeded";
  EventContext context = EventContext();
  std::string tool_name{};
  boost::json::object parameters{};
  std::uint64_t budget = 0;
  std::uint64_t used = 0;
  bool operator==(const TokenBudgetExceededEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(TokenBudgetExceededEvent, (), (context, tool_name, parameters, budget, used))

struct ToolsDisabledEvent {
  static constexpr std::string_view type = "tools_disabled";
  EventContext context = EventContext();
  std::string tool_name{};
  CallerRole role = CallerRole::agent;
  bool operator==(const ToolsDisabledEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolsDisabledEvent, (), (context, tool_name, role))

// The engine noticed the agent repeating the same tool call (Calute's on_loop_warning).
struct LoopWarningEvent {
  static constexpr std::string_view type = "loop_warning";
  EventContext context = EventContext();
  std::string tool_name{};
  boost::json::object input{};
  std::uint32_t count = 0;  // how many times in a row
  std::string message{};
  bool operator==(const LoopWarningEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(LoopWarningEvent, (), (context, tool_name, input, count, message))

// ----------------------------------------------------------------- subagent

using SubagentStatus [[deprecated("use hookbus::RunStatus (SubagentStatus was renamed in 0.3.0 and goes in 0.4.0)")]] =
    RunStatus;

struct SubagentStartEvent {
  static constexpr std::string_view type = "subagent_start";
  EventContext context = EventContext();
  std::string task_id{};
  std::string label{};
  std::string task{};
  bool operator==(const SubagentStartEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SubagentStartEvent, (), (context, task_id, label, task))

struct SubagentEndEvent {
  static constexpr std::string_view type = "subagent_end";
  using Result = SubagentEndResult;
  static constexpr Reduction reduction = Reduction::collect;
  EventContext context = EventContext();
  std::string task_id{};
  std::string label{};
  RunStatus status = RunStatus::completed;
  std::string result{};
  bool after_follow_up = false;  // this run was started by a hook's follow-up message
  bool operator==(const SubagentEndEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(SubagentEndEvent, (), (context, task_id, label, status, result, after_follow_up))

// ------------------------------------------------------ gateway and channel

struct GatewayStartupEvent {
  static constexpr std::string_view type = "gateway:startup";
  EventContext context = EventContext();
  std::vector<std::string> channel_ids{};
  bool operator==(const GatewayStartupEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(GatewayStartupEvent, (), (context, channel_ids))

struct GatewayStopEvent {
  static constexpr std::string_view type = "gateway:stop";
  EventContext context = EventContext();
  std::vector<std::string> channel_ids{};
  bool operator==(const GatewayStopEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(GatewayStopEvent, (), (context, channel_ids))

struct ChannelConnectEvent {
  static constexpr std::string_view type = "channel:connect";
  using Result = ChannelConnectResult;
  static constexpr Reduction reduction = Reduction::block;
  EventContext context = EventContext();
  std::string channel_id{};
  bool operator==(const ChannelConnectEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ChannelConnectEvent, (), (context, channel_id))

struct ChannelDisconnectEvent {
  static constexpr std::string_view type = "channel:disconnect";
  EventContext context = EventContext();
  std::string channel_id{};
  bool operator==(const ChannelDisconnectEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ChannelDisconnectEvent, (), (context, channel_id))

struct MessageReceiveEvent {
  static constexpr std::string_view type = "message:receive";
  using Result = MessageReceiveResult;
  static constexpr Reduction reduction = Reduction::transform;
  EventContext context = EventContext();
  std::string channel_id{};
  std::string chat_id{};
  std::string user_id{};
  std::string text{};
  std::vector<ContentPart> parts{};
  bool operator==(const MessageReceiveEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageReceiveEvent, (), (context, channel_id, chat_id, user_id, text, parts))

struct MessageSendEvent {
  static constexpr std::string_view type = "message:send";
  using Result = MessageSendResult;
  static constexpr Reduction reduction = Reduction::collect;
  EventContext context = EventContext();
  std::string channel_id{};
  std::string chat_id{};
  std::string input_text{};
  std::string response_text{};
  bool is_voice = false;
  bool operator==(const MessageSendEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageSendEvent, (), (context, channel_id, chat_id, input_text, response_text, is_voice))

struct MessageCancelEvent {
  static constexpr std::string_view type = "message:cancel";
  EventContext context = EventContext();
  std::string channel_id{};
  std::string chat_id{};
  bool operator==(const MessageCancelEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageCancelEvent, (), (context, channel_id, chat_id))

struct GatewayErrorEvent {
  static constexpr std::string_view type = "gateway:error";
  EventContext context = EventContext();
  std::string channel_id{};
  std::string error{};
  bool operator==(const GatewayErrorEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(GatewayErrorEvent, (), (context, channel_id, error))

// --------------------------------------------------------------------- misc

enum class ResourcesDiscoverReason { startup, reload };
BOOST_DESCRIBE_ENUM(ResourcesDiscoverReason, startup, reload)

struct UserBashEvent {
  static constexpr std::string_view type = "user_bash";
  using Result = UserBashResult;
  static constexpr Reduction reduction = Reduction::first_wins;
  EventContext context = EventContext();
  std::string command{};
  bool exclude_from_context = false;
  std::string cwd{};
  bool operator==(const UserBashEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(UserBashEvent, (), (context, command, exclude_from_context, cwd))

struct ResourcesDiscoverEvent {
  static constexpr std::string_view type = "resources_discover";
  using Result = ResourcesDiscoverResult;
  static constexpr Reduction reduction = Reduction::collect;
  EventContext context = EventContext();
  std::string cwd{};
  ResourcesDiscoverReason reason = ResourcesDiscoverReason::startup;
  bool operator==(const ResourcesDiscoverEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(ResourcesDiscoverEvent, (), (context, cwd, reason))

struct RetryStartEvent {
  static constexpr std::string_view type = "retry_start";
  EventContext context = EventContext();
  std::uint32_t attempt = 1;
  std::uint32_t max_retries = 0;
  bool operator==(const RetryStartEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(RetryStartEvent, (), (context, attempt, max_retries))

struct RetryEndEvent {
  static constexpr std::string_view type = "retry_end";
  EventContext context = EventContext();
  std::uint32_t attempt = 1;
  bool success = false;
  std::optional<std::string> error{};
  bool operator==(const RetryEndEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(RetryEndEvent, (), (context, attempt, success, error))

// Something the engine tells the user outside the conversation (a permission
// prompt is waiting, the agent is idle, ...).
struct NotificationEvent {
  static constexpr std::string_view type = "notification";
  EventContext context = EventContext();
  std::string message{};
  std::string title{};
  std::string kind{};  // what it is about: "permission_prompt", "idle_prompt", ... (Claude Code's notification_type)
  bool operator==(const NotificationEvent&) const = default;
};
BOOST_DESCRIBE_STRUCT(NotificationEvent, (), (context, message, title, kind))

// ------------------------------------------------------------------ HookEvent

using HookEvent = std::variant<
    SessionStartEvent, SessionBeforeSwitchEvent, SessionBeforeForkEvent, SessionBeforeCompactEvent,
    SessionCompactEvent, SessionShutdownEvent, SessionBeforeTreeEvent, SessionTreeEvent,
    AgentInitializedEvent, InputEvent, BeforeAgentStartEvent, BootstrapFilesEvent, ContextEvent,
    AgentStartEvent, AgentEndEvent, AgentErrorEvent, SavePointEvent, SettledEvent,
    TurnStartEvent, TurnEndEvent, MessageStartEvent, MessageUpdateEvent, MessageEndEvent,
    BeforeModelCallEvent, AfterModelCallEvent, ModelSelectEvent, ThinkingLevelSelectEvent,
    ToolCallEvent, PermissionRequestEvent, ToolResultEvent, ToolResultPersistEvent, ToolExecutionStartEvent,
    ToolExecutionUpdateEvent, ToolExecutionEndEvent, ToolExecutionFailureEvent,
    PermissionDeniedEvent, TokenBudgetExceededEvent, ToolsDisabledEvent, LoopWarningEvent,
    SubagentStartEvent, SubagentEndEvent,
    GatewayStartupEvent, GatewayStopEvent, ChannelConnectEvent, ChannelDisconnectEvent,
    MessageReceiveEvent, MessageSendEvent, MessageCancelEvent, GatewayErrorEvent,
    UserBashEvent, ResourcesDiscoverEvent, RetryStartEvent, RetryEndEvent, NotificationEvent>;

inline constexpr std::size_t event_count = std::variant_size_v<HookEvent>;

// The context of the event the variant holds.
inline const EventContext& context_of(const HookEvent& event) {
  return std::visit([](const auto& e) -> const EventContext& { return e.context; }, event);
}

namespace detail {
// The position of E in a list of types (a variant, a tuple), or the list's size.
template <class E, class List> struct index_in;
template <class E, template <class...> class List, class... Ts> struct index_in<E, List<Ts...>> {
  static constexpr std::size_t value = [] {
    constexpr bool hits[] = {std::is_same_v<E, Ts>...};
    for (std::size_t i = 0; i < sizeof...(Ts); ++i)
      if (hits[i]) return i;
    return sizeof...(Ts);
  }();
};
}  // namespace detail

// True for exactly the alternatives of HookEvent.
template <class E>
concept Event = detail::index_in<E, HookEvent>::value < event_count;

// The event's position in HookEvent: the bus's compile-time dispatch key.
template <Event E>
inline constexpr std::size_t event_index = detail::index_in<E, HookEvent>::value;

namespace detail {
// The result type of an event that has one, as a list of zero or one type.
template <class E> struct result_list_of { using type = boost::mp11::mp_list<>; };
template <class E>
  requires requires { typename E::Result; }
struct result_list_of<E> { using type = boost::mp11::mp_list<typename E::Result>; };
template <class E> using result_list_t = typename result_list_of<E>::type;

// The result types of a list of events (a variant), in the events' order, each once.
template <class Events>
using results_of = boost::mp11::mp_unique<boost::mp11::mp_apply<
    boost::mp11::mp_append,
    boost::mp11::mp_push_front<boost::mp11::mp_transform<result_list_t, boost::mp11::mp_rename<Events, boost::mp11::mp_list>>,
                               boost::mp11::mp_list<>>>>;

// The types a type is made of: a described struct's members (whatever their
// access), a template's type arguments (std::optional, std::vector,
// std::variant, std::map ...), nothing for anything else.
template <class Pointer> struct member_pointee;
template <class M, class C> struct member_pointee<M C::*> { using type = M; };
template <class D>
using described_member_t = typename member_pointee<std::remove_cv_t<decltype(D::pointer)>>::type;
template <class T>
using described_member_types = boost::mp11::mp_rename<
    boost::mp11::mp_transform<described_member_t, boost::describe::describe_members<T, boost::describe::mod_any_access>>,
    boost::mp11::mp_list>;
template <class T> struct type_arguments { using type = boost::mp11::mp_list<>; };
template <template <class...> class Template, class... Args>
struct type_arguments<Template<Args...>> { using type = boost::mp11::mp_list<std::remove_cv_t<Args>...>; };
template <class T>
using parts_of = boost::mp11::mp_eval_if_c<!boost::describe::has_describe_members<T>::value,
                                           typename type_arguments<T>::type, described_member_types, T>;

// Seen, with every type its newest types (Found) are made of, until no new
// type turns up.
template <class Seen, class Found>
struct closure {
  using Parts = boost::mp11::mp_unique<boost::mp11::mp_apply<
      boost::mp11::mp_append, boost::mp11::mp_push_front<boost::mp11::mp_transform<parts_of, Found>, boost::mp11::mp_list<>>>>;
  using New = boost::mp11::mp_remove_if_q<Parts, boost::mp11::mp_bind_front<boost::mp11::mp_set_contains, Seen>>;
  using type = typename closure<boost::mp11::mp_append<Seen, New>, New>::type;
};
template <class Seen>
struct closure<Seen, boost::mp11::mp_list<>> { using type = Seen; };

// The events of Events (a variant) and their results: the roots of the catalogue.
template <class Events>
using catalogue_roots = boost::mp11::mp_append<boost::mp11::mp_rename<Events, boost::mp11::mp_list>, results_of<Events>>;

// Every type an event of Events or its result is made of, however deeply
// nested, with the events and results themselves: what JSON, format_line,
// hookctl and the external-hook payload walk.
template <class Events>
using reachable_from = typename closure<catalogue_roots<Events>, catalogue_roots<Events>>::type;

template <class T> inline constexpr bool is_variant_v = false;
template <class... Ts> inline constexpr bool is_variant_v<std::variant<Ts...>> = true;
template <class T>
using is_shared_value = boost::mp11::mp_bool<boost::describe::has_describe_members<T>::value || is_variant_v<T>>;

// The described structs (and variants of them) that events and results are
// built from, but not the events and results themselves.
template <class Events>
using value_types_of =
    boost::mp11::mp_set_difference<boost::mp11::mp_filter<is_shared_value, reachable_from<Events>>, catalogue_roots<Events>>;
}  // namespace detail

// The outcome of emitting a HookEvent: the reduced result of the event's type,
// or monostate for observe-only events. Derived from HookEvent: monostate, then
// each event's `Result`, in HookEvent's order, each once.
using HookOutcome =
    boost::mp11::mp_rename<boost::mp11::mp_push_front<detail::results_of<HookEvent>, std::monostate>, std::variant>;

// True for exactly the result types (the alternatives of HookOutcome but monostate).
template <class R>
concept ResultType = !std::is_same_v<R, std::monostate> &&
                     detail::index_in<R, HookOutcome>::value < std::variant_size_v<HookOutcome>;

namespace detail {
// Whether T is one of the shared value types of Events. A class template, so
// the walk over every member type (about a second of compile time) runs only
// where a type is asked about.
template <class T, class Events>
struct is_value_type_of : boost::mp11::mp_contains<value_types_of<Events>, T> {};
}  // namespace detail

// The types JSON (json.hpp) and one-line rendering (format.hpp) take: an event,
// a result or a shared value type (every described struct an event or a result
// holds, however deeply nested, and the variants of them: ContentPart). The
// library instantiates them for exactly these (reflect::CatalogueTypes).
template <class T>
concept CatalogueType =
    Event<T> || ResultType<T> ||
    ((boost::describe::has_describe_members<T>::value || detail::is_variant_v<T>) && !std::is_same_v<T, HookEvent> &&
     !std::is_same_v<T, HookOutcome> && detail::is_value_type_of<T, HookEvent>::value);

template <class E>
concept EventWithResult = Event<E> && requires { typename E::Result; };

// The result type handlers of E return, or void for observe-only events.
template <class E> struct event_result { using type = void; };
template <EventWithResult E> struct event_result<E> { using type = typename E::Result; };
template <class E> using result_t = typename event_result<E>::type;

// Whether the event at each index of HookEvent has a result: lets
// emit(const HookEvent&) answer an event nobody listens to without a visit.
inline constexpr std::array<bool, event_count> has_result_at = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<bool, event_count>{EventWithResult<std::variant_alternative_t<I, HookEvent>>...};
}(std::make_index_sequence<event_count>{});

template <Event E>
inline constexpr Reduction reduction_of = [] {
  if constexpr (EventWithResult<E>) return E::reduction;
  else return Reduction::observe;
}();

// Closing events of a before/after pair (tool_result, tool_execution_end,
// after_model_call, agent_end).
template <Event E>
inline constexpr bool is_closing = [] {
  if constexpr (requires { E::closing; }) return E::closing;
  else return false;
}();

// Gating reductions turn a fail-closed handler failure into a refusal.
constexpr bool is_gating(Reduction r) {
  return r == Reduction::block || r == Reduction::cancel || r == Reduction::transform;
}

}  // namespace hookbus
