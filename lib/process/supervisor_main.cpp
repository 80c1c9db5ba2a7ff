// hookbus-supervisor: one per run of an external program, between the library
// and the program. It is a child subreaper (PR_SET_CHILD_SUBREAPER): whatever
// the program starts and abandons (a double fork, a setsid'd daemon) is
// reparented to it instead of to init, so it can always find every process
// of the run (its children, read from /proc) and kill and reap them all.
//
// Why a program of its own, and not a fork of the host? fork() copies the
// host's page tables and leaves its memory copy-on-write for as long as the
// run lasts: 17-19 ms with 64 MiB of host memory on the CI machine (bench:
// spawn/fork_of_host_MiB), against a constant ~1 ms for executing this small
// static program whatever the host's size (docs/external-hooks.md). It is
// built as a static executable and embedded in the library, which executes it
// from a sealed memfd (supervisor.cpp): nothing to install, nothing to find,
// nothing anyone can swap.
//
// It never writes to stdout or stderr (they are the program's); it talks to
// the library only through the control socket (supervisor_protocol.hpp). It
// blocks every signal, so a terminal's SIGINT or SIGTSTP meant for the host
// cannot kill or stop it; if the host dies, the control socket reaches end of
// file and it kills the run.
#include "process/supervisor_protocol.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace hookbus::detail::supervisor;

void report(Kind kind, int value) noexcept {
  const Message message{kind, value};
  while (::send(control, &message, sizeof message, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

bool is_control_socket(int fd) noexcept {
  int type = 0;
  socklen_t size = sizeof type;
  return ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) == 0 && type == SOCK_SEQPACKET;
}

class Supervisor {
 public:
  // Becomes a subreaper and prepares to watch its children; false (after
  // reporting why) when the kernel does not let it.
  bool prepare() {
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return cannot_supervise();
    const std::string children_path = "/proc/self/task/" + std::to_string(::getpid()) + "/children";
    children_file_ = ::open(children_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (children_file_ < 0) return cannot_supervise();  // no /proc, or a kernel without CONFIG_PROC_CHILDREN
    sigset_t sigchld;
    sigemptyset(&sigchld);
    sigaddset(&sigchld, SIGCHLD);
    sigchld_ = ::signalfd(-1, &sigchld, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sigchld_ < 0) return cannot_supervise();
    return true;
  }

  // Starts the program in its own process group, with an empty signal mask,
  // default dispositions and no descriptor but stdio. False (after reporting
  // why) when it cannot be started.
  bool start(const char* working_directory, char** argv) noexcept {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    if (posix_spawn_file_actions_init(&actions) != 0 || posix_spawnattr_init(&attributes) != 0)
      return cannot_supervise();
    sigset_t no_signals;
    sigset_t all_signals;
    sigemptyset(&no_signals);
    sigfillset(&all_signals);
    int rc = posix_spawn_file_actions_addclosefrom_np(&actions, control);
    if (rc == 0 && *working_directory != '\0') rc = posix_spawn_file_actions_addchdir_np(&actions, working_directory);
    if (rc == 0)
      rc = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (rc == 0) rc = posix_spawnattr_setpgroup(&attributes, 0);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attributes, &no_signals);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &all_signals);
    if (rc != 0) {
      report(Kind::cannot_supervise, rc);
      return false;
    }
    rc = posix_spawn(&program_, argv[0], &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (rc != 0) {
      report(Kind::cannot_start_program, rc);
      return false;
    }
    report(Kind::started, program_);
    // The program's stdio is its own now: holding it would keep its pipes open.
    for (int fd : {program_stdin, program_stdout, program_stderr}) ::close(fd);
    return true;
  }

  // Serves the library's commands until told to finish or it goes away.
  void serve() {
    for (;;) {
      std::array<pollfd, 2> fds{pollfd{control, POLLIN, 0}, pollfd{sigchld_, POLLIN, 0}};
      // While terminating, a short tick also catches processes reparented to
      // us without a SIGCHLD (their parent was not our child).
      if (::poll(fds.data(), fds.size(), terminating_ ? 10 : -1) < 0) {
        if (errno == EINTR) continue;
        return kill_everything();
      }
      if (fds[1].revents != 0) drain_sigchld();
      const bool children_left = reap_what_exited();
      if (terminating_) warn_the_abandoned(children_left);
      if (fds[0].revents == 0) continue;
      Message message{};
      const ssize_t n = ::recv(control, &message, sizeof message, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n != sizeof message) return kill_everything();  // end of file: the library is gone
      switch (message.kind) {
        case Kind::terminate:
          terminating_ = true;
          if (!program_reaped_) ::kill(-program_, SIGTERM);
          warn_the_abandoned(reap_what_exited());
          break;
        case Kind::release:
          if (program_reaped_) {
            reap_what_exited();
            return;  // what is still running has detached: it is reparented to our own reaper
          }
          return kill_everything();
        default:
          return kill_everything();
      }
    }
  }

 private:
  bool cannot_supervise() noexcept {
    report(Kind::cannot_supervise, errno);
    return false;
  }

  // Our children, direct ones and orphans reparented to us. Their pids cannot
  // be reused until we reap them, so signalling them by pid is safe.
  std::vector<pid_t> children() {
    std::string text;
    std::array<char, 4096> buffer;
    ::lseek(children_file_, 0, SEEK_SET);
    for (ssize_t n; (n = ::read(children_file_, buffer.data(), buffer.size())) != 0;) {
      if (n < 0) {
        if (errno == EINTR) continue;
        break;
      }
      text.append(buffer.data(), static_cast<std::size_t>(n));
    }
    std::vector<pid_t> pids;
    const char* at = text.data();
    const char* end = text.data() + text.size();
    while (at < end) {
      pid_t pid = 0;
      const auto [next, error] = std::from_chars(at, end, pid);
      if (error == std::errc{} && pid > 0) pids.push_back(pid);
      at = next + 1;  // past the separating space (or the character that did not parse)
    }
    return pids;
  }

  // While terminating: SIGTERM, once, to each child not yet warned (the
  // program, and what it abandoned, now or since); all_exited once none is left.
  void warn_the_abandoned(bool children_left) {
    if (!children_left) {
      if (!all_exited_reported_) report(Kind::all_exited, 0);
      all_exited_reported_ = true;
      return;
    }
    for (const pid_t child : children()) {
      if (std::find(warned_.begin(), warned_.end(), child) != warned_.end()) continue;
      ::kill(child, SIGTERM);
      warned_.push_back(child);
    }
  }

  void signal_everyone(int signal) {
    // The program's group while the program is unreaped: its pid, and so its
    // group id, cannot have been reused.
    if (!program_reaped_) ::kill(-program_, signal);
    for (const pid_t child : children())
      if (child != program_) ::kill(child, signal);
  }

  // Kills every process of the run and reaps it. A killed process's own
  // children are reparented to us as it dies, so this repeats until we have
  // no child left at all; the short poll covers a child whose death raised no
  // SIGCHLD and a children list read while it changed.
  void kill_everything() {
    for (;;) {
      signal_everyone(SIGKILL);
      if (!reap_what_exited()) return;
      pollfd sigchld{sigchld_, POLLIN, 0};
      ::poll(&sigchld, 1, 10);
      drain_sigchld();
    }
  }

  // Reaps every child that has exited; reports the program's wait status.
  // False once no child is left, running or not.
  bool reap_what_exited() noexcept {
    for (;;) {
      int status = 0;
      const pid_t pid = ::waitpid(-1, &status, WNOHANG | __WALL);
      if (pid > 0) {
        std::erase(warned_, pid);  // its pid may come back as another process
        if (pid == program_ && !program_reaped_) {
          program_reaped_ = true;
          report(Kind::exited, status);
        }
        continue;
      }
      if (pid == 0) return true;
      if (errno != EINTR) return false;  // ECHILD
    }
  }

  void drain_sigchld() noexcept {
    signalfd_siginfo info;
    while (::read(sigchld_, &info, sizeof info) > 0) {
    }
  }

  int children_file_ = -1;
  int sigchld_ = -1;
  pid_t program_ = -1;
  bool program_reaped_ = false;
  bool terminating_ = false;
  bool all_exited_reported_ = false;
  std::vector<pid_t> warned_;  // children that got their SIGTERM
};

}  // namespace

int main(int argc, char** argv) {
  ::closefrom(image);
  if (argc < 3 || !is_control_socket(control)) {
    static constexpr std::string_view usage =
        "hookbus-supervisor is started by the hookbus library for each external program it runs; "
        "it is not meant to be run by hand.\n";
    [[maybe_unused]] const ssize_t ignored = ::write(program_stderr, usage.data(), usage.size());
    return 2;
  }
  sigset_t all_signals;
  sigfillset(&all_signals);
  ::sigprocmask(SIG_SETMASK, &all_signals, nullptr);

  Supervisor supervisor;
  if (!supervisor.prepare() || !supervisor.start(argv[1], argv + 2)) return 1;
  supervisor.serve();
  return 0;
}
