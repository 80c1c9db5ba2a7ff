// Workspaces: real directories with hooks, plugins and config loaded into a
// bus as one unit and switched (include/hookbus/workspace.hpp).
#include <hookbus/log.hpp>
#include <hookbus/trace.hpp>
#include <hookbus/workspace.hpp>

#include "script_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <string_view>
#include <thread>
#include <vector>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

class WorkspaceTest : public ::testing::Test {
 protected:
  WorkspaceTest() {
    set_logger(std::make_shared<spdlog::logger>("workspace-test", std::make_shared<spdlog::sinks::null_sink_mt>()));
    testing::make_directories(project_);
  }
  ~WorkspaceTest() override { set_logger(nullptr); }

  Locations locations() const {
    return {.managed = root_ / "etc", .user = root_ / "user", .project = project_, .state = root_ / "state",
            .cache = root_ / "cache"};
  }
  WorkspaceOptions options() const { return {.locations = locations()}; }

  // A workspace whose hook `name` denies every tool call with "denied by NAME".
  fs::path workspace_denying(const std::string& workspace, const std::string& name) const {
    const fs::path dir = root_ / "workspaces" / workspace;
    write_script(dir / "hooks" / name,
                 "[ \"$1\" = hook ] && { echo tool_call; exit 0; }\n"
                 "echo '{\"decision\": \"deny\", \"reason\": \"denied by " + name + "\"}'\n");
    return dir;
  }
  // A workspace whose hook denies every tool call naming the workspace its
  // payload names; `before_answering` (shell) runs after it read the payload.
  fs::path workspace_naming(const std::string& directory, std::string_view before_answering = {}) const {
    const fs::path dir = root_ / "workspaces" / directory;
    write_script(dir / "hooks" / "which", testing::hook_naming_its_workspace(before_answering));
    return dir;
  }
  void trust(const fs::path& workspace) const {
    Hooks scratch;
    const Installation looked = load_workspace(scratch, workspace, options());
    TrustStore::at(locations()).trust(workspace, looked.report.trust.now);
  }
  std::string emit_reason() {
    ToolCallEvent call;
    call.tool_call_id = "c1";
    call.tool_name = "bash";
    return hooks_.emit(call).reason;
  }

  TempDir root_;
  fs::path project_ = root_ / "project";
  Hooks hooks_;
};

// ------------------------------------------------------------------ loading

TEST_F(WorkspaceTest, ATrustedWorkspacesHooksRun) {
  const fs::path research = workspace_denying("research", "research-guard");
  trust(research);
  const Installation loaded = load_workspace(hooks_, research, options());
  EXPECT_EQ(loaded.report.trust.state, TrustState::trusted);
  EXPECT_EQ(emit_reason(), "denied by research-guard");
}

TEST_F(WorkspaceTest, AnUntrustedWorkspaceRunsNothingAndSaysHowToTrustIt) {
  const fs::path research = workspace_denying("research", "research-guard");
  const Installation loaded = load_workspace(hooks_, research, options());
  EXPECT_EQ(loaded.report.trust.state, TrustState::untrusted);
  EXPECT_THAT(loaded.report.warnings,
              Contains(AllOf(HasSubstr("the workspace " + research.string() + " is not trusted"),
                             HasSubstr("hookctl trust --workspace '" + research.string() + "'"))));
  EXPECT_EQ(emit_reason(), "");
  EXPECT_THAT(loaded.report.discovery.skipped, Contains(::testing::Field(&SkippedFile::name, "research-guard")));
}

TEST_F(WorkspaceTest, AChangedWorkspaceIsUntrustedAgain) {
  const fs::path research = workspace_denying("research", "research-guard");
  trust(research);
  workspace_denying("research", "second-guard");
  const Installation loaded = load_workspace(hooks_, research, options());
  EXPECT_EQ(loaded.report.trust.state, TrustState::changed);
  EXPECT_EQ(emit_reason(), "");
}

TEST_F(WorkspaceTest, AWorkspaceInsideTheUsersOwnDirectoryNeedsNoTrust) {
  const fs::path dir = root_ / "user" / "workspaces" / "mine";
  write_script(dir / "hooks" / "guard", "[ \"$1\" = hook ] && { echo tool_call; exit 0; }\n"
                                        "echo '{\"decision\": \"deny\", \"reason\": \"mine\"}'\n");
  const Installation loaded = load_workspace(hooks_, dir, options());
  EXPECT_TRUE(loaded.report.trust.project_may_run());
  EXPECT_EQ(emit_reason(), "mine");
}

TEST_F(WorkspaceTest, ItsConfigInstallsItsBuiltinsAndSetsItsHooks) {
  const fs::path dir = root_ / "workspaces" / "ops";
  write_file(dir / "config.json", R"({"builtins": {"tool_policy": {"deny": ["deploy"]}},
                                      "hooks": {"absent-guard": {"failure": "fail_closed", "events": ["tool_call"]}}})");
  trust(dir);
  const Installation loaded = load_workspace(hooks_, dir, options());
  EXPECT_THAT(loaded.report.builtins, ElementsAre(AllOf(::testing::Field(&BuiltinReport::name, "tool_policy"),
                                                       ::testing::Field(&BuiltinReport::file, dir / "config.json"),
                                                       ::testing::Field(&BuiltinReport::installed, true))));
  EXPECT_THAT(emit_reason(), HasSubstr("absent-guard"));  // a fail-closed hook that is missing refuses
}

TEST_F(WorkspaceTest, ItsConfigsTraceRecordsItsEmitsInsideTheWorkspace) {
  const fs::path dir = root_ / "workspaces" / "ops";
  write_file(dir / "config.json", R"({"trace": {"jsonl": "trace/session.jsonl", "queue": false}})");
  trust(dir);
  const Installation loaded = load_workspace(hooks_, dir, options());
  EXPECT_THAT(loaded.report.builtins, ElementsAre(AllOf(::testing::Field(&BuiltinReport::name, "trace"),
                                                       ::testing::Field(&BuiltinReport::file, dir / "config.json"),
                                                       ::testing::Field(&BuiltinReport::installed, true))));
  (void)emit_reason();
  const Trace trace = read_trace_file(dir / "trace" / "session.jsonl");
  EXPECT_EQ(trace.header.project, dir);
  EXPECT_EQ(trace.records.size(), 1u);
}

TEST_F(WorkspaceTest, LoadedWithTraceFalseItsConfigsTraceRecordsNothing) {
  const fs::path dir = root_ / "workspaces" / "ops";
  write_file(dir / "config.json", R"({"trace": {"jsonl": "trace/session.jsonl", "queue": false}})");
  trust(dir);
  WorkspaceOptions not_tracing = options();
  not_tracing.trace = false;
  const Installation loaded = load_workspace(hooks_, dir, not_tracing);
  EXPECT_THAT(loaded.report.builtins, ElementsAre(AllOf(::testing::Field(&BuiltinReport::name, "trace"),
                                                       ::testing::Field(&BuiltinReport::installed, false))));
  (void)emit_reason();
  EXPECT_FALSE(fs::exists(dir / "trace" / "session.jsonl"));
}

TEST_F(WorkspaceTest, ATracePathOfItsConfigOutsideTheWorkspaceIsAConfigErrorNamingIt) {
  const fs::path dir = root_ / "workspaces" / "ops";
  write_file(dir / "config.json", R"({"trace": {"jsonl": "../elsewhere.jsonl"}})");
  trust(dir);
  EXPECT_THAT([&] { (void)load_workspace(hooks_, dir, options()); },
              ::testing::ThrowsMessage<ConfigError>(AllOf(HasSubstr((dir / "config.json").string() + ": trace.jsonl:"),
                                                          HasSubstr("leaves the project directory"))));
}

TEST_F(WorkspaceTest, AManagedDisableAllHooksStopsAWorkspace) {
  write_file(root_ / "etc" / "config.json", R"({"disable_all_hooks": true})");
  const fs::path research = workspace_denying("research", "research-guard");
  trust(research);
  const Installation loaded = load_workspace(hooks_, research, options());
  EXPECT_EQ(emit_reason(), "");
  EXPECT_THAT(loaded.report.discovery.skipped, Contains(::testing::Field(&SkippedFile::reason, HasSubstr("disable_all_hooks"))));
}

TEST_F(WorkspaceTest, ABrokenConfigOfATrustedWorkspaceIsAConfigErrorNamingIt) {
  const fs::path dir = root_ / "workspaces" / "broken";
  write_file(dir / "config.json", R"({"hooks": 3})");
  trust(dir);
  try {
    const Installation loaded = load_workspace(hooks_, dir, options());
    FAIL() << "loaded";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), HasSubstr((dir / "config.json").string()));
  }
}

// Regression (attack 8): a config that was no regular file was not
// fingerprinted, so the workspace needed no trust, and the config's error
// stopped load_workspace().
TEST_F(WorkspaceTest, AnUntrustedWorkspacesConfigThatIsNoRegularFileDoesNotStopTheEngine) {
  const fs::path dir = root_ / "workspaces" / "odd";
  testing::make_directories(dir);
  for (const auto& kind : testing::no_regular_files()) {
    kind.put(dir / "config.json");
    const Installation loaded = load_workspace(hooks_, dir, options());
    EXPECT_EQ(loaded.report.trust.state, TrustState::untrusted) << "config.json is " << kind.what;
    fs::remove_all(dir / "config.json");
  }
}

TEST_F(WorkspaceTest, ATrustedWorkspacesConfigReplacedByALinkToADeviceIsAChange) {
  const fs::path research = workspace_denying("research", "research-guard");
  write_file(research / "config.json", "{}");
  trust(research);
  fs::remove(research / "config.json");
  fs::create_symlink("/dev/zero", research / "config.json");
  const Installation loaded = load_workspace(hooks_, research, options());
  EXPECT_EQ(loaded.report.trust.state, TrustState::changed);
  EXPECT_THAT(loaded.report.trust.message, HasSubstr("modified config.json"));
  EXPECT_EQ(emit_reason(), "");
}

// ------------------------------------------------------- the workspace's name

TEST_F(WorkspaceTest, ItsHooksFindTheActiveWorkspacesNameInTheEventContext) {
  const fs::path dir = workspace_naming("ws-1");
  trust(dir);
  Workspaces workspaces(hooks_, options());
  workspaces.activate("research", dir);
  EXPECT_EQ(emit_reason(), "in research");
}

TEST_F(WorkspaceTest, AnEventThatNamesItsWorkspaceKeepsThatName) {
  const fs::path dir = workspace_naming("ws-1");
  trust(dir);
  Workspaces workspaces(hooks_, options());
  workspaces.activate("research", dir);
  ToolCallEvent call{.tool_call_id = "c1", .tool_name = "bash"};
  call.context.workspace = "named-by-the-engine";
  EXPECT_EQ(hooks_.emit(call).reason, "in named-by-the-engine");
}

TEST_F(WorkspaceTest, LoadedWithoutANameAWorkspaceIsNamedAfterItsDirectory) {
  const fs::path dir = workspace_naming("research");
  trust(dir);
  const Installation loaded = load_workspace(hooks_, dir, options());
  EXPECT_EQ(emit_reason(), "in research");
  EXPECT_EQ(workspace_name(dir / ""), "research");
}

TEST_F(WorkspaceTest, AfterASwitchAndAfterSwitchingBackItsHooksFindTheActiveWorkspacesName) {
  const fs::path research = workspace_naming("ws-1");
  const fs::path coding = workspace_naming("ws-2");
  trust(research);
  trust(coding);
  Workspaces workspaces(hooks_, options());
  workspaces.activate("research", research);
  workspaces.activate("coding", coding);
  EXPECT_EQ(emit_reason(), "in coding");
  workspaces.activate("research", research);
  EXPECT_EQ(emit_reason(), "in research");
}

TEST_F(WorkspaceTest, AHookRunningDuringASwitchFinishesWithItsNameAndLaterEmitsSeeOnlyTheNewWorkspace) {
  const fs::path started = root_ / "started";
  const fs::path release = root_ / "release";
  const fs::path research = workspace_naming(
      "ws-1", "echo started > '" + started.string() + "'\n"
              "while [ ! -e '" + release.string() + "' ]; do sleep 0.01; done\n");
  const fs::path coding = workspace_naming("ws-2");
  trust(research);
  trust(coding);
  Workspaces workspaces(hooks_, options());
  workspaces.activate("research", research);
  std::string during;
  std::thread emitter([&] { during = emit_reason(); });
  testing::wait_for_file(started);
  workspaces.activate("coding", coding);  // research's hook is still running
  write_file(release, "go\n");
  emitter.join();
  EXPECT_EQ(during, "in research");
  EXPECT_EQ(emit_reason(), "in coding");
}

// ---------------------------------------------------------------- switching

TEST_F(WorkspaceTest, SwitchingUnloadsExactlyWhatThePreviousWorkspaceLoaded) {
  const fs::path research = workspace_denying("research", "research-guard");
  const fs::path coding = root_ / "workspaces" / "coding";
  write_script(coding / "hooks" / "coding-note",
               "[ \"$1\" = hook ] && { echo turn_end; exit 0; }\nexit 0\n");
  trust(research);
  trust(coding);
  const Connection engine_handler = hooks_.on<TurnEndEvent>([](const TurnEndEvent&) {}, {.label = "engine"});
  Workspaces workspaces(hooks_, options());
  workspaces.activate("research", research);
  EXPECT_EQ(emit_reason(), "denied by research-guard");
  EXPECT_THAT(hooks_.handlers("turn_end"), ElementsAre("engine"));
  workspaces.activate("coding", coding);
  EXPECT_EQ(workspaces.active_name(), "coding");
  EXPECT_EQ(emit_reason(), "");
  EXPECT_THAT(hooks_.handlers("tool_call"), IsEmpty());
  EXPECT_THAT(hooks_.handlers("turn_end"), ElementsAre("engine", "coding-note"));
}

TEST_F(WorkspaceTest, SwitchingBackLoadsTheFirstWorkspaceAgain) {
  const fs::path research = workspace_denying("research", "research-guard");
  const fs::path coding = workspace_denying("coding", "coding-guard");
  trust(research);
  trust(coding);
  Workspaces workspaces(hooks_, options());
  workspaces.activate("research", research);
  workspaces.activate("coding", coding);
  EXPECT_EQ(emit_reason(), "denied by coding-guard");
  workspaces.activate("research", research);
  EXPECT_EQ(emit_reason(), "denied by research-guard");
  EXPECT_EQ(hooks_.handler_count("tool_call"), 1u);
  workspaces.deactivate();
  EXPECT_EQ(workspaces.active_name(), "");
  EXPECT_EQ(hooks_.handler_count("tool_call"), 0u);
}

TEST_F(WorkspaceTest, AFailedSwitchKeepsThePreviousWorkspaceActive) {
  const fs::path research = workspace_denying("research", "research-guard");
  const fs::path broken = root_ / "workspaces" / "broken";
  write_file(broken / "config.json", R"({"unknown_key": 1})");
  trust(research);
  trust(broken);
  Workspaces workspaces(hooks_, options());
  workspaces.activate("research", research);
  EXPECT_THAT([&] { (void)workspaces.activate("broken", broken); },
              ::testing::ThrowsMessage<ConfigError>(
                  AllOf(HasSubstr((broken / "config.json").string()), HasSubstr("unknown_key"))));
  EXPECT_EQ(workspaces.active_name(), "research");
  EXPECT_EQ(emit_reason(), "denied by research-guard");
}

// The switch to "coding" waits inside load_workspace, holding the switch lock,
// until its hook has answered hookbus's question about its events; the test
// answers only after a handler has read the name.
TEST_F(WorkspaceTest, AHandlerReadsTheActiveNameDuringASwitchWithoutWaiting) {
  const fs::path research = workspace_denying("research", "research-guard");
  const fs::path asked = root_ / "asked";
  const fs::path answer = root_ / "answer";
  const fs::path coding = root_ / "workspaces" / "coding";
  write_script(coding / "hooks" / "slow-to-answer",
               "[ \"$1\" = hook ] && {\n"
               "  echo asked > '" + asked.string() + "'\n"
               "  while [ ! -e '" + answer.string() + "' ]; do sleep 0.01; done\n"
               "  echo turn_end; exit 0\n"
               "}\nexit 0\n");
  trust(research);
  trust(coding);
  WorkspaceOptions slow_answers = options();
  slow_answers.query_timeout = std::chrono::minutes(5);  // the answer waits for the test, not for the clock
  Workspaces workspaces(hooks_, slow_answers);
  workspaces.activate("research", research);
  std::vector<std::string> seen;
  const Connection reader = hooks_.on<TurnEndEvent>([&](const TurnEndEvent&) { seen.push_back(workspaces.active_name()); });
  std::thread switcher([&] { (void)workspaces.activate("coding", coding); });
  testing::wait_for_file(asked);  // the switch is under way
  (void)hooks_.emit(TurnEndEvent{});
  write_file(answer, "go\n");
  switcher.join();
  (void)hooks_.emit(TurnEndEvent{});
  EXPECT_THAT(seen, ElementsAre("research", "coding"));
}

TEST_F(WorkspaceTest, ASwitchToAMissingDirectoryIsAConfigErrorNamingItAndThePreviousWorkspaceStaysActive) {
  const fs::path research = workspace_denying("research", "research-guard");
  trust(research);
  Workspaces workspaces(hooks_, options());
  workspaces.activate("research", research);
  const fs::path missing = root_ / "workspaces" / "reserach";
  try {
    (void)workspaces.activate("reserach", missing);
    ADD_FAILURE() << "switched to a missing directory";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              missing.string() + ": no such workspace directory; create it, or name an existing one");
  }
  EXPECT_EQ(workspaces.active_name(), "research");
  EXPECT_EQ(emit_reason(), "denied by research-guard");
}

TEST_F(WorkspaceTest, ASwitchToAFileIsAConfigErrorNamingItAndThePreviousWorkspaceStaysActive) {
  const fs::path research = workspace_denying("research", "research-guard");
  trust(research);
  Workspaces workspaces(hooks_, options());
  workspaces.activate("research", research);
  const fs::path file = write_file(root_ / "workspaces" / "notes.json", "{}\n");
  EXPECT_THAT([&] { (void)workspaces.activate("notes", file); },
              ::testing::ThrowsMessage<ConfigError>(AllOf(HasSubstr(file.string()), HasSubstr("is not a directory"))));
  EXPECT_EQ(workspaces.active_name(), "research");
  EXPECT_EQ(emit_reason(), "denied by research-guard");
}

TEST_F(WorkspaceTest, SwitchingKeepsWhatSetupInstalledFromTheOtherLayers) {
  write_file(root_ / "user" / "config.json", R"({"builtins": {"tool_policy": {"deny": ["deploy"]}}})");
  write_script(locations().hook_directory(Layer::user) / "user-guard",
               "[ \"$1\" = hook ] && { echo tool_call; exit 0; }\nexit 0\n");
  const Installation installed = setup(hooks_, {.project_dir = project_, .locations = locations()});
  const std::vector<std::string> users = hooks_.handlers("tool_call");
  ASSERT_THAT(users, ::testing::UnorderedElementsAre("builtin:tool_policy", "user-guard"));
  const fs::path research = workspace_denying("research", "research-guard");
  trust(research);
  Workspaces workspaces(hooks_, options());
  workspaces.activate("research", research);
  std::vector<std::string> with_research = users;
  with_research.push_back("research-guard");
  EXPECT_EQ(hooks_.handlers("tool_call"), with_research);
  const fs::path empty = root_ / "workspaces" / "empty";
  testing::make_directories(empty);
  workspaces.activate("empty", empty);
  EXPECT_EQ(hooks_.handlers("tool_call"), users);
  workspaces.deactivate();
  EXPECT_EQ(hooks_.handlers("tool_call"), users);
}

TEST_F(WorkspaceTest, RelativeHookDirectoriesInItsConfigAreRelativeToTheWorkspace) {
  const fs::path dir = root_ / "workspaces" / "ops";
  write_file(dir / "config.json", R"({"hook_directories": ["more-hooks"]})");
  write_script(dir / "more-hooks" / "extra-guard", "[ \"$1\" = hook ] && { echo tool_call; exit 0; }\n"
                                                   "echo '{\"decision\": \"deny\", \"reason\": \"extra\"}'\n");
  trust(dir);
  const Installation loaded = load_workspace(hooks_, dir, options());
  EXPECT_EQ(emit_reason(), "extra");
  EXPECT_THAT(loaded.report.config.layer(Layer::project)->hook_directories, ElementsAre(dir / "more-hooks"));
}

// A persistent hook gets the workspace's name in each request's payload, as a
// hook run per event does.
TEST_F(WorkspaceTest, ItsPersistentHooksFindTheActiveWorkspacesNameInTheEventContext) {
  const fs::path dir = root_ / "workspaces" / "ws-1";
  write_file(dir / "config.json", R"({"hooks": {"which": {"mode": "persistent"}}})");
  write_script(dir / "hooks" / "which",
               "[ \"$1\" = hook ] && { echo tool_call; exit 0; }\n"
               "[ \"$1\" = serve ] || exit 1\n"
               "while IFS= read -r request; do\n"
               "  id=$(printf '%s' \"$request\" | sed -n 's/^{\"id\":\\([0-9]*\\).*/\\1/p')\n"
               "  name=$(printf '%s' \"$request\" | sed -n 's/.*\"workspace\":\"\\([^\"]*\\)\".*/\\1/p')\n"
               "  echo \"{\\\"id\\\": $id, \\\"decision\\\": \\\"deny\\\", \\\"reason\\\": \\\"in $name\\\"}\"\n"
               "done\n");
  trust(dir);
  Workspaces workspaces(hooks_, options());
  const SetupReport report = workspaces.activate("research", dir);
  ASSERT_THAT(report.hooks.installed, ::testing::SizeIs(1));
  EXPECT_EQ(report.hooks.installed[0].settings.mode.value, HookMode::persistent);
  EXPECT_EQ(emit_reason(), "in research");  // only `serve` answers: `run` fails
  EXPECT_EQ(emit_reason(), "in research");
}

}  // namespace
}  // namespace hookbus
