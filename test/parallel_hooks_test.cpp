// External hooks of one emit run at once, each answer read at its turn, so
// the outcome is the one running them one after another gives
// (docs/semantics.md §16, bus/run_ahead.hpp). Real hook processes; where a
// test shows that runs overlapped, the hooks meet at a rendezvous of files,
// not by timing.
#include "project_hooks_fixture.hpp"

#include <hookbus/external.hpp>
#include <hookbus/trace.hpp>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::write_script;

class ParallelHooks : public testing::ProjectHooks {
 protected:
  void SetUp() override {
    ProjectHooks::SetUp();
    observer_ = hooks_.on_emission([this](const EmissionRecord& record) { records_.push_back(record); });
  }

  // A hookbus-protocol hook of `events` (declared in config, so never asked) running `body`.
  void add_hook(const std::string& name, const std::string& body, std::vector<std::string> events = {"tool_call"}) {
    write_script(hook(name), body);
    config_.hooks[name].events = std::move(events);
  }

  // A hook that marks itself started, then waits (`rounds` × 10 ms at most)
  // for every one of `all` to have started: it answers nothing when they
  // all met, and runs `alone` when they did not (by default it denies "NAME
  // ran alone"; a hook of an event that cannot refuse exits 1, a failure).
  std::string rendezvous(const std::string& name, const std::vector<std::string>& all, int rounds = 500,
                         std::string alone = {}) const {
    if (alone.empty()) alone = "echo '{\"decision\": \"deny\", \"reason\": \"" + name + " ran alone\"}'\n";
    std::string all_started;
    for (const std::string& other : all) all_started += fmt::format(" && [ -e '{}' ]", file("started-" + other));
    return fmt::format("touch '{}'\ni=0\nwhile [ $i -lt {} ]; do\n  if true{}; then exit 0; fi\n  sleep 0.01; i=$((i+1))\ndone\n",
                       file("started-" + name), rounds, all_started) +
           alone;
  }

  const EmissionRecord& only_record() const {
    EXPECT_EQ(records_.size(), 1u);
    return records_.back();
  }

  std::vector<EmissionRecord> records_;
  Connection observer_;
};

std::vector<RanAhead> ran_ahead_of(const EmissionRecord& record) {
  std::vector<RanAhead> ran;
  for (const HandlerRecord& handler : record.handlers) ran.push_back(handler.ran_ahead);
  return ran;
}

TEST_F(ParallelHooks, TheHooksOfOneToolCallRunAtOnce) {
  for (const char* name : {"a", "b", "c"}) add_hook(name, rendezvous(name, {"a", "b", "c"}));
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::none) << outcome.reason;
  EXPECT_THAT(ran_ahead_of(only_record()), ElementsAre(RanAhead::taken, RanAhead::taken, RanAhead::taken));
}

TEST_F(ParallelHooks, AHookThatWouldStartAloneRunsAtItsTurn) {
  add_hook("only", "echo '{\"decision\": \"deny\", \"reason\": \"alone\"}'\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.reason, "alone");
  EXPECT_THAT(ran_ahead_of(only_record()), ElementsAre(RanAhead::no));
}

TEST_F(ParallelHooks, AProjectHookStartsOnlyOnceTheUsersHooksAnswered) {
  testing::TempDir user;
  write_script(user.path() / "guard", "if [ \"$1\" = hook ]; then echo tool_call; exit 0; fi\n"
                                      "echo '{\"decision\": \"deny\", \"reason\": \"the user says no\"}'\n");
  add_hook("peek", "if [ \"$1\" = hook ]; then echo tool_call; exit 0; fi\ntouch '" + file("project-saw-it") + "'\n");
  HookDirectories dirs;
  dirs.add(user.path(), "user", "", Layer::user);
  dirs.add(project_.path() / ".hookbus" / "hooks", "project");
  installed_ = install_external_hooks(hooks_, discover_hooks(dirs), LayeredConfig({config_}),
                                      {.project_dir = project_.path()});
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.reason, "the user says no");
  EXPECT_FALSE(fs::exists(file("project-saw-it"))) << "the project's hook never saw the call the user refused";
  EXPECT_THAT(only_record().runs_stopped, IsEmpty());
}

TEST_F(ParallelHooks, TheHooksOfAnObserveOnlyEventRunAtOnce) {
  for (const char* name : {"a", "b"}) add_hook(name, rendezvous(name, {"a", "b"}, 500, "exit 1\n"), {"agent_start"});
  install();
  hooks_.emit(AgentStartEvent{});
  EXPECT_THAT(errors(), IsEmpty()) << "a hook that ran alone fails";
  EXPECT_THAT(ran_ahead_of(only_record()), ElementsAre(RanAhead::taken, RanAhead::taken));
}

TEST_F(ParallelHooks, WithNoParallelRunsEachHookRunsAtItsTurn) {
  for (const char* name : {"a", "b"}) add_hook(name, rendezvous(name, {"a", "b"}, 20));
  Hooks one_at_a_time(HooksOptions{.parallel_runs = 0});
  HookDirectories dirs;
  dirs.add(project_.path() / ".hookbus" / "hooks", "project");
  InstalledHooks installed = install_external_hooks(
      one_at_a_time, discover_hooks(dirs, {.declared = [](Layer, std::string_view) {
                                      return std::optional<HookDeclaration>(HookDeclaration{HookProtocol::hookbus, {"tool_call"}});
                                    }}),
      LayeredConfig({config_}), {.project_dir = project_.path()});
  const ToolCallResult outcome = one_at_a_time.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "a ran alone");
}

TEST_F(ParallelHooks, ALaterHookThatSawAnEventAnEarlierAnswerChangedRunsAgainOnTheChangedOne) {
  add_hook("1-rewrite", "echo '{\"input\": {\"command\": \"ls -la\"}}'\n");
  add_hook("2-reader", "payload=$(cat)\necho \"$payload\" >> '" + file("seen") + "'\n"
                       "case \"$payload\" in *'ls -la'*) echo '{\"decision\": \"deny\", \"reason\": \"saw the rewrite\"}';; esac\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call("ls"));
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_EQ(outcome.reason, "saw the rewrite");
  EXPECT_THAT(ran_ahead_of(only_record()), ElementsAre(RanAhead::taken, RanAhead::discarded));
  EXPECT_THAT(testing::read_file(file("seen")), HasSubstr("ls -la")) << "its second run saw the rewritten input";
}

TEST_F(ParallelHooks, TheRunsThatSawTheEventBeforeARewriteStartAgainTogetherOnTheRewrittenOne) {
  add_hook("1-rewrite", "echo '{\"input\": {\"command\": \"ls -la\"}}'\n");
  for (const char* name : {"2-reader", "3-reader"})  // they meet only on the rewritten input
    add_hook(name, "payload=$(cat)\ncase \"$payload\" in *'ls -la'*) ;; *) exit 0;; esac\n" +
                       rendezvous(name, {"2-reader", "3-reader"}));
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call("ls"));
  EXPECT_EQ(outcome.decision, Decision::none) << outcome.reason;
  EXPECT_THAT(ran_ahead_of(only_record()), ElementsAre(RanAhead::taken, RanAhead::discarded, RanAhead::discarded));
}

TEST_F(ParallelHooks, AHookStillRunningWhenAnEarlierOneDeniesIsStoppedAndNamedInTheTrace) {
  add_hook("1-deny", "echo '{\"decision\": \"deny\", \"reason\": \"first\"}'\n");
  add_hook("2-slow", "touch '" + file("slow-started") + "'\nsleep 30\ntouch '" + file("slow-finished") + "'\n");
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  ASSERT_TRUE(outcome.decided_by);
  EXPECT_EQ(outcome.decided_by->handler, "1-deny");
  const EmissionRecord& record = only_record();
  ASSERT_EQ(record.handlers.size(), 1u) << "the trace lists the handlers a sequential emit reaches";
  EXPECT_THAT(record.runs_stopped, ElementsAre("2-slow"));
  EXPECT_FALSE(fs::exists(file("slow-finished"))) << "its process was stopped before it ended";
}

TEST_F(ParallelHooks, ASequentialHookDoesNotRunForACallAnEarlierHookDenied) {
  add_hook("1-deny", "echo '{\"decision\": \"deny\", \"reason\": \"first\"}'\n");
  add_hook("2-audit", "touch '" + file("audited") + "'\n");
  config_.hooks["2-audit"].sequential = true;
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::deny);
  EXPECT_FALSE(fs::exists(file("audited")));
  EXPECT_THAT(only_record().runs_stopped, IsEmpty());
}

TEST_F(ParallelHooks, AKodeletHookRunsAtItsTurnOnAGatingEvent) {
  for (const char* name : {"a", "b"}) {
    add_hook(name, rendezvous(name, {"a", "b"}, 20), {"before_tool_call"});
    config_.hooks[name].protocol = HookProtocol::kodelet;
  }
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.reason, "a ran alone") << "kodelet runs no hook after one that refused";
  EXPECT_THAT(ran_ahead_of(only_record()), ElementsAre(RanAhead::no));
}

TEST_F(ParallelHooks, KodeletHooksOfAnObserveOnlyEventRunAtOnce) {
  for (const char* name : {"a", "b"}) {
    add_hook(name, rendezvous(name, {"a", "b"}, 500, "exit 1\n"), {"agent_start"});
    config_.hooks[name].protocol = HookProtocol::kodelet;
  }
  install();
  hooks_.emit(AgentStartEvent{});
  EXPECT_THAT(errors(), IsEmpty());
}

TEST_F(ParallelHooks, AHookWhoseToolFilterLeavesTheToolOutIsNotStarted) {
  add_hook("a", "exit 0\n");
  add_hook("b", "touch '" + file("b-ran") + "'\n");
  config_.hooks["b"].tools = "read";
  install();
  EXPECT_EQ(hooks_.emit(tool_call()).decision, Decision::none);
  EXPECT_FALSE(fs::exists(file("b-ran")));
}

TEST_F(ParallelHooks, AFailClosedHookThatFailsAheadRefusesAtItsTurnNamingItself) {
  add_hook("1-allow", "echo '{\"decision\": \"allow\"}'\n");
  add_hook("2-guard", "echo broken >&2\nexit 3\n");
  config_.hooks["2-guard"].failure = FailurePolicy::fail_closed;
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  ASSERT_TRUE(outcome.decided_by);
  EXPECT_EQ(outcome.decided_by->handler, "2-guard");
  EXPECT_THAT(last_error(), HasSubstr("broken"));
}

TEST_F(ParallelHooks, ConfigMakesAClaudeCodeHookFileSequentialAsItsFormatsOwnFlagWould) {
  for (const char* name : {"a", "b"}) {
    add_hook(name, rendezvous(name, {"a", "b"}, 20, std::string("echo '") + name + " ran alone' >&2\nexit 2\n"),
             {"PreToolUse"});
    config_.hooks[name].protocol = HookProtocol::claude_code;
    config_.hooks[name].sequential = true;
  }
  install();
  const ToolCallResult outcome = hooks_.emit(tool_call());
  EXPECT_EQ(outcome.decision, Decision::deny);
  EXPECT_THAT(outcome.reason, HasSubstr("a ran alone"));
}

TEST_F(ParallelHooks, SequentialOnAPersistentOrAsyncHookIsAWarningThatItChangesNothing) {
  add_hook("served", "exit 0\n");
  config_.hooks["served"].mode = HookMode::persistent;
  config_.hooks["served"].sequential = true;
  add_hook("background", "exit 0\n");
  config_.hooks["background"].async = true;
  config_.hooks["background"].sequential = false;
  install();
  EXPECT_THAT(installed_.report.warnings,
              Contains(HasSubstr("hook 'served' is persistent (its instances serve one request at a time, so it runs "
                                 "at its turn): \"sequential\" changes nothing")));
  EXPECT_THAT(installed_.report.warnings,
              Contains(HasSubstr("hook 'background' is async (the emit does not wait for it): \"sequential\" "
                                 "changes nothing")));
}

// ------------------------------------------------------------ the property

// What one hook of a random set does, on tool_call and on tool_result.
enum class Kind { nothing, allow, deny, ask, rewrite, reader, crash, time_out };
// Changes and the answers that depend on them twice as likely: where running ahead could go wrong.
constexpr Kind kKinds[] = {Kind::nothing, Kind::allow,  Kind::deny,   Kind::ask,   Kind::rewrite,
                           Kind::rewrite, Kind::reader, Kind::reader, Kind::crash, Kind::time_out};

constexpr const char* kKindNames[] = {"nothing", "allow", "deny", "ask", "rewrite", "reader", "crash", "time_out"};

std::string body_of(Kind kind, const std::string& name) {
  const std::string on_call = "if [ \"$HOOKBUS_EVENT\" = tool_call ]; then ";
  switch (kind) {
    case Kind::nothing: return "cat > /dev/null\n";
    case Kind::allow: return on_call + "echo '{\"decision\": \"allow\"}'; fi\n";
    case Kind::deny: return on_call + "echo '{\"decision\": \"deny\", \"reason\": \"" + name + " denies\"}'; fi\n";
    case Kind::ask: return on_call + "echo '{\"decision\": \"ask\", \"reason\": \"" + name + " asks\"}'; fi\n";
    case Kind::rewrite:
      return on_call + "echo '{\"input\": {\"command\": \"rewritten by " + name + "\"}}'; "
             "else echo '{\"content\": [{\"type\": \"text\", \"text\": \"patched by " + name + "\"}]}'; fi\n";
    case Kind::reader:  // answers from what it saw: a rewrite or patch before it changes its answer
      return "payload=$(cat)\ncase \"$payload\" in\n"
             "  *'rewritten by'*) echo '{\"decision\": \"deny\", \"reason\": \"" + name + " saw a rewrite\"}';;\n"
             "  *'patched by'*) echo '{\"content\": [{\"type\": \"text\", \"text\": \"" + name + " saw a patch\"}]}';;\n"
             "esac\n";
    case Kind::crash: return "echo '" + name + " crashed' >&2\nexit 3\n";
    case Kind::time_out: return "sleep 5\n";
  }
  return "";
}

// The trace of an emit, without what differs by design: when each handler ran, and whether it ran ahead.
struct Decisions {
  std::vector<std::tuple<std::string, HandlerAction, std::string, std::string>> handlers;
  std::optional<Decider> decided_by;
  HookOutcome result;
  bool operator==(const Decisions&) const = default;
};

Decisions decisions_of(const EmissionRecord& record) {
  Decisions decisions{{}, record.decided_by, record.result};
  for (const HandlerRecord& h : record.handlers) decisions.handlers.emplace_back(h.label, h.action, h.reason, h.error);
  return decisions;
}

TEST_F(ParallelHooks, RandomHooksDecideAsTheyDoOneAfterAnother) {
  std::mt19937 random(20261130);
  constexpr int kCases = 20;
  for (int n = 0; n < kCases; ++n) {
    const fs::path dir = project_.path() / fmt::format("case-{}", n);
    Config config = config_;
    config.hooks.clear();
    std::string described;
    const int count = std::uniform_int_distribution<int>(1, 5)(random);
    for (int i = 0; i < count; ++i) {
      const std::string name = fmt::format("{}-hook", i);
      const Kind kind = kKinds[std::uniform_int_distribution<std::size_t>(0, std::size(kKinds) - 1)(random)];
      write_script(dir / name, body_of(kind, name));
      HookSettings& settings = config.hooks[name];
      settings.events = {"tool_call", "tool_result"};
      // A hook that must time out does so soon; the others have room on a loaded machine.
      settings.timeout = Duration(kind == Kind::time_out ? 300 : 5000);
      if (random() % 3 == 0) settings.failure = FailurePolicy::fail_closed;
      described += fmt::format(" {}:{}{}", name, kKindNames[static_cast<int>(kind)], settings.failure ? "(closed)" : "");
    }
    SCOPED_TRACE("case " + std::to_string(n) + ":" + described);
    HookDirectories dirs;
    dirs.add(dir, "project");
    const LayeredConfig layered({config});
    const DiscoveryReport report = discover_hooks(dirs, {.declared = [&](Layer layer, std::string_view name) {
                                                    const ResolvedHookSettings s = layered.hook_settings(layer, name);
                                                    return std::optional<HookDeclaration>(
                                                        HookDeclaration{s.protocol.value, s.events.value});
                                                  }});
    const auto both_ways = [&](const HookEvent& event) {
      std::array<std::optional<EmissionRecord>, 2> records;
      for (const std::size_t parallel : {std::size_t{8}, std::size_t{0}}) {
        Hooks bus(HooksOptions{.parallel_runs = parallel});
        auto observed = bus.on_emission([&](const EmissionRecord& r) { records[parallel == 0] = r; });
        const InstalledHooks installed =
            install_external_hooks(bus, report, layered, {.project_dir = project_.path()});
        (void)bus.emit(event);  // the observer has its record
      }
      ASSERT_TRUE(records[0] && records[1]);
      EXPECT_EQ(decisions_of(*records[0]), decisions_of(*records[1]));
    };
    both_ways(tool_call());
    both_ways(ToolResultEvent{.tool_call_id = "call-1", .tool_name = "bash", .content = {TextPart{"output"}}});
  }
}

}  // namespace
}  // namespace hookbus
