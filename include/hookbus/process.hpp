#pragma once
// Running one external program to completion: the process runner under
// external hooks, usable on its own.
//
//   hookbus::ProcessResult r = hookbus::run_process({
//       .program = "/path/to/hook", .arguments = {"run"},
//       .input = payload, .timeout = std::chrono::seconds(5)});
//   if (!r.succeeded()) ... r.status() ... r.stderr_text ...
//
// What it guarantees, whatever the program does:
//   - no shell: the program is executed directly with an argument vector;
//   - the program gets its own process group, a clean signal mask and default
//     signal dispositions, and no file descriptor of the caller but stdin,
//     stdout and stderr (which are pipes);
//   - stdin is written while stdout and stderr are read, so large payloads in
//     both directions never deadlock; a program that exits without reading its
//     input causes neither a SIGPIPE nor an error;
//   - output beyond the caps is read and dropped (the program never blocks on
//     a full pipe) and reported as truncated;
//   - on timeout or cancellation (`stop`), every process the program started
//     dies, including those that called setsid() or double-forked: SIGTERM to
//     the program's process group and to every process it left behind, then
//     SIGKILL to all of them after `kill_grace`, and all are reaped;
//   - once the program itself has exited, something it started that keeps
//     stdout or stderr open delays the return by at most `exit_drain`; then
//     every process it started is killed (as on timeout);
//   - a process the program started that holds none of its output (fully
//     detached: `nohup slow >/dev/null 2>&1 &`) may outlive a program that
//     exits, with any exit code (`detached_may_outlive`, the default), as
//     Claude Code hooks expect; it is then no longer ours (it is reparented to
//     the host's own reaper, usually init). Never when the program is killed
//     by a signal, times out or is cancelled;
//   - no zombie is left and no process of the run keeps a descriptor of ours;
//     the caller's signal dispositions and mask are unchanged afterwards.
// Thread-safe: any number of threads may run processes at once.
//
// How: each run has its own supervisor process between the caller and the
// program, a small static program embedded in the library and executed from
// a sealed memfd (one descriptor, kept open from the first run on). It is a
// child subreaper (PR_SET_CHILD_SUBREAPER), so whatever the program abandons
// is reparented to it rather than to init, and it kills and reaps every
// process it finds in /proc/PID/task/TID/children until none is left. The
// host itself is never made a subreaper and its signal dispositions are never
// touched. Cost: one more small exec per run, about 1 ms (docs/external-hooks.md).
// Requires Linux with /proc mounted and CONFIG_PROC_CHILDREN (every major
// distribution kernel); without them a run fails with a ProcessError that says so.
// This keeps careless programs from leaving processes behind; it is not a
// sandbox: a program that kills its supervisor (it runs as the same user) or
// asks another service to start something can escape (`supervision_lost`).
// One that stops its supervisor (SIGSTOP) cannot: once the run should end, a
// supervisor that has said nothing for 2 s and is stopped, the caller kills
// every process of the run itself (they are still the stopped supervisor's
// children, or are reparented to it), and the run's `supervision_lost` is set.

#include <hookbus/errors.hpp>  // ProcessError, which run_process throws
#include <hookbus/types.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace hookbus {

inline constexpr std::size_t default_output_limit = std::size_t{1} << 20;  // 1 MiB per stream

struct ProcessSpec {
  std::filesystem::path program{};          // executed as is: no shell, no PATH search
  std::vector<std::string> arguments{};     // argv[1..]; argv[0] is `program`
  // Set on top of the caller's environment (replacing variables of the same name),
  // or, with inherit_environment = false, the program's whole environment.
  std::vector<std::pair<std::string, std::string>> extra_environment{};
  bool inherit_environment = true;
  std::filesystem::path working_directory{};  // empty: the caller's
  std::string input{};                        // written to stdin, which is then closed
  Duration timeout = std::chrono::seconds(30);
  Duration kill_grace = std::chrono::milliseconds(200);  // after SIGTERM, before SIGKILL
  Duration exit_drain = std::chrono::milliseconds(100);  // after the program exits, for the pipes to reach EOF
  std::size_t stdout_limit = default_output_limit;
  std::size_t stderr_limit = default_output_limit;
  // A stop request from another thread cancels the run: the program and everything
  // it started are stopped as on timeout, and run_process returns with `cancelled`.
  // Requested before the start, nothing is started.
  std::stop_token stop{};
  // After a normal exit: false kills fully detached processes too (see above).
  bool detached_may_outlive = true;
};

struct ProcessResult {
  std::optional<int> exit_code{};  // set when the program exited
  std::optional<int> signal{};     // set when a signal ended it (also after a timeout)
  std::string stdout_text{};       // at most stdout_limit bytes
  std::string stderr_text{};       // at most stderr_limit bytes
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  bool timed_out = false;
  bool cancelled = false;        // stopped through ProcessSpec::stop
  // The supervisor was killed while the program ran (by the program itself, most
  // likely): the exit status is unknown and what the program started may survive.
  // Or it was stopped and the run was killed without it: nothing survives.
  bool supervision_lost = false;
  Duration duration{};           // from start to reaping
  std::size_t stdout_limit = default_output_limit;  // the run's ProcessSpec::stdout_limit, where stdout was cut

  // True when the program exited with code 0 in time, under its supervisor.
  [[nodiscard]] bool succeeded() const noexcept {
    return !timed_out && !cancelled && !supervision_lost && exit_code == 0;
  }
  // "exit code 1", "killed by signal 9 (SIGKILL)", "timed out (killed after 120 ms)",
  // "cancelled (killed after 40 ms)", "cancelled before it started".
  [[nodiscard]] std::string status() const;
  // The end of stderr, trimmed, at most about `max_bytes`, starting with "..." when cut,
  // in valid UTF-8 (ill-formed bytes replaced by U+FFFD): what an error message quotes.
  [[nodiscard]] std::string stderr_tail(std::size_t max_bytes = 500) const;
};

// Runs the program to completion as described at the top of this file.
// Throws ProcessError (errors.hpp) when it cannot be started; anything the
// program does once started (failing, crashing, hanging, flooding) is reported
// in the result.
ProcessResult run_process(const ProcessSpec& spec);

}  // namespace hookbus
