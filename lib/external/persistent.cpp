// Persistent hooks (lib/external/persistent.hpp): the instances of one hook,
// the queue of requests waiting for them, restarts and refusal, and the
// request and answer lines.
#include "external/persistent.hpp"

#include <hookbus/co_process.hpp>
#include <hookbus/json.hpp>

#include "catalogue/instantiations.hpp"
#include "external/persistent_answer.hpp"
#include "process/run_log.hpp"
#include "formats/kodelet/protocol.hpp"
#include "support/logging.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace hookbus::detail {
namespace {

using Clock = std::chrono::steady_clock;

std::int64_t milliseconds(Clock::duration duration) {
  return std::chrono::ceil<std::chrono::milliseconds>(duration).count();
}

// What a head-of-queue request finds when no instance can take it.
enum class NoInstance {
  busy,        // every usable one serves a request: wait
  restarting,  // none is busy, and the free ones wait to restart (backoff): fail now
};

}  // namespace

struct PersistentHook::State {
  struct Instance {
    std::unique_ptr<CoProcess> process;  // null: not started, or ended
    bool busy = false;
    Clock::time_point restart_at{};  // no new start before (backoff)
  };

  // An instance taken for one request, given back by release().
  struct Lease {
    std::size_t index = 0;
    std::unique_ptr<CoProcess> process;
    bool in_step = false;     // it answered with the request's id
    std::string end_reason{};  // set when the instance ended unexpectedly
  };

  State(ExternalHook hook_in, PersistentOptions options_in)
      : hook(std::move(hook_in)),
        options(options_in),
        instances(static_cast<std::size_t>(std::max(options.instances, 1))) {}

  [[noreturn]] void fail(std::string_view what) const {
    throw ExternalHookError(valid_utf8(fmt::format("{} (persistent): {}", hook.path.string(), what)));
  }

  std::unique_ptr<CoProcess> start(std::size_t index) const {
    return std::make_unique<CoProcess>(CoProcessSpec{
        .program = hook.path,
        .arguments = {"serve"},
        .extra_environment = {{"HOOKBUS_PROJECT_DIR", hook.project_dir.string()}, {"HOOKBUS_HOOK_NAME", hook.name}},
        .working_directory = hook.project_dir,
        .shutdown_grace = options.shutdown_grace,
        .on_stderr = [name = hook.name, index](std::string_view line) {
          log(spdlog::level::info, "hook '{}' (instance {}): {}", name, index + 1, line);
        }});
  }

  Duration backoff() const {
    if (ends_in_a_row <= 1) return Duration::zero();
    Duration wait = options.first_backoff;
    for (int i = 2; i < ends_in_a_row && wait < options.max_backoff; ++i) wait *= 2;
    return std::min(wait, options.max_backoff);
  }

  // Records an unexpected end of `instance`; refuses the hook when they come
  // too often. Idle processes the refusal retires go to `retired`, for the
  // caller to destroy once it has let go of the lock.
  void note_end(Instance& instance, std::string_view reason, std::vector<std::unique_ptr<CoProcess>>& retired) {
    const auto now = Clock::now();
    recent_ends.push_back(now);
    while (now - recent_ends.front() > options.crash_window) recent_ends.pop_front();
    ++ends_in_a_row;
    instance.restart_at = now + backoff();
    if (refused || static_cast<int>(recent_ends.size()) < options.crash_limit) return;
    refused = fmt::format("refused: its instances ended {} times within {} s (the last: {})", recent_ends.size(),
                          std::chrono::duration_cast<std::chrono::seconds>(options.crash_window).count(), reason);
    log(spdlog::level::warn, "persistent hook '{}' ({}) {}; from now on its events fail, under its failure policy",
        hook.name, hook.path.string(), *refused);
    for (auto& other : instances)
      if (!other.busy && other.process) retired.push_back(std::move(other.process));
  }

  void changed_now() {
    ++generation;
    changed.notify_all();
  }

  // The instance the request at the head of the queue gets: a free one that
  // runs, else a free one that may start now.
  std::variant<std::size_t, NoInstance> pick(Clock::time_point now) const {
    std::optional<std::size_t> startable;
    bool any_busy = false;
    for (std::size_t i = 0; i < instances.size(); ++i) {
      const Instance& instance = instances[i];
      if (instance.busy) any_busy = true;
      else if (instance.process) return i;
      else if (!startable && now >= instance.restart_at) startable = i;
    }
    if (startable) return *startable;
    return any_busy ? NoInstance::busy : NoInstance::restarting;
  }

  Clock::time_point next_restart() const {
    auto next = Clock::time_point::max();
    for (const Instance& instance : instances)
      if (!instance.busy && !instance.process) next = std::min(next, instance.restart_at);
    return next;
  }

  Lease acquire(const std::stop_token& stop);
  void release(Lease& lease);
  boost::json::value serve(Lease& lease, boost::json::object payload, std::string_view requested_name,
                           const std::stop_token& stop);
  [[noreturn]] void out_of_step(Lease& lease, std::string_view what);

  const ExternalHook hook;
  const PersistentOptions options;
  std::atomic<std::uint64_t> next_id{1};

  std::mutex mutex;                     // guards everything below
  std::condition_variable_any changed;  // an instance was freed, a caller left the queue, the hook was refused
  std::uint64_t generation = 0;         // counts those changes
  std::vector<Instance> instances;
  std::list<std::uint64_t> queue;  // callers waiting for an instance, in arrival order
  std::uint64_t next_ticket = 0;
  std::deque<Clock::time_point> recent_ends;  // unexpected ends within crash_window
  int ends_in_a_row = 0;                      // since the last answer in step
  std::optional<std::string> refused;
};

// Waits for this caller's turn and an instance (at most the hook's timeout).
PersistentHook::State::Lease PersistentHook::State::acquire(const std::stop_token& stop) {
  const auto deadline = Clock::now() + hook.timeout;
  std::unique_lock lock(mutex);
  const std::uint64_t ticket = next_ticket++;
  queue.push_back(ticket);
  const auto leave = [&](std::string what) {
    queue.remove(ticket);
    changed_now();
    lock.unlock();
    fail(what);
  };
  bool waited = false;
  for (;;) {
    if (refused) leave(*refused);
    if (stop.stop_requested())
      leave(waited ? "cancelled by the engine while waiting for a free instance"
                   : "cancelled by the engine before the request was sent");
    const auto now = Clock::now();
    if (queue.front() == ticket) {
      const auto picked = pick(now);
      if (const auto* index = std::get_if<std::size_t>(&picked)) {
        queue.pop_front();
        Instance& instance = instances[*index];
        instance.busy = true;
        changed_now();  // the next caller is at the head now
        return Lease{*index, std::move(instance.process)};
      }
      if (std::get<NoInstance>(picked) == NoInstance::restarting)
        leave(fmt::format("its instance ended and restarts in {} ms; this event is not sent",
                          milliseconds(next_restart() - now)));
    }
    if (now >= deadline)
      leave(fmt::format("no instance was free within its timeout of {} ms ({} instance{}, all busy)",
                        hook.timeout.count(), instances.size(), instances.size() == 1 ? "" : "s"));
    if (!waited) {  // still last in the queue: the lock has been held since it joined
      waited = true;
      const auto busy = std::ranges::count_if(instances, [](const Instance& instance) { return instance.busy; });
      log(spdlog::level::debug,
          "persistent hook '{}': a request waits its turn ({} ahead of it; {} of {} instance{} busy)", hook.name,
          queue.size() - 1, busy, instances.size(), instances.size() == 1 ? "" : "s");
    }
    const std::uint64_t seen = generation;
    changed.wait_until(lock, stop, std::min(deadline, next_restart()), [&] { return generation != seen; });
  }
}

// Gives the instance back, records how it ended, wakes the callers waiting.
void PersistentHook::State::release(Lease& lease) {
  std::vector<std::unique_ptr<CoProcess>> retired;  // destroyed after the lock is let go
  {
    const std::lock_guard lock(mutex);
    Instance& instance = instances[lease.index];
    instance.busy = false;
    if (lease.in_step) ends_in_a_row = 0;
    if (!lease.end_reason.empty()) note_end(instance, lease.end_reason, retired);
    if (refused) retired.push_back(std::move(lease.process));
    else instance.process = std::move(lease.process);
    changed_now();
  }
}

void PersistentHook::State::out_of_step(Lease& lease, std::string_view what) {
  lease.process->kill();
  lease.process.reset();
  lease.end_reason = fmt::format("out of step: {}", what);
  fail(fmt::format("instance {} is out of step: {} (killed)", lease.index + 1, what));
}

boost::json::value PersistentHook::State::serve(Lease& lease, boost::json::object payload,
                                                std::string_view requested_name, const std::stop_token& stop) {
  if (lease.process && !lease.process->running()) {
    // It exited between requests: an unexpected end, and a restart for this request when no backoff holds it.
    lease.process.reset();
    std::vector<std::unique_ptr<CoProcess>> retired;
    std::unique_lock lock(mutex);
    Instance& instance = instances[lease.index];
    note_end(instance, "it exited between requests", retired);
    const std::optional<std::string> refusal = refused;
    const auto wait = instance.restart_at - Clock::now();
    lock.unlock();
    retired.clear();
    if (refusal) fail(*refusal);
    if (wait > Clock::duration::zero())
      fail(fmt::format("instance {} exited between requests and restarts in {} ms; this event is not sent",
                       lease.index + 1, milliseconds(wait)));
    log(spdlog::level::warn, "persistent hook '{}': instance {} had exited between requests; restarted", hook.name,
        lease.index + 1);
  }
  if (!lease.process) {
    try {
      lease.process = start(lease.index);
    } catch (const ProcessError& error) {
      lease.end_reason = error.what();
      fail(fmt::format("instance {} cannot start: {}", lease.index + 1, error.what()));
    }
  }

  const std::uint64_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  const boost::json::object request{
      {"id", id}, {"event", requested_name}, {"payload", std::move(payload)}};
  std::string line = write_json(request);
  const std::size_t bytes_in = line.size();
  const CoProcessReply reply = lease.process->request(line, hook.timeout, stop);
  log_hook_request(hook.name, hook.path, requested_name, lease.index + 1, bytes_in, reply);
  if (!reply.answered()) {
    const bool ended = !lease.process->running();
    if (ended) lease.process.reset();
    if (reply.outcome == CoProcessReply::Outcome::cancelled)
      fail(ended ? fmt::format("cancelled by the engine (instance {} was killed)", lease.index + 1)
                 : std::string("cancelled by the engine before the request was sent"));
    lease.end_reason = reply.status();
    fail(fmt::format("instance {} {}", lease.index + 1, reply.status()));
  }

  PersistentAnswer answer = read_persistent_answer(reply.line, id);
  if (answer.kind == PersistentAnswer::Kind::out_of_step) out_of_step(lease, answer.problem);
  lease.in_step = true;
  if (answer.kind == PersistentAnswer::Kind::failure) fail(answer.problem);
  return std::move(answer.result);
}

PersistentHook::PersistentHook(ExternalHook hook, PersistentOptions options)
    : state_(std::make_unique<State>(std::move(hook), options)) {
  if (!options.eager) return;
  for (std::size_t i = 0; i < state_->instances.size(); ++i) {
    try {
      state_->instances[i].process = state_->start(i);
    } catch (const ProcessError& error) {
      log(spdlog::level::warn, "persistent hook '{}': instance {} cannot start: {}", state_->hook.name, i + 1,
          error.what());
      std::vector<std::unique_ptr<CoProcess>> retired;
      state_->note_end(state_->instances[i], error.what(), retired);
    }
  }
}

// Every call holds the hook (the bus keeps a handler alive while it runs), so
// nothing is in flight here: the instances shut down with the vector.
PersistentHook::~PersistentHook() = default;

boost::json::value PersistentHook::request(std::string_view requested_name, boost::json::object payload,
                                           std::stop_token stop) {
  State::Lease lease = state_->acquire(stop);
  try {
    boost::json::value answer = state_->serve(lease, std::move(payload), requested_name, stop);
    state_->release(lease);
    return answer;
  } catch (...) {
    state_->release(lease);
    throw;
  }
}

template <class E>
HookAnswer<E> PersistentHook::call(const E& event, std::string_view requested_name, std::stop_token stop) {
  [[maybe_unused]] boost::json::value answer =
      request(requested_name, hook_payload_for(state_->hook, event, requested_name), std::move(stop));
  if constexpr (EventWithResult<E>) {
    try {
      return result_from_answer<E>(std::move(answer));
    } catch (const JsonError& error) {
      state_->fail(fmt::format("answered no valid '{}' result: {}", E::type, error.what()));
    }
  }
}

namespace {
[[gnu::used]] constexpr auto persistent_calls_instantiated = addresses_for<HookEvent>(
    []<class E>(std::type_identity<E>) { return &PersistentHook::call<E>; });
}  // namespace

}  // namespace hookbus::detail
