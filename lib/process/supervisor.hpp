#pragma once
// The library's side of the per-run supervisor (supervisor_main.cpp): starts
// it, and through it the program; learns when the program exits; tells it how
// the run ends. Used by run_process and CoProcess.

#include "process/pipes.hpp"

#include <hookbus/errors.hpp>
#include <hookbus/types.hpp>

#include <sys/types.h>
#include <sys/wait.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hookbus::detail {

// Which program to start, how: the fields ProcessSpec and CoProcessSpec share.
struct Launch {
  const std::filesystem::path& program;
  const std::vector<std::string>& arguments;
  const std::vector<std::pair<std::string, std::string>>& extra_environment;
  bool inherit_environment;
  const std::filesystem::path& working_directory;
};

// The caller's environment (unless not inherited) with the extra variables
// set. Read at spawn time, so like getenv it races with a setenv in another
// thread. Throws ProcessError for a name that is empty or holds '='.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& extra,
                                           bool inherit);

// "killed by signal 9 (SIGKILL)"
std::string signal_description(int signal);

// A wait status as an exit code or a signal.
inline void record_wait_status(int status, std::optional<int>& exit_code, std::optional<int>& signal) {
  if (WIFEXITED(status)) exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) signal = WTERMSIG(status);
}

enum class Ending {
  kill,     // every process of the run is killed and reaped
  release,  // the program exited and its output is closed: what still runs is detached and stays
};

// How long the supervisor may be stopped (SIGSTOP: a program runs as our user
// and can stop it) while the library waits for it to report the program's
// start or to finish the run: then the library kills the run itself
// (kill_run_past_the_supervisor). One that is merely slow (a loaded machine)
// is waited for.
inline constexpr Duration supervisor_answer_limit = std::chrono::seconds(2);

class SupervisedProgram {
 public:
  // Starts the supervisor with the program's ends of `stdio` (closed here
  // afterwards), and through it the program. Throws ProcessError naming the
  // program when either cannot be started. A supervisor killed before it
  // could report is lost(), not an error: the program may have started.
  SupervisedProgram(const Launch& launch, StdioPipes& stdio);
  SupervisedProgram(const SupervisedProgram&) = delete;
  SupervisedProgram& operator=(const SupervisedProgram&) = delete;
  // Unless finished: kills everything and reaps the supervisor.
  ~SupervisedProgram();

  // Readable when the supervisor has something to report, or is gone: then call read_reports().
  [[nodiscard]] const FileDescriptor& reports() const noexcept { return control_; }
  void read_reports() noexcept;

  // The program's wait status, once it has exited and been reaped.
  [[nodiscard]] const std::optional<int>& wait_status() const noexcept { return wait_status_; }
  // After terminate(): every process of the run has exited.
  [[nodiscard]] bool everything_exited() const noexcept { return everything_exited_; }
  // The supervisor went away before the run was finished: someone killed it
  // (the program can: it runs as the same user); what the program started
  // may then have escaped, and its exit status is unknown. Or it stopped
  // answering (stopped) and the library killed the run without it.
  [[nodiscard]] bool lost() const noexcept { return lost_; }

  // SIGTERM to the program's process group while it runs, and to every process
  // it abandons (now, or later while it terminates); everything_exited() once all are gone.
  void terminate() noexcept;
  // Ends the run: blocks until the supervisor has done it and exited, and reaps
  // it; a supervisor stopped that long (supervisor_answer_limit), the library
  // kills the run itself (then lost()).
  void finish(Ending ending) noexcept;
  // Blocks until the program has exited (true) or `deadline` (false).
  bool wait_for_exit(Clock::time_point deadline) noexcept;
  // terminate(), at most `grace` for every process of the run to exit, then finish(kill).
  void terminate_then_kill(Duration grace) noexcept;
  [[nodiscard]] bool finished() const noexcept { return finished_; }

 private:
  // One report, if one is waiting; false at end of file (or on an error, which means the same).
  bool receive_one() noexcept;
  // Whether the supervisor has a report (or its end of file) before `deadline`.
  [[nodiscard]] bool answers_before(Clock::time_point deadline) const noexcept;
  // Waits until the supervisor has a report (true), or until it has been
  // silent for supervisor_answer_limit and is stopped (false).
  [[nodiscard]] bool answers_unless_stopped() const noexcept;
  // Reads reports until the supervisor exits (true), or as above (false).
  bool exits_unless_stopped() noexcept;
  // For a supervisor that does not finish: SIGKILL, from here, to every
  // process of the run, then the supervisor is resumed to reap them, or killed.
  void kill_run_past_the_supervisor() noexcept;
  // Reads reports until `condition` holds, the run is finished, or `deadline`.
  template <class Condition>
  void read_reports_until(Clock::time_point deadline, Condition condition) noexcept;

  pid_t supervisor_ = -1;
  FileDescriptor control_;
  std::optional<int> wait_status_;
  bool everything_exited_ = false;
  bool lost_ = false;
  bool finished_ = false;
};

}  // namespace hookbus::detail
