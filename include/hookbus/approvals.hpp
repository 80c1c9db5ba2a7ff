#pragma once
// Approvals that pause and resume: a handler asks for a person's decision
// (ask_person), the engine's emit through an Approvals returns with the
// requests pending, the engine stores them as JSON (approvals_to_json), shows
// them, and later, in this process or another, resumes by emitting the same
// event again through an Approvals made from the stored requests and the
// person's answers. Every handler runs again; the one that asked gets its
// answer from ask_person and decides with it. docs/semantics.md ("Approvals
// that pause and resume") is the contract; docs/engine.md shows the engine's side.
//
//   hooks.on<hookbus::ToolCallEvent>([](const hookbus::ToolCallEvent& e) -> hookbus::ToolCallResult {
//     const auto answer = hookbus::ask_person("run-shell", "runs a shell command", e.input);
//     if (!answer) return {.decision = hookbus::Decision::ask, .reason = "waiting for the user"};
//     return {.decision = answer->as_bool() ? hookbus::Decision::allow : hookbus::Decision::deny};
//   }, {.label = "shell-approval"});
//
//   hookbus::Approvals first;
//   auto outcome = first.emit(hooks, call);         // decision ask; first.pending() has the request
//   store(hookbus::approvals_to_json(first.pending()));
//   ...
//   hookbus::Approvals resumed(hookbus::approvals_from_json(stored), {{.id = id, .answer = true}});
//   outcome = resumed.emit(hooks, call);            // decision allow

#include <hookbus/errors.hpp>
#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/layer.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus {

namespace detail {
boost::json::object answers_to_asking_handler();  // lib/bus/asking_handler.hpp
}  // namespace detail

// The version of the pending-requests document (approvals_to_json); a reader
// refuses another.
inline constexpr int approvals_version = 1;

// A question a handler asked a person, pending until the engine resumes with
// an answer. Everything in it is plain JSON (approvals_to_json).
struct ApprovalRequest {
  // Made from the event's identity, the event as the asking handler saw it,
  // who asked (layer, label, source) and the ask's name: the same on every
  // run of the same handler on the same event, and never the same for another
  // handler, another ask, another event or the event changed by a handler.
  std::string id{};
  std::string event{};         // the event's wire name
  std::string event_id{};      // the tool_call_id, or "" for an event without one
  std::string event_digest{};  // SHA-256 of the event's JSON: a resume on a changed event is refused
  std::string seen_digest{};   // SHA-256 of the event as the asking handler saw it (after earlier handlers' changes)
  std::string name{};          // the ask's name, unique within its handler
  std::string reason{};        // why it asks, for the person
  boost::json::value question{};  // what is asked (the input to approve, choices, ...)
  std::string handler{};       // who asked: its label
  std::string source{};        // and where it was loaded from ("" for the engine's own)
  std::optional<Layer> layer{};  // and its layer (unset: the engine's own handler)
  bool operator==(const ApprovalRequest&) const = default;
};

// A person's answer to the request `id`: any JSON, as the asking handler
// documents it (true / false, {"approved": ..., "message": ...}, a choice).
struct ApprovalAnswer {
  std::string id{};
  boost::json::value answer{};
  bool operator==(const ApprovalAnswer&) const = default;
};

// A resume that cannot be made: an answer to no stored request, requests
// for another event, or an event that changed since they were asked. The
// message names the request and says how to go on.
class ApprovalError : public Error {
 public:
  using Error::Error;
};

// Called by a handler during an emit: the person's answer to its ask `name`
// when the emit resumes one that was answered; otherwise std::nullopt, and,
// in an emit through an Approvals, the request is pending in its pending().
// A handler that gets nullopt decides as it would without an answer (ask, for
// an engine that confirms synchronously). The handler runs again on resume,
// so what it does before its ask must be safe to do twice. Outside a handler's
// call in an Approvals' emit, nullopt and nothing recorded.
[[nodiscard]] std::optional<boost::json::value> ask_person(std::string_view name, std::string_view reason,
                                                           boost::json::value question = {});

// One pause or one resume of an event's approvals: the emit runs with it as
// the asking handlers' session on this thread. One emit at a time: an
// Approvals is not shared between threads.
class Approvals {
 public:
  // A first emit: no answers; what is asked ends in pending().
  Approvals() = default;
  // A resume: the requests the engine stored and the person's answers to some
  // or all of them. Throws ApprovalError for an answer whose id is no stored
  // request's, or two answers to one request.
  Approvals(std::vector<ApprovalRequest> asked, std::vector<ApprovalAnswer> answers);

  // Emits `event` with this session's answers given to the handlers that
  // asked. Throws ApprovalError, before any handler runs, when a stored
  // request was asked on another event or on this one as it was before a change.
  template <Event E>
  [[nodiscard("what the hooks decided: not reading it ignores them")]] result_t<E> emit(Hooks& hooks, const E& event) {
    const Session session(*this, E::type, event_identity(event), to_json(event));
    return hooks.emit(event);
  }

  // The requests asked in the last emit and not answered: the emit paused
  // when it is not empty.
  [[nodiscard]] const std::vector<ApprovalRequest>& pending() const noexcept { return pending_; }
  [[nodiscard]] bool paused() const noexcept { return !pending_.empty(); }

 private:
  friend std::optional<boost::json::value> ask_person(std::string_view, std::string_view, boost::json::value);
  friend boost::json::object detail::answers_to_asking_handler();

  template <class E>
  static std::string event_identity(const E& event) {
    if constexpr (requires { event.tool_call_id; }) return event.tool_call_id;
    else return {};
  }

  // This session, for the length of one emit on this thread.
  class Session {
   public:
    Session(Approvals& approvals, std::string_view event, std::string event_id, const boost::json::value& json);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

   private:
    Approvals* previous_;
  };

  std::vector<ApprovalRequest> asked_;
  std::vector<ApprovalAnswer> answers_;
  std::vector<ApprovalRequest> pending_;
  std::string event_;         // of the emit in progress
  std::string event_id_;
  std::string event_digest_;
};

// The pending-requests document: {"version": 1, "requests": [...]}, each
// request an object of ApprovalRequest's fields (layer: its name or null).
[[nodiscard]] boost::json::value approvals_to_json(const std::vector<ApprovalRequest>& requests);
// Reads it back. Throws JsonError naming the field (JSON path) for anything
// else, a version other than approvals_version included.
[[nodiscard]] std::vector<ApprovalRequest> approvals_from_json(const boost::json::value& document);

// The answers document: {"version": 1, "answers": [{"id": ..., "answer": ...}]}.
[[nodiscard]] boost::json::value answers_to_json(const std::vector<ApprovalAnswer>& answers);
[[nodiscard]] std::vector<ApprovalAnswer> answers_from_json(const boost::json::value& document);

}  // namespace hookbus
