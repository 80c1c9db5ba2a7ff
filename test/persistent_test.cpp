// Persistent hooks (`"mode": "persistent"`, `HOOK serve`) through the bus,
// with real hook processes (docs/external-hooks.md, "Persistent hooks").
// Every test ends by checking that no process and no descriptor is left.
#include "project_hooks_fixture.hpp"
#include "scoped_environment.hpp"

#include <hookbus/json.hpp>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <thread>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using namespace std::chrono_literals;
using testing::kAllow;
using testing::kDenyNamingTheRequest;
using testing::kHangBound;
using testing::read_file;
using testing::write_file;
using testing::write_script;

class PersistentHooks : public testing::ProjectHooks {
 protected:
  HookSettings& persistent(const std::string& name) {
    HookSettings& settings = config_.hooks[name];
    settings.mode = HookMode::persistent;
    return settings;
  }

  // Whether the hook has been refused; gives a restart's wait time to pass,
  // and fails the test once it took far longer than the 5 ends it takes.
  bool refused() {
    if (log_.text().find(") refused: ") != std::string::npos) return true;
    std::this_thread::sleep_for(10ms);
    if (std::chrono::steady_clock::now() - test_start_ < kHangBound) return false;
    ADD_FAILURE() << "never refused";
    return true;
  }

  const std::chrono::steady_clock::time_point test_start_ = std::chrono::steady_clock::now();

  // True while this process has a child (a hook's supervisor): waitpid finds one that has not exited.
  static bool has_children() {
    errno = 0;
    return ::waitpid(-1, nullptr, WNOHANG) == 0;
  }
};

// ------------------------------------------------------------ the protocol

TEST_F(PersistentHooks, OneInstanceStartedWithServeAnswersEveryEvent) {
  persistent("guard");
  write_server("guard", "tool_call", kDenyNamingTheRequest);
  install();
  const std::string first = hooks_.emit(tool_call()).reason;
  const pid_t server = pids().at(0);
  EXPECT_EQ(first, "request 1 by " + std::to_string(server));
  EXPECT_EQ(hooks_.emit(tool_call()).reason, "request 2 by " + std::to_string(server));
  EXPECT_EQ(hooks_.emit(tool_call()).reason, "request 3 by " + std::to_string(server));
  EXPECT_THAT(pids(), SizeIs(1));
  EXPECT_THAT(errors(), IsEmpty());
}

TEST_F(PersistentHooks, ARequestIsOneLineWithTheIdTheEventAndTheSpawnRunnersPayload) {
  persistent("recorder");
  write_server("recorder", "before_tool_call", "  printf '%s\\n' \"$line\" > '" + file("request") + "'\n" + kAllow);
  install();
  const ToolCallEvent event = tool_call();
  (void)hooks_.emit(event);
  const boost::json::value request = parse_json(read_file(dir_ / "request"), "request");
  EXPECT_EQ(request, (boost::json::value{{"id", 1},
                                         {"event", "before_tool_call"},
                                         {"payload", hook_payload(event, "before_tool_call")}}));
}

TEST_F(PersistentHooks, AnAnswerIsReadAsTheSpawnRunnerReadsStdout) {
  persistent("guard");
  write_server("guard", "tool_call input",
               "  case \"$line\" in\n"
               "    *'\"tool_call\"'*) echo \"{\\\"id\\\":$id,\\\"block\\\":true,\\\"reason\\\":\\\"legacy\\\"}\" ;;\n"
               "    *) echo \"{\\\"id\\\":$id,\\\"blocked\\\":true,\\\"reason\\\":\\\"kodelet\\\"}\" ;;\n"
               "  esac\n");
  install();
  const ToolCallResult call = hooks_.emit(tool_call());
  EXPECT_EQ(call.decision, Decision::deny);
  EXPECT_EQ(call.reason, "legacy");
  ASSERT_TRUE(call.decided_by.has_value());
  EXPECT_EQ(call.decided_by->handler, "guard");
  const InputResult input = hooks_.emit(InputEvent{.text = "hi"});
  EXPECT_EQ(input.action, InputAction::reject);
  EXPECT_EQ(input.reason, "kodelet");
}

TEST_F(PersistentHooks, AnAnswerWithAnErrorIsAFailureAndTheInstanceStays) {
  persistent("guard").failure = FailurePolicy::fail_closed;
  write_server("guard", "tool_call", "  echo \"{\\\"id\\\":$id,\\\"error\\\":\\\"policy file missing\\\"}\"\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, AllOf(HasSubstr("hook 'guard' failed"), HasSubstr("(persistent): answered with an error: "
                                                                                   "policy file missing")));
  (void)hooks_.emit(tool_call());
  EXPECT_THAT(pids(), SizeIs(1));
}

TEST_F(PersistentHooks, AnAnswerOfTheWrongShapeIsAFailureAndTheInstanceStays) {
  persistent("guard");
  write_server("guard", "tool_call", "  echo \"{\\\"id\\\":$id,\\\"decision\\\":42}\"\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("(persistent): answered no valid 'tool_call' result: "));
  (void)hooks_.emit(tool_call());
  EXPECT_THAT(pids(), SizeIs(1));
}

TEST_F(PersistentHooks, AnInstanceRunsInTheProjectDirectoryWithItsNameAndProjectInTheEnvironment) {
  persistent("where");
  write_server("where", "tool_call",
               "  echo \"{\\\"id\\\":$id,\\\"decision\\\":\\\"deny\\\",\\\"reason\\\":\\\"$(pwd -P)|$HOOKBUS_HOOK_NAME|"
               "$HOOKBUS_PROJECT_DIR|${HOOKBUS_EVENT:-none}\\\"}\"\n");
  install();
  const std::string project = fs::canonical(project_.path()).string();
  EXPECT_EQ(hooks_.emit(tool_call()).reason, project + "|where|" + project_.path().string() + "|none");
}

TEST_F(PersistentHooks, StderrLinesAreLoggedEscapedWithTheHooksName) {
  persistent("chatty");
  write_server("chatty", "tool_call", "  printf 'checking \\033[31m%s\\n' \"$id\" >&2\n" + std::string(kAllow));
  install();
  (void)hooks_.emit(tool_call());
  EXPECT_TRUE(log_.wait_for("hook 'chatty' (instance 1): checking \\x1b[31m1"));
}

TEST_F(PersistentHooks, EachRequestIsLoggedAtDebugLevelWithItsFileEventInstanceAndBytes) {
  persistent("guard");
  write_server("guard", "tool_call", kDenyNamingTheRequest);
  install();
  logger()->set_level(spdlog::level::debug);
  (void)hooks_.emit(tool_call());
  EXPECT_TRUE(log_.wait_for(fmt::format("persistent hook 'guard' ({}) instance 1 served 'tool_call': answered, ",
                                        hook("guard").string())));
  EXPECT_THAT(log_.text(), ::testing::ContainsRegex(" ms, [0-9]+ bytes in, [0-9]+ bytes out"));
}

TEST_F(PersistentHooks, AToolFilterSendsTheInstanceOnlyItsTools) {
  persistent("guard").tools = "bash|shell";
  write_server("guard", "tool_call", kDenyNamingTheRequest);
  install();
  ToolCallEvent python = tool_call();
  python.tool_name = "python";
  EXPECT_EQ(hooks_.emit(python).decision, Decision::none);
  EXPECT_THAT(hooks_.emit(tool_call()).reason, ::testing::StartsWith("request 1 by ")) << "python was never sent";
  EXPECT_THAT(errors(), IsEmpty());
}

TEST_F(PersistentHooks, AHookWhoseEventsConfigDeclaresIsNotAskedAndServesThemThroughItsToolFilter) {
  write_file(dir_ / "config.json",
             R"({"hooks": {"guard": {"events": ["tool_call"], "mode": "persistent", "tools": "bash|shell"}}})");
  config_ = load_config(dir_ / "config.json");
  config_.project_dir = project_.path();
  // Asked `hook`, it would leave a mark and answer nothing.
  const std::string server = read_file(write_server("guard", "tool_call", kDenyNamingTheRequest));
  write_file(hook("guard"),
             "#!/bin/sh\n[ \"$1\" = hook ] && { echo > '" + file("asked") + "'; exit 1; }\n" +
                 server.substr(server.find('\n') + 1),
             0755);
  install();
  EXPECT_THAT(installed_.report.warnings, IsEmpty());
  ToolCallEvent python = tool_call();
  python.tool_name = "python";
  EXPECT_EQ(hooks_.emit(python).decision, Decision::none);
  EXPECT_FALSE(has_children()) << "a tool the filter leaves out starts no instance";
  ToolCallEvent shell = tool_call();
  shell.tool_name = "shell";
  const std::string first = hooks_.emit(shell).reason;
  ASSERT_THAT(pids(), SizeIs(1)) << last_error();
  EXPECT_EQ(first, "request 1 by " + std::to_string(pids().at(0)));
  EXPECT_EQ(hooks_.emit(tool_call()).reason, "request 2 by " + std::to_string(pids().at(0)));
  EXPECT_FALSE(fs::exists(dir_ / "asked"));
  EXPECT_THAT(errors(), IsEmpty());
}

// --------------------------------------------------------------- start

TEST_F(PersistentHooks, ALazyHookStartsWithItsFirstEvent) {
  persistent("lazy");
  write_server("lazy", "tool_call", kAllow);
  install();
  EXPECT_FALSE(has_children()) << "nothing runs before the first event";
  (void)hooks_.emit(tool_call());
  EXPECT_THAT(pids(), SizeIs(1));
  EXPECT_TRUE(has_children());
}

TEST_F(PersistentHooks, AnEagerHookStartsEveryInstanceWhenInstalled) {
  HookSettings& settings = persistent("eager");
  settings.start = HookStart::eager;
  settings.instances = 2;
  write_server("eager", "tool_call", kAllow);
  install();
  for (int i = 0; i < 500 && pids().size() < 2; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_THAT(pids(), SizeIs(2)) << "both started before any event";
}

TEST_F(PersistentHooks, AHookThatCannotStartIsAFailureNamingWhy) {
  persistent("gone");
  write_server("gone", "tool_call", kAllow);
  install();
  fs::remove(hook("gone"));
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(last_error(), AllOf(HasSubstr("(persistent): instance 1 cannot start"), HasSubstr("gone")));
}

TEST_F(PersistentHooks, PersistentSettingsOnAHookThatIsNotPersistentAreAWarning) {
  config_.hooks["plain"] = HookSettings{.instances = 2, .location = {.file = "config.json", .path = "hooks.plain"}};
  write_server("plain", "tool_call", kAllow);
  install();
  EXPECT_THAT(installed_.report.warnings,
              ElementsAre(HasSubstr("config.json: hooks.plain.instances: hook 'plain' is not persistent")));
}

// ------------------------------------------------- timeouts, crashes, restarts

// The instance is started eagerly, deaf to SIGTERM and with a grandchild, and
// ready before the event: the request has nothing to do but hang. The timeout
// leaves the next instance ample time to start and answer.
TEST_F(PersistentHooks, ATimedOutRequestKillsTheInstanceWholeAndTheNextEventStartsANewOne) {
  HookSettings& settings = persistent("slow");
  settings.timeout = 2s;
  settings.start = HookStart::eager;
  write_server("slow", "tool_call",
               "  if [ ! -e '" + file("hung") + "' ]; then\n"
               "    echo > '" + file("hung") + "'\n"
               "    while :; do sleep 1; done\n"
               "  fi\n" +
                   kDenyNamingTheRequest,
               "if [ ! -e '" + file("hung") + "' ]; then\n"
               "  trap '' TERM\n" +
                   testing::start_setsid_sleeper(file("grandchild.pid")) + "fi\n");
  install();
  const pid_t grandchild = pid_in("grandchild.pid");
  ASSERT_THAT(testing::wait_for_file(dir_ / "pids"), ::testing::Not(IsEmpty())) << "the first instance is ready";
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_LT(std::chrono::steady_clock::now() - started, kHangBound);
  EXPECT_THAT(last_error(), HasSubstr("(persistent): instance 1 timed out after"));
  EXPECT_TRUE(testing::process_gone(pids().at(0)));
  EXPECT_TRUE(testing::process_gone(grandchild));
  const std::string second = hooks_.emit(tool_call()).reason;
  ASSERT_THAT(pids(), SizeIs(2)) << "the second event got no new instance: " << last_error();
  EXPECT_EQ(second, "request 2 by " + std::to_string(pids().at(1)));
}

TEST_F(PersistentHooks, ACrashedInstanceIsRestartedForTheNextEvent) {
  persistent("fragile");
  write_server("fragile", "tool_call",
               "  if [ ! -e '" + file("crashed") + "' ]; then echo > '" + file("crashed") + "'; kill -SEGV $$; fi\n" +
                   kDenyNamingTheRequest);
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("(persistent): instance 1 ended: killed by signal 11 (SIGSEGV)"));
  const std::string second = hooks_.emit(tool_call()).reason;
  ASSERT_THAT(pids(), SizeIs(2)) << "the second event got no new instance: " << last_error();
  EXPECT_EQ(second, "request 2 by " + std::to_string(pids().at(1)));
  EXPECT_TRUE(testing::process_gone(pids().at(0)));
}

TEST_F(PersistentHooks, AnInstanceThatExitedBetweenRequestsIsReplacedForTheNextOne) {
  persistent("once");
  write_server("once", "tool_call", std::string(kDenyNamingTheRequest) + "  exit 0\n");
  install();
  const std::string first = hooks_.emit(tool_call()).reason;
  EXPECT_EQ(first, "request 1 by " + std::to_string(pids().at(0)));
  // It exits after answering. Once it is gone its stdout is closed, which the
  // next request sees before it is sent.
  const pid_t first_pid = pids().at(0);
  for (int i = 0; i < 500 && !testing::process_gone(first_pid); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(testing::process_gone(first_pid));
  const std::string second = hooks_.emit(tool_call()).reason;
  ASSERT_THAT(pids(), SizeIs(2)) << "the second event got no new instance: " << last_error();
  EXPECT_EQ(second, "request 2 by " + std::to_string(pids().at(1)));
  EXPECT_THAT(errors(), IsEmpty());
  EXPECT_THAT(log_.text(), HasSubstr("persistent hook 'once': instance 1 had exited between requests; restarted"));
}

// Two eager instances that exit at once: the first event finds instance 1
// gone (the first end in a row: replaced at once) and its replacement ends
// too; the second event finds instance 2 gone, the third end in a row, whose
// restart must wait.
TEST_F(PersistentHooks, AnInstanceFoundExitedAfterOtherEndsInARowWaitsItsBackoffAndTheEventFails) {
  HookSettings& settings = persistent("quitter");
  settings.start = HookStart::eager;
  settings.instances = 2;
  write_server("quitter", "tool_call", kAllow, "echo $$ >> '" + file("pids") + "'\nexit 0\n");
  install();
  for (int i = 0; i < 500 && pids().size() < 2; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_THAT(pids(), SizeIs(2));
  for (const pid_t pid : pids())
    for (int i = 0; i < 500 && !testing::process_gone(pid); ++i) std::this_thread::sleep_for(10ms);
  (void)hooks_.emit(tool_call());
  EXPECT_THAT(log_.text(), HasSubstr("persistent hook 'quitter': instance 1 had exited between requests; restarted"));
  EXPECT_THAT(last_error(), HasSubstr("(persistent): instance 1 ended: exit code 0"));
  (void)hooks_.emit(tool_call());
  EXPECT_THAT(last_error(), AllOf(HasSubstr("(persistent): instance 2 exited between requests and restarts in "),
                                  HasSubstr(" ms; this event is not sent")));
  EXPECT_THAT(pids(), SizeIs(3)) << "the event that found instance 2 gone started nothing";
}

// Each crash in a row waits longer for the restart; events that find the hook
// waiting fail at once, without a request.
TEST_F(PersistentHooks, CrashesInARowDelayTheRestartAndTheEventsMeanwhileFail) {
  persistent("crasher");
  write_server("crasher", "tool_call", "  kill -SEGV $$\n");
  install();
  std::vector<std::string> messages;
  while (!refused()) {
    (void)hooks_.emit(tool_call());
    messages.push_back(last_error());
  }
  EXPECT_THAT(messages, ::testing::Contains(HasSubstr("restarts in")));
  EXPECT_THAT(pids(), SizeIs(5)) << "an event that finds the hook waiting to restart starts nothing";
}

TEST_F(PersistentHooks, ACrashLoopRefusesTheHookWithAWarningAndAFailClosedHooksEventsRefuse) {
  persistent("crasher").failure = FailurePolicy::fail_closed;
  write_server("crasher", "tool_call", "  kill -SEGV $$\n");
  install();
  while (!refused()) EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::deny);
  EXPECT_THAT(log_.text(), HasSubstr("persistent hook 'crasher' (" + hook("crasher").string() +
                                     ") refused: its instances ended 5 times within 60 s (the last: ended: killed by "
                                     "signal 11 (SIGSEGV)); from now on its events fail, under its failure policy"));
  const ToolCallResult later = hooks_.emit(tool_call());
  EXPECT_EQ(later.decision, Decision::deny);
  EXPECT_THAT(later.reason, HasSubstr("(persistent): refused: its instances ended 5 times"));
  EXPECT_THAT(pids(), SizeIs(5)) << "a refused hook is not started again";
}

TEST_F(PersistentHooks, ACrashLoopOfAFailOpenHookLetsItsEventsThrough) {
  persistent("crasher");
  write_server("crasher", "tool_call", "  exit 3\n");
  install();
  while (!refused()) EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("refused: its instances ended 5 times within 60 s (the last: ended: exit code 3)"));
}

// ---------------------------------------------------------- out of step

TEST_F(PersistentHooks, AnAnswerWithAnotherIdIsAFailureAndTheInstanceIsReplaced) {
  persistent("skewed");
  write_server("skewed", "tool_call", "  echo \"{\\\"id\\\":$((id + 1)),\\\"decision\\\":\\\"deny\\\"}\"\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none) << "an answer to another request is not this one's";
  EXPECT_THAT(last_error(), HasSubstr("(persistent): instance 1 is out of step: it answered request 1 with \"id\": 2 "
                                      "(killed)"));
  EXPECT_TRUE(testing::process_gone(pids().at(0)));
  (void)hooks_.emit(tool_call());
  EXPECT_THAT(pids(), SizeIs(2));
}

TEST_F(PersistentHooks, AnAnswerWithoutAnIdIsAFailureAndTheInstanceIsReplaced) {
  persistent("forgetful");
  write_server("forgetful", "tool_call", "  echo '{\"decision\":\"deny\"}'\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("out of step: its answer to request 1 has no \"id\" (killed)"));
  EXPECT_TRUE(testing::process_gone(pids().at(0)));
}

TEST_F(PersistentHooks, GarbageOrAnAnswerThatIsNotAnObjectIsAFailureAndTheInstanceIsReplaced) {
  persistent("garbled");
  write_server("garbled", "tool_call",
               "  if [ \"$id\" = 1 ]; then echo 'not json'; else echo '[1, 2]'; fi\n");
  install();
  (void)hooks_.emit(tool_call());
  EXPECT_THAT(last_error(), HasSubstr("out of step: its answer is not valid JSON: "));
  (void)hooks_.emit(tool_call());
  EXPECT_THAT(last_error(), HasSubstr("out of step: its answer is array, not a JSON object"));
  EXPECT_THAT(pids(), SizeIs(2));
  EXPECT_TRUE(testing::process_gone(pids().at(0)));
  EXPECT_TRUE(testing::process_gone(pids().at(1)));
}

TEST_F(PersistentHooks, AnAnswerLineOverTheLimitIsAFailureAndTheInstanceIsReplaced) {
  persistent("verbose");
  write_server("verbose", "tool_call",
               "  if [ \"$id\" = 1 ]; then head -c " + std::to_string(default_output_limit + 1) +
                   " /dev/zero | tr '\\0' a; echo; fi\n" + kDenyNamingTheRequest);
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr(fmt::format("(persistent): instance 1 answer line longer than {} bytes (killed)",
                                                  default_output_limit)));
  EXPECT_TRUE(testing::process_gone(pids().at(0)));
  const std::string second = hooks_.emit(tool_call()).reason;
  ASSERT_THAT(pids(), SizeIs(2)) << last_error();
  EXPECT_EQ(second, "request 2 by " + std::to_string(pids().at(1)));
}

// The instance closes its stdin and stays up: the request finds no reader
// (EPIPE), and no answer comes.
TEST_F(PersistentHooks, AnInstanceThatNoLongerReadsRaisesNoSigpipe) {
  // SIGPIPE at its default: had the write to the instance raised one, this test process would die.
  struct sigaction previous {};
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  ::sigaction(SIGPIPE, &default_action, &previous);
  HookSettings& settings = persistent("deaf");
  settings.start = HookStart::eager;
  settings.timeout = 500ms;
  settings.failure = FailurePolicy::fail_closed;
  write_script(hook("deaf"), "if [ \"$1\" = hook ]; then echo tool_call; exit 0; fi\n"
                             "exec 0<&-\n"
                             "echo $$ > '" + file("deaf") + "'\n"
                             "exec sleep 60\n");
  install();
  const pid_t deaf = pid_in("deaf");
  const ToolCallResult outcome = hooks_.emit(tool_call(std::string(1 << 20, 'x')));
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, AllOf(HasSubstr("(persistent): instance 1 timed out after "), HasSubstr(" ms (killed)")));
  EXPECT_TRUE(testing::process_gone(deaf));
  ::sigaction(SIGPIPE, &previous, nullptr);
}

// ------------------------------------------------------- instances, threads

// Four threads emit at once to a hook of two instances: both serve, each one
// request at a time, requests in the order they reach it, and every answer
// goes to the emit that asked.
TEST_F(PersistentHooks, FourThreadsShareTwoInstancesEachServingInOrder) {
  persistent("pair").instances = 2;
  write_server("pair", "tool_call",
               "  echo \"$$ $id\" >> '" + file("served") + "'\n"
               "  sleep 0.02\n"
               "  marker=${line#*'\"command\":\"'}; marker=${marker%%'\"'*}\n"
               "  echo \"{\\\"id\\\":$id,\\\"decision\\\":\\\"deny\\\",\\\"reason\\\":\\\"$marker\\\"}\"\n");
  install();
  constexpr int kThreads = 4;
  constexpr int kEmits = 10;
  std::vector<std::vector<std::string>> reasons(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < kEmits; ++i)
          reasons[t].push_back(hooks_.emit(tool_call(fmt::format("thread-{}-{}", t, i))).reason);
      });
  }
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kEmits; ++i) EXPECT_EQ(reasons[t][i], fmt::format("thread-{}-{}", t, i));
  EXPECT_THAT(pids(), SizeIs(2)) << "two instances, both used";
  std::map<pid_t, std::vector<int>> ids_by_instance;
  std::istringstream served(read_file(dir_ / "served"));
  for (pid_t pid; served >> pid;) {
    int id = 0;
    served >> id;
    ids_by_instance[pid].push_back(id);
  }
  EXPECT_THAT(ids_by_instance, SizeIs(2));
  for (const auto& [pid, ids] : ids_by_instance) EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << pid;
  EXPECT_THAT(errors(), IsEmpty());
}

// One instance, busy with request 1; two more events wait in turn. Once
// request 1 is answered, the first waiting one is sent (request 2, held
// until the end), so the second waits past its timeout: it had begun to wait
// before request 2 was sent, which has the same timeout.
TEST_F(PersistentHooks, AnEventThatGetsNoInstanceWithinItsTimeoutFails) {
  HookSettings& settings = persistent("busy");
  settings.timeout = 2s;
  settings.failure = FailurePolicy::fail_closed;
  write_server("busy", "tool_call",
               "  echo > '" + file("busy-") + "'\"$id\"\n"
               "  while [ ! -e '" + file("go-") + "'\"$id\" ]; do sleep 0.01; done\n" + kAllow);
  install();
  logger()->set_level(spdlog::level::debug);
  std::jthread first([&] { (void)hooks_.emit(tool_call("first")); });
  testing::wait_for_file(dir_ / "busy-1");
  std::jthread second([&] { (void)hooks_.emit(tool_call("second")); });
  EXPECT_TRUE(log_.wait_for("persistent hook 'busy': a request waits its turn (0 ahead of it; 1 of 1 instance busy)"));
  ToolCallResult third;
  std::jthread waiting([&] { third = hooks_.emit(tool_call("third")); });
  EXPECT_TRUE(log_.wait_for("persistent hook 'busy': a request waits its turn (1 ahead of it; 1 of 1 instance busy)"));
  testing::write_file(dir_ / "go-1", "");
  testing::wait_for_file(dir_ / "busy-2");
  waiting.join();
  testing::write_file(dir_ / "go-2", "");
  EXPECT_EQ(third.decision, Decision::deny);
  EXPECT_THAT(third.reason, HasSubstr("(persistent): no instance was free within its timeout of 2000 ms (1 instance, "
                                      "all busy)"));
  EXPECT_THAT(pids(), SizeIs(1));
}

// -------------------------------------------------------------- shutdown

TEST_F(PersistentHooks, DroppingTheInstallationShutsAWellBehavedInstanceDownThroughEndOfFile) {
  persistent("polite");
  write_server("polite", "tool_call", kAllow);
  // After its loop ends (stdin closed), it says so.
  write_file(hook("polite"), read_file(hook("polite")) + "echo > '" + file("saw-eof") + "'\n", 0755);
  install({.persistent_shutdown_grace = kHangBound});  // it has all the time it needs, to show it used none
  (void)hooks_.emit(tool_call());
  installed_ = {};
  EXPECT_TRUE(fs::exists(dir_ / "saw-eof"));
  EXPECT_TRUE(testing::process_gone(pids().at(0)));
}

TEST_F(PersistentHooks, DroppingTheInstallationKillsAnInstanceThatIgnoresEndOfFileAndSigterm) {
  persistent("stubborn");
  write_server("stubborn", "tool_call", std::string(kAllow) + "  trap '' TERM\n" +
                                            testing::start_setsid_sleeper(file("grandchild.pid")) +
                                            "  while :; do sleep 1; done\n");
  install();
  (void)hooks_.emit(tool_call());
  const pid_t grandchild = pid_in("grandchild.pid");  // the instance now sleeps, deaf to end of file and SIGTERM
  installed_ = {};
  EXPECT_TRUE(testing::process_gone(pids().at(0)));
  EXPECT_TRUE(testing::process_gone(grandchild));
}

TEST_F(PersistentHooks, TheBusGoingAwayShutsTheInstancesDown) {
  persistent("guard");
  write_server("guard", "tool_call", kAllow);
  ConnectionGroup outliving_the_bus;
  {
    Hooks bus;
    HookDirectories dirs;
    dirs.add(project_.path() / ".hookbus" / "hooks", "project");
    InstalledHooks installed =
        install_external_hooks(bus, discover_hooks(dirs), LayeredConfig({config_}), {.project_dir = project_.path()});
    outliving_the_bus = std::move(installed.connections);
    (void)bus.emit(tool_call());
  }
  EXPECT_TRUE(testing::process_gone(pids().at(0)));
}

// ------------------------------------ the Python helper and the example hook

const fs::path kExamples = HOOKBUS_EXAMPLE_HOOKS;

// PATH with the system's python3 first, for `#!/usr/bin/env python3`: a PATH
// shim such as pyenv's can take seconds to start.
std::string system_python_first() {
  const char* path = std::getenv("PATH");
  return "/usr/bin:" + std::string(path != nullptr ? path : "");
}

class PythonHooks : public PersistentHooks {
 protected:
  // hookbus_hook.py in the hook directory, as a library (0644: discovery ignores it).
  void SetUp() override {
    PersistentHooks::SetUp();
    write_file(hook("hookbus_hook.py"), read_file(kExamples / "hookbus_hook.py"), 0644);
  }
  void copy_example(const std::string& name) const { write_file(hook(name), read_file(kExamples / name), 0755); }

  // A hook written with the helper: `body` registers its handlers.
  void write_python_hook(const std::string& name, const std::string& body) const {
    write_file(hook(name),
               "#!/usr/bin/python3\n"
               "import os, sys\n"
               "sys.dont_write_bytecode = True\n"
               "sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))\n"
               "import hookbus_hook\n"
               "hook = hookbus_hook.Hook()\n" +
                   body + "hook.main()\n",
               0755);
  }

  // Runs `check` with the hook `name` installed spawned per event, then persistent.
  void installed_in_both_modes(const std::string& name, const std::function<void()>& check) {
    for (const HookMode mode : {HookMode::spawn, HookMode::persistent}) {
      SCOPED_TRACE(mode == HookMode::spawn ? "spawned per event" : "persistent");
      config_.hooks[name].mode = mode;
      install();
      check();
      installed_ = {};
    }
  }

  const testing::ScopedEnvironment python_{{"PATH", system_python_first()}};
};

TEST_F(PythonHooks, TheLoopGuardExampleAnswersHookWithItsEvents) {
  copy_example("loop-guard");
  const ProcessResult run = run_process({.program = hook("loop-guard"), .arguments = {"hook"}});
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_EQ(run.stdout_text, "tool_call\n");
}

TEST_F(PythonHooks, TheLoopGuardExampleRefusesTheFourthIdenticalCallWhenPersistent) {
  copy_example("loop-guard");
  persistent("loop-guard");
  install();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(hooks_.emit(tool_call("make")).decision, Decision::none);
  const ToolCallResult fourth = hooks_.emit(tool_call("make"));
  EXPECT_EQ(fourth.decision, Decision::deny);
  EXPECT_EQ(fourth.reason, "loop-guard: the same bash call 4 times in a row; the agent looks stuck");
  EXPECT_EQ(hooks_.emit(tool_call("make test")).decision, Decision::none);
  EXPECT_THAT(errors(), IsEmpty());
  EXPECT_FALSE(fs::exists(hook("__pycache__"))) << "a new file in the hook directory would change the trust fingerprint";
}

TEST_F(PythonHooks, TheLoopGuardExampleRunOncePerEventSeesOneCallAtATime) {
  copy_example("loop-guard");
  install();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(hooks_.emit(tool_call("make")).decision, Decision::none);
  EXPECT_THAT(errors(), IsEmpty());
}

TEST_F(PythonHooks, TheHelperAnswersRunAndServeAlike) {
  write_python_hook("guard",
                    "@hook.on('before_tool_call')\n"
                    "def guard(payload):\n"
                    "    if payload['input']['command'] == 'rm -rf /':\n"
                    "        return hookbus_hook.refuse('not that')\n"
                    "    return {'additional_context': ['checked ' + payload['event']]}\n");
  installed_in_both_modes("guard", [&] {
    const ToolCallResult refused = hooks_.emit(tool_call("rm -rf /"));
    EXPECT_EQ(refused.decision, Decision::deny);
    EXPECT_EQ(refused.reason, "not that");
    EXPECT_THAT(hooks_.emit(tool_call("ls")).additional_context, ElementsAre("checked before_tool_call"));
  });
  EXPECT_THAT(errors(), IsEmpty());
}

TEST_F(PythonHooks, UnderServeTheHelperAnswersAnExceptionWithAnErrorAndGoesOn) {
  write_python_hook("flaky",
                    "@hook.on('tool_call')\n"
                    "def flaky(payload):\n"
                    "    if payload['input']['command'] == 'boom':\n"
                    "        raise ValueError('cannot judge boom')\n"
                    "    return hookbus_hook.refuse('judged')\n");
  persistent("flaky");
  install();
  EXPECT_EQ(hooks_.emit(tool_call("boom")).decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("(persistent): answered with an error: ValueError: cannot judge boom"));
  EXPECT_TRUE(log_.wait_for("hook 'flaky' (instance 1): ValueError: cannot judge boom"))
      << "the traceback goes to stderr, which is logged";
  EXPECT_EQ(hooks_.emit(tool_call("ls")).reason, "judged");
}

// It counts its calls: an instance whose loop had ended would be replaced, and count from 1 again.
TEST_F(PythonHooks, UnderServeAnAnswerJsonCannotEncodeIsAnErrorAndTheLoopGoesOn) {
  write_python_hook("tagger",
                    "calls = 0\n"
                    "@hook.on('tool_call')\n"
                    "def tagger(payload):\n"
                    "    global calls\n"
                    "    calls += 1\n"
                    "    if payload['input']['command'] == 'tag':\n"
                    "        return {'decision': 'deny', 'tags': {'a set'}}\n"
                    "    return hookbus_hook.refuse(f'call {calls}')\n");
  persistent("tagger");
  install();
  EXPECT_EQ(hooks_.emit(tool_call("tag")).decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("(persistent): answered with an error: TypeError: Object of type set is not JSON "
                                      "serializable"));
  EXPECT_EQ(hooks_.emit(tool_call("ls")).reason, "call 2");
  EXPECT_THAT(errors(), SizeIs(1));
}

TEST_F(PythonHooks, WhatAHandlerPrintsGoesToStderrAndTheAnswerStaysWhole) {
  write_python_hook("chatty",
                    "@hook.on('tool_call')\n"
                    "def chatty(payload):\n"
                    "    print('looking at', payload['input']['command'])\n"
                    "    return hookbus_hook.refuse('judged')\n");
  installed_in_both_modes("chatty", [&] {
    EXPECT_EQ(hooks_.emit(tool_call("ls")).reason, "judged");
    EXPECT_EQ(hooks_.emit(tool_call("make")).reason, "judged");
  });
  EXPECT_THAT(errors(), IsEmpty());
  EXPECT_TRUE(log_.wait_for("hook 'chatty' (instance 1): looking at make"));
}

}  // namespace
}  // namespace hookbus
