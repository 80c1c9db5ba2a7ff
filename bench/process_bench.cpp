// The process runner's cost per run (real time, since the work happens in
// other processes): run_process, which goes through a supervisor process,
// against the same program started directly with posix_spawn (stdio pipes,
// read to end of file, waitpid: the runner's path before the supervisor).
// Also a request's round trip through a CoProcess (a program that stays up),
// and the cost of fork() in a host holding N MiB, the alternative way to get
// a supervisor that the library rejected: it grows with the host's memory.
// Two-part names ("spawn/..."): tools/bench-report leaves them to
// docs/external-hooks.md, which quotes them.

#include "common.hpp"

#include <hookbus/co_process.hpp>
#include <hookbus/process.hpp>

#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace {

// The program started the plain way: stdout and stderr to one pipe, read to
// end of file, then reaped.
void run_directly(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) throw std::runtime_error("posix_spawn: " + std::string(std::strerror(rc)));
  std::array<char, 4096> buffer;
  while (::read(fds[0], buffer.data(), buffer.size()) > 0) {
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

void direct(benchmark::State& state, const std::vector<std::string>& command) {
  for (auto _ : state) run_directly(command);
}

void supervised(benchmark::State& state, const std::vector<std::string>& command) {
  const hookbus::ProcessSpec spec{.program = command.front(),
                                  .arguments = std::vector<std::string>(command.begin() + 1, command.end())};
  for (auto _ : state) {
    const hookbus::ProcessResult result = hookbus::run_process(spec);
    if (!result.succeeded()) state.SkipWithError(result.status().c_str());
  }
}

// One request line and its answer through a CoProcess that stays up: the
// per-event cost a persistent hook pays instead of a start.
void co_process_round_trip(benchmark::State& state, const std::vector<std::string>& command) {
  hookbus::CoProcess server({.program = command.front(),
                             .arguments = std::vector<std::string>(command.begin() + 1, command.end())});
  const std::string request = R"({"id": 1, "event": "tool_call", "payload": {"tool_name": "bash"}})";
  // The first answer waits for the program to start (tens of ms for python): not a round trip.
  if (!server.request(request, std::chrono::seconds(10)).answered()) return state.SkipWithError("no first answer");
  for (auto _ : state) {
    const hookbus::CoProcessReply reply = server.request(request, std::chrono::seconds(10));
    if (!reply.answered()) return state.SkipWithError(reply.status().c_str());
  }
}

// fork() + _exit + waitpid in a host holding `state.range(0)` MiB of touched,
// private memory in small pages (a heap, not one huge page).
void fork_of_host(benchmark::State& state) {
  const std::size_t bytes = static_cast<std::size_t>(state.range(0)) << 20;
  void* memory = bytes == 0 ? nullptr
                            : ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return state.SkipWithError("mmap");
  if (memory != nullptr) {
    ::madvise(memory, bytes, MADV_NOHUGEPAGE);
    std::memset(memory, 1, bytes);
  }
  for (auto _ : state) {
    const pid_t pid = _Fork();
    if (pid == 0) _exit(0);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  if (memory != nullptr) ::munmap(memory, bytes);
}

const std::vector<std::string> kTrue{"/bin/true"};
const std::vector<std::string> kShell{"/bin/sh", "-c", ":"};
const std::vector<std::string> kShellEcho{"/bin/sh", "-c", "while IFS= read -r line; do printf '%s\\n' \"$line\"; done"};
const std::vector<std::string> kPythonEcho{
    "/usr/bin/python3", "-c", "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"};

}  // namespace

namespace bench {

void register_process_benchmarks() {
  benchmark::RegisterBenchmark("spawn/direct_true", direct, kTrue)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("spawn/supervised_true", supervised, kTrue)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("spawn/direct_sh", direct, kShell)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("spawn/supervised_sh", supervised, kShell)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("spawn/co_process_round_trip_sh", co_process_round_trip, kShellEcho)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("spawn/co_process_round_trip_python", co_process_round_trip, kPythonEcho)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("spawn/fork_of_host_MiB", fork_of_host)
      ->Arg(0)
      ->Arg(64)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace bench
