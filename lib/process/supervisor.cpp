// The library's side of the supervisor: the embedded program, executed from a
// sealed memfd, and the control socket it reports on.
#include "process/supervisor.hpp"

#include "process/supervisor_protocol.hpp"
#include "support/files.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>

extern char** environ;

// The supervisor program's bytes (generated supervisor_image.cpp).
extern "C" const unsigned char hookbus_supervisor_image_begin[];
extern "C" const unsigned char hookbus_supervisor_image_end[];

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U  // Linux 6.3: asks for an executable memfd where vm.memfd_noexec=1 would deny it
#endif

namespace hookbus::detail {
namespace {

namespace protocol = supervisor;

[[noreturn]] void cannot_start_supervisor(const Launch& launch, std::string_view why) {
  throw ProcessError("cannot run '" + launch.program.string() + "': cannot start hookbus's process supervisor: " +
                     std::string(why));
}

// The supervisor program in a sealed memfd, made on first use and kept open
// for the life of the process (one close-on-exec descriptor). Sealed, nobody
// can change it, not even through /proc/PID/fd. It is checked by inode before
// each use, in case the host closed every descriptor (daemonizing) and the
// number now means something else.
class SupervisorImage {
 public:
  int descriptor(const Launch& launch) {
    const std::lock_guard lock(mutex_);
    if (fd_ < 0 || !still_ours()) create(launch);
    return fd_;
  }

 private:
  bool still_ours() const noexcept {
    struct stat now {};
    return ::fstat(fd_, &now) == 0 && now.st_dev == identity_.st_dev && now.st_ino == identity_.st_ino;
  }

  void create(const Launch& launch) {
    constexpr unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
    int fd = ::memfd_create("hookbus-supervisor", flags | MFD_EXEC);
    if (fd < 0 && errno == EINVAL) fd = ::memfd_create("hookbus-supervisor", flags);  // a kernel before 6.3
    if (fd < 0) cannot_start_supervisor(launch, "memfd_create: " + error_text(errno));
    FileDescriptor image(fd);
    std::basic_string_view<unsigned char> bytes(hookbus_supervisor_image_begin,
                                                static_cast<std::size_t>(hookbus_supervisor_image_end -
                                                                         hookbus_supervisor_image_begin));
    while (!bytes.empty()) {
      const ssize_t n = ::write(image.get(), bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) cannot_start_supervisor(launch, "writing its image: " + error_text(errno));
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    if (::fcntl(image.get(), F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) != 0 ||
        ::fstat(image.get(), &identity_) != 0)
      cannot_start_supervisor(launch, "sealing its image: " + error_text(errno));
    // Kept open for good. The old number, if any, is no longer ours (still_ours failed): it is not closed.
    fd_ = above_fixed_descriptors(std::move(image)).release();
  }

  std::mutex mutex_;
  int fd_ = -1;
  struct stat identity_ {};
};

SupervisorImage& supervisor_image() {
  static SupervisorImage image;
  return image;
}

// The interpreter the program's '#!' line names, when it does not exist (exec
// fails with ENOENT for a missing interpreter as for a missing program).
std::optional<std::string> missing_interpreter(const Launch& launch) {
  const std::filesystem::path program = launch.program.is_relative() && !launch.working_directory.empty()
                                            ? launch.working_directory / launch.program
                                            : launch.program;
  const auto line = interpreter_line(program);
  if (!line || ::access(line->interpreter.c_str(), F_OK) == 0) return std::nullopt;
  return line->interpreter;
}

std::string spawn_failure(const Launch& launch, int error) {
  std::string where = "cannot run '" + launch.program.string() + "'";
  if (!launch.working_directory.empty()) where += " in '" + launch.working_directory.string() + "'";
  std::string hint;
  if (error == ENOEXEC) hint = " (not a binary and no '#!' line: start a script with one, e.g. '#!/bin/sh')";
  if (error == EACCES) hint = " (is it executable (chmod +x), and are its directories searchable?)";
  if (error == ENOENT) {
    if (const auto interpreter = missing_interpreter(launch))
      hint = " (its '#!' line names the interpreter '" + *interpreter + "', which does not exist)";
    else
      hint = " (does the program exist, and the working directory?)";
  }
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

  void move(int from, int to) { check_spawn_setup(posix_spawn_file_actions_adddup2(&actions_, from, to)); }

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

std::vector<char*> null_terminated(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

int wait_for(pid_t pid) noexcept {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// The parent and the state of process `pid` from /proc/PID/stat ("pid (comm) state ppid ...",
// comm may hold any character: read after the last ')').
struct ProcessStatus {
  char state = 0;
  pid_t parent = 0;
};

std::optional<ProcessStatus> process_status(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(file, line)) return std::nullopt;
  const std::size_t after_name = line.rfind(')');
  if (after_name == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(after_name + 1));
  ProcessStatus status;
  if (!(fields >> status.state >> status.parent)) return std::nullopt;
  return status;
}

// Stopped by a signal or a tracer: it cannot do anything until continued.
bool is_stopped(pid_t pid) noexcept try {
  const auto status = process_status(pid);
  return status && (status->state == 'T' || status->state == 't');
} catch (...) {  // out of memory: take it for stopped, the run is killed all the same
  return true;
}

std::vector<pid_t> children_of(pid_t parent) {
  std::ifstream file("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children");
  std::vector<pid_t> pids;
  for (pid_t pid = 0; file >> pid;) pids.push_back(pid);
  return pids;
}

// SIGKILL to every child of `parent` (whose children nobody else can reap)
// that is not yet a zombie; true when there was one. Through a pidfd: a child
// the parent reaped meanwhile may have left its pid to a stranger, so the
// process the pidfd holds is signalled only if it is still the parent's child.
// (Through syscall(): glibc 2.36's <sys/pidfd.h> declares its wrappers without C linkage.)
bool kill_living_children_of(pid_t parent) noexcept try {
  bool any = false;
  for (const pid_t child : children_of(parent)) {
    const FileDescriptor process(static_cast<int>(::syscall(SYS_pidfd_open, child, 0)));
    if (!process.is_open()) continue;  // gone
    const auto status = process_status(child);
    if (!status || status->parent != parent || status->state == 'Z' || status->state == 'X') continue;
    any = true;
    ::syscall(SYS_pidfd_send_signal, process.get(), SIGKILL, nullptr, 0);
  }
  return any;
} catch (...) {  // out of memory: stop here, the supervisor is killed all the same
  return false;
}

}  // namespace

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

SupervisedProgram::SupervisedProgram(const Launch& launch, StdioPipes& stdio) {
  std::vector<std::string> argv_strings{"hookbus-supervisor", launch.working_directory.string(),
                                        launch.program.string()};
  argv_strings.insert(argv_strings.end(), launch.arguments.begin(), launch.arguments.end());
  std::vector<std::string> env_strings = child_environment(launch.extra_environment, launch.inherit_environment);
  const std::vector<char*> argv = null_terminated(argv_strings);
  const std::vector<char*> envp = null_terminated(env_strings);

  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0)
    cannot_start_supervisor(launch, "socketpair: " + error_text(errno));
  control_ = above_fixed_descriptors(FileDescriptor(sockets[0]));
  FileDescriptor supervisor_end = above_fixed_descriptors(FileDescriptor(sockets[1]));

  SpawnFileActions actions;
  actions.move(stdio.input.read_end.get(), protocol::program_stdin);
  actions.move(stdio.output.write_end.get(), protocol::program_stdout);
  actions.move(stdio.errors.write_end.get(), protocol::program_stderr);
  actions.move(supervisor_end.get(), protocol::control);
  actions.move(supervisor_image().descriptor(launch), protocol::image);
  // Close-on-exec covers our own descriptors; this covers the host's, which
  // other libraries may have opened without O_CLOEXEC.
  check_spawn_setup(posix_spawn_file_actions_addclosefrom_np(actions.get(), protocol::image + 1));
  // Every signal blocked (it uses a signalfd), every disposition at its
  // default; it stays in the host's process group, so a terminal's signals
  // reach it, blocked, and do nothing.
  SpawnAttributes attributes;
  sigset_t all_signals;
  sigfillset(&all_signals);
  check_spawn_setup(posix_spawnattr_setflags(attributes.get(), POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
  check_spawn_setup(posix_spawnattr_setsigmask(attributes.get(), &all_signals));
  check_spawn_setup(posix_spawnattr_setsigdefault(attributes.get(), &all_signals));

  const std::string image_path = "/proc/self/fd/" + std::to_string(protocol::image);
  const int rc = posix_spawn(&supervisor_, image_path.c_str(), actions.get(), attributes.get(), argv.data(),
                             envp.data());
  if (rc != 0) {
    supervisor_ = -1;
    std::string why = error_text(rc);
    if (rc == ENOENT) why += " (is /proc mounted?)";
    if (rc == EACCES || rc == EPERM) why += " (executing a memfd is denied: vm.memfd_noexec=2, or a security policy)";
    cannot_start_supervisor(launch, why);
  }
  // Only the supervisor may hold its end: its exit must reach us as end of file.
  supervisor_end.close();
  stdio.close_program_ends();

  protocol::Message first{};
  ssize_t n = -1;
  if (answers_unless_stopped())
    while ((n = ::recv(control_.get(), &first, sizeof first, 0)) < 0 && errno == EINTR) {
    }
  if (n == sizeof first && first.kind == protocol::Kind::started) return;
  finish(Ending::kill);
  if (n != sizeof first) {
    if (lost_) return;  // killed, perhaps by the program it had just started
    cannot_start_supervisor(launch, "it exited at once");
  }
  if (first.kind == protocol::Kind::cannot_start_program) throw ProcessError(spawn_failure(launch, first.value));
  cannot_start_supervisor(launch, error_text(first.value) +
                                      " (it needs PR_SET_CHILD_SUBREAPER, a mounted /proc with "
                                      "/proc/PID/task/TID/children (CONFIG_PROC_CHILDREN) and signalfd)");
}

SupervisedProgram::~SupervisedProgram() { finish(Ending::kill); }

bool SupervisedProgram::receive_one() noexcept {
  protocol::Message message{};
  ssize_t n;
  do {
    n = ::recv(control_.get(), &message, sizeof message, MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN) return true;
  if (n != sizeof message) return false;
  if (message.kind == protocol::Kind::exited) wait_status_ = message.value;
  if (message.kind == protocol::Kind::all_exited) everything_exited_ = true;
  return true;
}

void SupervisedProgram::read_reports() noexcept {
  if (finished_) return;
  if (!receive_one()) {
    // Gone before we asked it to finish: killed. Reap it; nothing is left to command.
    lost_ = true;
    control_.close();
    wait_for(std::exchange(supervisor_, -1));
    finished_ = true;
  }
}

void SupervisedProgram::terminate() noexcept {
  const protocol::Message message{protocol::Kind::terminate, 0};
  if (!finished_) ::send(control_.get(), &message, sizeof message, MSG_NOSIGNAL);
}

void SupervisedProgram::finish(Ending ending) noexcept {
  if (finished_ || supervisor_ < 0) return;
  const protocol::Message message{ending == Ending::release ? protocol::Kind::release : protocol::Kind::kill, 0};
  ::send(control_.get(), &message, sizeof message, MSG_NOSIGNAL);
  if (!exits_unless_stopped()) kill_run_past_the_supervisor();
  control_.close();
  const int status = wait_for(std::exchange(supervisor_, -1));
  lost_ = lost_ || WIFSIGNALED(status);
  finished_ = true;
}

bool SupervisedProgram::answers_before(Clock::time_point deadline) const noexcept {
  for (;;) {
    pollfd reports{control_.get(), POLLIN, 0};
    const int ready = ::poll(&reports, 1, milliseconds_until(deadline));
    if (ready > 0) return true;
    if (ready == 0 && Clock::now() >= deadline) return false;
  }
}

bool SupervisedProgram::answers_unless_stopped() const noexcept {
  while (!answers_before(Clock::now() + supervisor_answer_limit))
    if (is_stopped(supervisor_)) return false;
  return true;
}

bool SupervisedProgram::exits_unless_stopped() noexcept {
  while (answers_unless_stopped())
    if (!receive_one()) return true;  // end of file: it has exited
  return false;
}

void SupervisedProgram::kill_run_past_the_supervisor() noexcept {
  lost_ = true;
  // Its children cannot be reaped by anyone else while it lives, and every
  // process of the run whose parent dies is reparented to it, stopped or not:
  // killing its living children round after round reaches the whole run.
  const auto deadline = Clock::now() + supervisor_answer_limit;
  while (kill_living_children_of(supervisor_) && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // Nothing of the run is left to stop it again: resumed, it reaps the dead
  // (it has been told to finish) and exits; if it does not, it is killed, and
  // the dead are reaped by the engine's own reaper.
  ::kill(supervisor_, SIGCONT);
  if (!exits_unless_stopped()) ::kill(supervisor_, SIGKILL);
}

template <class Condition>
void SupervisedProgram::read_reports_until(Clock::time_point deadline, Condition condition) noexcept {
  while (!finished_ && !condition() && answers_before(deadline)) read_reports();
}

bool SupervisedProgram::wait_for_exit(Clock::time_point deadline) noexcept {
  read_reports_until(deadline, [this] { return wait_status_.has_value(); });
  return wait_status_.has_value();
}

void SupervisedProgram::terminate_then_kill(Duration grace) noexcept {
  terminate();
  read_reports_until(Clock::now() + grace, [this] { return everything_exited_; });
  finish(Ending::kill);
}

std::string signal_description(int signal) {
  const char* name = sigabbrev_np(signal);
  return name != nullptr ? fmt::format("killed by signal {} (SIG{})", signal, name)
                         : fmt::format("killed by signal {}", signal);
}

}  // namespace hookbus::detail
