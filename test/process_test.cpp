// The process runner (include/hookbus/process.hpp), with real programs
// written into temporary directories.
#include "script_fixture.hpp"

#include <hookbus/process.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

namespace hookbus {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

// Hang detection only: far above what any of these takes, far below the 30 s default.
constexpr auto kHangBound = 10s;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

// --------------------------------------------------------------- basics

TEST(Process, ReportsStdoutStderrAndExitCode) {
  TempDir dir;
  auto program = write_script(dir / "p", "echo out; echo err >&2; exit 3\n");
  const ProcessResult r = run_process({.program = program});
  EXPECT_EQ(r.stdout_text, "out\n");
  EXPECT_EQ(r.stderr_text, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.signal);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.succeeded());
  EXPECT_EQ(r.status(), "exit code 3");
}

TEST(Process, ArgumentsArePassedAsAVectorNeverThroughAShell) {
  TempDir dir;
  auto program = write_script(dir / "p", "for a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
  const ProcessResult r = run_process({.program = program, .arguments = {"two words", "; echo injected", "$HOME"}});
  EXPECT_THAT(lines(r.stdout_text), ElementsAre("two words", "; echo injected", "$HOME"));
}

TEST(Process, WritesTheInputToStdin) {
  TempDir dir;
  auto program = write_script(dir / "p", "cat\n");
  const ProcessResult r = run_process({.program = program, .input = "{\"a\": 1}"});
  EXPECT_EQ(r.stdout_text, "{\"a\": 1}");
  EXPECT_TRUE(r.succeeded());
}

TEST(Process, RunsInTheWorkingDirectory) {
  TempDir dir;
  auto program = write_script(dir / "p", "pwd -P\n");
  const ProcessResult r = run_process({.program = program, .working_directory = dir.path()});
  EXPECT_EQ(r.stdout_text, std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST(Process, PassesTheCallersEnvironmentPlusExtraVariables) {
  TempDir dir;
  ::setenv("HOOKBUS_TEST_INHERITED", "from parent", 1);
  ::setenv("HOOKBUS_TEST_REPLACED", "old", 1);
  auto program = write_script(dir / "p", "echo \"$HOOKBUS_TEST_INHERITED|$HOOKBUS_TEST_REPLACED|$HOOKBUS_TEST_EXTRA\"\n"
                                         "env | grep -c '^HOOKBUS_TEST_REPLACED='\n");
  const ProcessResult r = run_process(
      {.program = program, .extra_environment = {{"HOOKBUS_TEST_REPLACED", "new"}, {"HOOKBUS_TEST_EXTRA", "a b"}}});
  EXPECT_THAT(lines(r.stdout_text), ElementsAre("from parent|new|a b", "1"));
  ::unsetenv("HOOKBUS_TEST_INHERITED");
  ::unsetenv("HOOKBUS_TEST_REPLACED");
}

TEST(Process, WithoutInheritanceTheEnvironmentIsExactlyTheExtraVariables) {
  ::setenv("HOOKBUS_TEST_INHERITED", "from parent", 1);
  // env itself, not a shell script: a shell adds PWD to what it exports.
  const ProcessResult r =
      run_process({.program = "/usr/bin/env", .extra_environment = {{"ONLY", "this"}}, .inherit_environment = false});
  EXPECT_THAT(lines(r.stdout_text), ElementsAre("ONLY=this"));
  ::unsetenv("HOOKBUS_TEST_INHERITED");
}

TEST(Process, AnInvalidEnvironmentVariableNameIsAnError) {
  TempDir dir;
  auto program = write_script(dir / "p", "true\n");
  EXPECT_THROW(run_process({.program = program, .extra_environment = {{"A=B", "x"}}}), ProcessError);
}

TEST(Process, ExitBySignalIsReported) {
  TempDir dir;
  auto program = write_script(dir / "p", "kill -TERM $$\n");
  const ProcessResult r = run_process({.program = program});
  EXPECT_FALSE(r.exit_code);
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_EQ(r.status(), "killed by signal 15 (SIGTERM)");
}

// ------------------------------------------------------ cannot be started

TEST(Process, AMissingProgramThrowsNamingIt) {
  TempDir dir;
  try {
    run_process({.program = dir / "missing"});
    FAIL() << "expected ProcessError";
  } catch (const ProcessError& e) {
    EXPECT_THAT(e.what(), HasSubstr((dir / "missing").string()));
    EXPECT_THAT(e.what(), HasSubstr("No such file"));
  }
}

TEST(Process, AFileWithoutTheExecuteBitThrowsWithAHint) {
  TempDir dir;
  auto program = write_script(dir / "p", "true\n", 0644);
  EXPECT_THAT([&] { run_process({.program = program}); },
              ::testing::ThrowsMessage<ProcessError>(HasSubstr("chmod +x")));
}

TEST(Process, AScriptWithoutAShebangLineThrowsWithAHint) {
  TempDir dir;
  auto program = write_file(dir / "p", "echo hi\n", 0755);
  EXPECT_THAT([&] { run_process({.program = program}); },
              ::testing::ThrowsMessage<ProcessError>(HasSubstr("'#!' line")));
}

TEST(Process, AMissingWorkingDirectoryThrowsNamingIt) {
  TempDir dir;
  auto program = write_script(dir / "p", "true\n");
  EXPECT_THAT([&] { run_process({.program = program, .working_directory = dir / "nowhere"}); },
              ::testing::ThrowsMessage<ProcessError>(HasSubstr((dir / "nowhere").string())));
}

// ---------------------------------------------------------- large payloads

TEST(Process, LargePayloadsInBothDirectionsDoNotDeadlock) {
  TempDir dir;
  auto program = write_script(dir / "p", "cat; cat /dev/null >&2\n");
  std::string payload(8 << 20, 'x');
  for (std::size_t i = 0; i < payload.size(); i += 4096) payload[i] = static_cast<char>('a' + (i / 4096) % 26);
  const ProcessResult r = run_process({.program = program, .input = payload, .stdout_limit = 16 << 20});
  EXPECT_TRUE(r.succeeded()) << r.status();
  EXPECT_FALSE(r.stdout_truncated);
  EXPECT_EQ(r.stdout_text, payload);
}

TEST(Process, AProgramThatNeverReadsStdinGetsALargePayloadWithoutHarm) {
  TempDir dir;
  auto program = write_script(dir / "p", "echo done\n");
  const ProcessResult r = run_process({.program = program, .input = std::string(8 << 20, 'x')});
  EXPECT_TRUE(r.succeeded()) << r.status();
  EXPECT_EQ(r.stdout_text, "done\n");
}

TEST(Process, OutputOverTheCapIsCutAndTheProgramIsNeverBlocked) {
  TempDir dir;
  // 3 MiB on each stream, far more than a pipe holds: it would block if we stopped reading.
  auto program = write_script(dir / "p", "head -c 3145728 /dev/zero; head -c 3145728 /dev/zero >&2; echo finished >&2\n");
  const ProcessResult r = run_process({.program = program, .stderr_limit = 1000});
  EXPECT_TRUE(r.succeeded()) << r.status();
  EXPECT_EQ(r.stdout_text.size(), default_output_limit);
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_EQ(r.stderr_text.size(), 1000u);
  EXPECT_TRUE(r.stderr_truncated);
}

TEST(Process, OutputWithinTheCapIsNotMarkedTruncated) {
  TempDir dir;
  auto program = write_script(dir / "p", "printf 12345\n");
  const ProcessResult r = run_process({.program = program, .stdout_limit = 5});
  EXPECT_EQ(r.stdout_text, "12345");
  EXPECT_FALSE(r.stdout_truncated);
}

// ---------------------------------------------------------------- timeouts

TEST(Process, TimeoutKillsAProgramThatIgnoresSigterm) {
  TempDir dir;
  auto program = write_script(dir / "p", "trap '' TERM\necho started\nwhile :; do sleep 1; done\n");
  const auto started = std::chrono::steady_clock::now();
  const ProcessResult r = run_process({.program = program, .timeout = 300ms, .kill_grace = 100ms});
  EXPECT_LT(std::chrono::steady_clock::now() - started, kHangBound);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_EQ(r.stdout_text, "started\n");
  EXPECT_THAT(r.status(), HasSubstr("timed out"));
}

TEST(Process, TimeoutKillsTheWholeGroupIncludingAGrandchildHoldingStdoutOpen) {
  TempDir dir;
  auto pid_file = dir / "grandchild.pid";
  auto program = write_script(dir / "p", "trap '' TERM\n"
                                         "sleep 60 &\n"
                                         "echo $! > '" + pid_file.string() + "'\n"
                                         "while :; do sleep 1; done\n");
  const auto started = std::chrono::steady_clock::now();
  const ProcessResult r = run_process({.program = program, .timeout = 300ms, .kill_grace = 100ms});
  EXPECT_LT(std::chrono::steady_clock::now() - started, kHangBound);
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(testing::process_dies(std::stoi(testing::read_file(pid_file))));
}

TEST(Process, AGrandchildHoldingStdoutOpenDoesNotKeepTheCallerWaitingAfterTheProgramExits) {
  TempDir dir;
  auto pid_file = dir / "grandchild.pid";
  auto program = write_script(dir / "p", "sleep 60 &\n"
                                         "echo $! > '" + pid_file.string() + "'\n"
                                         "echo result\n");
  const auto started = std::chrono::steady_clock::now();
  const ProcessResult r = run_process({.program = program, .timeout = 20s});
  EXPECT_LT(std::chrono::steady_clock::now() - started, kHangBound);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_text, "result\n");
  EXPECT_TRUE(testing::process_dies(std::stoi(testing::read_file(pid_file))));
}

// ------------------------------------------------------- process hygiene

TEST(Process, NoZombieIsLeftBehind) {
  TempDir dir;
  auto quick = write_script(dir / "quick", "exit 0\n");
  auto stuck = write_script(dir / "stuck", "trap '' TERM\nwhile :; do sleep 1; done\n");
  run_process({.program = quick});
  run_process({.program = stuck, .timeout = 100ms, .kill_grace = 50ms});
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(Process, TheProgramInheritsNoFileDescriptorButStdio) {
  TempDir dir;
  const int leaky = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 0);
  // After exec, ls itself opens the directory it lists: that is the one extra descriptor (3).
  auto program = write_script(dir / "p", "exec ls /proc/self/fd\n");
  const ProcessResult r = run_process({.program = program});
  ::close(leaky);
  EXPECT_THAT(lines(r.stdout_text), ElementsAre("0", "1", "2", "3"));
}

TEST(Process, TheProgramRunsInItsOwnProcessGroup) {
  TempDir dir;
  auto program = write_script(dir / "p", "echo $$; cut -d' ' -f5 /proc/$$/stat\n");
  const ProcessResult r = run_process({.program = program});
  const auto out = lines(r.stdout_text);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], out[1]);
  EXPECT_NE(std::stoi(out[1]), ::getpgrp());
}

// Restores a signal's disposition and this thread's mask when the test ends.
class SignalStateGuard {
 public:
  explicit SignalStateGuard(int signal) : signal_(signal) {
    ::sigaction(signal_, nullptr, &action_);
    ::pthread_sigmask(SIG_SETMASK, nullptr, &mask_);
  }
  ~SignalStateGuard() {
    ::sigaction(signal_, &action_, nullptr);
    ::pthread_sigmask(SIG_SETMASK, &mask_, nullptr);
  }

 private:
  int signal_;
  struct sigaction action_ {};
  sigset_t mask_{};
};

TEST(Process, TheProgramStartsWithDefaultDispositionsAndAnEmptySignalMask) {
  TempDir dir;
  SignalStateGuard pipe_guard(SIGPIPE);
  ::signal(SIGPIPE, SIG_IGN);  // a host that ignores SIGPIPE must not hand that on
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  ::pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
  auto program = write_script(dir / "p", "sed -n 's/^Sig\\(Blk\\|Ign\\):\\t//p' /proc/self/status\n");
  const ProcessResult r = run_process({.program = program});
  const auto masks = lines(r.stdout_text);
  ASSERT_EQ(masks.size(), 2u) << r.stdout_text;
  EXPECT_EQ(std::stoull(masks[0], nullptr, 16), 0u) << "blocked: " << masks[0];
  // Only the standard signals (1-31, bits 0-30): glibc's posix_spawn leaves its two
  // internal real-time signals (32, 33) ignored, and every glibc program
  // installs its own handlers for them at startup.
  EXPECT_EQ(std::stoull(masks[1], nullptr, 16) & 0x7fffffffu, 0u) << "ignored: " << masks[1];
}

TEST(Process, TheCallersSignalDispositionMaskAndPendingSetAreUnchanged) {
  TempDir dir;
  SignalStateGuard pipe_guard(SIGPIPE);
  ::signal(SIGPIPE, SIG_DFL);  // had a SIGPIPE reached us, this test process would die
  auto program = write_script(dir / "p", "exec 0<&-\nsleep 0.1\n");  // closes stdin at once
  const ProcessResult r = run_process({.program = program, .input = std::string(8 << 20, 'x')});
  EXPECT_TRUE(r.succeeded()) << r.status();

  struct sigaction after {};
  ::sigaction(SIGPIPE, nullptr, &after);
  EXPECT_EQ(after.sa_handler, SIG_DFL);
  sigset_t mask;
  sigset_t pending;
  ::pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  ::sigpending(&pending);
  EXPECT_FALSE(sigismember(&mask, SIGPIPE));
  EXPECT_FALSE(sigismember(&pending, SIGPIPE));
}

// ------------------------------------------------------------------ threads

TEST(Process, SeveralThreadsMayRunProgramsAtOnce) {
  TempDir dir;
  auto program = write_script(dir / "p", "cat; echo \" $1\"; ls /proc/self/fd | wc -l >&2\n");
  constexpr int kThreads = 6;
  constexpr int kRuns = 5;
  std::vector<std::vector<ProcessResult>> results(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < kRuns; ++i)
          results[t].push_back(run_process({.program = program, .arguments = {std::to_string(i)},
                                            .input = "thread " + std::to_string(t)}));
      });
  }
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kRuns; ++i) {
      const ProcessResult& r = results[t][i];
      EXPECT_EQ(r.stdout_text, "thread " + std::to_string(t) + " " + std::to_string(i) + "\n");
      // ls's own three stdio descriptors plus its directory: nothing from the other threads' pipes.
      EXPECT_EQ(r.stderr_text, "4\n");
    }
}

}  // namespace
}  // namespace hookbus
