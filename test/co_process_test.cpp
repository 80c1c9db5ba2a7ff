// The persistent co-process (include/hookbus/co_process.hpp), with real
// programs (sh line servers) written into temporary directories.
#include "script_fixture.hpp"

#include <hookbus/co_process.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace hookbus {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace std::chrono_literals;
using Outcome = CoProcessReply::Outcome;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

// Far beyond any of these tests: a request that takes this long has hung.
constexpr auto kPatient = 60s;

class CoProcessCleanup : public testing::NothingLeftBehind {
 protected:
  // A line server in sh that runs `setup`, writes its pid to "server.pid",
  // then runs `body`: once the pid is there, the setup is done.
  CoProcessSpec server(const std::string& body, const std::string& setup = "") const {
    return {.program = write_script(dir_ / "server", setup + "echo $$ > " + file("server.pid") + "\n" + body)};
  }

  // The setup of a server deaf to SIGTERM, with a grandchild (pid in "grandchild.pid") in a session of its own.
  std::string deaf_to_sigterm_with_a_grandchild() const {
    return "trap '' TERM\n" + testing::start_setsid_sleeper(file("grandchild.pid"));
  }
};

constexpr auto kEcho = "while IFS= read -r line; do printf '%s\\n' \"$line\"; done\n";

// ------------------------------------------------------------- round trips

TEST_F(CoProcessCleanup, EachRequestGetsTheNextAnswerLine) {
  pid_t pid = 0;
  {
    CoProcess echo(server(kEcho));
    const CoProcessReply first = echo.request(R"({"id": 1})", kPatient);
    EXPECT_TRUE(first.answered()) << first.status();
    EXPECT_EQ(first.line, R"({"id": 1})");
    EXPECT_EQ(echo.request("second", kPatient).line, "second");
    EXPECT_TRUE(echo.running());
    pid = pid_in("server.pid");
  }
  EXPECT_TRUE(testing::process_gone(pid));
}

// After writing a request the thread reads for the answer for answer_spin
// before it sleeps in poll; either way ends with the answer.
TEST_F(CoProcessCleanup, WithNoSpinTheAnswerIsReadAfterSleepingInPoll) {
  CoProcessSpec spec = server("while IFS= read -r line; do sleep 0.05; printf '%s\\n' \"$line\"; done\n");
  spec.answer_spin = 0us;
  CoProcess slow(spec);
  EXPECT_EQ(slow.request("one", kPatient).line, "one");
  EXPECT_EQ(slow.request("two", kPatient).line, "two");
}

TEST_F(CoProcessCleanup, AnAnswerThatComesWhileTheThreadSpinsIsRead) {
  CoProcessSpec spec = server("while IFS= read -r line; do sleep 0.05; printf '%s\\n' \"$line\"; done\n");
  spec.answer_spin = 600s;  // longer than the whole test: the answer can only be read by the spin
  CoProcess slow(spec);
  EXPECT_EQ(slow.request("one", kPatient).line, "one");
  EXPECT_EQ(slow.request("two", kPatient).line, "two");
}

TEST_F(CoProcessCleanup, ASpinLongerThanTheTimeoutStillTimesOut) {
  CoProcessSpec spec = server("read -r line\nexec sleep 60\n");
  spec.answer_spin = 600s;
  CoProcess silent(spec);
  EXPECT_EQ(silent.request("hello", 200ms).outcome, Outcome::timed_out);
  EXPECT_TRUE(testing::process_gone(pid_in("server.pid")));
}

TEST_F(CoProcessCleanup, AnAnswerLineOverTheLimitReadWhileSpinningEndsTheInstance) {
  CoProcessSpec spec = server("read -r line\nhead -c 1000 /dev/zero | tr '\\0' 'a'\nexec sleep 60\n");
  spec.line_limit = 100;
  spec.answer_spin = 600s;  // no newline ever comes: only the check after the spin can end the request
  CoProcess verbose(spec);
  const CoProcessReply reply = verbose.request("hello", kPatient);
  EXPECT_EQ(reply.outcome, Outcome::line_too_long);
  EXPECT_TRUE(testing::process_gone(pid_in("server.pid")));
}

TEST_F(CoProcessCleanup, AnswersAreMovedAsTheyAreNotParsed) {
  CoProcess garbage(server("while read -r line; do printf '\\377\\376 not json {\\n'; done\n"));
  const CoProcessReply reply = garbage.request("{}", kPatient);
  EXPECT_TRUE(reply.answered()) << reply.status();
  EXPECT_EQ(reply.line, "\xff\xfe not json {");
}

TEST_F(CoProcessCleanup, LargeRequestsAndAnswersDoNotDeadlock) {
  const std::string big(4 << 20, 'x');  // far more than a pipe holds, both ways
  CoProcess echo({.program = "/usr/bin/python3",
                  .arguments = {"-c", "import sys\nfor line in sys.stdin: sys.stdout.write(line); sys.stdout.flush()\n"},
                  .line_limit = big.size()});
  const CoProcessReply reply = echo.request(big, kPatient);
  EXPECT_TRUE(reply.answered()) << reply.status();
  EXPECT_TRUE(reply.line == big) << reply.line.size() << " bytes";
}

TEST_F(CoProcessCleanup, ConcurrentRequestsFromFourThreadsAreServedOneAtATime) {
  CoProcess echo(server(kEcho));
  constexpr int kThreads = 4;
  constexpr int kRequests = 20;
  std::vector<std::vector<CoProcessReply>> replies(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < kRequests; ++i)
          replies[t].push_back(echo.request("thread " + std::to_string(t) + " request " + std::to_string(i), kPatient));
      });
  }
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kRequests; ++i)
      EXPECT_EQ(replies[t][i].line, "thread " + std::to_string(t) + " request " + std::to_string(i));
}

TEST_F(CoProcessCleanup, ARequestHoldingANewlineIsAnError) {
  CoProcess echo(server(kEcho));
  EXPECT_THAT([&] { echo.request("two\nlines", kPatient); },
              ::testing::ThrowsMessage<ProcessError>(HasSubstr("one line")));
  EXPECT_EQ(echo.request("still fine", kPatient).line, "still fine");
}

TEST_F(CoProcessCleanup, AProgramThatCannotStartThrowsNamingIt) {
  EXPECT_THAT([&] { CoProcess missing({.program = dir_ / "missing"}); },
              ::testing::ThrowsMessage<ProcessError>(HasSubstr((dir_ / "missing").string())));
}

// ------------------------------------------------ what ends an instance

TEST_F(CoProcessCleanup, ATimedOutRequestKillsTheWholeTreeAndSaysSo) {
  CoProcess stuck(server("read -r line\nwhile :; do sleep 1; done\n", deaf_to_sigterm_with_a_grandchild()));
  const pid_t pid = pid_in("server.pid");  // deaf to SIGTERM from now on: only SIGKILL ends it
  const pid_t grandchild = pid_in("grandchild.pid");
  const CoProcessReply reply = stuck.request("hello", 300ms);
  EXPECT_EQ(reply.outcome, Outcome::timed_out);
  EXPECT_THAT(reply.status(), HasSubstr("timed out after"));
  EXPECT_EQ(reply.signal, SIGKILL);
  EXPECT_FALSE(stuck.running());
  EXPECT_TRUE(testing::process_gone(pid));
  EXPECT_TRUE(testing::process_gone(grandchild));
  // Ended for good: the caller starts a new instance.
  EXPECT_EQ(stuck.request("again", kPatient).outcome, Outcome::ended);
}

TEST_F(CoProcessCleanup, AProgramThatNeverReadsItsStdinStillTimesOut) {
  CoProcess deaf(server("exec sleep 60\n"));
  const pid_t pid = pid_in("server.pid");
  const CoProcessReply reply = deaf.request(std::string(1 << 20, 'x'), 300ms);
  EXPECT_EQ(reply.outcome, Outcome::timed_out);
  EXPECT_TRUE(testing::process_gone(pid));
}

TEST_F(CoProcessCleanup, ACrashDuringARequestIsReportedWithItsSignal) {
  CoProcess crashing(server("read -r line\nkill -SEGV $$\n"));
  const CoProcessReply reply = crashing.request("hello", kPatient);
  EXPECT_EQ(reply.outcome, Outcome::ended);
  EXPECT_EQ(reply.signal, SIGSEGV);
  EXPECT_EQ(reply.status(), "ended: killed by signal 11 (SIGSEGV)");
  EXPECT_FALSE(crashing.running());
}

TEST_F(CoProcessCleanup, AnExitBetweenRequestsIsReportedWithItsExitCode) {
  CoProcess once(server("read -r line\necho \"$line\"\nexit 3\n"));
  EXPECT_EQ(once.request("only", kPatient).line, "only");
  const CoProcessReply reply = once.request("more", kPatient);
  EXPECT_EQ(reply.outcome, Outcome::ended);
  EXPECT_EQ(reply.exit_code, 3);
  EXPECT_EQ(reply.status(), "ended: exit code 3");
}

TEST_F(CoProcessCleanup, AProgramThatClosedItsStdoutIsNoLongerRunning) {
  CoProcess closing(server("read -r line\necho \"$line\"\nexec 1>&-\necho > " + file("closed") + "\nexec sleep 60\n"));
  EXPECT_EQ(closing.request("only", kPatient).line, "only");
  testing::wait_for_file(dir_ / "closed");
  EXPECT_FALSE(closing.running());
}

TEST_F(CoProcessCleanup, NoSigpipeWhenTheProgramIsGone) {
  // SIGPIPE at its default: had our write to the dead program raised one, this test process would die.
  struct sigaction previous {};
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  ::sigaction(SIGPIPE, &default_action, &previous);
  {
    CoProcess gone(server("exec 0<&-\nexit 0\n"));
    const CoProcessReply reply = gone.request(std::string(1 << 20, 'x'), kPatient);
    EXPECT_EQ(reply.outcome, Outcome::ended);
    EXPECT_EQ(reply.exit_code, 0);
  }
  ::sigaction(SIGPIPE, &previous, nullptr);
}

TEST_F(CoProcessCleanup, AnAnswerLineOverTheLimitEndsTheInstance) {
  CoProcessSpec spec = server("read -r line\nhead -c 1000 /dev/zero | tr '\\0' 'a'\necho\nread -r line\n");
  spec.line_limit = 100;
  CoProcess verbose(spec);
  const CoProcessReply reply = verbose.request("hello", kPatient);
  EXPECT_EQ(reply.outcome, Outcome::line_too_long);
  EXPECT_EQ(reply.line, std::string(100, 'a'));
  EXPECT_EQ(reply.status(), "answer line longer than 100 bytes (killed)");
  EXPECT_FALSE(verbose.running());
  EXPECT_TRUE(testing::process_gone(pid_in("server.pid")));
}

TEST_F(CoProcessCleanup, OutputNobodyAskedForEndsTheInstance) {
  // Two lines for one request: the second would be taken for the next answer.
  CoProcess chatty(server("while read -r line; do echo \"$line\"; echo extra; echo > " + file("extra-written") +
                          "; done\n"));
  EXPECT_EQ(chatty.request("one", kPatient).line, "one");
  testing::wait_for_file(dir_ / "extra-written");
  const CoProcessReply reply = chatty.request("two", kPatient);
  EXPECT_EQ(reply.outcome, Outcome::unexpected_output);
  EXPECT_EQ(reply.line, "extra\n");
  EXPECT_THAT(reply.status(), HasSubstr("out of step"));
  EXPECT_TRUE(testing::process_gone(pid_in("server.pid")));
}

TEST_F(CoProcessCleanup, KillEndsTheInstanceAndEverythingItStarted) {
  CoProcess stubborn(server(kEcho, deaf_to_sigterm_with_a_grandchild()));
  EXPECT_EQ(stubborn.request("hello", kPatient).line, "hello");
  stubborn.kill();
  EXPECT_FALSE(stubborn.running());
  EXPECT_TRUE(testing::process_gone(pid_in("server.pid")));
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
  EXPECT_EQ(stubborn.request("again", kPatient).outcome, Outcome::ended);
}

// --------------------------------------------------------------- cancellation

TEST_F(CoProcessCleanup, CancellationFromAnotherThreadKillsTheInstanceAndSaysSo) {
  CoProcess stuck(server("read -r line\necho > " + file("got-request") + "\nexec sleep 60\n"));
  std::stop_source stop;
  std::jthread canceller([&] {
    testing::wait_for_file(dir_ / "got-request");
    stop.request_stop();
  });
  const CoProcessReply reply = stuck.request("hello", 600s, stop.get_token());
  EXPECT_EQ(reply.outcome, Outcome::cancelled);
  EXPECT_EQ(reply.status(), "cancelled (killed)");
  EXPECT_FALSE(stuck.running());
  EXPECT_TRUE(testing::process_gone(pid_in("server.pid")));
}

TEST_F(CoProcessCleanup, CancellationWhileTheThreadSpinsEndsTheRequest) {
  CoProcessSpec spec = server("read -r line\necho > " + file("got-request") + "\nexec sleep 60\n");
  spec.answer_spin = 600s;  // a spin deaf to the stop would outlast the test's timeout
  CoProcess stuck(spec);
  std::stop_source stop;
  std::jthread canceller([&] {
    testing::wait_for_file(dir_ / "got-request");
    stop.request_stop();
  });
  EXPECT_EQ(stuck.request("hello", 600s, stop.get_token()).outcome, Outcome::cancelled);
  EXPECT_TRUE(testing::process_gone(pid_in("server.pid")));
}

TEST_F(CoProcessCleanup, AStopRequestedBeforeTheRequestIsSentLeavesTheInstanceRunning) {
  CoProcess echo(server(kEcho));
  std::stop_source stop;
  stop.request_stop();
  const CoProcessReply reply = echo.request("hello", kPatient, stop.get_token());
  EXPECT_EQ(reply.outcome, Outcome::cancelled);
  EXPECT_EQ(reply.status(), "cancelled before it was sent");
  EXPECT_EQ(echo.request("hello", kPatient).line, "hello");
}

// ------------------------------------------------------------------- stderr

TEST_F(CoProcessCleanup, StderrLinesReachTheCallback) {
  std::mutex mutex;
  std::vector<std::string> logged;
  {
    CoProcessSpec spec = server("echo starting >&2\nwhile read -r line; do echo \"got $line\" >&2; echo ok; done\n"
                                "printf 'last words without a newline' >&2\n");
    spec.on_stderr = [&](std::string_view line) {
      const std::lock_guard lock(mutex);
      logged.emplace_back(line);
    };
    CoProcess talker(spec);
    EXPECT_EQ(talker.request("one", kPatient).line, "ok");
    EXPECT_EQ(talker.request("two", kPatient).line, "ok");
  }
  // Every line is handed over by the time the instance is destroyed.
  EXPECT_THAT(logged, ElementsAre("starting", "got one", "got two", "last words without a newline"));
}

TEST_F(CoProcessCleanup, AStderrFloodNeverBlocksTheProgram) {
  std::size_t bytes = 0;
  CoProcessSpec spec = server("while read -r line; do head -c 4194304 /dev/zero | tr '\\0' 'e' >&2; echo ok; done\n");
  spec.line_limit = 1000;
  spec.on_stderr = [&](std::string_view line) { bytes += line.size(); };
  {
    CoProcess flooding(spec);
    EXPECT_EQ(flooding.request("go", kPatient).line, "ok");
  }
  EXPECT_EQ(bytes, 4194304u);  // handed over in pieces of line_limit
}

// ----------------------------------------------------------------- shutdown

TEST_F(CoProcessCleanup, ShutdownClosesStdinAndAWellBehavedProgramExitsOnItsOwn) {
  pid_t pid = 0;
  {
    CoProcessSpec spec = server(std::string(kEcho) + "echo bye > " + file("bye") + "\n");
    spec.shutdown_grace = kPatient;  // all the time it needs, to show it used none
    CoProcess polite(spec);
    EXPECT_EQ(polite.request("hello", kPatient).line, "hello");
    pid = pid_in("server.pid");
  }
  EXPECT_EQ(testing::read_file(dir_ / "bye"), "bye\n");
  EXPECT_TRUE(testing::process_gone(pid));
}

TEST_F(CoProcessCleanup, ShutdownKillsAProgramThatIgnoresEofAndSigtermAndEverythingItStarted) {
  pid_t pid = 0;
  pid_t grandchild = 0;
  {
    CoProcessSpec spec = server("while :; do sleep 1; done\n", deaf_to_sigterm_with_a_grandchild());
    spec.shutdown_grace = 50ms;
    spec.kill_grace = 50ms;
    CoProcess stubborn(spec);
    pid = pid_in("server.pid");  // deaf to end of file and SIGTERM from now on
    grandchild = pid_in("grandchild.pid");
    EXPECT_TRUE(stubborn.running());
  }
  EXPECT_TRUE(testing::process_gone(pid));
  EXPECT_TRUE(testing::process_gone(grandchild));
}

}  // namespace
}  // namespace hookbus
