// The process runner: posix_spawn, then one poll() loop that feeds stdin,
// drains stdout and stderr, watches the child through a pidfd, and enforces
// the timeout; see include/hookbus/process.hpp for the guarantees.
//
// Why not Boost.Process v2 (Boost 1.81)? It fits the easy part (argv vector,
// environment, start directory, pipes, Asio reads) but not the rest: its
// launchers fork() and offer no process group (so a timeout could only kill
// the direct child, never a grandchild holding stdout open), do not reset
// ignored signals or the signal mask in the child (a host that ignores SIGPIPE
// would hand that on to every hook), and write stdin through Asio pipes that
// raise SIGPIPE when a hook exits without reading it, which a library may not
// cure by changing the host's disposition. The output caps, the bounded drain
// after exit and the SIGTERM-then-SIGKILL escalation would have to be written
// on top of it anyway. posix_spawn (clone+exec, safe in a threaded host) with
// POSIX_SPAWN_SETPGROUP/SETSIGMASK/SETSIGDEF, closefrom and chdir file actions,
// plus poll() and a pidfd, does all of it in one small loop.
#include <hookbus/process.hpp>

#include "support/text.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <string_view>
#include <system_error>
#include <utility>

extern char** environ;

namespace hookbus {
namespace {

using Clock = std::chrono::steady_clock;

std::string error_text(int error) { return std::generic_category().message(error); }

class FileDescriptor {
 public:
  FileDescriptor() noexcept = default;
  explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept {
    if (this != &other) {
      close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { close(); }

  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] bool is_open() const noexcept { return fd_ >= 0; }
  void close() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// Pipe ends never take the numbers 0, 1 or 2, even in a host that closed its
// own stdio: the child's dup2s onto those numbers must not clobber each other.
FileDescriptor above_stdio(FileDescriptor fd) {
  if (fd.get() > STDERR_FILENO) return fd;
  const int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  if (moved < 0) throw ProcessError("cannot move a pipe above stdio: " + error_text(errno));
  return FileDescriptor(moved);
}

struct Pipe {
  FileDescriptor read_end;
  FileDescriptor write_end;
};

// Close-on-exec, so a hook started by another thread at the same time never inherits it.
Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw ProcessError("cannot create a pipe: " + error_text(errno));
  Pipe pipe{FileDescriptor(fds[0]), FileDescriptor(fds[1])};
  return {above_stdio(std::move(pipe.read_end)), above_stdio(std::move(pipe.write_end))};
}

void make_nonblocking(const FileDescriptor& fd) {
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK) != 0)
    throw ProcessError("cannot make a pipe non-blocking: " + error_text(errno));
}

// Writing to a pipe whose reader is gone raises SIGPIPE, which by default
// kills the whole host. A library must not change the host's disposition, so
// SIGPIPE is blocked on this thread while we write, and a SIGPIPE our own
// write raised is taken off the pending set before the old mask comes back.
class SigpipeSuppressed {
 public:
  SigpipeSuppressed() noexcept {
    sigemptyset(&sigpipe_);
    sigaddset(&sigpipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &sigpipe_, &previous_mask_);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  SigpipeSuppressed(const SigpipeSuppressed&) = delete;
  SigpipeSuppressed& operator=(const SigpipeSuppressed&) = delete;
  ~SigpipeSuppressed() {
    if (raised_ && !was_pending_) {
      const timespec no_wait{};
      while (sigtimedwait(&sigpipe_, nullptr, &no_wait) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
  }

  void note_broken_pipe() noexcept { raised_ = true; }

 private:
  sigset_t sigpipe_;
  sigset_t previous_mask_;
  bool was_pending_ = false;
  bool raised_ = false;
};

// The caller's environment (unless not inherited) with the extra variables
// set. Read at spawn time, so like getenv it races with a setenv in another thread.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& extra,
                                           bool inherit) {
  for (const auto& [name, value] : extra)
    if (name.empty() || name.find('=') != std::string::npos)
      throw ProcessError("invalid environment variable name '" + name + "': it must be non-empty and have no '='");
  std::vector<std::string> entries;
  for (char** entry = environ; inherit && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    if (std::none_of(extra.begin(), extra.end(), [&](const auto& variable) { return variable.first == name; }))
      entries.emplace_back(text);
  }
  for (const auto& [name, value] : extra) entries.push_back(name + '=' + value);
  return entries;
}

std::vector<char*> null_terminated(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

std::string spawn_failure(const ProcessSpec& spec, int error) {
  std::string where = "cannot run '" + spec.program.string() + "'";
  if (!spec.working_directory.empty()) where += " in '" + spec.working_directory.string() + "'";
  std::string hint;
  if (error == ENOEXEC) hint = " (not a binary and no '#!' line: start a script with one, e.g. '#!/bin/sh')";
  if (error == EACCES) hint = " (is it executable (chmod +x), and are its directories searchable?)";
  if (error == ENOENT) hint = " (does the program exist, and the working directory, and the '#!' interpreter?)";
  return where + ": " + error_text(error) + hint;
}

void check_spawn_setup(int rc) {
  if (rc != 0) throw ProcessError("cannot prepare posix_spawn: " + error_text(rc));
}

class SpawnFileActions {
 public:
  SpawnFileActions() { check_spawn_setup(posix_spawn_file_actions_init(&actions_)); }
  SpawnFileActions(const SpawnFileActions&) = delete;
  SpawnFileActions& operator=(const SpawnFileActions&) = delete;
  ~SpawnFileActions() { posix_spawn_file_actions_destroy(&actions_); }
  posix_spawn_file_actions_t* get() noexcept { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

class SpawnAttributes {
 public:
  SpawnAttributes() { check_spawn_setup(posix_spawnattr_init(&attributes_)); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  ~SpawnAttributes() { posix_spawnattr_destroy(&attributes_); }
  posix_spawnattr_t* get() noexcept { return &attributes_; }

 private:
  posix_spawnattr_t attributes_;
};

struct ChildPipes {
  Pipe input = make_pipe();
  Pipe output = make_pipe();
  Pipe errors = make_pipe();
};

pid_t spawn(const ProcessSpec& spec, const ChildPipes& pipes) {
  SpawnFileActions actions;
  check_spawn_setup(posix_spawn_file_actions_adddup2(actions.get(), pipes.input.read_end.get(), STDIN_FILENO));
  check_spawn_setup(posix_spawn_file_actions_adddup2(actions.get(), pipes.output.write_end.get(), STDOUT_FILENO));
  check_spawn_setup(posix_spawn_file_actions_adddup2(actions.get(), pipes.errors.write_end.get(), STDERR_FILENO));
  // Close-on-exec covers our own descriptors; this covers the host's, which
  // other libraries may have opened without O_CLOEXEC.
  check_spawn_setup(posix_spawn_file_actions_addclosefrom_np(actions.get(), STDERR_FILENO + 1));
  if (!spec.working_directory.empty())
    check_spawn_setup(posix_spawn_file_actions_addchdir_np(actions.get(), spec.working_directory.c_str()));

  // Own process group (pgid = pid), so a timeout can kill everything the
  // program started; empty signal mask; every signal at its default, so
  // dispositions the host ignores (SIGPIPE, SIGINT) do not leak into it.
  SpawnAttributes attributes;
  sigset_t no_signals;
  sigset_t all_signals;
  sigemptyset(&no_signals);
  sigfillset(&all_signals);
  check_spawn_setup(posix_spawnattr_setflags(attributes.get(),
                                             POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
  check_spawn_setup(posix_spawnattr_setpgroup(attributes.get(), 0));
  check_spawn_setup(posix_spawnattr_setsigmask(attributes.get(), &no_signals));
  check_spawn_setup(posix_spawnattr_setsigdefault(attributes.get(), &all_signals));

  std::vector<std::string> argv_strings{spec.program.string()};
  argv_strings.insert(argv_strings.end(), spec.arguments.begin(), spec.arguments.end());
  std::vector<std::string> env_strings = child_environment(spec.extra_environment, spec.inherit_environment);
  const std::vector<char*> argv = null_terminated(argv_strings);
  const std::vector<char*> envp = null_terminated(env_strings);

  pid_t pid = -1;
  const int rc = posix_spawn(&pid, spec.program.c_str(), actions.get(), attributes.get(), argv.data(), envp.data());
  if (rc != 0) throw ProcessError(spawn_failure(spec, rc));
  return pid;
}

// The started child. Until it is reaped, its pid (and so its process-group
// id) cannot be reused, which makes signalling the group safe: the group is
// always killed before the child is reaped, never after. Reaping happens at
// the latest in the destructor, so even an exception leaves no zombie.
class ChildProcess {
 public:
  // Through syscall(): glibc 2.36's <sys/pidfd.h> lacks extern "C" and does not link from C++.
  explicit ChildProcess(pid_t pid) noexcept : pid_(pid), pidfd_(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))) {}
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (!reaped_) kill_group_and_reap();
  }

  // Readable once the child exits. A kernel without pidfds (before 5.3)
  // leaves it closed, and the caller then polls exited() on a short tick.
  [[nodiscard]] const FileDescriptor& pidfd() const noexcept { return pidfd_; }

  // True once the child has exited; it stays a zombie until reaped.
  [[nodiscard]] bool exited() const noexcept {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0;
  }

  void signal_group(int signal) const noexcept { ::kill(-pid_, signal); }

  // SIGKILL to the whole group (what is left of it), then the child's wait status.
  int kill_group_and_reap() noexcept {
    signal_group(SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    return status;
  }

 private:
  pid_t pid_;
  FileDescriptor pidfd_;
  bool reaped_ = false;
};

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

int milliseconds_until(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<decltype(left)>(left, 0, 60'000));
}

// Feeds, drains and watches the child until it is done, then kills its group
// and reaps it.
class Supervisor {
 public:
  Supervisor(const ProcessSpec& spec, ChildPipes& pipes, pid_t pid, ProcessResult& result, SigpipeSuppressed& sigpipe)
      : spec_(spec),
        child_(pid),
        input_(std::move(pipes.input.write_end), spec.input, sigpipe),
        output_(std::move(pipes.output.read_end), spec.stdout_limit, result.stdout_text, result.stdout_truncated),
        errors_(std::move(pipes.errors.read_end), spec.stderr_limit, result.stderr_text, result.stderr_truncated),
        result_(result) {}

  // Returns the child's wait status.
  int run(Clock::time_point start) {
    deadline_ = start + spec_.timeout;
    while (!finished()) {
      poll_once();
      if (phase_ != Phase::draining && phase_ != Phase::done && child_.exited()) on_child_exit();
      if (Clock::now() >= deadline_) on_deadline();
    }
    input_.close();
    const int status = child_.kill_group_and_reap();
    output_.close();
    errors_.close();
    return status;
  }

 private:
  // running: until the child exits or the timeout.
  // draining: the child exited; reading what is left, for at most exit_drain.
  // terminating: timed out, SIGTERM sent; waiting at most kill_grace.
  enum class Phase { running, draining, terminating, done };

  bool finished() const noexcept {
    return phase_ == Phase::done || (phase_ == Phase::draining && !output_.fd().is_open() && !errors_.fd().is_open());
  }

  void poll_once() {
    std::array<pollfd, 4> fds{};
    std::size_t count = 0;
    auto watch = [&](const FileDescriptor& fd, short events) {
      if (fd.is_open()) fds[count++] = pollfd{fd.get(), events, 0};
      return fd.is_open() ? static_cast<int>(count - 1) : -1;
    };
    const int in = phase_ == Phase::running ? watch(input_.fd(), POLLOUT) : -1;
    const int out = watch(output_.fd(), POLLIN);
    const int err = watch(errors_.fd(), POLLIN);
    if (phase_ != Phase::draining) watch(child_.pidfd(), POLLIN);  // once exited, it stays readable

    int wait_ms = milliseconds_until(deadline_);
    if (!child_.pidfd().is_open()) wait_ms = std::min(wait_ms, 10);
    if (::poll(fds.data(), count, wait_ms) <= 0) return;  // timeout, EINTR: the caller checks the clock
    if (in >= 0 && fds[in].revents != 0) input_.write_some();
    if (out >= 0 && fds[out].revents != 0) output_.read_some();
    if (err >= 0 && fds[err].revents != 0) errors_.read_some();
  }

  void on_child_exit() {
    if (phase_ == Phase::terminating) {
      phase_ = Phase::done;
      return;
    }
    phase_ = Phase::draining;
    input_.close();
    deadline_ = Clock::now() + spec_.exit_drain;
  }

  void on_deadline() {
    if (phase_ != Phase::running) {
      phase_ = Phase::done;
      return;
    }
    result_.timed_out = true;
    input_.close();
    child_.signal_group(SIGTERM);
    phase_ = Phase::terminating;
    deadline_ = Clock::now() + spec_.kill_grace;
  }

  const ProcessSpec& spec_;
  ChildProcess child_;
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
  if (signal) {
    const char* name = sigabbrev_np(*signal);
    return name != nullptr ? fmt::format("killed by signal {} (SIG{})", *signal, name)
                           : fmt::format("killed by signal {}", *signal);
  }
  if (exit_code) return fmt::format("exit code {}", *exit_code);
  return "not run";
}

std::string ProcessResult::stderr_tail(std::size_t max_bytes) const {
  const std::string_view text = detail::trim(stderr_text);
  if (text.size() <= max_bytes) return std::string(text);
  std::string_view tail = text.substr(text.size() - std::min(max_bytes, text.size()));
  // Start at a character boundary: skip UTF-8 continuation bytes.
  while (!tail.empty() && (static_cast<unsigned char>(tail.front()) & 0xC0) == 0x80) tail.remove_prefix(1);
  return "..." + std::string(tail);
}

ProcessResult run_process(const ProcessSpec& spec) {
  if (spec.program.empty()) throw ProcessError("cannot run a program with an empty path");
  const auto start = Clock::now();
  SigpipeSuppressed sigpipe;
  ChildPipes pipes;
  const pid_t pid = spawn(spec, pipes);
  // The child's ends belong to the child now; holding them would keep its
  // stdout open forever and its stdin reader alive.
  pipes.input.read_end.close();
  pipes.output.write_end.close();
  pipes.errors.write_end.close();

  ProcessResult result;
  const int status = Supervisor(spec, pipes, pid, result, sigpipe).run(start);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.duration = std::chrono::duration_cast<Duration>(Clock::now() - start);
  return result;
}

}  // namespace hookbus
