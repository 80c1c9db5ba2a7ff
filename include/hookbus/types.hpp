#pragma once
// Shared value types carried by events and results: messages, content parts,
// tool calls and results, and the common context every event embeds.
// Everything here is described with Boost.Describe so JSON, field listings and
// formatting are generated rather than hand-written.

#include <boost/describe/class.hpp>
#include <boost/describe/enum.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hookbus {

// Wall-clock instants travel as integer milliseconds since the Unix epoch,
// durations as integer milliseconds: both round-trip through JSON exactly.
using Timestamp = std::chrono::sys_time<std::chrono::milliseconds>;
using Duration = std::chrono::milliseconds;

// The wall clock now, to the millisecond: what a timestamp that means "now"
// (TurnStartEvent::timestamp) starts as.
Timestamp timestamp_now() noexcept;

// Enumerators that would collide with C++ keywords carry a trailing underscore;
// the JSON layer strips it, so `InputAction::continue_` is "continue" on the wire.

enum class Role { system, user, assistant, tool };
BOOST_DESCRIBE_ENUM(Role, system, user, assistant, tool)

enum class InvokedBy { main, subagent };
BOOST_DESCRIBE_ENUM(InvokedBy, main, subagent)

struct TextPart {
  static constexpr std::string_view type = "text";
  std::string text{};
  bool operator==(const TextPart&) const = default;
};
BOOST_DESCRIBE_STRUCT(TextPart, (), (text))

// Binary payloads are base64 text, as every agent wire protocol carries them.
struct ImagePart {
  static constexpr std::string_view type = "image";
  std::string mime_type{};
  std::string data{};
  bool operator==(const ImagePart&) const = default;
};
BOOST_DESCRIBE_STRUCT(ImagePart, (), (mime_type, data))

struct AudioPart {
  static constexpr std::string_view type = "audio";
  std::string mime_type{};
  std::string data{};
  bool operator==(const AudioPart&) const = default;
};
BOOST_DESCRIBE_STRUCT(AudioPart, (), (mime_type, data))

// A content part is tagged by its "type" key on the wire.
using ContentPart = std::variant<TextPart, ImagePart, AudioPart>;

// The text of content parts (a message's, a tool result's): the text of each
// TextPart in order, joined by '\n'; images and audio have none.
std::string text_of(const std::vector<ContentPart>& parts);

struct ToolCall {
  std::string id{};
  std::string name{};
  boost::json::object input{};  // tool arguments are defined by the tool, not by us
  bool operator==(const ToolCall&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolCall, (), (id, name, input))

struct ToolResult {
  std::string tool_call_id{};
  std::string tool_name{};
  std::vector<ContentPart> content{};
  bool is_error = false;
  bool operator==(const ToolResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(ToolResult, (), (tool_call_id, tool_name, content, is_error))

// A message of the conversation. Its role is `user` unless set: build the
// model's messages (a turn_end's, a tool-calling reply) with assistant().
struct Message {
  Role role = Role::user;
  std::vector<ContentPart> content{};
  std::vector<ToolCall> tool_calls{};         // assistant messages that call tools
  std::optional<std::string> tool_call_id{};  // tool messages answering a call
  bool operator==(const Message&) const = default;

  // What the user said, as one text part.
  static Message user(std::string text);
  // What the model answered: one text part (none when `text` is empty) and the tools it calls.
  static Message assistant(std::string text, std::vector<ToolCall> tool_calls = {});
};
BOOST_DESCRIBE_STRUCT(Message, (), (role, content, tool_calls, tool_call_id))

// What every hook needs to do its job, embedded once in each event as `context`.
// An empty string means "unknown": engines fill in what they have.
struct EventContext {
  std::string session_id{};
  std::string cwd{};
  std::string agent_id{};
  std::string agent_type{};  // the subagent's kind ("Explore", "reviewer") when agent_id names a subagent
  InvokedBy invoked_by = InvokedBy::main;
  std::string transcript_path{};  // the session's transcript file (Claude Code hooks read it)
  std::string permission_mode{};  // the engine's permission mode, e.g. "default", "plan"
  std::string recipe_name{};      // the recipe the agent runs (kodelet)
  std::string workspace{};        // the workspace the session belongs to (morphix)
  // The user's turn the event belongs to: one id per prompt the user sends,
  // from the prompt to the agent's last answer to it (Codex's turn_id,
  // Cursor's generation_id). Not TurnStartEvent's turn_index, which counts
  // the model calls within that turn.
  std::string turn_id{};
  std::string model{};  // the model the agent is running, as the engine names it ("gpt-5-codex")
  bool operator==(const EventContext&) const = default;
};
BOOST_DESCRIBE_STRUCT(EventContext, (),
                      (session_id, cwd, agent_id, agent_type, invoked_by, transcript_path, permission_mode, recipe_name,
                       workspace, turn_id, model))

// Session-compaction payloads. Session entries themselves are engine-defined,
// so they stay JSON objects.
struct CompactionPreparation {
  std::string first_kept_entry_id{};
  std::vector<Message> messages_to_summarize{};
  std::uint64_t tokens_before = 0;
  std::optional<std::string> previous_summary{};
  bool operator==(const CompactionPreparation&) const = default;
};
BOOST_DESCRIBE_STRUCT(CompactionPreparation, (), (first_kept_entry_id, messages_to_summarize, tokens_before, previous_summary))

struct Compaction {
  std::string summary{};
  std::string first_kept_entry_id{};
  std::uint64_t tokens_before = 0;
  bool operator==(const Compaction&) const = default;
};
BOOST_DESCRIBE_STRUCT(Compaction, (), (summary, first_kept_entry_id, tokens_before))

struct CompactionEntry {
  std::string id{};
  std::string summary{};
  std::string first_kept_entry_id{};
  std::uint64_t tokens_before = 0;
  bool operator==(const CompactionEntry&) const = default;
};
BOOST_DESCRIBE_STRUCT(CompactionEntry, (), (id, summary, first_kept_entry_id, tokens_before))

struct TreePreparation {
  std::string target_id{};
  std::optional<std::string> old_leaf_id{};
  std::optional<std::string> common_ancestor_id{};
  std::vector<boost::json::object> entries_to_summarize{};
  bool operator==(const TreePreparation&) const = default;
};
BOOST_DESCRIBE_STRUCT(TreePreparation, (), (target_id, old_leaf_id, common_ancestor_id, entries_to_summarize))

struct BranchSummaryEntry {
  std::string id{};
  std::string from_id{};
  std::string summary{};
  bool operator==(const BranchSummaryEntry&) const = default;
};
BOOST_DESCRIBE_STRUCT(BranchSummaryEntry, (), (id, from_id, summary))

}  // namespace hookbus
