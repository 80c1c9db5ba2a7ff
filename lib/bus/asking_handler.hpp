#pragma once
// Internal: the handler whose call is in progress on this thread, and the
// event as it sees it, which an ask_person it makes is recorded as
// (include/hookbus/approvals.hpp). Noted only while an Approvals' emit is in
// progress on the thread, so an emit without one pays one thread-local load
// per handler.
#include <hookbus/approvals.hpp>
#include <hookbus/event_ref.hpp>

#include <boost/json/object.hpp>

#include <utility>

namespace hookbus::detail {

class Registration;

extern constinit thread_local Approvals* current_approvals;
struct Asker {
  const Registration* handler = nullptr;
  const EventRef* sees = nullptr;
};
extern constinit thread_local Asker asking_handler;

class AskingHandler {
 public:
  AskingHandler(const Registration* handler, const EventRef& sees) noexcept : noted_(current_approvals != nullptr) {
    if (noted_) previous_ = std::exchange(asking_handler, Asker{handler, &sees});
  }
  ~AskingHandler() {
    if (noted_) asking_handler = previous_;
  }
  AskingHandler(const AskingHandler&) = delete;
  AskingHandler& operator=(const AskingHandler&) = delete;

 private:
  bool noted_;
  Asker previous_;
};

// The answers given to the handler whose call is in progress, by ask name:
// what a hookbus-protocol hook reads as its payload's `approval_answers`.
boost::json::object answers_to_asking_handler();

// Takes an external hook's `ask_person` list out of its answer and asks each
// (ask_person); throws JsonError naming the field of a wrong shape.
void take_asks(boost::json::object& answer);

}  // namespace hookbus::detail
