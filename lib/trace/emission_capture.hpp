#pragma once
// Internal: what the bus records of one emit while emission observers are
// registered (Hooks::on_emission). The emitting thread only copies the event,
// reads the steady clock around each handler and keeps a reference to each
// handler's registration; the EmissionRecord, with its labels and wall-clock
// time, is made from that when an observer asks (on its own thread when it is
// queued).
//
// The bus's part is two calls: an EmissionCapture made when the emit starts
// (carried by the Emission, null when nobody observes) and finish() when it
// ends; each slot reports through a HandlerTrace, which does nothing when the
// capture is null.

#include <hookbus/trace.hpp>

#include "bus/reducers.hpp"
#include "bus/registration.hpp"
#include "trace/handler_report.hpp"

#include <boost/container/small_vector.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace hookbus::detail {

using SteadyTime = std::chrono::steady_clock::time_point;

// hookbus's number of the calling thread: 1 for the first thread that asked.
std::uint32_t this_thread_number() noexcept;

class EmissionCapture {
 public:
  template <Event E>
  EmissionCapture(std::uint64_t seq, const E& event)
      : seq_(seq), thread_(this_thread_number()), payload_(std::in_place_type<E>, event),
        start_(std::chrono::steady_clock::now()) {}
  EmissionCapture(const EmissionCapture&) = delete;
  EmissionCapture& operator=(const EmissionCapture&) = delete;

  // One handler reached, as its slot saw it.
  struct Run {
    std::shared_ptr<const Registration> registration;
    bool subscriber = false;
    SteadyTime start{};
    SteadyTime end{};
    HandlerAction action = HandlerAction::no_change;
    std::string reason{};
    std::string error{};
  };
  void add(Run run) { runs_.push_back(std::move(run)); }

  // What the handler being called reports (handler_report.hpp): one at a
  // time, since an emit calls its handlers one after another.
  HandlerReport& handler_report() noexcept { return handler_report_; }

  // The emit ended with `result` (monostate for an observe-only event).
  template <class Result>
  void finish(const Result& result) {
    end_ = std::chrono::steady_clock::now();
    if constexpr (!std::is_same_v<Result, std::monostate>) {
      result_.template emplace<Result>(result);
      if constexpr (requires { result.decided_by; }) decided_by_ = result.decided_by;
    }
  }

  // The record, made anew for each call.
  [[nodiscard]] EmissionRecord record() const;

 private:
  std::uint64_t seq_;
  std::uint32_t thread_;
  HookEvent payload_;
  SteadyTime start_;
  SteadyTime end_{};
  boost::container::small_vector<Run, 4> runs_;
  HookOutcome result_{};
  std::optional<Decider> decided_by_{};
  HandlerReport handler_report_{};
};

// What a handler's result means for the trace, and the reason it gave.
template <EventWithResult E>
std::pair<HandlerAction, std::string_view> action_of(const result_t<E>& result) {
  using R = result_t<E>;
  constexpr Reduction kind = E::reduction;
  if (const std::optional<RefusalKind> refusal = result_rules<R>::refusal(result)) {
    std::string_view reason;
    if constexpr (requires { result.reason; }) reason = result.reason;
    switch (*refusal) {
      case RefusalKind::deny: return {HandlerAction::deny, reason};
      case RefusalKind::cancel: return {HandlerAction::cancel, reason};
      case RefusalKind::reject: return {HandlerAction::reject, reason};
      case RefusalKind::handled: return {HandlerAction::handled, reason};
    }
  }
  if constexpr (Decisive<R>) {
    if (result.decision == Decision::ask) return {HandlerAction::ask, result.reason};
    if (result.decision == Decision::allow) return {HandlerAction::allow, result.reason};
  }
  if constexpr (requires { result.stop; }) {
    if (result.stop) return {HandlerAction::stop, result.stop->reason};
  }
  if constexpr (kind == Reduction::transform) {
    if (result_rules<R>::transforms(result)) return {HandlerAction::transform, {}};
  }
  if (result == R{}) return {HandlerAction::no_change, {}};
  return {kind == Reduction::replace || kind == Reduction::last_wins ? HandlerAction::replace : HandlerAction::patch,
          {}};
}

// One handler's call, reported to the emit's capture; inert (one null check
// on making and ending it) when the emit is not recorded. Made just before
// the handler runs or is skipped. While it lives, a recorded handler may tell
// more through handler_report() (handler_report.hpp): that its own matcher
// skipped the event, or when its work really ran. (An unrecorded emit has
// handler_report() null for all its handlers: EmitReportScope.)
class HandlerTrace {
 public:
  HandlerTrace(EmissionCapture* capture, const std::shared_ptr<Registration>& registration,
               bool subscriber = false) noexcept
      : capture_(capture), registration_(&registration), subscriber_(subscriber) {
    if (capture_ != nullptr) {
      start_ = std::chrono::steady_clock::now();
      capture_->handler_report() = {};
      previous_report_ = std::exchange(current_handler_report, &capture_->handler_report());
    }
  }
  ~HandlerTrace() {
    if (capture_ != nullptr) current_handler_report = previous_report_;
  }
  HandlerTrace(const HandlerTrace&) = delete;
  HandlerTrace& operator=(const HandlerTrace&) = delete;

  // Each checks inline that the emit is recorded: they run on every handler call.
  void skipped() {
    if (capture_ != nullptr) end(HandlerAction::skipped);
  }
  void no_change() {
    if (capture_ != nullptr)
      end(capture_->handler_report().skipped ? HandlerAction::skipped : HandlerAction::no_change);
  }
  // Called before the result is folded (which moves from it).
  template <Event E>
  void returned(const result_t<E>& result) {
    if (capture_ == nullptr) return;
    const auto [action, reason] = action_of<E>(result);
    end(action, reason);
  }
  void failed(const std::string& message) {
    if (capture_ != nullptr) end(HandlerAction::failed, {}, message);
  }

 private:
  void end(HandlerAction action, std::string_view reason = {}, std::string_view error = {});

  EmissionCapture* capture_;
  const std::shared_ptr<Registration>* registration_;
  bool subscriber_;
  SteadyTime start_{};
  HandlerReport* previous_report_ = nullptr;  // restored when the call ends: calls nest
};

}  // namespace hookbus::detail
