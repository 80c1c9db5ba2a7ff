// Cline's hooks run unchanged (docs/agent-formats.md, "Cline"): one
// executable per event, named by its file, in the project's
// .clinerules/hooks and the user's Documents/Cline/Hooks, switched on by
// config's "agent_hooks": {"cline": ...}; Cline's camelCase payload and its
// answer {cancel, contextModification, errorMessage}, read as its 3.x
// extension reads it. The hooks are written here from Cline's documented
// payload and answer (bash + jq, Python) and run through setup() and Hooks::emit.
#include "agent_hooks_fixture.hpp"

#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trust.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::read_file;
using testing::TempDir;
using testing::write_file;
using namespace std::chrono_literals;

// Cline's docs' PreToolUse guard, in bash + jq: it checks the tool itself
// (Cline runs it on every tool) and cancels `rm -rf`.
constexpr const char* kClineGuard =
    "#!/usr/bin/env bash\n"
    "in=$(cat)\n"
    "if [ \"$(jq -r .preToolUse.toolName <<<\"$in\")\" = execute_command ] &&\n"
    "   jq -r .preToolUse.parameters.command <<<\"$in\" | grep -q 'rm -rf'; then\n"
    "  echo '{\"cancel\": true, \"errorMessage\": \"refused by policy\"}'; exit 0\n"
    "fi\n"
    "echo '{\"cancel\": false}'\n";

class ClineHooks : public testing::AgentHooksFixture {
 protected:
  // The project's Cline hook file for `event`, switched on by its config, and trusted.
  void projects_hook(const std::string& event, const std::string& script) {
    switch_on("cline");
    write_file(in_project(".clinerules/hooks/" + event), script, 0755);
    trust_project();
  }
};

// Cline's cancel on PreToolUse refuses the tool and cancels the whole task:
// a deny and a stop, both with its errorMessage.
TEST_F(ClineHooks, APreToolUseCancelDeniesTheCallAndStopsTheTask) {
  projects_hook("PreToolUse", kClineGuard);
  const ToolCallResult result = emit_bash("rm -rf /");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "refused by policy");
  ASSERT_TRUE(result.stop.has_value());
  EXPECT_EQ(result.stop->reason, "refused by policy");
  const ToolCallResult allowed = hooks_.emit(
      ToolCallEvent{.context = context(), .tool_call_id = "c2", .tool_name = "bash", .input = {{"command", "ls"}}});
  EXPECT_EQ(allowed.decision, Decision::none);
  EXPECT_FALSE(allowed.stop.has_value());
  EXPECT_THAT(warnings_, IsEmpty());
}

TEST_F(ClineHooks, TheUsersHooksAreInDocumentsClineHooks) {
  write_file(locations().cline / "PreToolUse", kClineGuard, 0755);
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"cline": {"settings": ["user"]}}})");
  EXPECT_EQ(emit_bash("rm -rf /").decision, Decision::deny);
  const auto& installed = installed_->report.hooks.installed;
  ASSERT_EQ(installed.size(), 1U);
  EXPECT_EQ(installed[0].protocol, HookProtocol::cline);
  EXPECT_EQ(installed[0].layer, Layer::user);
  EXPECT_EQ(installed[0].source, (locations().cline / "PreToolUse").string());
  EXPECT_EQ(installed[0].settings.timeout.value, 30s);  // Cline's HOOK_EXECUTION_TIMEOUT_MS
}

// The payload as Cline's hook reference gives it: camelCase common fields, a
// timestamp in milliseconds as a string, the event's own object, Cline's
// tool name and its parameters as a map of strings ("path" for a file).
TEST_F(ClineHooks, AHookReadsClinesPayloadFieldsToolNameAndStringParameters) {
  projects_hook("PreToolUse",
                "#!/usr/bin/env python3\n"
                "import json, sys\n"
                "json.dump(json.load(sys.stdin), open('payload.json', 'w'))\n");
  install();
  (void)hooks_.emit(ToolCallEvent{.context = context(),
                                  .tool_call_id = "c1",
                                  .tool_name = "write",
                                  .input = {{"file_path", "a.txt"}, {"content", "x"}, {"lines", 3}}});
  const boost::json::object payload = parse_json(read_file(in_project("payload.json")), "payload").as_object();
  EXPECT_EQ(payload.at("clineVersion"), "");
  EXPECT_EQ(payload.at("hookName"), "PreToolUse");
  ASSERT_TRUE(payload.at("timestamp").is_string());
  EXPECT_THAT(std::string(payload.at("timestamp").as_string()), ::testing::MatchesRegex("[0-9]{13}"));
  EXPECT_EQ(payload.at("taskId"), "s1");
  EXPECT_EQ(payload.at("workspaceRoots"), boost::json::array{boost::json::string(project_.path().string())});
  EXPECT_TRUE(payload.at("userId").is_string());
  const boost::json::value expected = parse_json(
      R"({"toolName": "write_to_file", "parameters": {"path": "a.txt", "content": "x", "lines": "3"}})", "expected");
  EXPECT_EQ(payload.at("preToolUse"), expected);
}

// Each event's own object, as Cline's hook reference names it.
TEST_F(ClineHooks, EachEventsHookReadsItsOwnObject) {
  const struct {
    std::string file;
    std::string key;
    std::function<void(Hooks&, const EventContext&)> emit;
  } cases[] = {
      {"PostToolUse", "postToolUse",
       [](Hooks& bus, const EventContext& c) {
         (void)bus.emit(ToolResultEvent{.context = c, .tool_call_id = "c1", .tool_name = "bash",
                                        .input = {{"command", "ls"}}, .content = {TextPart{"out"}}, .is_error = true});
       }},
      {"UserPromptSubmit", "userPromptSubmit",
       [](Hooks& bus, const EventContext& c) { (void)bus.emit(InputEvent{.context = c, .text = "hello"}); }},
      {"TaskStart", "taskStart",
       [](Hooks& bus, const EventContext& c) { (void)bus.emit(SessionStartEvent{.context = c}); }},
      {"TaskResume", "taskResume",
       [](Hooks& bus, const EventContext& c) {
         (void)bus.emit(SessionStartEvent{.context = c, .reason = SessionStartReason::resume});
       }},
      {"TaskComplete", "taskComplete",
       [](Hooks& bus, const EventContext& c) { (void)bus.emit(AgentEndEvent{.context = c}); }},
      {"TaskCancel", "taskCancel",
       [](Hooks& bus, const EventContext& c) {
         (void)bus.emit(AgentEndEvent{.context = c, .status = RunStatus::cancelled});
       }},
      {"PreCompact", "preCompact",
       [](Hooks& bus, const EventContext& c) { (void)bus.emit(SessionBeforeCompactEvent{.context = c}); }},
  };
  const std::map<std::string, std::string> expected = {
      {"postToolUse",
       R"({"toolName": "execute_command", "parameters": {"command": "ls"}, "result": "out", "success": false,
           "executionTimeMs": 0})"},
      {"userPromptSubmit", R"({"prompt": "hello", "attachments": []})"},
      {"taskStart", R"({"taskMetadata": {"taskId": "s1", "ulid": "s1", "initialTask": ""}})"},
      {"taskResume",
       R"({"taskMetadata": {"taskId": "s1", "ulid": "s1"},
           "previousState": {"lastMessageTs": "", "messageCount": "", "conversationHistoryDeleted": "false"}})"},
      {"taskComplete", R"({"taskMetadata": {"taskId": "s1", "ulid": "s1"}})"},
      {"taskCancel", R"({"taskMetadata": {"taskId": "s1", "ulid": "s1"}})"},
      {"preCompact", R"({"taskId": "s1", "ulid": "s1", "contextSize": 0, "compactionStrategy": "summarize"})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    fs::remove(in_project("payload.json"));
    projects_hook(c.file, "#!/bin/sh\ncat > payload.json\n");
    Hooks bus;
    const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations()});
    c.emit(bus, context());
    const boost::json::object payload = parse_json(read_file(in_project("payload.json")), "payload").as_object();
    EXPECT_EQ(payload.at("hookName"), boost::json::value(boost::json::string(c.file)));
    EXPECT_EQ(payload.at(c.key), parse_json(expected.at(c.key), "expected"));
    fs::remove(in_project(".clinerules/hooks/" + c.file));
  }
}

// TaskStart is a new task and TaskResume a resumed one, each on its own.
TEST_F(ClineHooks, TaskStartRunsOnANewSessionAndTaskResumeOnAResumedOne) {
  write_file(in_project(".clinerules/hooks/TaskResume"), "#!/bin/sh\ntouch resumed\n", 0755);
  projects_hook("TaskStart", "#!/bin/sh\ntouch started\n");
  install();
  (void)hooks_.emit(SessionStartEvent{.context = context(), .reason = SessionStartReason::startup});
  EXPECT_TRUE(fs::exists(in_project("started")));
  EXPECT_FALSE(fs::exists(in_project("resumed")));
  fs::remove(in_project("started"));
  (void)hooks_.emit(SessionStartEvent{.context = context(), .reason = SessionStartReason::resume});
  EXPECT_TRUE(fs::exists(in_project("resumed")));
  EXPECT_FALSE(fs::exists(in_project("started")));
}

// TaskComplete is a task that completed and TaskCancel one the user
// cancelled, each on its own; a run an error ended is neither (Cline 3.x has
// no hook for it).
TEST_F(ClineHooks, TaskCompleteRunsOnACompletedRunAndTaskCancelOnACancelledOne) {
  const struct {
    RunStatus status;
    std::string ran;
  } cases[] = {
      {RunStatus::completed, "TaskComplete\n"}, {RunStatus::cancelled, "TaskCancel\n"}, {RunStatus::failed, ""}};
  write_file(in_project(".clinerules/hooks/TaskComplete"), "#!/bin/sh\necho TaskComplete >> ran\n", 0755);
  projects_hook("TaskCancel", "#!/bin/sh\necho TaskCancel >> ran\n");
  install();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.ran);
    write_file(in_project("ran"), "");
    (void)hooks_.emit(AgentEndEvent{.context = context(), .status = c.status});
    EXPECT_EQ(read_file(in_project("ran")), c.ran);
  }
  EXPECT_THAT(warnings_, IsEmpty());
}

// contextModification goes to the model; a hook may log before its JSON,
// whose last {...} block Cline reads.
TEST_F(ClineHooks, ContextModificationIsContextForTheModelAfterAnyLogLines) {
  projects_hook("PostToolUse",
                "#!/bin/sh\necho 'checking {the} result'\n"
                "printf '%s\\n' '{\"contextModification\": \"TYPE: lint\\nall clean\"}'\n");
  install();
  const ToolResultResult result = hooks_.emit(ToolResultEvent{
      .context = context(), .tool_call_id = "c1", .tool_name = "bash", .input = {}, .content = {TextPart{"ok"}}});
  EXPECT_EQ(result.additional_context, std::vector<std::string>{"TYPE: lint\nall clean"});
  EXPECT_FALSE(result.stop.has_value());
}

// Cancel on the other events that Cline lets a hook cancel: the prompt is
// rejected, the compaction cancelled, and on each the task stops.
TEST_F(ClineHooks, CancelRejectsThePromptCancelsTheCompactionAndStopsTheTask) {
  const std::string cancel = "#!/bin/sh\necho '{\"cancel\": true, \"errorMessage\": \"not now\"}'\n";
  write_file(in_project(".clinerules/hooks/UserPromptSubmit"), cancel, 0755);
  write_file(in_project(".clinerules/hooks/PostToolUse"), cancel, 0755);
  projects_hook("PreCompact", cancel);
  install();
  const InputResult prompt = hooks_.emit(InputEvent{.context = context(), .text = "hi"});
  EXPECT_EQ(prompt.action, InputAction::reject);
  EXPECT_EQ(prompt.reason, "not now");
  ASSERT_TRUE(prompt.stop.has_value());
  const SessionBeforeCompactResult compact = hooks_.emit(SessionBeforeCompactEvent{.context = context()});
  EXPECT_TRUE(compact.cancel);
  EXPECT_EQ(compact.reason, "not now");
  const ToolResultResult after = hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "bash"});
  ASSERT_TRUE(after.stop.has_value());
  EXPECT_EQ(after.stop->reason, "not now");
}

// Any end but exit 0 (exit 2 too), or an invalid answer, is a failed hook,
// whose answer is not read: Cline goes on as if it said {"cancel": false}.
// No JSON at all is no answer.
TEST_F(ClineHooks, AFailedRunOrAnInvalidAnswerIsAFailedHookWhichCancelsNothing) {
  const struct {
    std::string script;
    std::string logged;
  } cases[] = {
      {"echo '{\"cancel\": true}'; exit 1", "exit code 1"},
      {"echo '{\"cancel\": true}'; exit 2", "exited with code 2"},
      {"echo '{\"cancel\": \"yes\"}'", "cancel must be a boolean"},
      {"echo '{\"cancel\": true, \"shouldContinue\": false}'", "shouldContinue"},
      {"echo cancel", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.script);
    projects_hook("PreToolUse", "#!/bin/sh\n" + c.script + "\n");
    Hooks bus;
    const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations()});
    const ToolCallResult result = bus.emit(ToolCallEvent{.context = context(), .tool_name = "bash"});
    EXPECT_EQ(result.decision, Decision::none);
    EXPECT_FALSE(result.stop.has_value());
    if (!c.logged.empty()) {
      EXPECT_THAT(log_.text(), AllOf(HasSubstr("PreToolUse"), HasSubstr(c.logged)));
    }
  }
}

// Cline starts a hook file through a shell, which runs a file without a '#!'
// line as a shell script: so does hookbus, with /bin/sh.
TEST_F(ClineHooks, AHookFileWithoutAHashBangLineRunsAsAShellScript) {
  projects_hook("PreToolUse", "grep -q 'rm -rf' && echo '{\"cancel\": true, \"errorMessage\": \"no\"}'\nexit 0\n");
  EXPECT_EQ(emit_bash("rm -rf /").decision, Decision::deny);
  EXPECT_EQ(hooks_.emit(ToolCallEvent{.context = context(), .tool_name = "bash", .input = {{"command", "ls"}}}).decision,
            Decision::none);
}

// A binary hook file runs as it is, never read by the shell: /bin/false's
// exit code is its own (the shell would fail on it with another).
TEST_F(ClineHooks, ABinaryHookFileRunsAsItIs) {
  projects_hook("PreToolUse", testing::read_file("/bin/false"));
  (void)emit_bash("ls");
  EXPECT_THAT(log_.text(), AllOf(HasSubstr("PreToolUse"), ::testing::ContainsRegex("exit code 1([^0-9]|$)")));
}

// A hook over its timeout (Cline's 30 s; here the user's config's for the
// hooks named PreToolUse) is killed: a failed hook, which cancels nothing.
TEST_F(ClineHooks, AHookOverItsTimeoutIsKilledAndIsAFailedHookThatCancelsNothing) {
  write_file(locations().config_file(Layer::user), R"({"hooks": {"PreToolUse": {"timeout_ms": 200}}})");
  projects_hook("PreToolUse", "#!/bin/sh\nsleep 30\necho '{\"cancel\": true}'\n");
  const ToolCallResult result = emit_bash("rm -rf /");
  EXPECT_EQ(result.decision, Decision::none);
  EXPECT_FALSE(result.stop.has_value());
  EXPECT_THAT(log_.text(), AllOf(HasSubstr("PreToolUse"), HasSubstr("timed out")));
  EXPECT_EQ(installed_->report.hooks.installed.at(0).settings.timeout.value, 200ms);
}

// What Cline would not run, or hookbus does not, is skipped with a warning
// naming the file: a file that is not executable, a name that is no Cline
// event (an extension too), a directory.
TEST_F(ClineHooks, AFileThatIsNoClineHookIsSkippedWithAWarningNamingIt) {
  const struct {
    std::string file;
    mode_t mode;
    std::string warning;
  } cases[] = {
      {"PreToolUse", 0644, "not executable"},
      {"PreToolUse.sh", 0755, "not a Cline hook"},
      {"pretooluse", 0755, "not a Cline hook"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    fs::remove_all(in_project(".clinerules/hooks"));
    write_file(in_project(".clinerules/hooks/" + c.file), "#!/bin/sh\necho '{\"cancel\": true}'\n",
               c.mode);
    write_file(locations().config_file(Layer::project), R"({"agent_hooks": {"cline": {"settings": ["project"]}}})");
    trust_project();
    Hooks bus;
    const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations()});
    EXPECT_THAT(installed.report.hooks.installed, IsEmpty());
    EXPECT_THAT(installed.report.warnings,
                Contains(AllOf(HasSubstr(in_project(".clinerules/hooks/" + c.file).string()), HasSubstr(c.warning))));
  }
  fs::remove_all(in_project(".clinerules/hooks"));
  fs::create_directories(in_project(".clinerules/hooks/PreToolUse"));
  trust_project();
  install();
  EXPECT_THAT(installed_->report.hooks.installed, IsEmpty());
  EXPECT_THAT(warnings_, Contains(AllOf(HasSubstr(".clinerules/hooks/PreToolUse"), HasSubstr("a directory"))));
}

// Cline has no plugins and no local hooks directory: asking for them changes nothing, and is said.
TEST_F(ClineHooks, PluginsOrLocalHooksAskedOfClineChangeNothingAndAreSaid) {
  write_file(locations().config_file(Layer::user),
             R"({"agent_hooks": {"cline": {"settings": ["local"], "plugins": ["/opt/cline-guard"]}}})");
  install();
  EXPECT_THAT(installed_->report.hooks.installed, IsEmpty());
  EXPECT_THAT(warnings_, Contains(AllOf(HasSubstr("agent_hooks.cline.plugins"), HasSubstr("Cline has no plugins"))));
  EXPECT_THAT(warnings_, Contains(AllOf(HasSubstr("agent_hooks.cline.settings"),
                                        HasSubstr("Cline has no local hooks directory"))));
}

// Without "agent_hooks": {"cline": ...} no Cline hook is read.
TEST_F(ClineHooks, NoClineHookRunsUnlessConfigSwitchesClineOn) {
  write_file(in_project(".clinerules/hooks/PreToolUse"), "#!/bin/sh\ntouch ran\n", 0755);
  trust_project();
  (void)emit_bash("ls");
  EXPECT_FALSE(fs::exists(in_project("ran")));
  EXPECT_THAT(installed_->report.hooks.installed, IsEmpty());
}

}  // namespace
}  // namespace hookbus
