#pragma once
// Internal: handlers whose work starts ahead of their turn, so that the
// external hooks of one emit run at once and the emit costs its slowest hook,
// not the sum (docs/semantics.md §16).
//
// A handler that can run ahead (an external hook's, lib/external/installer.cpp)
// has, besides its call, a RunAhead<E>: given the event, on the emitting
// thread, it prepares the work (the payload, which may read what the emitting
// thread knows, such as the approvals answered to this handler) and returns
// the part that runs on a thread of its own: the process. That part returns
// the last step, which reads the run's answer on the emitting thread at the
// handler's turn, where a sequential run would have read it.
//
// Why the outcome is the one a sequential emit gives:
//   1. Runs start on the event as the emit has it at the start; each carries
//      the emission's revision then (Emission::revision, bumped by every
//      change a handler makes to the event).
//   2. Answers are read in call order, each at its handler's turn, by the
//      same fold as an answer made then: the order of decisions, decided_by
//      and the trace's handler list are a sequential emit's.
//   3. At its turn, a run whose revision is not the emission's saw an event
//      that an earlier answer then changed: its answer is discarded, and it
//      and the untaken runs of the same stale event are stopped; its run and
//      those after it start again on the event as it is now, and it takes
//      its new run. (Were no run to be had, the handler is called as usual.)
//   4. A chain that ends before a run's turn (a deny, a cancel, a handled)
//      leaves the run untaken: it is stopped (its process group killed) and
//      joined before the emit returns, and its answer never read. The trace
//      names it (EmissionRecord::runs_stopped); in a sequential emit it would
//      not have run at all, which is why a hook with side effects can ask to
//      run at its turn only (`sequential`).
//   5. A recheck pass (reducers.hpp, ChangeLog) starts nothing: its handlers
//      answer a changed event, at their turn.
//   6. A run starts with those of its own layer (trust rank) only: a less
//      trusted hook's run starts at the turn of the first of its layer, once
//      every more trusted handler before it answered, so it never sees a
//      call a more trusted guard refused, nor runs before one.
//
// Safety: a run ahead owns copies of what it reads (the payload, the event's
// context); the emitting thread joins every run before the emit returns, so
// no run outlives the handler's registration or the bus.

#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>

#include "bus/recording/handler_report.hpp"
#include "catalogue/hook_answer.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace hookbus::detail {

// Reads a finished run's answer, on the emitting thread (may throw: the hook failed).
template <class E>
using ReadAnswer = std::function<HookAnswer<E>()>;
// The part of a run that goes to a thread of its own.
template <class E>
using AheadWork = std::function<ReadAnswer<E>(std::stop_token)>;
// Prepares a run of the handler for the event, on the emitting thread.
template <class E>
using RunAhead = std::function<AheadWork<E>(const E&)>;

// Connects a handler of E whose work can also start ahead of its turn:
// `handler` is its call at its turn (also after a discarded run), `ahead`
// the same work prepared to run on a thread of its own. Instantiated for
// every event (bus/hooks.cpp).
template <Event E>
Connection connect_running_ahead(Hooks& hooks, Handler<E> handler, RunAhead<E> ahead, HandlerOptions options);

// One run started ahead of its turn, on a thread of its own. Stopped when the
// emit's stop token is, or by stop(); the destructor stops it unless it was
// taken, and joins.
template <class E>
class AheadRun {
 public:
  // The emit's stop is followed before the work starts: a stop requested
  // before the emit reaches the run before its process could start.
  AheadRun(AheadWork<E> work, const std::stop_token& emit_stop) : follow_(emit_stop, StopRun{&stop_}) {
    std::promise<ReadAnswer<E>> promise;
    answer_ = promise.get_future();
    thread_ = std::thread([this, work = std::move(work), promise = std::move(promise),
                           stop = stop_.get_token()]() mutable {
      ran_.start = trace_ticks();
      try {
        ReadAnswer<E> read = work(std::move(stop));
        ran_.end = trace_ticks();
        promise.set_value(std::move(read));
      } catch (...) {
        ran_.end = trace_ticks();
        promise.set_exception(std::current_exception());
      }
    });
  }
  AheadRun(const AheadRun&) = delete;
  AheadRun& operator=(const AheadRun&) = delete;
  ~AheadRun() {
    if (!taken_) stop_.request_stop();
    if (thread_.joinable()) thread_.join();
  }

  // Waits for the run and reads its answer (rethrows what the run threw).
  // The trace records the run's own time, not the wait.
  HookAnswer<E> take() {
    taken_ = true;
    ReadAnswer<E> read = answer_.get();
    if (HandlerReport* report = handler_report()) report->ran = ran_;
    return read();
  }
  void stop() noexcept { stop_.request_stop(); }

 private:
  struct StopRun {
    std::stop_source* run;
    void operator()() const noexcept { run->request_stop(); }
  };
  std::stop_source stop_;  // the run's: stop(), the destructor, or the emit's stop
  std::stop_callback<StopRun> follow_;  // the emit's stop reaches the run
  std::future<ReadAnswer<E>> answer_;
  HandlerReport::Run ran_{};  // written by the run's thread before the answer is set, read after it is got
  std::thread thread_;  // joined by the destructor, before the members it uses go
  bool taken_ = false;
};

// The runs one emit started ahead, by the handler's place in the emit's
// snapshot (bus/channel.hpp). Made at the first start.
template <class E>
class RunsAhead {
 public:
  struct Run {
    std::size_t position;
    std::uint64_t revision;  // the emission's when the run started
    std::string label;       // for the trace, when it is stopped untaken
    std::unique_ptr<AheadRun<E>> run;
    bool again = false;      // an earlier run of the handler saw an event that changed since
  };

  Run* find(std::size_t position) noexcept {
    for (Run& run : runs_)
      if (run.position == position) return &run;
    return nullptr;
  }
  [[nodiscard]] std::size_t running() const noexcept {
    std::size_t count = 0;
    for (const Run& run : runs_) count += run.run != nullptr;
    return count;
  }

  // Starts `work`; false when no thread could be had (the handler then runs at its turn).
  bool start(std::size_t position, std::uint64_t revision, std::string label, AheadWork<E> work,
             const std::stop_token& emit_stop) {
    try {
      const bool again = std::find(stale_.begin(), stale_.end(), position) != stale_.end();
      runs_.push_back(
          {position, revision, std::move(label), std::make_unique<AheadRun<E>>(std::move(work), emit_stop), again});
      return true;
    } catch (const std::system_error&) {
      return false;
    }
  }

  // The handler at `position` takes its run: the run leaves the table.
  std::unique_ptr<AheadRun<E>> take(Run& run) noexcept { return std::move(run.run); }

  // Stops and forgets the runs not taken that started at another revision
  // than `revision`, and forgets the entry at `position` (taken): they may
  // start again.
  void forget_stale(std::uint64_t revision, std::size_t position) {
    const auto stale = [&](const Run& run) { return run.run && run.revision != revision; };
    for (Run& run : runs_) {
      if (!stale(run) && run.position != position) continue;
      if (run.run) run.run->stop();  // all first, so their processes end together
      stale_.push_back(run.position);
    }
    std::erase_if(runs_, [&](const Run& run) { return run.position == position || stale(run); });  // joins
  }

  // Stops and joins every run not taken; returns the labels of their handlers, in call order.
  std::vector<std::string> stop_untaken() {
    std::vector<std::string> stopped;
    for (Run& run : runs_) {  // all stopped first, so their processes end together
      if (!run.run) continue;
      run.run->stop();
      stopped.push_back(std::move(run.label));
    }
    runs_.clear();  // joins
    return stopped;
  }

 private:
  std::vector<Run> runs_;  // in the order started, which is call order within a batch
  std::vector<std::size_t> stale_;  // the handlers whose runs were discarded or stopped as stale
};

}  // namespace hookbus::detail
