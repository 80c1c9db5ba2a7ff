// Cancelling an emit's external hooks: emit(event, std::stop_token)
// (docs/semantics.md section 12, docs/external-hooks.md "Cancelling an emit's hooks").
// The bus's part with in-process handlers, then real hook processes: spawned
// per event, persistent, and Claude Code commands.
#include "project_hooks_fixture.hpp"

#include <hookbus/claude_code.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <stop_token>
#include <string_view>
#include <thread>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using namespace std::chrono_literals;
using testing::kAllow;
using testing::write_script;
using testing::kHangBound;

// ------------------------------------------------------------------ the bus

TEST(EmitStop, AHandlerSeesTheTokenOfItsEmit) {
  Hooks hooks;
  std::stop_source stop;
  bool stop_possible = false;
  bool stopped = false;
  const Connection handler = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) {
    stop_possible = emit_stop_token().stop_possible();
    stopped = emit_stop_token().stop_requested();
  });
  (void)hooks.emit(TurnStartEvent{}, stop.get_token());
  EXPECT_TRUE(stop_possible);
  EXPECT_FALSE(stopped);
  stop.request_stop();
  (void)hooks.emit(TurnStartEvent{}, stop.get_token());
  EXPECT_TRUE(stopped);
}

TEST(EmitStop, OutsideAnEmitWithATokenTheTokenCanNeverBeStopped) {
  Hooks hooks;
  bool stop_possible = true;
  const Connection handler =
      hooks.on<TurnStartEvent>([&](const TurnStartEvent&) { stop_possible = emit_stop_token().stop_possible(); });
  std::stop_source stop;
  (void)hooks.emit(TurnStartEvent{}, stop.get_token());
  (void)hooks.emit(TurnStartEvent{});
  EXPECT_FALSE(stop_possible);
  EXPECT_FALSE(emit_stop_token().stop_possible()) << "the emit's token is gone once it returned";
}

TEST(EmitStop, EveryFormOfEmitTakesAToken) {
  Hooks hooks;
  std::stop_source stop;
  stop.request_stop();
  int seen_stopped = 0;
  const Connection handler = hooks.on<ToolCallEvent>([&](const ToolCallEvent&) -> std::optional<ToolCallResult> {
    seen_stopped += emit_stop_token().stop_requested() ? 1 : 0;
    return std::nullopt;
  });
  const ToolCallEvent event;
  (void)hooks.emit(event, stop.get_token());
  (void)hooks.emit(ToolCallEvent{}, stop.get_token());
  (void)hooks.emit(HookEvent(event), stop.get_token());
  EXPECT_EQ(seen_stopped, 3);
}

TEST(EmitStop, ANestedEmitWithoutATokenKeepsItsCallersToken) {
  Hooks hooks;
  std::stop_source outer;
  bool nested_sees_outer = false;
  const Connection nested = hooks.on<TurnEndEvent>(
      [&](const TurnEndEvent&) { nested_sees_outer = emit_stop_token() == outer.get_token(); });
  const Connection handler = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) { (void)hooks.emit(TurnEndEvent{}); });
  (void)hooks.emit(TurnStartEvent{}, outer.get_token());
  EXPECT_TRUE(nested_sees_outer);
}

TEST(EmitStop, ANestedEmitWithItsOwnTokenUsesItAndTheCallersComesBackAfter) {
  Hooks hooks;
  std::stop_source outer;
  std::stop_source inner;
  bool nested_sees_inner = false;
  bool caller_sees_outer_after = false;
  const Connection nested = hooks.on<TurnEndEvent>(
      [&](const TurnEndEvent&) { nested_sees_inner = emit_stop_token() == inner.get_token(); });
  const Connection handler = hooks.on<TurnStartEvent>([&](const TurnStartEvent&) {
    (void)hooks.emit(TurnEndEvent{}, inner.get_token());
    caller_sees_outer_after = emit_stop_token() == outer.get_token();
  });
  (void)hooks.emit(TurnStartEvent{}, outer.get_token());
  EXPECT_TRUE(nested_sees_inner);
  EXPECT_TRUE(caller_sees_outer_after);
}

// ------------------------------------------------------- external hooks

class Cancellation : public testing::ProjectHooks {
 protected:
  // Emits `event` on a thread of its own, whose stop is requested once `ready` exists.
  ToolCallResult emit_stopped_when(const fs::path& ready, const ToolCallEvent& event) {
    return emit_stopped_after([&] { testing::wait_for_file(ready); }, event);
  }
  // The same, once the log holds `logged`.
  ToolCallResult emit_stopped_when_logged(std::string_view logged, const ToolCallEvent& event) {
    return emit_stopped_after([&] { EXPECT_TRUE(log_.wait_for(logged)) << "never logged: " << logged; }, event);
  }

  // A hook of tool_call, spawned per event, that writes its pid to "pid" and
  // starts a grandchild (pid in "grandchild.pid"), then sleeps.
  void write_sleeper(const std::string& name) {
    write_script(hook(name), "if [ \"$1\" = hook ]; then echo tool_call; exit 0; fi\n" +
                                 testing::start_setsid_sleeper(file("grandchild.pid")) + "echo $$ > '" + file("pid") +
                                 "'\nexec sleep 60\n");
  }

 private:
  ToolCallResult emit_stopped_after(const std::function<void()>& wait, const ToolCallEvent& event) {
    ToolCallResult outcome;
    std::jthread emitter([&](std::stop_token stop) { outcome = hooks_.emit(event, std::move(stop)); });
    wait();
    emitter.request_stop();
    emitter.join();
    return outcome;
  }
};

TEST_F(Cancellation, AStopMidRunKillsASpawnedHookWholeAndAFailOpenHookIsSkipped) {
  write_sleeper("slow");
  install();
  const auto started = std::chrono::steady_clock::now();
  const ToolCallResult outcome = emit_stopped_when(dir_ / "pid", tool_call());
  EXPECT_LT(std::chrono::steady_clock::now() - started, kHangBound);
  EXPECT_EQ(outcome.decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("cancelled (killed after"));
  EXPECT_TRUE(testing::process_gone(pid_in("pid")));
  EXPECT_TRUE(testing::process_gone(pid_in("grandchild.pid")));
}

TEST_F(Cancellation, AStopMidRunOfAFailClosedSpawnedHookRefuses) {
  config_.hooks["guard"].failure = FailurePolicy::fail_closed;
  write_sleeper("guard");
  install();
  const ToolCallResult outcome = emit_stopped_when(dir_ / "pid", tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, AllOf(HasSubstr("hook 'guard' failed"), HasSubstr("cancelled")));
}

TEST_F(Cancellation, AStopRequestedBeforeTheEmitStartsNoExternalHook) {
  write_script(hook("marker"), "if [ \"$1\" = hook ]; then echo tool_call; exit 0; fi\necho > '" + file("ran") + "'\n");
  install();
  std::stop_source stop;
  stop.request_stop();
  (void)hooks_.emit(tool_call(), stop.get_token());
  EXPECT_FALSE(fs::exists(dir_ / "ran"));
  EXPECT_THAT(last_error(), HasSubstr("cancelled before it started"));
}

TEST_F(Cancellation, AStopMidRequestKillsAPersistentInstanceAndTheNextEventStartsANewOne) {
  config_.hooks["server"].mode = HookMode::persistent;
  write_server("server", "tool_call",
               "  if [ ! -e '" + file("hung") + "' ]; then echo > '" + file("hung") + "'; exec sleep 60; fi\n" +
                   kAllow);
  install();
  EXPECT_EQ(emit_stopped_when(dir_ / "hung", tool_call()).decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("(persistent): cancelled by the engine (instance 1 was killed)"));
  EXPECT_TRUE(testing::process_gone(pids().at(0)));
  (void)hooks_.emit(tool_call());
  EXPECT_THAT(pids(), ::testing::SizeIs(2));
  EXPECT_EQ(errors().size(), 1u) << "the second event was answered";
}

// The second emit's stop is requested from another thread once its request
// waits for the one instance, which the first emit's request keeps busy.
TEST_F(Cancellation, AStopCancelsARequestWaitingForABusyInstance) {
  config_.hooks["server"].mode = HookMode::persistent;
  write_server("server", "tool_call",
               "  echo > '" + file("busy") + "'\n"
               "  while [ ! -e '" + file("go") + "' ]; do sleep 0.01; done\n" +
                   kAllow);
  install();
  logger()->set_level(spdlog::level::debug);
  std::jthread first([&] { (void)hooks_.emit(tool_call()); });
  testing::wait_for_file(dir_ / "busy");
  const ToolCallResult outcome =
      emit_stopped_when_logged("persistent hook 'server': a request waits its turn (0 ahead of it; 1 of 1 instance "
                               "busy)", tool_call());
  EXPECT_EQ(outcome.decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("(persistent): cancelled by the engine while waiting for a free instance"));
  testing::write_file(dir_ / "go", "");
  first.join();
  EXPECT_THAT(pids(), ::testing::SizeIs(1)) << "the busy instance was left alone";
  EXPECT_EQ(errors().size(), 1u) << "the first emit was answered";
}

TEST_F(Cancellation, AStopRequestedBeforeTheEmitSendsAPersistentHookNothing) {
  config_.hooks["server"].mode = HookMode::persistent;
  write_server("server", "tool_call", kAllow);
  install();
  std::stop_source stop;
  stop.request_stop();
  EXPECT_EQ(hooks_.emit(tool_call(), stop.get_token()).decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("(persistent): cancelled by the engine before the request was sent"));
  EXPECT_FALSE(fs::exists(dir_ / "pids")) << "no instance was started";
}

TEST_F(Cancellation, AStopMidRunKillsAClaudeCodeCommand) {
  const ConnectionGroup installed = install_claude_code_hooks(
      hooks_,
      {ClaudeCodeCommand{.event = "PreToolUse",
                         .command = "echo $$ > '" + file("pid") + "'; exec sleep 60",
                         .label = "slow",
                         .source = "settings.json"}},
      {.project_dir = project_.path()});
  const ToolCallResult outcome = emit_stopped_when(dir_ / "pid", tool_call());
  EXPECT_EQ(outcome.decision, Decision::none);
  EXPECT_THAT(last_error(), HasSubstr("cancelled"));
  EXPECT_TRUE(testing::process_gone(pid_in("pid")));
}

}  // namespace
}  // namespace hookbus
