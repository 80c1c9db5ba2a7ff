// The process runner: a supervisor process starts the program (supervisor.hpp),
// then one poll() loop feeds stdin, drains stdout and stderr, hears from the
// supervisor when the program exits, and enforces the timeout and the stop
// token; see include/hookbus/process.hpp for the guarantees.
//
// Why not Boost.Process v2 (Boost 1.81)? It fits the easy part (argv vector,
// environment, start directory, pipes, Asio reads) but not the rest: its
// launchers fork() and offer no process group (so a timeout could only kill
// the direct child, never a grandchild holding stdout open), do not reset
// ignored signals or the signal mask in the child (a host that ignores SIGPIPE
// would hand that on to every hook), and write stdin through Asio pipes that
// raise SIGPIPE when a hook exits without reading it, which a library may not
// cure by changing the host's disposition. The output caps, the bounded drain
// after exit, the SIGTERM-then-SIGKILL escalation and the supervisor would
// have to be written on top of it anyway.
#include <hookbus/process.hpp>

#include "process/pipes.hpp"
#include "process/supervisor.hpp"
#include "support/text.hpp"
#include "support/utf8.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <string_view>
#include <utility>

namespace hookbus {
namespace {

using detail::Clock;
using detail::Ending;
using detail::FileDescriptor;
using detail::SigpipeSuppressed;
using detail::make_nonblocking;
using detail::milliseconds_until;
using detail::StopWakeup;

// One of the child's output streams, read up to its cap and then discarded,
// so the child never blocks on a full pipe.
class OutputStream {
 public:
  OutputStream(FileDescriptor fd, std::size_t limit, std::string& text, bool& truncated)
      : fd_(std::move(fd)), limit_(limit), text_(text), truncated_(truncated) {
    make_nonblocking(fd_);
  }

  [[nodiscard]] const FileDescriptor& fd() const noexcept { return fd_; }

  // One read; closes the stream at EOF or on an error.
  void read_some() {
    std::array<char, 64 * 1024> buffer;
    const ssize_t n = ::read(fd_.get(), buffer.data(), buffer.size());
    if (n > 0) return keep({buffer.data(), static_cast<std::size_t>(n)});
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) fd_.close();
  }

  void close() noexcept { fd_.close(); }

 private:
  void keep(std::string_view chunk) {
    const std::size_t room = limit_ - std::min(limit_, text_.size());
    text_.append(chunk.substr(0, room));
    if (chunk.size() > room) truncated_ = true;
  }

  FileDescriptor fd_;
  std::size_t limit_;
  std::string& text_;
  bool& truncated_;
};

// The child's stdin, fed from the payload without ever blocking.
class InputStream {
 public:
  InputStream(FileDescriptor fd, std::string_view data, SigpipeSuppressed& sigpipe)
      : fd_(std::move(fd)), remaining_(data), sigpipe_(sigpipe) {
    make_nonblocking(fd_);
    if (remaining_.empty()) fd_.close();
  }

  [[nodiscard]] const FileDescriptor& fd() const noexcept { return fd_; }

  // Writes what the pipe takes now; closes stdin when everything is written,
  // or when the child no longer reads (then the rest is dropped: not reading
  // its input is the program's right, not an error).
  void write_some() {
    const ssize_t n = ::write(fd_.get(), remaining_.data(), remaining_.size());
    if (n >= 0) {
      remaining_.remove_prefix(static_cast<std::size_t>(n));
      if (remaining_.empty()) fd_.close();
      return;
    }
    if (errno == EAGAIN || errno == EINTR) return;
    if (errno == EPIPE) sigpipe_.note_broken_pipe();
    fd_.close();
  }

  void close() noexcept { fd_.close(); }

 private:
  FileDescriptor fd_;
  std::string_view remaining_;
  SigpipeSuppressed& sigpipe_;
};

// Feeds, drains and watches the program until the run is over, then has the
// supervisor end it: release everything detached, or kill everything.
class Run {
 public:
  Run(const ProcessSpec& spec, detail::StdioPipes& stdio, detail::SupervisedProgram& program,
      const StopWakeup& stop, ProcessResult& result, SigpipeSuppressed& sigpipe)
      : spec_(spec),
        program_(program),
        stop_(stop),
        input_(std::move(stdio.input.write_end), spec.input, sigpipe),
        output_(std::move(stdio.output.read_end), spec.stdout_limit, result.stdout_text, result.stdout_truncated),
        errors_(std::move(stdio.errors.read_end), spec.stderr_limit, result.stderr_text, result.stderr_truncated),
        result_(result) {}

  void run(Clock::time_point start) {
    deadline_ = start + spec_.timeout;
    while (!program_.finished()) {
      poll_once();
      if (program_.wait_status() && phase_ == Phase::running) on_program_exit();
      if (phase_ == Phase::terminating && program_.everything_exited()) program_.finish(Ending::kill);
      if (stop_.requested()) on_stop();
      if (phase_ == Phase::draining && !output_.fd().is_open() && !errors_.fd().is_open())
        program_.finish(detached_may_stay() ? Ending::release : Ending::kill);
      if (Clock::now() >= deadline_) on_deadline();
    }
  }

 private:
  // running: until the program exits, the timeout, or a stop request.
  // draining: the program exited; reading what is left, for at most exit_drain.
  // terminating: timed out or stopped, SIGTERM sent; waiting at most kill_grace
  //   for every process of the run to exit.
  enum class Phase { running, draining, terminating };

  void poll_once() {
    std::array<pollfd, 5> fds{};
    std::size_t count = 0;
    auto watch = [&](const FileDescriptor& fd, short events) {
      if (fd.is_open()) fds[count++] = pollfd{fd.get(), events, 0};
      return fd.is_open() ? static_cast<int>(count - 1) : -1;
    };
    const int in = phase_ == Phase::running ? watch(input_.fd(), POLLOUT) : -1;
    const int out = watch(output_.fd(), POLLIN);
    const int err = watch(errors_.fd(), POLLIN);
    const int reports = watch(program_.reports(), POLLIN);
    if (phase_ == Phase::running) watch(stop_.fd(), POLLIN);  // read through requested()

    if (::poll(fds.data(), count, milliseconds_until(deadline_)) <= 0) return;  // timeout, EINTR: the caller checks
    if (in >= 0 && fds[in].revents != 0) input_.write_some();
    if (out >= 0 && fds[out].revents != 0) output_.read_some();
    if (err >= 0 && fds[err].revents != 0) errors_.read_some();
    if (reports >= 0 && fds[reports].revents != 0) program_.read_reports();
  }

  // Only after an exit of the program's own: one killed by a signal takes everything with it.
  bool detached_may_stay() const noexcept {
    return spec_.detached_may_outlive && WIFEXITED(*program_.wait_status());
  }

  void on_program_exit() {
    phase_ = Phase::draining;
    input_.close();
    deadline_ = Clock::now() + spec_.exit_drain;
  }

  // Once the program has exited, a stop only cuts the drain short.
  void on_stop() {
    if (phase_ == Phase::running) {
      result_.cancelled = true;
      return begin_termination();
    }
    if (phase_ == Phase::draining) program_.finish(Ending::kill);
  }

  void on_deadline() {
    if (phase_ != Phase::running) return program_.finish(Ending::kill);
    result_.timed_out = true;
    begin_termination();
  }

  void begin_termination() {
    input_.close();
    program_.terminate();
    phase_ = Phase::terminating;
    deadline_ = Clock::now() + spec_.kill_grace;
  }

  const ProcessSpec& spec_;
  detail::SupervisedProgram& program_;
  const StopWakeup& stop_;
  InputStream input_;
  OutputStream output_;
  OutputStream errors_;
  ProcessResult& result_;
  Phase phase_ = Phase::running;
  Clock::time_point deadline_;
};

}  // namespace

std::string ProcessResult::status() const {
  if (timed_out) return fmt::format("timed out (killed after {} ms)", duration.count());
  if (cancelled) {
    if (!exit_code && !signal) return "cancelled before it started";
    return fmt::format("cancelled (killed after {} ms)", duration.count());
  }
  if (supervision_lost)
    return "supervision lost: its supervisor process was killed or stopped (by the program itself?)";
  if (signal) return detail::signal_description(*signal);
  if (exit_code) return fmt::format("exit code {}", *exit_code);
  return "not run";
}

std::string ProcessResult::stderr_tail(std::size_t max_bytes) const {
  const std::string_view text = detail::trim(stderr_text);
  if (text.size() <= max_bytes) return detail::valid_utf8(text);
  return "..." + detail::valid_utf8(detail::utf8_suffix(text, max_bytes));
}

ProcessResult run_process(const ProcessSpec& spec) {
  if (spec.program.empty()) throw ProcessError("cannot run a program with an empty path");
  ProcessResult result;
  result.stdout_limit = spec.stdout_limit;
  const StopWakeup stop(spec.stop);
  if (stop.requested()) {
    result.cancelled = true;
    return result;
  }
  const auto start = Clock::now();
  SigpipeSuppressed sigpipe;
  detail::StdioPipes stdio;
  detail::SupervisedProgram program(
      {spec.program, spec.arguments, spec.extra_environment, spec.inherit_environment, spec.working_directory}, stdio);
  Run(spec, stdio, program, stop, result, sigpipe).run(start);
  if (const auto& status = program.wait_status()) detail::record_wait_status(*status, result.exit_code, result.signal);
  result.supervision_lost = program.lost();
  result.duration = std::chrono::duration_cast<Duration>(Clock::now() - start);
  // Lost supervision ends a run by the library's own kill, wherever the loop
  // was: a stop or a deadline that came meanwhile still says why it ended.
  if (result.supervision_lost && !result.cancelled && !result.timed_out) {
    if (stop.requested()) result.cancelled = true;
    else if (result.duration >= spec.timeout) result.timed_out = true;
  }
  return result;
}

}  // namespace hookbus
