// Background hooks (`"async": true` in config, Claude Code's `"async"`): the
// installation's pool, its bounded queue, dropped runs, and its end, with
// real hook processes (docs/external-hooks.md, "Background hooks").
#include "project_hooks_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace std::chrono_literals;
using testing::kAllow;
using testing::write_script;

class BackgroundHooks : public testing::ProjectHooks {
 protected:
  // A hook of `events`, spawned per event: appends its pid to "started",
  // waits for the file "go", appends to "finished", and denies.
  void write_waiting_hook(const std::string& name, const std::string& events = "tool_call") {
    write_script(hook(name), "if [ \"$1\" = hook ]; then printf '%s\\n' " + events + "; exit 0; fi\n"
                             "echo $$ >> '" + file("started") + "'\n"
                             "while [ ! -e '" + file("go") + "' ]; do sleep 0.01; done\n"
                             "echo $$ >> '" + file("finished") + "'\n"
                             "echo '{\"decision\": \"deny\"}'\n");
  }

  // Waits (at most a few seconds) until the file `name` has `lines` lines.
  bool wait_for_lines(const std::string& name, std::size_t lines) const {
    for (int i = 0; i < 1000; ++i) {
      const std::string text = testing::read_file(dir_ / name);
      if (static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) >= lines) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }

  BackgroundCounts counts() const { return installed_.background.counts(); }
};

TEST_F(BackgroundHooks, TheEmitDoesNotWaitForAnAsyncHookAndIgnoresItsAnswer) {
  config_.hooks["audit"].async = true;
  write_waiting_hook("audit");
  install();
  // The hook cannot finish before "go" exists: the emit returned without it.
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  testing::write_file(dir_ / "go", "");
  EXPECT_TRUE(wait_for_lines("finished", 1));
  EXPECT_THAT(errors(), IsEmpty());
}

TEST_F(BackgroundHooks, WaitReturnsOnceEveryQueuedRunHasEnded) {
  config_.hooks["audit"].async = true;
  write_script(hook("audit"), "if [ \"$1\" = hook ]; then echo agent_end; exit 0; fi\n"
                              "sleep 0.2; echo $$ >> '" + file("finished") + "'\n");
  install();
  (void)hooks_.emit(AgentEndEvent{});
  (void)hooks_.emit(AgentEndEvent{});
  installed_.background.wait();
  const std::string finished = testing::read_file(dir_ / "finished");
  EXPECT_EQ(std::count(finished.begin(), finished.end(), '\n'), 2);
  EXPECT_EQ(counts().finished, 2u);
}

// Two workers: a run queued after wait() was called, which ends while an
// earlier one still runs, does not count for it.
TEST_F(BackgroundHooks, WaitWaitsForTheRunsQueuedBeforeItWhateverEndsMeanwhile) {
  config_.hooks["slow"].async = true;
  write_script(hook("slow"), "if [ \"$1\" = hook ]; then echo agent_end; exit 0; fi\n"
                             "echo > '" + file("slow-started") + "'\n"
                             "while [ ! -e '" + file("go") + "' ]; do sleep 0.01; done\n");
  config_.hooks["quick"].async = true;
  write_script(hook("quick"), "if [ \"$1\" = hook ]; then echo turn_end; exit 0; fi\nexit 0\n");
  install({.background = {.workers = 2}});
  logger()->set_level(spdlog::level::debug);
  (void)hooks_.emit(AgentEndEvent{});
  ASSERT_TRUE(wait_for_lines("slow-started", 1));
  const BackgroundRuns runs = installed_.background;
  std::atomic<bool> returned{false};
  std::uint64_t finished_when_returned = 0;
  std::jthread waiter([&] {
    runs.wait();
    finished_when_returned = runs.counts().finished;
    returned = true;
  });
  // The asserts below are EXPECTs: the waiter returns only once "go" is written.
  EXPECT_TRUE(log_.wait_for("waiting for 1 background run to end")) << "wait() has not taken its count";
  (void)hooks_.emit(TurnEndEvent{});  // queued after the call; the other worker runs it to its end
  for (int i = 0; i < 1000 && counts().finished < 1; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(counts().finished, 1u);
  // A wait() that counted that end would return now, with the slow run still going; give it the chance.
  for (int i = 0; i < 50 && !returned; ++i) std::this_thread::sleep_for(10ms);
  testing::write_file(dir_ / "go", "");
  waiter.join();
  EXPECT_EQ(finished_when_returned, 2u) << "wait() returned before the run queued before it had ended";
}

TEST_F(BackgroundHooks, WaitReturnsOnceTheInstallationsEndStoppedOrCancelledItsRuns) {
  config_.hooks["audit"].async = true;
  write_waiting_hook("audit");
  install();
  for (int i = 0; i < 3; ++i) (void)hooks_.emit(tool_call());
  const BackgroundRuns runs = installed_.background;
  installed_ = {};  // "go" never comes: the running run is stopped, the queued ones cancelled
  runs.wait();
  EXPECT_EQ(runs.counts().finished + runs.counts().cancelled, 3u);
}

TEST_F(BackgroundHooks, AnAsyncPersistentHookServesInTheBackground) {
  HookSettings& settings = config_.hooks["recorder"];
  settings.async = true;
  settings.mode = HookMode::persistent;
  write_server("recorder", "agent_end", "  echo \"$id\" >> '" + file("served") + "'\n" + std::string(kAllow));
  install();
  for (int i = 0; i < 3; ++i) (void)hooks_.emit(AgentEndEvent{});
  EXPECT_TRUE(wait_for_lines("served", 3));
  EXPECT_THAT(pids(), ::testing::SizeIs(1));
}

TEST_F(BackgroundHooks, AFullQueueDropsTheRunCountsItAndWarns) {
  config_.hooks["audit"].async = true;
  write_waiting_hook("audit");
  install({.background = {.workers = 1, .queue_limit = 1}});
  (void)hooks_.emit(tool_call());
  ASSERT_TRUE(wait_for_lines("started", 1));  // the worker is busy with the first run
  (void)hooks_.emit(tool_call());             // waits in the queue
  (void)hooks_.emit(tool_call());             // finds the queue full
  EXPECT_EQ(counts().queued, 2u);
  EXPECT_EQ(counts().dropped, 1u);
  EXPECT_THAT(log_.text(), HasSubstr("background run of hook 'audit' on 'tool_call' dropped: 1 run already waits for "
                                     "the 1 background worker (1 dropped so far)"));
  testing::write_file(dir_ / "go", "");
  EXPECT_TRUE(wait_for_lines("finished", 2));
}

TEST_F(BackgroundHooks, RunsStillQueuedOrRunningWhenTheInstallationGoesAreStoppedAndCancelled) {
  config_.hooks["audit"].async = true;
  write_waiting_hook("audit");
  install({.background = {.workers = 1, .queue_limit = 4}});
  (void)hooks_.emit(tool_call());
  ASSERT_TRUE(wait_for_lines("started", 1));
  (void)hooks_.emit(tool_call());
  const BackgroundRuns background = installed_.background;
  installed_ = {};  // the pool goes: the running hook is killed, the queued one never runs
  EXPECT_TRUE(testing::process_gone(std::stoi(testing::read_file(dir_ / "started"))));
  EXPECT_FALSE(fs::exists(dir_ / "finished"));
  EXPECT_EQ(background.counts().finished, 1u);
  EXPECT_EQ(background.counts().cancelled, 1u);
}

TEST_F(BackgroundHooks, AFailingBackgroundRunIsLogged) {
  config_.hooks["broken"].async = true;
  write_script(hook("broken"), "if [ \"$1\" = hook ]; then echo agent_end; exit 0; fi\necho oops >&2; exit 1\n");
  install();
  (void)hooks_.emit(AgentEndEvent{});
  EXPECT_TRUE(log_.wait_for("background hook 'broken' failed on 'agent_end': "));
  EXPECT_THAT(log_.text(), HasSubstr("exit code 1; stderr: oops"));
  EXPECT_THAT(errors(), IsEmpty()) << "the emit is over: nobody is told but the log";
}

TEST_F(BackgroundHooks, AnAsyncHookOfAGatingEventIsAWarningAtInstall) {
  config_.hooks["guard"] = HookSettings{.async = true, .location = {.file = "config.json", .path = "hooks.guard"}};
  write_waiting_hook("guard", "tool_call agent_end");
  testing::write_file(dir_ / "go", "");
  install();
  EXPECT_THAT(installed_.report.warnings,
              ElementsAre("config.json: hooks.guard.async: hook 'guard' is async, so its answer is ignored: on "
                          "tool_call it can refuse nothing (a guard must not be async)"));
}

TEST_F(BackgroundHooks, AnAsyncHookOfObserveOnlyEventsIsNoWarning) {
  config_.hooks["audit"].async = true;
  write_waiting_hook("audit", "agent_end turn_end");
  install();
  EXPECT_THAT(installed_.report.warnings, IsEmpty());
}

TEST_F(BackgroundHooks, AProjectConfigCannotMakeAUsersGuardAsync) {
  testing::TempDir user;
  testing::write_script(user.path() / "guard", "if [ \"$1\" = hook ]; then echo tool_call; exit 0; fi\nexit 2\n");
  HookDirectories dirs;
  dirs.add(user.path(), "user", "", Layer::user);
  Config project;
  project.layer = Layer::project;
  project.file = "/p/.hookbus/config.json";
  project.hooks["guard"] = HookSettings{.async = true, .location = {.file = project.file, .path = "hooks.guard"}};
  installed_ = install_external_hooks(hooks_, discover_hooks(dirs), LayeredConfig({project}),
                                      {.project_dir = project_.path()});
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::deny) << "the user's guard still decides";
  EXPECT_THAT(installed_.report.warnings,
              ElementsAre(HasSubstr("the project config may not change the user layer's hook 'guard'")));
}

TEST_F(BackgroundHooks, AClaudeCodeHookFileThatConfigMakesAsyncRunsInTheBackground) {
  config_.hooks["notify.sh"] =
      HookSettings{.protocol = HookProtocol::claude_code, .events = {"PreToolUse"}, .async = true};
  write_script(hook("notify.sh"), "while [ ! -e '" + file("go") + "' ]; do sleep 0.01; done\n"
                                  "echo > '" + file("finished") + "'\necho denied >&2\nexit 2\n");
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  testing::write_file(dir_ / "go", "");
  EXPECT_TRUE(wait_for_lines("finished", 1));
  EXPECT_EQ(counts().queued, 1u);
}

TEST_F(BackgroundHooks, ClaudeCodeAsyncCommandsShareTheInstallationsPool) {
  const std::string waiting = "echo $$ >> '" + file("started") + "'; while [ ! -e '" + file("go") +
                              "' ]; do sleep 0.01; done; echo $$ >> '" + file("finished") + "'";
  install({.claude_code = {ClaudeCodeCommand{.event = "PreToolUse",
                                             .command = waiting,
                                             .async = true,
                                             .label = "slow",
                                             .source = "settings.json: hooks.PreToolUse[0].hooks[0]",
                                             .layer = Layer::project}},
           .background = {.workers = 1, .queue_limit = 1}});
  EXPECT_THAT(installed_.report.warnings,
              ElementsAre(HasSubstr("hook 'slow' is async, so its answer is ignored: on tool_call it can refuse "
                                    "nothing")));
  (void)hooks_.emit(tool_call());
  ASSERT_TRUE(wait_for_lines("started", 1));
  (void)hooks_.emit(tool_call());
  (void)hooks_.emit(tool_call());
  EXPECT_EQ(counts().dropped, 1u);
  EXPECT_THAT(log_.text(), HasSubstr("background run of Claude Code hook slow (settings.json: hooks.PreToolUse[0]."
                                     "hooks[0]) on PreToolUse dropped"));
  testing::write_file(dir_ / "go", "");
  EXPECT_TRUE(wait_for_lines("finished", 2));
}

}  // namespace
}  // namespace hookbus
