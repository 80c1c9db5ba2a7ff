#pragma once
// Running one external program to completion: the process runner under
// external hooks, usable on its own.
//
//   hookbus::ProcessResult r = hookbus::run_process({
//       .program = "/path/to/hook", .arguments = {"run"},
//       .input = payload, .timeout = std::chrono::seconds(5)});
//   if (r.timed_out || r.exit_code != 0) ... r.status() ... r.stderr_text ...
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
//   - on timeout the whole process group gets SIGTERM, then SIGKILL after a
//     short grace; once the program itself has exited, a grandchild that keeps
//     stdout open delays the return by at most `exit_drain`, then its group is
//     killed too;
//   - the program is always reaped (no zombie), and the caller's signal
//     dispositions and mask are unchanged afterwards.
// Thread-safe: any number of threads may run processes at once.

#include <hookbus/errors.hpp>
#include <hookbus/types.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hookbus {

inline constexpr std::size_t default_output_limit = std::size_t{1} << 20;  // 1 MiB per stream

struct ProcessSpec {
  std::filesystem::path program;            // executed as is: no shell, no PATH search
  std::vector<std::string> arguments;       // argv[1..]; argv[0] is `program`
  // Set on top of the caller's environment (replacing variables of the same name),
  // or, with inherit_environment = false, the program's whole environment.
  std::vector<std::pair<std::string, std::string>> extra_environment;
  bool inherit_environment = true;
  std::filesystem::path working_directory;  // empty: the caller's
  std::string input;                        // written to stdin, which is then closed
  Duration timeout = std::chrono::seconds(30);
  Duration kill_grace = std::chrono::milliseconds(200);  // after SIGTERM, before SIGKILL
  Duration exit_drain = std::chrono::milliseconds(100);  // after the program exits, for the pipes to reach EOF
  std::size_t stdout_limit = default_output_limit;
  std::size_t stderr_limit = default_output_limit;
};

struct ProcessResult {
  std::optional<int> exit_code;  // set when the program exited
  std::optional<int> signal;     // set when a signal ended it (also after a timeout)
  std::string stdout_text;       // at most stdout_limit bytes
  std::string stderr_text;       // at most stderr_limit bytes
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  bool timed_out = false;
  Duration duration{};           // from start to reaping

  // True when the program exited with code 0 in time.
  [[nodiscard]] bool succeeded() const noexcept { return !timed_out && exit_code == 0; }
  // "exit code 1", "killed by signal 9 (SIGKILL)", "timed out (killed after 120 ms)".
  [[nodiscard]] std::string status() const;
  // The end of stderr, trimmed, at most about `max_bytes`, starting with "..." when cut:
  // what an error message quotes.
  [[nodiscard]] std::string stderr_tail(std::size_t max_bytes = 500) const;
};

// The program could not be started (not found, not executable, no such
// working directory, out of resources). The message names the program.
class ProcessError : public Error {
 public:
  using Error::Error;
};

// Runs the program to completion as described at the top of this file.
// Throws ProcessError when it cannot be started; anything the program does
// once started (failing, crashing, hanging, flooding) is reported in the result.
ProcessResult run_process(const ProcessSpec& spec);

}  // namespace hookbus
