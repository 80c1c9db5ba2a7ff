// The process runner (include/hookbus/process.hpp), with real programs
// written into temporary directories.
#include "scoped_environment.hpp"
#include "script_fixture.hpp"

#include <hookbus/process.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stop_token>
#include <string_view>
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

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

// Every test here ends by checking that nothing its runs started is left
// (testing::NothingLeftBehind): no process, however detached, and no descriptor.
class Process : public testing::NothingLeftBehind {};

// --------------------------------------------------------------- basics

TEST_F(Process, ReportsStdoutStderrAndExitCode) {
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

TEST_F(Process, ArgumentsArePassedAsAVectorNeverThroughAShell) {
  TempDir dir;
  auto program = write_script(dir / "p", "for a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
  const ProcessResult r = run_process({.program = program, .arguments = {"two words", "; echo injected", "$HOME"}});
  EXPECT_THAT(lines(r.stdout_text), ElementsAre("two words", "; echo injected", "$HOME"));
}

TEST_F(Process, WritesTheInputToStdin) {
  TempDir dir;
  auto program = write_script(dir / "p", "cat\n");
  const ProcessResult r = run_process({.program = program, .input = "{\"a\": 1}"});
  EXPECT_EQ(r.stdout_text, "{\"a\": 1}");
  EXPECT_TRUE(r.succeeded());
}

TEST_F(Process, RunsInTheWorkingDirectory) {
  TempDir dir;
  auto program = write_script(dir / "p", "pwd -P\n");
  const ProcessResult r = run_process({.program = program, .working_directory = dir.path()});
  EXPECT_EQ(r.stdout_text, std::filesystem::canonical(dir.path()).string() + "\n");
}

TEST_F(Process, PassesTheCallersEnvironmentPlusExtraVariables) {
  TempDir dir;
  const testing::ScopedEnvironment env{{"HOOKBUS_TEST_INHERITED", "from parent"}, {"HOOKBUS_TEST_REPLACED", "old"}};
  auto program = write_script(dir / "p", "echo \"$HOOKBUS_TEST_INHERITED|$HOOKBUS_TEST_REPLACED|$HOOKBUS_TEST_EXTRA\"\n"
                                         "env | grep -c '^HOOKBUS_TEST_REPLACED='\n");
  const ProcessResult r = run_process(
      {.program = program, .extra_environment = {{"HOOKBUS_TEST_REPLACED", "new"}, {"HOOKBUS_TEST_EXTRA", "a b"}}});
  EXPECT_THAT(lines(r.stdout_text), ElementsAre("from parent|new|a b", "1"));
}

TEST_F(Process, WithoutInheritanceTheEnvironmentIsExactlyTheExtraVariables) {
  const testing::ScopedEnvironment env{{"HOOKBUS_TEST_INHERITED", "from parent"}};
  // env itself, not a shell script: a shell adds PWD to what it exports.
  const ProcessResult r =
      run_process({.program = "/usr/bin/env", .extra_environment = {{"ONLY", "this"}}, .inherit_environment = false});
  EXPECT_THAT(lines(r.stdout_text), ElementsAre("ONLY=this"));
}

TEST_F(Process, AnInvalidEnvironmentVariableNameIsAnError) {
  TempDir dir;
  auto program = write_script(dir / "p", "true\n");
  EXPECT_THROW(run_process({.program = program, .extra_environment = {{"A=B", "x"}}}), ProcessError);
}

TEST_F(Process, ExitBySignalIsReported) {
  TempDir dir;
  auto program = write_script(dir / "p", "kill -TERM $$\n");
  const ProcessResult r = run_process({.program = program});
  EXPECT_FALSE(r.exit_code);
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_EQ(r.status(), "killed by signal 15 (SIGTERM)");
}

// ------------------------------------------------------ cannot be started

TEST_F(Process, AMissingProgramThrowsNamingIt) {
  TempDir dir;
  try {
    run_process({.program = dir / "missing"});
    FAIL() << "expected ProcessError";
  } catch (const ProcessError& e) {
    EXPECT_THAT(e.what(), HasSubstr((dir / "missing").string()));
    EXPECT_THAT(e.what(), HasSubstr("No such file"));
  }
}

TEST_F(Process, AFileWithoutTheExecuteBitThrowsWithAHint) {
  TempDir dir;
  auto program = write_script(dir / "p", "true\n", 0644);
  EXPECT_THAT([&] { run_process({.program = program}); },
              ::testing::ThrowsMessage<ProcessError>(HasSubstr("chmod +x")));
}

TEST_F(Process, AScriptWithoutAShebangLineThrowsWithAHint) {
  TempDir dir;
  auto program = write_file(dir / "p", "echo hi\n", 0755);
  EXPECT_THAT([&] { run_process({.program = program}); },
              ::testing::ThrowsMessage<ProcessError>(HasSubstr("'#!' line")));
}

TEST_F(Process, AScriptWhoseInterpreterIsMissingThrowsNamingTheInterpreter) {
  TempDir dir;
  auto program = write_file(dir / "p", "#! /no/such/python3 -u\nprint(1)\n", 0755);
  EXPECT_THAT([&] { run_process({.program = program}); },
              ::testing::ThrowsMessage<ProcessError>(
                  HasSubstr("its '#!' line names the interpreter '/no/such/python3', which does not exist")));
}

TEST_F(Process, AMissingWorkingDirectoryThrowsNamingIt) {
  TempDir dir;
  auto program = write_script(dir / "p", "true\n");
  EXPECT_THAT([&] { run_process({.program = program, .working_directory = dir / "nowhere"}); },
              ::testing::ThrowsMessage<ProcessError>(HasSubstr((dir / "nowhere").string())));
}

// ------------------------------------------- what a run leaves behind: nothing

class ProcessCleanup : public testing::NothingLeftBehind {
 protected:
  std::filesystem::path script(const std::string& body) const { return write_script(dir_ / "p", body); }
};

using testing::start_setsid_sleeper;

constexpr std::string_view kStuckForever = "while :; do sleep 1; done\n";

std::string ignoring_sigterm(const std::string& body) { return "trap '' TERM\n" + body + std::string(kStuckForever); }

TEST_F(ProcessCleanup, TimeoutKillsAProgramThatIgnoresSigterm) {
  const ProcessResult r =
      run_process({.program = script(ignoring_sigterm("echo started\n")), .timeout = 300ms, .kill_grace = 100ms});
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.cancelled);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_EQ(r.stdout_text, "started\n");
  EXPECT_THAT(r.status(), HasSubstr("timed out"));
}

// The timeouts of the tests below leave the program ample time to write its
// pid files before it is killed (each only needs "eventually"); pid_in waits
// for a file.
TEST_F(ProcessCleanup, BackgroundGrandchildDiesOnTimeout) {
  const ProcessResult r =
      run_process({.program = script(ignoring_sigterm("sleep 60 &\necho $! > " + file("grandchild.pid") + "\n")),
                   .timeout = 2s, .kill_grace = 100ms});
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

// Review of issue 10, finding 6: a grandchild in a session of its own was out
// of reach of the process-group kill and kept running.
TEST_F(ProcessCleanup, SetsidGrandchildDiesOnTimeout) {
  const ProcessResult r =
      run_process({.program = script(ignoring_sigterm(start_setsid_sleeper(file("grandchild.pid")))),
                   .timeout = 2s, .kill_grace = 100ms});
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

// A python program whose child leaves the program's process group (`how`:
// setpgid or setsid), forks a grandchild and exits: the grandchild, deaf to
// SIGTERM, stdio on /dev/null, is an orphan out of the group's reach.
std::string orphan_grandchild_program(const std::string& how, const std::string& pid_file) {
  return "#!/usr/bin/python3\n"
         "import os, signal, time\n"
         "if os.fork() == 0:\n"
         "    " + how + "\n"
         "    if os.fork() == 0:\n"
         "        signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
         "        null = os.open('/dev/null', os.O_RDWR)\n"
         "        for fd in (0, 1, 2): os.dup2(null, fd)\n"
         "        with open('" + pid_file + "', 'w') as f: f.write(f'{os.getpid()}\\n')\n"
         "        time.sleep(60)\n"
         "    os._exit(0)\n"
         "time.sleep(60)\n";
}

TEST_F(ProcessCleanup, DoubleForkedGrandchildInAProcessGroupOfItsOwnDiesOnTimeout) {
  auto program = write_file(dir_ / "p", orphan_grandchild_program("os.setpgid(0, 0)", file("grandchild.pid")), 0755);
  const ProcessResult r = run_process({.program = program, .timeout = 1s, .kill_grace = 100ms});
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

TEST_F(ProcessCleanup, DaemonizedGrandchildDiesOnTimeout) {
  // The classic daemon: fork, setsid, fork again.
  auto program = write_file(dir_ / "p", orphan_grandchild_program("os.setsid()", file("daemon.pid")), 0755);
  const ProcessResult r = run_process({.program = program, .timeout = 1s, .kill_grace = 100ms});
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(testing::process_gone(pid_in("daemon.pid")));
}

TEST_F(ProcessCleanup, OnTimeoutAProcessInASessionOfItsOwnGetsSigtermBeforeSigkill) {
  // Once the program dies of its SIGTERM, its setsid'd child is abandoned and
  // gets a SIGTERM of its own, in time to clean up.
  const ProcessResult r = run_process(
      {.program = script("setsid sh -c 'trap \"echo cleaned > " + file("cleaned") + "; exit\" TERM; echo $$ > " +
                         file("grandchild.pid") + "; sleep 60 & wait' </dev/null >/dev/null 2>&1 &\n"
                         "until [ -s " + file("grandchild.pid") + " ]; do sleep 0.01; done\n" + std::string(kStuckForever)),
       .timeout = 2s, .kill_grace = 5s});
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
  EXPECT_EQ(testing::read_file(dir_ / "cleaned"), "cleaned\n");
}

TEST_F(ProcessCleanup, AnEndlessFloodOnBothStreamsIsCutAndTimedOut) {
  const ProcessResult r =
      run_process({.program = script("yes >&2 &\necho $! > " + file("background.pid") + "\nexec yes\n"),
                   .timeout = 2s, .kill_grace = 100ms, .stdout_limit = 1000, .stderr_limit = 1000});
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.stdout_text.size(), 1000u);
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_EQ(r.stderr_text.size(), 1000u);
  EXPECT_TRUE(r.stderr_truncated);
  EXPECT_TRUE(testing::process_gone(pid_in("background.pid")));  // the background flood too
}

TEST_F(ProcessCleanup, OutputOverTheCapIsCutAndTheProgramIsNeverBlocked) {
  // 3 MiB on each stream, far more than a pipe holds: it would block if we stopped reading.
  const ProcessResult r = run_process(
      {.program = script("head -c 3145728 /dev/zero; head -c 3145728 /dev/zero >&2; echo finished >&2\n"),
       .stderr_limit = 1000});
  EXPECT_TRUE(r.succeeded()) << r.status();
  EXPECT_EQ(r.stdout_text.size(), default_output_limit);
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_EQ(r.stderr_text.size(), 1000u);
  EXPECT_TRUE(r.stderr_truncated);
}

TEST_F(ProcessCleanup, OutputWithinTheCapIsNotMarkedTruncated) {
  const ProcessResult r = run_process({.program = script("printf 12345\n"), .stdout_limit = 5});
  EXPECT_EQ(r.stdout_text, "12345");
  EXPECT_FALSE(r.stdout_truncated);
}

TEST_F(ProcessCleanup, LargePayloadsInBothDirectionsDoNotDeadlock) {
  std::string payload(8 << 20, 'x');
  for (std::size_t i = 0; i < payload.size(); i += 4096) payload[i] = static_cast<char>('a' + (i / 4096) % 26);
  const ProcessResult r =
      run_process({.program = script("cat; cat /dev/null >&2\n"), .input = payload, .stdout_limit = 16 << 20});
  EXPECT_TRUE(r.succeeded()) << r.status();
  EXPECT_FALSE(r.stdout_truncated);
  EXPECT_EQ(r.stdout_text, payload);
}

TEST_F(ProcessCleanup, AProgramThatNeverReadsStdinGetsALargePayloadWithoutHarm) {
  const ProcessResult r = run_process({.program = script("echo done\n"), .input = std::string(8 << 20, 'x')});
  EXPECT_TRUE(r.succeeded()) << r.status();
  EXPECT_EQ(r.stdout_text, "done\n");
}

TEST_F(ProcessCleanup, AProgramThatNeverReadsALargeStdinStillTimesOut) {
  const ProcessResult r = run_process({.program = script("exec sleep 60\n"), .input = std::string(8 << 20, 'x'),
                                       .timeout = 300ms, .kill_grace = 100ms});
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGTERM);
}

TEST_F(ProcessCleanup, AProgramKilledByASignalTakesItsDetachedProcessesWithIt) {
  const ProcessResult r =
      run_process({.program = script(start_setsid_sleeper(file("grandchild.pid")) + "kill -KILL $$\n")});
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.status(), "killed by signal 9 (SIGKILL)");
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

TEST_F(ProcessCleanup, AGrandchildHoldingStdoutOpenDoesNotKeepTheCallerWaitingAfterTheProgramExits) {
  const ProcessResult r = run_process(
      {.program = script("sleep 60 &\necho $! > " + file("grandchild.pid") + "\necho result\n"), .timeout = 20s});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_text, "result\n");
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

TEST_F(ProcessCleanup, ASetsidGrandchildHoldingStdoutIsKilledAfterTheDrainWhenTheProgramExits) {
  // Not detached: it holds our stdout, so it is killed once exit_drain is over.
  const ProcessResult r = run_process(
      {.program = script("setsid sh -c 'echo $$ > " + file("grandchild.pid") + "; exec sleep 60' &\n"
                         "until [ -s " + file("grandchild.pid") + " ]; do sleep 0.01; done\n"
                         "echo result\n"),
       .timeout = 20s});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_text, "result\n");
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

TEST_F(ProcessCleanup, ADetachedProcessOutlivesAProgramThatExits) {
  // "Run slow work in the background and exit": what holds none of our pipes may stay.
  const ProcessResult r =
      run_process({.program = script(start_setsid_sleeper(file("detached.pid")) + "echo result\nexit 1\n")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.stdout_text, "result\n");
  const pid_t detached = pid_in("detached.pid");
  EXPECT_TRUE(testing::process_alive(detached));
  EXPECT_TRUE(kill_adopted(detached));  // ours to clean up now
}

TEST_F(ProcessCleanup, WithoutDetachedMayOutliveADetachedProcessDiesWhenTheProgramExits) {
  const ProcessResult r = run_process({.program = script(start_setsid_sleeper(file("detached.pid")) + "exit 0\n"),
                                       .detached_may_outlive = false});
  EXPECT_TRUE(r.succeeded()) << r.status();
  EXPECT_TRUE(testing::process_gone(pid_in("detached.pid")));
}

// ------------------------------------------------------------- cancellation

TEST_F(ProcessCleanup, CancellationFromAnotherThreadKillsTheWholeTreeAndSaysSo) {
  std::stop_source stop;
  std::jthread canceller([&] {
    testing::wait_for_file(dir_ / "grandchild.pid");
    stop.request_stop();
  });
  // A timeout far beyond the test's own: only the stop can end this run.
  const ProcessResult r = run_process({.program = script(ignoring_sigterm(start_setsid_sleeper(file("grandchild.pid")))),
                                       .timeout = 600s, .kill_grace = 100ms, .stop = stop.get_token()});
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.succeeded());
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_THAT(r.status(), HasSubstr("cancelled (killed after"));
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

TEST_F(ProcessCleanup, AStopRequestedBeforeTheStartRunsNothing) {
  std::stop_source stop;
  stop.request_stop();
  const ProcessResult r = run_process({.program = script("touch " + file("ran") + "\n"), .stop = stop.get_token()});
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.exit_code);
  EXPECT_EQ(r.status(), "cancelled before it started");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "ran"));
}

TEST_F(ProcessCleanup, AStopRequestedAfterTheRunChangesNothing) {
  std::stop_source stop;
  const ProcessResult r = run_process({.program = script("echo done\n"), .stop = stop.get_token()});
  stop.request_stop();
  EXPECT_TRUE(r.succeeded()) << r.status();
  EXPECT_FALSE(r.cancelled);
}

TEST_F(ProcessCleanup, ManyConcurrentRunsFromFourThreadsLeaveNothingBehind) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 3;
  auto echo = write_script(dir_ / "echo", "cat; echo \" $1\"\n");
  // Writes the pid of a setsid'd, SIGTERM-deaf sleeper into the file named by $1, then hangs.
  auto stuck = write_script(dir_ / "stuck", ignoring_sigterm(
      "setsid sh -c 'echo $$ > \"$1\"; trap \"\" TERM; exec sleep 60' sh \"$1\" </dev/null >/dev/null 2>&1 &\n"
      "until [ -s \"$1\" ]; do sleep 0.01; done\n"));
  auto pid_file = [](int thread, int round) { return "sleeper-" + std::to_string(thread) + "-" + std::to_string(round); };
  std::vector<std::vector<ProcessResult>> echoes(kThreads);
  std::vector<std::vector<ProcessResult>> timeouts(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int round = 0; round < kRounds; ++round) {
          echoes[t].push_back(run_process(
              {.program = echo, .arguments = {std::to_string(round)}, .input = "thread " + std::to_string(t)}));
          timeouts[t].push_back(run_process({.program = stuck, .arguments = {file(pid_file(t, round))},
                                             .timeout = 2s, .kill_grace = 100ms}));
        }
      });
  }
  for (int t = 0; t < kThreads; ++t)
    for (int round = 0; round < kRounds; ++round) {
      EXPECT_EQ(echoes[t][round].stdout_text, "thread " + std::to_string(t) + " " + std::to_string(round) + "\n");
      EXPECT_TRUE(timeouts[t][round].timed_out);
      EXPECT_TRUE(testing::process_gone(pid_in(pid_file(t, round))));
    }
}

// ----------------------------------------------------------- the supervisor

TEST_F(ProcessCleanup, AProgramThatKillsItsSupervisorIsReportedAndDoesNotHang) {
  // Not a sandbox: the program runs as our user and can kill its supervisor.
  // The run ends at once and says so; the escaped program is ours to clean up.
  const ProcessResult r = run_process(
      {.program = script("echo $$ > " + file("program.pid") + "\nkill -KILL $PPID\nexec sleep 60\n"),
       .timeout = 600s});
  EXPECT_TRUE(r.supervision_lost);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.succeeded());
  EXPECT_THAT(r.status(), HasSubstr("supervision lost"));
  EXPECT_TRUE(kill_adopted(pid_in("program.pid")));
}

// True once `pid` is stopped (SIGSTOP), waiting at most a few seconds.
bool becomes_stopped(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    if (const auto at = line.rfind(')'); at != std::string::npos && at + 2 < line.size() && line[at + 2] == 'T')
      return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// A program may stop its supervisor (SIGSTOP; it runs as our user): the
// supervisor can then neither end the run nor report; the library, which
// waits for it at most supervisor_answer_limit, kills the run itself and
// reports the supervision lost.
TEST_F(ProcessCleanup, AProgramThatStopsItsSupervisorIsKilledWithWhatItStartedAndTheRunEnds) {
  std::stop_source stop;
  ProcessResult r;
  std::jthread run([&] {
    r = run_process({.program = script("sleep 60 &\necho $! > " + file("grandchild.pid") + "\n"
                                       "echo $$ > " + file("program.pid") + "\n"
                                       "echo $PPID > " + file("supervisor.pid") + "\n"
                                       "kill -STOP $PPID\n" + std::string(kStuckForever)),
                     .timeout = 600s, .stop = stop.get_token()});
  });
  EXPECT_TRUE(becomes_stopped(pid_in("supervisor.pid")));
  stop.request_stop();
  run.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_TRUE(r.supervision_lost);
  EXPECT_FALSE(r.succeeded());
  EXPECT_TRUE(testing::process_gone(pid_in("program.pid")));
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
  EXPECT_TRUE(testing::process_gone(pid_in("supervisor.pid")));
}

// Stopped processes still die of SIGKILL: one that stops itself, or its whole
// process group, is killed on cancellation (or timeout) like any other.
TEST_F(ProcessCleanup, AProgramThatStopsItselfIsKilled) {
  std::stop_source stop;
  ProcessResult r;
  std::jthread run([&] {
    r = run_process({.program = script("echo $$ > " + file("program.pid") + "\nkill -STOP $$\n"),
                     .timeout = 600s, .kill_grace = 100ms, .stop = stop.get_token()});
  });
  EXPECT_TRUE(becomes_stopped(pid_in("program.pid")));
  stop.request_stop();
  run.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.supervision_lost);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_TRUE(testing::process_gone(pid_in("program.pid")));
}

TEST_F(ProcessCleanup, AProgramThatStopsItsProcessGroupIsKilledWithIt) {
  std::stop_source stop;
  ProcessResult r;
  std::jthread run([&] {
    r = run_process({.program = script("sleep 60 &\necho $! > " + file("child.pid") + "\n"
                                       "echo $$ > " + file("program.pid") + "\nkill -STOP 0\n"),
                     .timeout = 600s, .kill_grace = 100ms, .stop = stop.get_token()});
  });
  EXPECT_TRUE(becomes_stopped(pid_in("program.pid")));
  EXPECT_TRUE(becomes_stopped(pid_in("child.pid")));
  stop.request_stop();
  run.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.supervision_lost);
  EXPECT_TRUE(testing::process_gone(pid_in("program.pid")));
  EXPECT_TRUE(testing::process_gone(pid_in("child.pid")));
}

// The fixture makes this test process a subreaper for the length of each test:
// run_process must leave that setting as it found it, whichever it is.
TEST_F(ProcessCleanup, TheHostNeverBecomesASubreaper) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
  run_process({.program = script(start_setsid_sleeper(file("grandchild.pid")) + "exit 0\n"),
               .detached_may_outlive = false});
  int subreaper = -1;
  ASSERT_EQ(::prctl(PR_GET_CHILD_SUBREAPER, &subreaper), 0);
  EXPECT_EQ(subreaper, 0);
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  run_process({.program = script("exit 0\n")});
  ASSERT_EQ(::prctl(PR_GET_CHILD_SUBREAPER, &subreaper), 0);
  EXPECT_EQ(subreaper, 1);
}

using ProcessCleanupDeathTest = ProcessCleanup;

TEST_F(ProcessCleanupDeathTest, WhenTheHostDiesEverythingItsRunsStartedDies) {
  const auto pid_file = dir_ / "grandchild.pid";
  // The program kills its host, the death test's child process ($1), once its grandchild runs.
  auto program = script(start_setsid_sleeper(pid_file.string()) + "kill -KILL \"$1\"\n" + std::string(kStuckForever));
  EXPECT_EXIT(run_process({.program = program, .arguments = {std::to_string(::getpid())}, .timeout = 600s}),
              ::testing::KilledBySignal(SIGKILL), "");
  const pid_t grandchild = pid_in("grandchild.pid");
  // The dead host's supervisor, adopted by this process, sees its control
  // socket close, kills the run and exits.
  EXPECT_TRUE(adopted_processes_end());
  EXPECT_TRUE(testing::process_gone(grandchild));
}

// ------------------------------------------------------- process hygiene

TEST_F(Process, TheProgramInheritsNoFileDescriptorButStdio) {
  TempDir dir;
  const int leaky = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 0);
  // After exec, ls itself opens the directory it lists: that is the one extra descriptor (3).
  auto program = write_script(dir / "p", "exec ls /proc/self/fd\n");
  const ProcessResult r = run_process({.program = program});
  ::close(leaky);
  EXPECT_THAT(lines(r.stdout_text), ElementsAre("0", "1", "2", "3"));
}

TEST_F(Process, TheProgramRunsInItsOwnProcessGroup) {
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

TEST_F(Process, TheProgramStartsWithDefaultDispositionsAndAnEmptySignalMask) {
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

TEST_F(Process, TheCallersSignalDispositionMaskAndPendingSetAreUnchanged) {
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

TEST_F(Process, SeveralThreadsMayRunProgramsAtOnce) {
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
