#pragma once
// A persistent co-process: a program started once (a hook's `HOOK serve`)
// that answers one line on stdout for each line it reads on stdin. It moves
// lines; it does not parse them.
//
//   hookbus::CoProcess hook({.program = "/path/to/hook", .arguments = {"serve"},
//                            .on_stderr = [](std::string_view line) { log(line); }});
//   hookbus::CoProcessReply reply = hook.request(R"({"id": 1, ...})", std::chrono::seconds(5));
//   if (!reply.answered()) ... reply.status() ...   // and start a new CoProcess
//
// What it guarantees, whatever the program does:
//   - the program is started as run_process starts one (no shell, its own
//     process group under its own supervisor, a clean signal state, no
//     descriptor of ours but its stdio pipes; see process.hpp);
//   - request() writes the line and a '\n' (never blocking on a program that
//     does not read it, never raising SIGPIPE) and returns the next line the
//     program writes on stdout, without its '\n';
//   - stderr is read all the time, by an internal thread, and handed to
//     `on_stderr` line by line, so a chatty program never blocks on it;
//   - a request that times out or is cancelled (its stop token), an answer
//     line longer than `line_limit`, output nobody asked for (a second line,
//     or anything written between requests: the program is out of step), or
//     the program closing stdout: each ends the instance, and the whole
//     process tree is killed exactly as a timed-out run_process is (SIGTERM,
//     `kill_grace`, SIGKILL, everything reaped, setsid'd and double-forked
//     processes included). The reply says which; the caller starts a new
//     instance if it wants one;
//   - a program that exits or crashes ends the instance too; the reply to the
//     request that finds it so carries its exit code or signal;
//   - destruction shuts down: stdin is closed, the program gets `shutdown_grace`
//     to exit, then SIGTERM, then SIGKILL after `kill_grace`; everything it
//     started is killed and reaped, no zombie, no descriptor left, no SIGPIPE.
//
// Thread-safety: request() may be called from any number of threads; calls
// are served one at a time (an internal mutex; waiting callers are not
// necessarily served in arrival order). on_stderr is called on the internal
// thread, one line at a time; it must not call into this CoProcess, and an
// exception it throws is dropped.

#include <hookbus/process.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookbus {

struct CoProcessSpec {
  std::filesystem::path program{};       // executed as is: no shell, no PATH search
  std::vector<std::string> arguments{};  // argv[1..], e.g. {"serve"}
  // Set on top of the caller's environment, or, with inherit_environment = false, the whole of it.
  std::vector<std::pair<std::string, std::string>> extra_environment{};
  bool inherit_environment = true;
  std::filesystem::path working_directory{};  // empty: the caller's
  // The longest answer line accepted, without its '\n'; stderr lines longer than
  // this reach on_stderr in pieces of this size.
  std::size_t line_limit = default_output_limit;
  Duration shutdown_grace = std::chrono::milliseconds(200);  // after stdin is closed, before SIGTERM
  Duration kill_grace = std::chrono::milliseconds(200);      // after SIGTERM, before SIGKILL
  // How long the requesting thread keeps reading for the answer before it
  // sleeps in poll. A program that answers within it costs one process wake-up
  // per request instead of two (docs/performance.md); the thread waits for the
  // answer either way. Zero: sleep at once.
  std::chrono::microseconds answer_spin{50};
  // Each line the program writes to stderr, without its '\n'. Empty: stderr is read and dropped.
  std::function<void(std::string_view line)> on_stderr{};
};

struct CoProcessReply {
  enum class Outcome {
    answered,           // `line` is the answer
    timed_out,          // no answer in time: the instance was killed
    cancelled,          // the stop token: the instance was killed (unless the request was not yet sent)
    ended,              // the program exited, crashed or closed stdout (now, or before this request)
    line_too_long,      // the answer line exceeds line_limit: the instance was killed
    unexpected_output,  // output nobody asked for; `line` holds it (up to line_limit): killed
  };
  Outcome outcome = Outcome::ended;
  std::string line{};
  std::optional<int> exit_code{};  // once the program has ended: how
  std::optional<int> signal{};
  Duration duration{};           // from sending the request to the reply

  [[nodiscard]] bool answered() const noexcept { return outcome == Outcome::answered; }
  // "answered", "timed out after 200 ms (killed)", "ended: exit code 3",
  // "ended: killed by signal 11 (SIGSEGV)", "answer line longer than 1048576 bytes (killed)", ...
  [[nodiscard]] std::string status() const;
};

class CoProcess {
 public:
  // Starts the program. Throws ProcessError when it cannot be started.
  explicit CoProcess(CoProcessSpec spec);
  CoProcess(const CoProcess&) = delete;
  CoProcess& operator=(const CoProcess&) = delete;
  // Shuts the program down as described above.
  ~CoProcess();

  // Sends `line` (which must not contain '\n': ProcessError) and waits for the
  // answer line, at most `timeout`, or until `stop` is requested.
  CoProcessReply request(std::string_view line, Duration timeout, std::stop_token stop = {});

  // False once the instance has ended (every request then replies `ended`).
  // Notices a program that exited or closed its stdout between requests; true
  // while a request is in flight.
  [[nodiscard]] bool running();

  // Ends the instance now, as a request that times out does: the whole tree
  // gets SIGTERM, then SIGKILL after `kill_grace`, and is reaped. For an owner
  // that finds the program out of step (an answer it cannot match). Waits for
  // a request in flight.
  void kill();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace hookbus
