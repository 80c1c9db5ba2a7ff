// Approvals that pause and resume (include/hookbus/approvals.hpp): the
// session of an emit, the requests' ids, and their JSON.
#include <hookbus/approvals.hpp>
#include <hookbus/enum_names.hpp>

#include "bus/asking_handler.hpp"
#include "bus/registration.hpp"
#include "catalogue/json_text.hpp"
#include "support/sha256.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace hookbus {

namespace detail {
constinit thread_local Approvals* current_approvals = nullptr;
constinit thread_local Asker asking_handler{};
}  // namespace detail

namespace {

std::string digest_of(const boost::json::value& json) { return detail::sha256_hex(boost::json::serialize(json)); }

// The digest of the event as the handler whose call is in progress sees it.
std::string seen_digest() { return digest_of(to_json(detail::asking_handler.sees->variant())); }

// Every part in a JSON array, so no part can run into the next: a label with
// a '/' or a ':' never makes the id of another handler's ask. The event as the
// handler saw it is a part: an answer about one input never answers an ask
// about another that an earlier handler changed it to.
std::string request_id(const ApprovalRequest& r) {
  const boost::json::value layer =
      r.layer ? boost::json::value(*reflect::enum_wire_name(*r.layer)) : boost::json::value(nullptr);
  const boost::json::array parts{
      r.event, r.event_id.empty() ? r.event_digest : r.event_id, r.seen_digest, layer, r.handler, r.source, r.name};
  return digest_of(parts).substr(0, 32);
}

[[noreturn]] void fail(const std::string& path, const std::string& message) { throw JsonError(path, message); }

const boost::json::object& object_at(const boost::json::value& node, const std::string& path) {
  if (!node.is_object()) fail(path, fmt::format("expected an object, got {}", detail::json_kind_name(node)));
  return node.get_object();
}

const boost::json::value& member(const boost::json::object& object, std::string_view key, const std::string& path) {
  const boost::json::value* found = object.if_contains(key);
  if (found == nullptr) fail(path, fmt::format("'{}' is missing", key));
  return *found;
}

std::string string_at(const boost::json::object& object, std::string_view key, const std::string& path) {
  const boost::json::value& node = member(object, key, path);
  if (!node.is_string())
    fail(fmt::format("{}.{}", path, key), fmt::format("expected a string, got {}", detail::json_kind_name(node)));
  return std::string(node.get_string());
}

const boost::json::array& list_at(const boost::json::value& document, std::string_view key) {
  const boost::json::object& object = object_at(document, "");
  const boost::json::value& version = member(object, "version", "");
  if (!version.is_int64() || version.get_int64() != approvals_version)
    fail("version", fmt::format("version {} of the approvals format is not read here; this hookbus reads version {}",
                                boost::json::serialize(version), approvals_version));
  const boost::json::value& list = member(object, key, "");
  if (!list.is_array()) fail(std::string(key), fmt::format("expected an array, got {}", detail::json_kind_name(list)));
  return list.get_array();
}

// Unknown fields are refused, not dropped: a misspelt one would be lost on the next store.
void only_fields(const boost::json::object& object, std::initializer_list<std::string_view> known,
                 const std::string& path) {
  for (const auto& field : object)
    if (std::find(known.begin(), known.end(), field.key()) == known.end())
      fail(fmt::format("{}.{}", path, std::string_view(field.key())),
           fmt::format("unknown field; expected one of: {}", fmt::join(known, ", ")));
}

}  // namespace

namespace detail {

boost::json::object answers_to_asking_handler() {
  boost::json::object answers;
  const Approvals* approvals = current_approvals;
  const Registration* handler = asking_handler.handler;
  if (approvals == nullptr || handler == nullptr || approvals->answers_.empty()) return answers;
  const std::string seen = seen_digest();
  for (const ApprovalRequest& request : approvals->asked_) {
    if (request.handler != handler->label() || request.source != handler->source() ||
        request.layer != handler->layer() || request.seen_digest != seen)
      continue;
    for (const ApprovalAnswer& answer : approvals->answers_)
      if (answer.id == request.id) answers[request.name] = answer.answer;
  }
  return answers;
}

void take_asks(boost::json::object& answer) {
  const boost::json::value* asks = answer.if_contains("ask_person");
  if (asks == nullptr) return;
  if (!asks->is_array()) fail("ask_person", fmt::format("expected an array, got {}", json_kind_name(*asks)));
  for (std::size_t i = 0; i < asks->get_array().size(); ++i) {
    const std::string path = fmt::format("ask_person[{}]", i);
    const boost::json::object& ask = object_at(asks->get_array()[i], path);
    only_fields(ask, {"name", "reason", "question"}, path);
    const boost::json::value* question = ask.if_contains("question");
    const std::string reason = ask.contains("reason") ? string_at(ask, "reason", path) : std::string();
    [[maybe_unused]] const auto given =
        ask_person(string_at(ask, "name", path), reason, question ? *question : boost::json::value());
  }
  answer.erase("ask_person");
}

}  // namespace detail

std::optional<boost::json::value> ask_person(std::string_view name, std::string_view reason,
                                             boost::json::value question) {
  Approvals* approvals = detail::current_approvals;
  const detail::Registration* handler = detail::asking_handler.handler;
  if (approvals == nullptr || handler == nullptr) return std::nullopt;
  ApprovalRequest request{.event = approvals->event_,
                          .event_id = approvals->event_id_,
                          .event_digest = approvals->event_digest_,
                          .seen_digest = seen_digest(),
                          .name = std::string(name),
                          .reason = std::string(reason),
                          .question = std::move(question),
                          .handler = handler->label(),
                          .source = handler->source(),
                          .layer = handler->layer()};
  request.id = request_id(request);
  const auto answered = std::find_if(approvals->answers_.begin(), approvals->answers_.end(),
                                     [&](const ApprovalAnswer& a) { return a.id == request.id; });
  if (answered != approvals->answers_.end()) return answered->answer;
  const bool already = std::any_of(approvals->pending_.begin(), approvals->pending_.end(),
                                   [&](const ApprovalRequest& p) { return p.id == request.id; });
  if (!already) approvals->pending_.push_back(std::move(request));
  return std::nullopt;
}

Approvals::Approvals(std::vector<ApprovalRequest> asked, std::vector<ApprovalAnswer> answers)
    : asked_(std::move(asked)), answers_(std::move(answers)) {
  for (auto answer = answers_.begin(); answer != answers_.end(); ++answer) {
    const auto request = std::find_if(asked_.begin(), asked_.end(),
                                      [&](const ApprovalRequest& r) { return r.id == answer->id; });
    if (request == asked_.end())
      throw ApprovalError(fmt::format(
          "approval answer for '{}': no stored request has this id (an answer goes with the request it answers, "
          "as approvals_to_json stored it); resume with the stored requests and answers to their ids",
          answer->id));
    // A request whose id is not made from its own fields was changed after it was asked.
    if (request_id(*request) != request->id)
      throw ApprovalError(fmt::format(
          "approval request '{}' ({} asked by '{}'): its id does not match its event, handler and name, so it was "
          "changed since it was asked; ask again by emitting the event without answers",
          request->id, request->name, request->handler));
    if (std::any_of(answers_.begin(), answer, [&](const ApprovalAnswer& a) { return a.id == answer->id; }))
      throw ApprovalError(fmt::format("approval request '{}' ({}) is answered twice; give one answer per request",
                                      answer->id, request->name));
  }
}

Approvals::Session::Session(Approvals& approvals, std::string_view event, std::string event_id,
                            const boost::json::value& json)
    : previous_(detail::current_approvals) {
  std::string digest = digest_of(json);
  for (const ApprovalRequest& request : approvals.asked_) {
    if (request.event != event || request.event_id != event_id)
      throw ApprovalError(fmt::format(
          "approval request '{}' ({} asked by '{}') was asked on {} '{}', not on this {} '{}'; resume each event "
          "with its own requests",
          request.id, request.name, request.handler, request.event, request.event_id, event, event_id));
    if (request.event_digest != digest)
      throw ApprovalError(fmt::format(
          "approval request '{}' ({} asked by '{}'): the {} event changed since it was asked (its digest was {}, "
          "it is {} now), so its answer may not fit it; ask again by emitting the event without answers",
          request.id, request.name, request.handler, event, request.event_digest, digest));
  }
  approvals.pending_.clear();
  approvals.event_ = event;
  approvals.event_id_ = std::move(event_id);
  approvals.event_digest_ = std::move(digest);
  detail::current_approvals = &approvals;
}

Approvals::Session::~Session() { detail::current_approvals = previous_; }

boost::json::value approvals_to_json(const std::vector<ApprovalRequest>& requests) {
  boost::json::array list;
  for (const ApprovalRequest& r : requests)
    list.push_back(boost::json::object{
        {"id", r.id},
        {"event", r.event},
        {"event_id", r.event_id},
        {"event_digest", r.event_digest},
        {"seen_digest", r.seen_digest},
        {"name", r.name},
        {"reason", r.reason},
        {"question", r.question},
        {"handler", r.handler},
        {"source", r.source},
        {"layer", r.layer ? boost::json::value(*reflect::enum_wire_name(*r.layer)) : boost::json::value(nullptr)},
    });
  return boost::json::object{{"version", approvals_version}, {"requests", std::move(list)}};
}

std::vector<ApprovalRequest> approvals_from_json(const boost::json::value& document) {
  std::vector<ApprovalRequest> requests;
  const boost::json::array& list = list_at(document, "requests");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("requests[{}]", i);
    const boost::json::object& object = object_at(list[i], path);
    only_fields(object,
                {"id", "event", "event_id", "event_digest", "seen_digest", "name", "reason", "question", "handler",
                 "source", "layer"},
                path);
    ApprovalRequest& r = requests.emplace_back(ApprovalRequest{
        .id = string_at(object, "id", path),
        .event = string_at(object, "event", path),
        .event_id = string_at(object, "event_id", path),
        .event_digest = string_at(object, "event_digest", path),
        .seen_digest = string_at(object, "seen_digest", path),
        .name = string_at(object, "name", path),
        .reason = string_at(object, "reason", path),
        .question = member(object, "question", path),
        .handler = string_at(object, "handler", path),
        .source = string_at(object, "source", path),
    });
    const boost::json::value& layer = member(object, "layer", path);
    if (layer.is_null()) continue;
    const auto named = layer.is_string() ? reflect::enum_from_wire_name<Layer>(layer.get_string()) : std::nullopt;
    if (!named)
      fail(path + ".layer",
           fmt::format("expected null or one of: {}", fmt::join(reflect::enum_wire_names<Layer>(), ", ")));
    r.layer = *named;
  }
  return requests;
}

boost::json::value answers_to_json(const std::vector<ApprovalAnswer>& answers) {
  boost::json::array list;
  for (const ApprovalAnswer& a : answers) list.push_back(boost::json::object{{"id", a.id}, {"answer", a.answer}});
  return boost::json::object{{"version", approvals_version}, {"answers", std::move(list)}};
}

std::vector<ApprovalAnswer> answers_from_json(const boost::json::value& document) {
  std::vector<ApprovalAnswer> answers;
  const boost::json::array& list = list_at(document, "answers");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("answers[{}]", i);
    const boost::json::object& object = object_at(list[i], path);
    only_fields(object, {"id", "answer"}, path);
    answers.push_back({.id = string_at(object, "id", path), .answer = member(object, "answer", path)});
  }
  return answers;
}

}  // namespace hookbus
