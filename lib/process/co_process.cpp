// The persistent co-process: the program under its supervisor (supervisor.hpp),
// request lines written to its stdin and answer lines read from its stdout by
// the requesting thread, stderr pumped to the callback by a thread of its own.
// See include/hookbus/co_process.hpp for the guarantees.
#include <hookbus/co_process.hpp>

#include "process/pipes.hpp"
#include "process/supervisor.hpp"

#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <thread>

namespace hookbus {
namespace {

using detail::Clock;
using detail::Ending;
using detail::FileDescriptor;

enum class Read { data, nothing_now, end_of_file };

// One read of what is there now, appended to `text`. An error counts as end of file.
Read read_some(const FileDescriptor& fd, std::string& text) {
  std::array<char, 64 * 1024> buffer;
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n > 0) {
      text.append(buffer.data(), static_cast<std::size_t>(n));
      return Read::data;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN ? Read::nothing_now : Read::end_of_file;
  }
}

// Reads the program's stderr until end of file and hands it to the callback
// line by line (overlong lines in pieces of `line_limit`), on its own thread,
// so the program never blocks on a full stderr pipe.
class StderrPump {
 public:
  StderrPump(FileDescriptor errors, std::size_t line_limit, std::function<void(std::string_view)> on_line)
      : errors_(std::move(errors)),
        wakeup_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
        line_limit_(std::max<std::size_t>(line_limit, 1)),
        on_line_(std::move(on_line)) {
    if (!wakeup_.is_open()) throw ProcessError("cannot create an eventfd: " + detail::error_text(errno));
    detail::make_nonblocking(errors_);
    thread_ = std::jthread([this] { pump(); });
  }
  StderrPump(const StderrPump&) = delete;
  StderrPump& operator=(const StderrPump&) = delete;
  ~StderrPump() { stop(); }

  // Hands over what is still in the pipe, then ends the thread.
  void stop() noexcept {
    if (!thread_.joinable()) return;
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t ignored = ::write(wakeup_.get(), &one, sizeof one);
    thread_.join();
  }

 private:
  void pump() {
    std::string text;
    for (;;) {
      std::array<pollfd, 2> fds{pollfd{errors_.get(), POLLIN, 0}, pollfd{wakeup_.get(), POLLIN, 0}};
      if (::poll(fds.data(), fds.size(), -1) < 0) continue;  // EINTR
      if (fds[0].revents != 0 && read_some(errors_, text) == Read::end_of_file) break;
      hand_over_lines(text);
      if (fds[1].revents != 0) {  // asked to stop: what is there now, then done
        while (read_some(errors_, text) == Read::data) hand_over_lines(text);
        break;
      }
    }
    if (!text.empty()) deliver(text);
  }

  void hand_over_lines(std::string& text) {
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
      for (std::size_t at = start; at < end || at == start; at += line_limit_)
        deliver(std::string_view(text).substr(at, std::min(line_limit_, end - at)));
    text.erase(0, start);
    while (text.size() >= line_limit_) {
      deliver(std::string_view(text).substr(0, line_limit_));
      text.erase(0, line_limit_);
    }
  }

  // A callback that throws must not take the host down with this thread.
  void deliver(std::string_view line) noexcept {
    if (!on_line_) return;
    try {
      on_line_(line);
    } catch (...) {
    }
  }

  FileDescriptor errors_;
  FileDescriptor wakeup_;
  std::size_t line_limit_;
  std::function<void(std::string_view)> on_line_;
  std::jthread thread_;  // last: it starts after everything it uses
};

using Outcome = CoProcessReply::Outcome;

}  // namespace

struct CoProcess::State {
  explicit State(CoProcessSpec spec_in)
      : spec(std::move(spec_in)),
        program({spec.program, spec.arguments, spec.extra_environment, spec.inherit_environment,
                 spec.working_directory},
                stdio),
        input(std::move(stdio.input.write_end)),
        output(std::move(stdio.output.read_end)),
        errors(std::move(stdio.errors.read_end), spec.line_limit, spec.on_stderr) {
    detail::make_nonblocking(input);
    detail::make_nonblocking(output);
  }

  CoProcessReply request(std::string_view line, Duration timeout, const std::stop_token& stop);
  bool running();
  void kill();
  void shut_down() noexcept;

 private:
  CoProcessReply ended_reply(Clock::time_point start) const;
  CoProcessReply end(Outcome outcome, Clock::time_point start, std::string text = {});
  bool has_answer() const noexcept { return pending.find('\n') != std::string::npos; }
  CoProcessReply answer(Clock::time_point start);

 public:
  CoProcessSpec spec;
  std::mutex mutex;  // one request at a time; guards everything below but `errors`
  detail::StdioPipes stdio;
  detail::SupervisedProgram program;
  FileDescriptor input;
  FileDescriptor output;
  std::string pending;  // stdout read but not yet answered
  StderrPump errors;
  bool ended = false;
};

CoProcessReply CoProcess::State::ended_reply(Clock::time_point start) const {
  CoProcessReply reply;
  reply.outcome = Outcome::ended;
  if (const auto& status = program.wait_status()) detail::record_wait_status(*status, reply.exit_code, reply.signal);
  reply.duration = std::chrono::duration_cast<Duration>(Clock::now() - start);
  return reply;
}

// Ends the instance: what can no longer be trusted is killed, whole.
CoProcessReply CoProcess::State::end(Outcome outcome, Clock::time_point start, std::string text) {
  input.close();
  if (outcome == Outcome::timed_out || outcome == Outcome::cancelled)
    program.terminate_then_kill(spec.kill_grace);
  else
    program.finish(Ending::kill);
  output.close();
  ended = true;
  CoProcessReply reply = ended_reply(start);
  reply.outcome = outcome;
  reply.line = std::move(text);
  return reply;
}

CoProcessReply CoProcess::State::answer(Clock::time_point start) {
  const std::size_t newline = pending.find('\n');
  CoProcessReply reply;
  reply.outcome = Outcome::answered;
  reply.line = pending.substr(0, newline);
  pending.erase(0, newline + 1);
  reply.duration = std::chrono::duration_cast<Duration>(Clock::now() - start);
  return reply;
}

CoProcessReply CoProcess::State::request(std::string_view line, Duration timeout, const std::stop_token& stop) {
  if (line.find('\n') != std::string_view::npos)
    throw ProcessError("a co-process request must be one line, and this one holds a '\\n'");
  const detail::StopWakeup stop_wakeup(stop);
  const std::lock_guard lock(mutex);
  const auto start = Clock::now();
  if (ended) return ended_reply(start);

  if (stop_wakeup.requested()) {  // not sent: the instance stays as it is
    CoProcessReply reply;
    reply.outcome = Outcome::cancelled;
    return reply;
  }

  // Before asking: did it end, or write something nobody asked for?
  program.read_reports();
  const bool stdout_open = read_some(output, pending) != Read::end_of_file;
  if (!pending.empty()) return end(Outcome::unexpected_output, start, pending.substr(0, spec.line_limit));
  if (program.wait_status() || program.finished() || !stdout_open) return end(Outcome::ended, start);

  const std::string request_text = std::string(line) + '\n';
  std::string_view unwritten = request_text;
  detail::SigpipeSuppressed sigpipe;
  const auto write_what_fits = [&] {
    const ssize_t n = ::write(input.get(), unwritten.data(), unwritten.size());
    if (n > 0) unwritten.remove_prefix(static_cast<std::size_t>(n));
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      if (errno == EPIPE) sigpipe.note_broken_pipe();
      unwritten = {};  // it no longer reads: its end shows on stdout or in a report
    }
  };
  const auto line_too_long = [&] { return std::min(pending.find('\n'), pending.size()) > spec.line_limit; };
  const auto deadline = start + timeout;

  // The pipe almost always has room for the request: write it without asking
  // poll first. Then read for the answer for a short while before sleeping in
  // poll: a fast program's answer is then one process wake-up away, not two.
  write_what_fits();
  if (unwritten.empty() && spec.answer_spin > std::chrono::microseconds::zero()) {
    const auto spin_end = std::min(Clock::now() + spec.answer_spin, deadline);
    while (read_some(output, pending) == Read::nothing_now && !stop_wakeup.requested() && Clock::now() < spin_end) {
    }
    if (line_too_long()) return end(Outcome::line_too_long, start, pending.substr(0, spec.line_limit));
    if (has_answer()) return answer(start);
  }
  for (;;) {
    std::array<pollfd, 4> fds{pollfd{output.get(), POLLIN, 0}, pollfd{program.reports().get(), POLLIN, 0},
                              pollfd{stop_wakeup.fd().get(), POLLIN, 0},
                              pollfd{unwritten.empty() ? -1 : input.get(), POLLOUT, 0}};
    if (::poll(fds.data(), fds.size(), detail::milliseconds_until(deadline)) > 0) {
      if (fds[3].revents != 0) write_what_fits();
      const bool stdout_closed = fds[0].revents != 0 && read_some(output, pending) == Read::end_of_file;
      if (line_too_long()) return end(Outcome::line_too_long, start, pending.substr(0, spec.line_limit));
      if (has_answer()) return answer(start);
      if (stdout_closed) return end(Outcome::ended, start);
      if (fds[1].revents != 0) {
        program.read_reports();
        if (program.wait_status() || program.finished()) {
          read_some(output, pending);  // an answer written just before it exited still counts
          return has_answer() ? answer(start) : end(Outcome::ended, start);
        }
      }
    }
    if (stop_wakeup.requested()) return end(Outcome::cancelled, start);
    if (Clock::now() >= deadline) return end(Outcome::timed_out, start);
  }
}

bool CoProcess::State::running() {
  const std::unique_lock lock(mutex, std::try_to_lock);
  if (!lock.owns_lock()) return true;  // a request is in flight
  if (ended) return false;
  program.read_reports();
  if (program.wait_status() || program.finished()) return false;
  // Output now is kept for the next request, which ends the instance for it.
  return read_some(output, pending) != Read::end_of_file;
}

void CoProcess::State::kill() {
  const std::lock_guard lock(mutex);
  if (!ended) end(Outcome::timed_out, Clock::now());
}

void CoProcess::State::shut_down() noexcept {
  const std::lock_guard lock(mutex);
  if (!ended) {
    input.close();  // end of file: a well-behaved program exits now
    if (program.wait_for_exit(Clock::now() + spec.shutdown_grace))
      program.finish(Ending::kill);  // what it started goes with it
    else
      program.terminate_then_kill(spec.kill_grace);
    ended = true;
  }
  errors.stop();
}

CoProcess::CoProcess(CoProcessSpec spec) : state_(std::make_unique<State>(std::move(spec))) {}

CoProcess::~CoProcess() { state_->shut_down(); }

CoProcessReply CoProcess::request(std::string_view line, Duration timeout, std::stop_token stop) {
  return state_->request(line, timeout, stop);
}

bool CoProcess::running() { return state_->running(); }

void CoProcess::kill() { state_->kill(); }

std::string CoProcessReply::status() const {
  const auto how = [&] {
    if (signal) return detail::signal_description(*signal);
    if (exit_code) return fmt::format("exit code {}", *exit_code);
    return std::string("its supervisor was killed, the exit status is unknown");
  };
  switch (outcome) {
    case Outcome::answered:
      return "answered";
    case Outcome::timed_out:
      return fmt::format("timed out after {} ms (killed)", duration.count());
    case Outcome::cancelled:
      return exit_code || signal ? "cancelled (killed)" : "cancelled before it was sent";
    case Outcome::ended:
      return "ended: " + how();
    case Outcome::line_too_long:
      return fmt::format("answer line longer than {} bytes (killed)", line.size());
    case Outcome::unexpected_output:
      return fmt::format("out of step: {} bytes of output nobody asked for (killed)", line.size());
  }
  return "unknown";
}

}  // namespace hookbus
