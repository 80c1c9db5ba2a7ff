#pragma once
// Result types: what a handler returns to change what the engine does next.
// A default-constructed result means "no change"; it is also the neutral outcome
// an emit returns when nobody listens. The reduced outcome of an emit has the
// same type as a single handler's result, so an engine applies either the same way.
// Optional members are "set only what you set": absent means unchanged.

#include <hookbus/types.hpp>

#include <concepts>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <tuple>

namespace hookbus {

// ---- decisions, who made them, and "stop the agent" ----

// What a hook decides about an action (a tool call, a permission request).
// Combined over every handler: deny wins over defer, defer over ask, ask over
// allow, allow over none (the enumerators' order).
enum class Decision {
  none,   // no opinion: the engine does what it would do without hooks
  allow,  // run it without asking the user
  ask,    // ask the user first (the engine shows its own confirmation)
  // Hand the decision back to the engine's own permission flow (Claude
  // Code's "defer"): no hook's allow counts. A headless engine ends the run
  // with the call kept for its caller to decide (Claude Code's -p); an
  // interactive one asks its user, as for ask, so a defer never lets
  // through what an ask would have stopped. `reason` is for its log.
  defer,
  deny,   // do not run it; `reason` says why (the model sees it)
};
BOOST_DESCRIBE_ENUM(Decision, none, allow, ask, defer, deny)

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

// ---- how a result refuses and how it changes its event ----
//
// Each result type states both in its own `result_rules` specialisation,
// written right after it; the bus's reducers, its traces and external hooks
// read them from there (docs/semantics.md has the rules):
//   decision        (decisions) the Decision field: handlers' decisions
//                   combine deny > defer > ask > allow > none, and deny refuses
//   refusal(r)      the refusal r makes (deny, cancel, reject, handled), or
//                   none; a refusal ends the handler chain
//   refuse(r)       makes r a refusal: what a fail-closed handler's failure
//                   (and an external hook's exit code 2) becomes; only for
//                   results of gating events (block, cancel, transform)
//   verdict         the fields a refusal is made of, taken from the handler
//                   that refused into the outcome
//   default_reason  the reason a refusal without one gets (for decisions:
//                   deny_reason and ask_reason)
//   transforms(r)   (transform events) whether r's replacements apply
//   patches<E>      each optional result field that replaces a field of its
//                   event E, paired with that field: later handlers see the
//                   new value, and the outcome carries it. Every other
//                   optional field is set in the outcome only.
// Fields are paired by name in code, never matched by their names, so
// renaming one is a compile error rather than a silent change of what a
// result does.
enum class RefusalKind { deny, cancel, reject, handled };

template <class R> struct result_rules;  // specialised for each result type

// A result field that replaces a field of the event: the optional's value
// type is the event field's type.
// A field the event may leave absent (after_model_call's response) is
// replaced by a field of the same optional type.
template <class R, class E, class T, class Field = T>
struct Patch {
  std::optional<T> R::*result_field;
  Field E::*event_field;
};
template <class R, class E, class T>
Patch(std::optional<T> R::*, T E::*) -> Patch<R, E, T>;
template <class R, class E, class T>
Patch(std::optional<T> R::*, std::optional<T> E::*) -> Patch<R, E, T, std::optional<T>>;

// Results whose rules name a Decision field (decision_rules): tool_call's and
// permission_request's. Their handlers' decisions combine rather than the
// first refusal winning (docs/semantics.md).
template <class R>
concept DecidingResult = requires {
  { result_rules<R>::decision } -> std::convertible_to<Decision R::*>;
};

// The parts that several results' rules share.
struct never_refuses {
  template <class R>
  static constexpr std::optional<RefusalKind> refusal(const R&) noexcept { return std::nullopt; }
};
struct patches_nothing {
  template <class E>
  static constexpr std::tuple<> patches{};
};
// `decision = deny` refuses; ask and allow are decisions that do not end the chain.
template <class R>
struct decision_rules {
  static constexpr Decision R::*decision = &R::decision;
  static constexpr std::optional<RefusalKind> refusal(const R& r) noexcept {
    return r.*decision == Decision::deny ? std::optional(RefusalKind::deny) : std::nullopt;
  }
  static constexpr void refuse(R& r) noexcept { r.*decision = Decision::deny; }
};
// `cancel = true` refuses (the session_before_* events).
template <class R>
struct cancel_rules : patches_nothing {
  static constexpr std::optional<RefusalKind> refusal(const R& r) noexcept {
    return r.cancel ? std::optional(RefusalKind::cancel) : std::nullopt;
  }
  static constexpr void refuse(R& r) noexcept { r.cancel = true; }
  static constexpr std::tuple verdict{&R::cancel};
  static constexpr std::string_view default_reason(RefusalKind) noexcept { return "Cancelled by hook"; }
};

// Fields that several results share, with one rule each on every event:
//   additional_context  text for the model; accumulates in handler order
//   system_messages     text for the user; accumulates in handler order
//   stop                StopRequest; the first one wins
//   environment         EnvironmentVariable; one per name: a more trusted
//                       handler's value wins, at equal trust the later one
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

template <>
struct result_rules<ToolCallResult> : decision_rules<ToolCallResult> {
  static constexpr std::string_view deny_reason = "Tool call denied by hook";
  static constexpr std::string_view ask_reason = "Tool call sent to the user by hook";
  template <class E>
  static constexpr std::tuple patches{Patch{&ToolCallResult::input, &E::input}};
};

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

template <>
struct result_rules<PermissionRequestResult> : decision_rules<PermissionRequestResult> {
  static constexpr std::string_view deny_reason = "Permission denied by hook";
  static constexpr std::string_view ask_reason = "Permission request left to the user by hook";
  template <class E>
  static constexpr std::tuple patches{Patch{&PermissionRequestResult::input, &E::input}};
};

struct ChannelConnectResult {
  bool allow = true;
  std::string reason{};
  std::optional<Decider> decided_by{};
  bool operator==(const ChannelConnectResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ChannelConnectResult, (), (allow, reason, decided_by))

template <>
struct result_rules<ChannelConnectResult> : patches_nothing {
  static constexpr std::optional<RefusalKind> refusal(const ChannelConnectResult& r) noexcept {
    return r.allow ? std::nullopt : std::optional(RefusalKind::deny);
  }
  static constexpr void refuse(ChannelConnectResult& r) noexcept { r.allow = false; }
  static constexpr std::tuple verdict{&ChannelConnectResult::allow};
  static constexpr std::string_view default_reason(RefusalKind) noexcept { return "Channel connection denied by hook"; }
};

struct SessionBeforeSwitchResult {
  bool cancel = false;
  std::string reason{};
  std::optional<Decider> decided_by{};
  bool operator==(const SessionBeforeSwitchResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeSwitchResult, (), (cancel, reason, decided_by))
template <> struct result_rules<SessionBeforeSwitchResult> : cancel_rules<SessionBeforeSwitchResult> {};

struct SessionBeforeForkResult {
  bool cancel = false;
  std::string reason{};
  std::optional<Decider> decided_by{};
  bool operator==(const SessionBeforeForkResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionBeforeForkResult, (), (cancel, reason, decided_by))
template <> struct result_rules<SessionBeforeForkResult> : cancel_rules<SessionBeforeForkResult> {};

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
template <> struct result_rules<SessionBeforeCompactResult> : cancel_rules<SessionBeforeCompactResult> {};

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
template <> struct result_rules<SessionBeforeTreeResult> : cancel_rules<SessionBeforeTreeResult> {};

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

// handled and reject both end the chain; handled needs no reason.
template <>
struct result_rules<InputResult> {
  static constexpr std::optional<RefusalKind> refusal(const InputResult& r) noexcept {
    if (r.action == InputAction::handled) return RefusalKind::handled;
    if (r.action == InputAction::reject) return RefusalKind::reject;
    return std::nullopt;
  }
  static constexpr void refuse(InputResult& r) noexcept { r.action = InputAction::reject; }
  static constexpr std::tuple verdict{&InputResult::action};
  static constexpr std::string_view default_reason(RefusalKind refusal) noexcept {
    return refusal == RefusalKind::reject ? "Input rejected by hook" : "";
  }
  static constexpr bool transforms(const InputResult& r) noexcept { return r.action == InputAction::transform; }
  template <class E>
  static constexpr std::tuple patches{Patch{&InputResult::text, &E::text}, Patch{&InputResult::images, &E::images}};
};

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

template <>
struct result_rules<MessageReceiveResult> {
  static constexpr std::optional<RefusalKind> refusal(const MessageReceiveResult& r) noexcept {
    return r.action == ReceiveAction::reject ? std::optional(RefusalKind::reject) : std::nullopt;
  }
  static constexpr void refuse(MessageReceiveResult& r) noexcept { r.action = ReceiveAction::reject; }
  static constexpr std::tuple verdict{&MessageReceiveResult::action};
  static constexpr std::string_view default_reason(RefusalKind) noexcept { return "Message rejected by hook"; }
  static constexpr bool transforms(const MessageReceiveResult& r) noexcept {
    return r.action == ReceiveAction::transform;
  }
  template <class E>
  static constexpr std::tuple patches{Patch{&MessageReceiveResult::parts, &E::parts}};
};

// ---- the model call ----

// A tool the engine offers the model in a call: what the model sees of it.
struct ToolSpec {
  std::string name{};
  std::string description{};
  boost::json::object input_schema{};  // JSON Schema of the tool's input
  bool operator==(const ToolSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolSpec, (), (name, description, input_schema))

// Whether the model may, must or must not call one of the tools offered
// (ADK's and Gemini's function-calling mode AUTO, ANY, NONE; LangChain's and
// Vercel's tool_choice auto, required, none).
enum class ToolChoice { auto_, required, none };
BOOST_DESCRIBE_ENUM(ToolChoice, auto_, required, none)

// The generation settings of a model call that every engine hookbus serves
// can honour (ADK's GenerateContentConfig, LangChain's model_settings,
// pydantic-ai's ModelSettings, Gemini CLI's llm_request.config, Vercel's
// call settings all have them): absent or empty is the engine's default.
struct ModelSettings {
  std::optional<double> temperature{};
  std::optional<double> top_p{};
  std::optional<std::uint32_t> max_output_tokens{};
  std::vector<std::string> stop_sequences{};
  ToolChoice tool_choice = ToolChoice::auto_;
  bool operator==(const ModelSettings&) const = default;
};
BOOST_DESCRIBE_STRUCT(ModelSettings, (), (temperature, top_p, max_output_tokens, stop_sequences, tool_choice))

// What a before_model_call handler changes in the request (each field it
// sets replaces the event's, and later handlers see it), or its answer: a
// `response` (even an empty message) means the model is not called; the
// engine uses the response as the model's and still emits after_model_call
// with `answered_by`. `reject` refuses the call with `reason`.
struct BeforeModelCallResult {
  bool reject = false;
  std::string reason{};
  std::optional<std::string> model{};
  std::optional<std::vector<Message>> messages{};
  std::optional<std::string> system_prompt{};
  std::optional<std::vector<ToolSpec>> tools{};
  std::optional<ModelSettings> settings{};
  std::optional<Message> response{};  // the answer in place of the model's
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  std::optional<Decider> decided_by{};
  bool operator==(const BeforeModelCallResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(BeforeModelCallResult, (),
                      (reject, reason, model, messages, system_prompt, tools, settings, response, system_messages,
                       stop, decided_by))

// A rejection and an answer both end the chain. An answer from a handler
// with a layer ends it only for handlers as trusted or less: a more trusted
// handler still runs, and its rejection or answer wins (docs/semantics.md).
template <>
struct result_rules<BeforeModelCallResult> {
  static constexpr bool more_trusted_overrule_an_answer = true;
  static constexpr std::optional<RefusalKind> refusal(const BeforeModelCallResult& r) noexcept {
    if (r.reject) return RefusalKind::reject;
    if (r.response) return RefusalKind::handled;
    return std::nullopt;
  }
  static constexpr void refuse(BeforeModelCallResult& r) noexcept { r.reject = true; }
  static constexpr std::tuple verdict{&BeforeModelCallResult::reject, &BeforeModelCallResult::response};
  static constexpr std::string_view default_reason(RefusalKind refusal) noexcept {
    return refusal == RefusalKind::reject ? "Model call rejected by hook" : "";
  }
  static constexpr bool transforms(const BeforeModelCallResult&) noexcept { return true; }
  template <class E>
  static constexpr std::tuple patches{
      Patch{&BeforeModelCallResult::model, &E::model}, Patch{&BeforeModelCallResult::messages, &E::messages},
      Patch{&BeforeModelCallResult::system_prompt, &E::system_prompt},
      Patch{&BeforeModelCallResult::tools, &E::tools}, Patch{&BeforeModelCallResult::settings, &E::settings}};
};

// What an after_model_call handler makes of the response: a replacement
// (later handlers see it), or a rejection with `reason`: the engine does not
// use the response (it reports the reason as the call's error).
struct AfterModelCallResult {
  bool reject = false;
  std::string reason{};
  std::optional<Message> response{};
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  std::optional<Decider> decided_by{};
  bool operator==(const AfterModelCallResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(AfterModelCallResult, (), (reject, reason, response, system_messages, stop, decided_by))

template <>
struct result_rules<AfterModelCallResult> {
  static constexpr std::optional<RefusalKind> refusal(const AfterModelCallResult& r) noexcept {
    return r.reject ? std::optional(RefusalKind::reject) : std::nullopt;
  }
  static constexpr void refuse(AfterModelCallResult& r) noexcept { r.reject = true; }
  static constexpr std::tuple verdict{&AfterModelCallResult::reject};
  static constexpr std::string_view default_reason(RefusalKind) noexcept { return "Model response rejected by hook"; }
  static constexpr bool transforms(const AfterModelCallResult&) noexcept { return true; }
  template <class E>
  static constexpr std::tuple patches{Patch{&AfterModelCallResult::response, &E::response}};
};

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

template <>
struct result_rules<ToolResultResult> : never_refuses {
  template <class E>
  static constexpr std::tuple patches{Patch{&ToolResultResult::content, &E::content},
                                      Patch{&ToolResultResult::is_error, &E::is_error}};
};

struct ToolResultPersistResult {
  std::optional<std::vector<ContentPart>> content{};  // what history stores instead (e.g. redacted)
  bool operator==(const ToolResultPersistResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolResultPersistResult, (), (content))

template <>
struct result_rules<ToolResultPersistResult> : never_refuses {
  template <class E>
  static constexpr std::tuple patches{Patch{&ToolResultPersistResult::content, &E::content}};
};

struct ContextResult {
  std::optional<std::vector<Message>> messages{};
  bool operator==(const ContextResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ContextResult, (), (messages))

template <>
struct result_rules<ContextResult> : never_refuses {
  template <class E>
  static constexpr std::tuple patches{Patch{&ContextResult::messages, &E::messages}};
};

struct BeforeAgentStartResult {
  std::optional<std::string> system_prompt{};
  bool operator==(const BeforeAgentStartResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(BeforeAgentStartResult, (), (system_prompt))

template <>
struct result_rules<BeforeAgentStartResult> : never_refuses {
  template <class E>
  static constexpr std::tuple patches{Patch{&BeforeAgentStartResult::system_prompt, &E::system_prompt}};
};

// kodelet's swap_context: after this turn, the engine replaces the whole
// conversation with `swap_context` as its summary, and the agent goes on from
// there (apply_context_swap, context_swap.hpp, applies it).
struct TurnEndResult {
  std::optional<std::string> swap_context{};  // the summary; empty is no change
  bool operator==(const TurnEndResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(TurnEndResult, (), (swap_context))
template <> struct result_rules<TurnEndResult> : never_refuses, patches_nothing {};

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
template <> struct result_rules<AgentEndResult> : never_refuses, patches_nothing {};

struct SubagentEndResult {
  std::vector<std::string> follow_up_messages{};  // keep the subagent going
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  bool operator==(const SubagentEndResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SubagentEndResult, (), (follow_up_messages, system_messages, stop))
template <> struct result_rules<SubagentEndResult> : never_refuses, patches_nothing {};

// A variable a handler asks the engine to set for the tools and commands it
// runs later in the session (what a Claude Code hook writes to CLAUDE_ENV_FILE).
struct EnvironmentVariable {
  std::string name{};
  std::string value{};
  bool operator==(const EnvironmentVariable&) const = default;
};
BOOST_DESCRIBE_STRUCT(EnvironmentVariable, (), (name, value))

// Why a variable from a hook, a plugin or any handler with a layer is
// dropped: a loader's (any LD_* or DYLD_*) or a shell's start-up variable
// would make every tool the engine runs later load or run code that no trust
// covers. nullopt: it may be set.
constexpr std::optional<std::string_view> environment_refusal(std::string_view name) noexcept {
  if (name.starts_with("LD_") || name.starts_with("DYLD_"))
    return "the dynamic loader would load the libraries it names into every program the engine runs";
  for (const std::string_view shell : {"BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PS4"})
    if (name == shell) return "a shell the engine runs would run the code it names or turn on options that do";
  return std::nullopt;
}

struct SessionStartResult {
  std::vector<std::string> additional_context{};  // added to the session's context for the model
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  // For the engine's later tools: one per name, a more trusted handler's
  // value kept over a less trusted one's; never a loader's or a shell's
  // start-up variable from a handler with a layer (environment_refusal).
  std::vector<EnvironmentVariable> environment{};
  bool operator==(const SessionStartResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(SessionStartResult, (), (additional_context, system_messages, stop, environment))
template <> struct result_rules<SessionStartResult> : never_refuses, patches_nothing {};

struct ToolExecutionFailureResult {
  std::vector<std::string> additional_context{};  // given to the model with the failure
  std::vector<std::string> system_messages{};
  std::optional<StopRequest> stop{};
  bool operator==(const ToolExecutionFailureResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolExecutionFailureResult, (), (additional_context, system_messages, stop))
template <> struct result_rules<ToolExecutionFailureResult> : never_refuses, patches_nothing {};

struct BootstrapFilesResult {
  std::vector<std::string> contents{};           // extra prompt contents
  bool operator==(const BootstrapFilesResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(BootstrapFilesResult, (), (contents))
template <> struct result_rules<BootstrapFilesResult> : never_refuses, patches_nothing {};

struct MessageSendResult {
  std::vector<ContentPart> parts{};              // extra parts published before DONE
  bool operator==(const MessageSendResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(MessageSendResult, (), (parts))
template <> struct result_rules<MessageSendResult> : never_refuses, patches_nothing {};

struct ResourcesDiscoverResult {
  std::vector<std::string> paths{};
  bool operator==(const ResourcesDiscoverResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ResourcesDiscoverResult, (), (paths))
template <> struct result_rules<ResourcesDiscoverResult> : never_refuses, patches_nothing {};

// ---- first wins ----

struct UserBashResult {
  bool handled = false;
  std::string output{};
  std::optional<int> exit_code{};
  std::optional<Decider> decided_by{};
  bool operator==(const UserBashResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(UserBashResult, (), (handled, output, exit_code, decided_by))

// handled: this handler ran the command; its output is the outcome.
template <>
struct result_rules<UserBashResult> : patches_nothing {
  static constexpr std::optional<RefusalKind> refusal(const UserBashResult& r) noexcept {
    return r.handled ? std::optional(RefusalKind::handled) : std::nullopt;
  }
  static constexpr std::tuple verdict{&UserBashResult::handled, &UserBashResult::output, &UserBashResult::exit_code};
};

}  // namespace hookbus
