// Claude Code hooks run unchanged: settings files, the payload, the answers,
// matchers, parallel runs and the allow / ask / deny decision, with hooks
// written here in the style of published Claude Code hooks (bash + jq,
// Python, Node), installed through .claude/settings.json and run through
// hookbus::setup() and Hooks::emit (docs/claude-code.md).
#include "claude_code_hooks.hpp"
#include "script_fixture.hpp"

#include <hookbus/claude_code.hpp>
#include <hookbus/external.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trace.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;
using testing::TempDir;
using testing::write_file;
using testing::write_script;
using namespace std::chrono_literals;

// Hang detection only: far above what any hook here takes.
constexpr auto kHangBound = 10s;

// Every test ends by checking that its runs left no descriptor and no child
// process behind (NothingLeftBehind).
class ClaudeCode : public testing::NothingLeftBehind {
 protected:
  ClaudeCode() {
    set_logger(std::make_shared<spdlog::logger>("claude-test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log_)));
    errors_ = hooks_.on_handler_error([this](const HandlerFailure& e) {
      const std::lock_guard lock(mutex_);
      errors_seen_.push_back(e);
    });
  }
  ~ClaudeCode() override { set_logger(nullptr); }

  Locations locations() const {
    return {.managed = root_.path() / "etc",
            .user = root_.path() / "config",
            .project = project_.path(),
            .state = root_.path() / "state",
            .cache = root_.path() / "cache",
            .claude = root_.path() / "home" / ".claude"};
  }
  fs::path project_settings() const { return project_.path() / ".claude" / "settings.json"; }
  fs::path script(const std::string& name) const { return project_.path() / ".claude" / "hooks" / name; }
  fs::path file(const std::string& name) const { return project_.path() / name; }

  // The project's .claude/settings.json with this `hooks` block, imported by the user's config.
  void settings(const std::string& hooks_block, const std::string& tool_names = "{}") const {
    write_file(project_settings(), R"({"permissions": {"allow": []}, "hooks": )" + hooks_block + "}");
    write_file(locations().config_file(Layer::user),
               R"({"claude_code": {"settings": ["project"], "tool_names": )" + tool_names + "}}");
  }
  // A published-style hook (claude_code_hooks.hpp), its script in .claude/hooks/ and its entry in the settings.
  void published(const testing::PublishedHook& hook, const std::string& tool_names = "{}") const {
    testing::write_published_hook(project_.path(), hook);
    settings(testing::hooks_block({hook}), tool_names);
  }
  // One hook group: {"EVENT": [{"matcher": MATCHER, "hooks": [{"type": "command", "command": COMMAND}]}]}.
  static std::string one(const std::string& event, const std::string& matcher, const std::string& command,
                         const std::string& extra = "") {
    return R"({")" + event + R"(": [{"matcher": ")" + matcher + R"(", "hooks": [{"type": "command", "command": ")" +
           command + R"(")" + extra + "}]}]}";
  }

  // The user's Bash guard in ~/.claude/settings.json (it refuses `rm -rf`), beside a
  // trusted project whose config names bash "Shell" and whose own command on
  // Shell records its payload.
  void user_guard_beside_a_project_naming_bash_shell() const {
    const fs::path guard = write_script(locations().claude / "hooks" / "no-rm-rf.sh",
                                        "if jq -r .tool_input.command | grep -q 'rm -rf'; then\n"
                                        "  echo 'the user says no' >&2; exit 2\nfi\n");
    write_file(user_settings(), R"({"hooks": )" + one("PreToolUse", "Bash", guard.string()) + "}");
    write_file(locations().config_file(Layer::user), R"({"claude_code": {"settings": ["user", "project"]}})");
    write_file(locations().config_file(Layer::project), R"({"claude_code": {"tool_names": {"bash": "Shell"}}})");
    write_file(project_settings(), R"({"hooks": )" + one("PreToolUse", "Shell", capture("project.json")) + "}");
  }
  fs::path user_settings() const { return locations().claude / "settings.json"; }

  void install() { installed_ = setup(hooks_, {.project_dir = project_.path(), .locations = locations(),
                                               .project_trust = ProjectTrustPolicy::trust_all}); }
  // The project as it is now trusted in the store, then set up: its files are checked before each run.
  void install_trusted() {
    {
      Hooks scratch;
      const Installation looked = setup(scratch, {.project_dir = project_.path(), .locations = locations()});
      TrustStore::at(locations()).trust(project_.path(), looked.report.trust.now);
    }
    installed_ = setup(hooks_, {.project_dir = project_.path(), .locations = locations()});
    ASSERT_EQ(installed_->report.trust.state, TrustState::trusted) << installed_->report.trust.message;
  }

  // Two PreToolUse commands of one group, each touching its own mark and then
  // waiting for the other's: both finish only when they run at the same time
  // (each has a 5 s timeout: run one after the other, the first would time
  // out and fail).
  void install_two_commands_waiting_for_each_other() {
    const std::string a = file("a").string();
    const std::string b = file("b").string();
    const std::string wait_for = "i=0; while [ ! -e {} ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; [ -e {} ]";
    const auto waiter = [&](const std::string& mine, const std::string& theirs) {
      return "touch " + mine + "; " + fmt::format(fmt::runtime(wait_for), theirs, theirs) + " || exit 3";
    };
    settings(R"({"PreToolUse": [{"hooks": [{"type": "command", "command": ")" + waiter(a, b) + R"(", "timeout": 5},
                                           {"type": "command", "command": ")" + waiter(b, a) + R"(", "timeout": 5}]}]})");
    install();
  }

  ToolCallEvent bash(std::string command) const {
    return {.context = context(), .tool_call_id = "toolu_1", .tool_name = "bash", .input = {{"command", std::move(command)}}};
  }
  EventContext context() const { return {.session_id = "s-1", .cwd = project_.path().string()}; }

  // The JSON a hook wrote with `cat > FILE`.
  json::object captured(const std::string& name) const {
    return json::parse(testing::read_file(file(name))).as_object();
  }
  std::string capture(const std::string& name) const { return "cat > " + file(name).string(); }

  std::ostringstream log_;
  TempDir root_;
  TempDir project_;
  Hooks hooks_;
  std::optional<Installation> installed_;
  std::mutex mutex_;
  std::vector<HandlerFailure> errors_seen_;
  Connection errors_;
};

// ============================================ hooks in the style of published ones
// (test/claude_code_hooks.hpp; hookctl_hooks_test.cpp runs the same through hookctl)

TEST_F(ClaudeCode, ABashAndJqHookBlocksWithExitTwoAndStderrAsTheReason) {
  published(testing::kBlockDangerous);
  install();
  const ToolCallResult denied = hooks_.emit(bash("rm -rf /"));
  EXPECT_EQ(denied.decision, Decision::deny);
  EXPECT_EQ(denied.reason, "Dangerous command blocked: rm -rf /");
  ASSERT_TRUE(denied.decided_by.has_value());
  EXPECT_EQ(denied.decided_by->handler, "block-dangerous.sh");
  EXPECT_EQ(denied.decided_by->source, project_settings().string() + ": hooks.PreToolUse[0].hooks[0]");
  EXPECT_EQ(hooks_.emit(bash("ls")).decision, Decision::none);
}

TEST_F(ClaudeCode, APythonHookDeniesWithJsonAndTheToolNameMapsToClaudeCodes) {
  published(testing::kProtectEnv, R"({"read_file": "Read"})");
  install();
  const ToolCallResult denied = hooks_.emit(
      ToolCallEvent{.context = context(), .tool_call_id = "t", .tool_name = "read_file", .input = {{"file_path", ".env"}}});
  EXPECT_EQ(denied.decision, Decision::deny);
  EXPECT_EQ(denied.reason, "secrets stay private: .env");
  EXPECT_EQ(hooks_.emit(ToolCallEvent{.context = context(), .tool_call_id = "t", .tool_name = "read_file",
                                      .input = {{"file_path", "main.cpp"}}})
                .decision,
            Decision::none);
}

TEST_F(ClaudeCode, ANodeHookAllowsAsksAndRewritesTheInput) {
  published(testing::kApprove);
  install();
  const ToolCallResult allowed = hooks_.emit(bash("npm test"));
  EXPECT_EQ(allowed.decision, Decision::allow);
  EXPECT_EQ(allowed.reason, "tests are safe");
  EXPECT_EQ(allowed.input, (json::object{{"command", "npm test --silent"}}));
  const ToolCallResult asked = hooks_.emit(bash("git push origin main"));
  EXPECT_EQ(asked.decision, Decision::ask);
  EXPECT_EQ(asked.reason, "pushing needs a human");
}

TEST_F(ClaudeCode, APythonRedactionHookRedactsABashResultWithUpdatedToolOutput) {
  published(testing::kRedactSecrets);
  install();
  const std::string output = R"({"stdout": "key=AKIAABCDEFGHIJKLMNOP\n", "stderr": "", "interrupted": false, "isImage": false})";
  const ToolResultResult result = hooks_.emit(ToolResultEvent{
      .context = context(), .tool_call_id = "t", .tool_name = "bash", .content = {TextPart{output}}});
  ASSERT_TRUE(result.content.has_value());
  ASSERT_EQ(result.content->size(), 1u);
  const json::value redacted = json::parse(std::get<TextPart>(result.content->front()).text);
  EXPECT_EQ(redacted.at("stdout"), "key=[REDACTED]\n");
  EXPECT_EQ(redacted.at("interrupted"), false);
}

TEST_F(ClaudeCode, APostToolUseFormatterRewritesTheFileItWasGiven) {
  const fs::path source = file("main.py");
  write_file(source, "x = 1   \ny = 2\t\n");
  published(testing::kFormatter);
  install();
  const ToolResultResult result = hooks_.emit(ToolResultEvent{.context = context(), .tool_call_id = "t", .tool_name = "write",
                                                              .input = {{"file_path", source.string()}}});
  EXPECT_EQ(result, ToolResultResult{});
  EXPECT_EQ(testing::read_file(source), "x = 1\ny = 2\n");
}

TEST_F(ClaudeCode, AUserPromptSubmitHookAddsPlainTextAsContext) {
  published(testing::kPromptContext);
  install();
  const InputResult result = hooks_.emit(InputEvent{.context = context(), .text = "fix the bug"});
  EXPECT_EQ(result.action, InputAction::continue_);
  EXPECT_THAT(result.additional_context, ElementsAre("Current branch: main"));
}

TEST_F(ClaudeCode, AUserPromptSubmitHookRejectsAPromptWithDecisionBlock) {
  write_file(script("no-secrets.py"),
             "#!/usr/bin/python3\nimport json, sys\n"
             "prompt = json.load(sys.stdin)['prompt']\n"
             "if 'password' in prompt.lower():\n"
             "    print(json.dumps({'decision': 'block', 'reason': 'Do not paste passwords into prompts'}))\n",
             0755);
  settings(one("UserPromptSubmit", "", "python3 .claude/hooks/no-secrets.py"));
  install();
  const InputResult rejected = hooks_.emit(InputEvent{.context = context(), .text = "my password is hunter2"});
  EXPECT_EQ(rejected.action, InputAction::reject);
  EXPECT_EQ(rejected.reason, "Do not paste passwords into prompts");
  EXPECT_EQ(hooks_.emit(InputEvent{.context = context(), .text = "hello"}).action, InputAction::continue_);
}

TEST_F(ClaudeCode, ASessionStartHookGivesContextAndItsMatcherIsTheSource) {
  published(testing::kSessionContext);
  install();
  EXPECT_THAT(hooks_.emit(SessionStartEvent{.context = context(), .reason = SessionStartReason::startup}).additional_context,
              ElementsAre("Recent commits: fix parser"));
  EXPECT_THAT(hooks_.emit(SessionStartEvent{.context = context(), .reason = SessionStartReason::resume}).additional_context,
              IsEmpty());
}

// A Stop hook that reads the transcript hookbus keeps, blocks once when the
// agent left a TODO, and honours stop_hook_active so it never loops.
TEST_F(ClaudeCode, AStopHookReadsTheTranscriptBlocksOnceAndHonoursStopHookActive) {
  published(testing::kFinishTodos);
  install();
  hooks_.emit(MessageEndEvent{.context = context(), .message = {.role = Role::user, .content = {TextPart{"write it"}}}});
  hooks_.emit(MessageEndEvent{.context = context(),
                              .message = {.role = Role::assistant, .content = {TextPart{"done, TODO: tests"}}}});
  const AgentEndResult first = hooks_.emit(AgentEndEvent{.context = context()});
  EXPECT_THAT(first.follow_up_messages, ElementsAre("You left a TODO: finish it before stopping."));
  const AgentEndResult second = hooks_.emit(AgentEndEvent{.context = context(), .after_follow_up = true});
  EXPECT_THAT(second.follow_up_messages, IsEmpty());
  // The transcript is Claude Code's JSONL: one line per message, with session and parent links.
  const std::string transcript = testing::read_file(claude_code_transcript_path(root_.path() / "state" / "transcripts", "s-1"));
  std::istringstream lines(transcript);
  std::string line;
  std::vector<json::object> entries;
  while (std::getline(lines, line)) entries.push_back(json::parse(line).as_object());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].at("type"), "user");
  EXPECT_EQ(entries[1].at("type"), "assistant");
  EXPECT_EQ(entries[1].at("parentUuid"), entries[0].at("uuid"));
  EXPECT_EQ(entries[1].at("sessionId"), "s-1");
}

// ============================================================= the payload

TEST_F(ClaudeCode, EveryPayloadHasTheCommonFields) {
  settings(one("PreToolUse", "*", capture("pre.json")));
  install();
  EventContext with_transcript = context();
  with_transcript.transcript_path = "/engine/transcript.jsonl";
  with_transcript.permission_mode = "plan";
  (void)hooks_.emit(ToolCallEvent{.context = with_transcript, .tool_call_id = "toolu_9", .tool_name = "bash", .input = {{"command", "ls"}}});
  const json::object payload = captured("pre.json");
  EXPECT_EQ(payload.at("session_id"), "s-1");
  EXPECT_EQ(payload.at("transcript_path"), "/engine/transcript.jsonl");
  EXPECT_EQ(payload.at("cwd").as_string(), project_.path().string());
  EXPECT_EQ(payload.at("permission_mode"), "plan");
  EXPECT_EQ(payload.at("hook_event_name"), "PreToolUse");
  EXPECT_EQ(payload.at("tool_name"), "Bash");
  EXPECT_EQ(payload.at("tool_input").at("command"), "ls");
  EXPECT_EQ(payload.at("tool_use_id"), "toolu_9");
}

// /bin/sh -c in the project directory, the engine's environment (HOME, PATH) plus CLAUDE_PROJECT_DIR;
// without a cwd in the event, the payload's is the project directory.
TEST_F(ClaudeCode, ACommandRunsInTheProjectDirectoryWithTheEnginesEnvironment) {
  settings(one("PreToolUse", "", "{ pwd; echo \\\"$HOME\\\"; echo \\\"$CLAUDE_PROJECT_DIR\\\"; jq -r .cwd; } > " +
                                     file("environment").string()));
  install();
  (void)hooks_.emit(ToolCallEvent{.context = {.session_id = "s-1"}, .tool_name = "bash"});
  const std::string project = fs::canonical(project_.path()).string();
  EXPECT_EQ(testing::read_file(file("environment")),
            project + "\n" + std::getenv("HOME") + "\n" + project_.path().string() + "\n" + project_.path().string() + "\n");
}

TEST_F(ClaudeCode, WithoutATranscriptFromTheEngineThePayloadNamesTheOneHookbusKeeps) {
  settings(one("PreToolUse", "", capture("pre.json")));
  install();
  (void)hooks_.emit(bash("ls"));
  EXPECT_EQ(captured("pre.json").at("transcript_path").as_string(),
            claude_code_transcript_path(root_.path() / "state" / "transcripts", "s-1").string());
  EXPECT_EQ(captured("pre.json").at("permission_mode"), "default");
}

TEST_F(ClaudeCode, PostToolUseCarriesTheToolResponse) {
  settings(one("PostToolUse", "", capture("post.json")));
  install();
  (void)hooks_.emit(ToolResultEvent{.context = context(), .tool_call_id = "t1", .tool_name = "bash", .input = {{"command", "ls"}},
                              .content = {TextPart{R"({"stdout": "a\nb", "stderr": ""})"}}});
  const json::object payload = captured("post.json");
  EXPECT_EQ(payload.at("hook_event_name"), "PostToolUse");
  EXPECT_EQ(payload.at("tool_response").at("stdout"), "a\nb");
  EXPECT_EQ(payload.at("tool_use_id"), "t1");
}

TEST_F(ClaudeCode, AnErrorResultAndAToolFailureArePostToolUseFailure) {
  settings(R"({"PostToolUse": [{"hooks": [{"type": "command", "command": "echo ok >> )" + file("post").string() + R"("}]}],
               "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "{ cat; echo; } >> )" + file("failures").string() + R"("}]}]})");
  install();
  (void)hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "bash", .content = {TextPart{"no such file"}}, .is_error = true});
  (void)hooks_.emit(ToolExecutionFailureEvent{.context = context(), .tool_call_id = "t2", .tool_name = "bash", .error = "timeout"});
  EXPECT_FALSE(fs::exists(file("post"))) << "PostToolUse is for results without an error";
  std::istringstream lines(testing::read_file(file("failures")));
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(json::parse(first).at("error"), "no such file");
  EXPECT_EQ(json::parse(first).at("hook_event_name"), "PostToolUseFailure");
  EXPECT_EQ(json::parse(second).at("error"), "timeout");
}

TEST_F(ClaudeCode, UserPromptSubmitCarriesThePrompt) {
  settings(one("UserPromptSubmit", "", capture("prompt.json")));
  install();
  (void)hooks_.emit(InputEvent{.context = context(), .text = "add tests"});
  EXPECT_EQ(captured("prompt.json").at("prompt"), "add tests");
}

TEST_F(ClaudeCode, SubagentStartAndStopCarryTheAgent) {
  settings(R"({"SubagentStart": [{"hooks": [{"type": "command", "command": ")" + capture("start.json") + R"("}]}],
               "SubagentStop": [{"hooks": [{"type": "command", "command": ")" + capture("stop.json") + R"("}]}]})");
  install();
  hooks_.emit(SubagentStartEvent{.context = context(), .task_id = "a1", .label = "reviewer"});
  (void)hooks_.emit(SubagentEndEvent{.context = context(), .task_id = "a1", .label = "reviewer", .result = "looks fine",
                               .after_follow_up = true});
  EXPECT_EQ(captured("start.json").at("agent_type"), "reviewer");
  const json::object stop = captured("stop.json");
  EXPECT_EQ(stop.at("agent_id"), "a1");
  EXPECT_EQ(stop.at("stop_hook_active"), true);
  EXPECT_EQ(stop.at("last_assistant_message"), "looks fine");
  EXPECT_EQ(stop.at("agent_transcript_path"), stop.at("transcript_path")) << "one transcript per session, the subagent's in it";
}

TEST_F(ClaudeCode, SessionStartCarriesTheSource) {
  settings(one("SessionStart", "", capture("start.json")));
  install();
  (void)hooks_.emit(SessionStartEvent{.context = context(), .reason = SessionStartReason::fork});
  EXPECT_EQ(captured("start.json").at("source"), "resume");
  (void)hooks_.emit(SessionStartEvent{.context = context(), .reason = SessionStartReason::new_session});
  EXPECT_EQ(captured("start.json").at("source"), "clear");
}

// Claude Code sends SessionStart's model only when it knows it, and MessageDisplay's turn_id.
TEST_F(ClaudeCode, SessionStartCarriesTheEnginesModelWhenItKnowsItAndMessageDisplayItsTurn) {
  settings(R"({"SessionStart": [{"hooks": [{"type": "command", "command": ")" + capture("start.json") + R"("}]}],
               "MessageDisplay": [{"hooks": [{"type": "command", "command": ")" + capture("display.json") + R"("}]}]})");
  install();
  EventContext known = context();
  known.model = "claude-opus-4-7";
  known.turn_id = "t3";
  (void)hooks_.emit(SessionStartEvent{.context = known});
  hooks_.emit(MessageUpdateEvent{.context = known, .message = {.role = Role::assistant, .content = {TextPart{"Hi"}}}});
  EXPECT_EQ(captured("start.json").at("model"), "claude-opus-4-7");
  EXPECT_EQ(captured("display.json").at("turn_id"), "t3");
  (void)hooks_.emit(SessionStartEvent{.context = context()});
  EXPECT_FALSE(captured("start.json").contains("model")) << "an engine that does not know its model sends none";
}

TEST_F(ClaudeCode, SessionEndPreCompactAndNotificationCarryTheirFields) {
  settings(R"({"SessionEnd": [{"hooks": [{"type": "command", "command": ")" + capture("end.json") + R"("}]}],
               "PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": ")" + capture("compact.json") + R"("}]}],
               "Notification": [{"matcher": "idle_prompt", "hooks": [{"type": "command", "command": ")" + capture("note.json") + R"("}]}]})");
  install();
  hooks_.emit(SessionShutdownEvent{.context = context(), .reason = SessionShutdownReason::new_session});
  SessionBeforeCompactEvent compact{.context = context()};
  compact.custom_instructions = "keep the API";
  compact.trigger = CompactTrigger::auto_;
  (void)hooks_.emit(compact);
  hooks_.emit(NotificationEvent{.context = context(), .message = "waiting for you", .title = "Claude", .kind = "idle_prompt"});
  EXPECT_EQ(captured("end.json").at("reason"), "clear");
  EXPECT_EQ(captured("compact.json").at("trigger"), "auto");
  EXPECT_EQ(captured("compact.json").at("custom_instructions"), "keep the API");
  EXPECT_EQ(captured("note.json").at("notification_type"), "idle_prompt");
  EXPECT_EQ(captured("note.json").at("message"), "waiting for you");
}

TEST_F(ClaudeCode, PostCompactPermissionDeniedStopFailurePostModelSwitchAndMessageDisplayCarryTheirFields) {
  const auto group = [&](const std::string& event, const std::string& matcher, const std::string& file) {
    return "\"" + event + R"(": [{"matcher": ")" + matcher + R"(", "hooks": [{"type": "command", "command": ")" +
           capture(file) + R"("}]}])";
  };
  settings("{" + group("PostCompact", "auto", "post-compact.json") + ", " + group("PermissionDenied", "Bash", "denied.json") +
           ", " + group("StopFailure", "", "failure.json") + ", " + group("PostModelSwitch", "opus", "model.json") + ", " +
           group("MessageDisplay", "", "display.json") + "}");
  install();
  SessionCompactEvent compacted{.context = context()};
  compacted.compaction_entry.summary = "we fixed the parser";
  hooks_.emit(compacted);
  hooks_.emit(PermissionDeniedEvent{.context = context(), .tool_name = "bash", .parameters = {{"command", "rm -rf /"}}});
  hooks_.emit(AgentErrorEvent{.context = context(), .error = "overloaded"});
  hooks_.emit(ModelSelectEvent{.context = context(), .model = "opus", .previous_model = "sonnet"});
  hooks_.emit(MessageUpdateEvent{.context = context(), .message = {.role = Role::assistant, .content = {TextPart{"Hello"}}}});
  EXPECT_EQ(captured("post-compact.json").at("hook_event_name"), "PostCompact");
  EXPECT_EQ(captured("post-compact.json").at("compact_summary"), "we fixed the parser");
  EXPECT_EQ(captured("denied.json").at("tool_name"), "Bash");
  EXPECT_EQ(captured("denied.json").at("tool_input"), (json::object{{"command", "rm -rf /"}}));
  EXPECT_EQ(captured("failure.json").at("hook_event_name"), "StopFailure");
  EXPECT_EQ(captured("failure.json").at("error_details"), "overloaded");
  EXPECT_EQ(captured("model.json").at("from_model"), "sonnet");
  EXPECT_EQ(captured("model.json").at("to_model"), "opus");
  EXPECT_EQ(captured("display.json").at("delta"), "Hello");
  EXPECT_THAT(errors_seen_, IsEmpty());
}

TEST_F(ClaudeCode, PreModelSwitchAndPostToolBatchAreNotImportedWithAWarningNamingTheEvent) {
  write_file(project_settings(), R"({"hooks": {
    "PreModelSwitch": [{"hooks": [{"type": "command", "command": "exit 2"}]}],
    "PostToolBatch": [{"hooks": [{"type": "command", "command": "true"}]}]}})");
  const ClaudeCodeSettings read = read_claude_code_settings(project_settings(), Layer::project);
  EXPECT_THAT(read.commands, IsEmpty());
  EXPECT_THAT(read.skipped, ElementsAre(AllOf(HasSubstr("hooks.PreModelSwitch"), HasSubstr("'PreModelSwitch'")),
                                        AllOf(HasSubstr("hooks.PostToolBatch"), HasSubstr("'PostToolBatch'"))));
}

TEST_F(ClaudeCode, AHookFiredInsideASubagentGetsItsAgentIdAndType) {
  settings(one("PreToolUse", "", capture("pre.json")));
  install();
  ToolCallEvent inside = bash("ls");
  inside.context.agent_id = "agent-7";
  inside.context.agent_type = "Explore";
  (void)hooks_.emit(inside);
  EXPECT_EQ(captured("pre.json").at("agent_id"), "agent-7");
  EXPECT_EQ(captured("pre.json").at("agent_type"), "Explore");
  (void)hooks_.emit(bash("ls"));
  EXPECT_FALSE(captured("pre.json").contains("agent_id")) << "the main agent's hooks get neither, as in Claude Code";
}

TEST_F(ClaudeCode, APermissionRequestHookAllowsWithUpdatedInputOrDeniesAndInterrupts) {
  write_file(script("perm.py"),
             "#!/usr/bin/python3\nimport json, sys\n"
             "data = json.load(sys.stdin)\n"
             "cmd = data['tool_input']['command']\n"
             "if cmd == 'make':\n"
             "    d = {'behavior': 'allow', 'updatedInput': {'command': 'make -j2'}}\n"
             "else:\n"
             "    d = {'behavior': 'deny', 'message': 'not in CI', 'interrupt': True}\n"
             "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PermissionRequest', 'decision': d}}))\n",
             0755);
  settings(one("PermissionRequest", "Bash", "python3 .claude/hooks/perm.py"));
  install();
  const PermissionRequestResult allowed = hooks_.emit(
      PermissionRequestEvent{.context = context(), .tool_call_id = "t", .tool_name = "bash", .input = {{"command", "make"}}});
  EXPECT_EQ(allowed.decision, Decision::allow);
  EXPECT_EQ(allowed.input, (json::object{{"command", "make -j2"}}));
  const PermissionRequestResult denied = hooks_.emit(
      PermissionRequestEvent{.context = context(), .tool_call_id = "t", .tool_name = "bash", .input = {{"command", "deploy"}}});
  EXPECT_EQ(denied.decision, Decision::deny);
  EXPECT_EQ(denied.reason, "not in CI");
  ASSERT_TRUE(denied.stop.has_value());
  EXPECT_EQ(denied.stop->reason, "not in CI");
}

// ============================================================= the answers

TEST_F(ClaudeCode, ContinueFalseStopsTheAgentWithTheReasonAndNamesTheHook) {
  settings(one("PostToolUse", "", R"(echo '{\"continue\": false, \"stopReason\": \"budget spent\"}')"));
  install();
  const ToolResultResult result = hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "bash"});
  ASSERT_TRUE(result.stop.has_value());
  EXPECT_EQ(result.stop->reason, "budget spent");
  EXPECT_THAT(result.stop->decided_by, Optional(::testing::Field(&Decider::source, HasSubstr("hooks.PostToolUse[0].hooks[0]"))));
}

TEST_F(ClaudeCode, SystemMessageReachesTheEngine) {
  settings(one("PreToolUse", "", R"(echo '{\"systemMessage\": \"linting is slow today\"}')"));
  install();
  EXPECT_THAT(hooks_.emit(bash("ls")).system_messages, ElementsAre("linting is slow today"));
}

TEST_F(ClaudeCode, ExitTwoOnPostToolUseGivesStderrToTheModel) {
  settings(one("PostToolUse", "", "echo 'lint: 3 errors' >&2; exit 2"));
  install();
  EXPECT_THAT(hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "edit"}).additional_context,
              ElementsAre("lint: 3 errors"));
}

TEST_F(ClaudeCode, ExitTwoOnStopKeepsTheAgentGoingWithStderr) {
  settings(one("Stop", "", "echo 'run the tests first' >&2; exit 2"));
  install();
  EXPECT_THAT(hooks_.emit(AgentEndEvent{.context = context()}).follow_up_messages, ElementsAre("run the tests first"));
}

// Claude Code runs Stop when the agent finished: not when the user
// interrupted it, nor when an error ended it (that is StopFailure).
TEST_F(ClaudeCode, AStopHookRunsOnlyWhenTheRunCompleted) {
  settings(one("Stop", "", "echo 'run the tests first' >&2; exit 2"));
  install();
  EXPECT_THAT(hooks_.emit(AgentEndEvent{.context = context(), .status = RunStatus::cancelled}).follow_up_messages,
              IsEmpty());
  EXPECT_THAT(hooks_.emit(AgentEndEvent{.context = context(), .status = RunStatus::failed}).follow_up_messages,
              IsEmpty());
  EXPECT_THAT(hooks_.emit(AgentEndEvent{.context = context(), .status = RunStatus::completed}).follow_up_messages,
              ElementsAre("run the tests first"));
}

TEST_F(ClaudeCode, ExitTwoOnUserPromptSubmitRejectsThePrompt) {
  settings(one("UserPromptSubmit", "", "echo 'no prompts after 6pm' >&2; exit 2"));
  install();
  const InputResult result = hooks_.emit(InputEvent{.context = context(), .text = "hi"});
  EXPECT_EQ(result.action, InputAction::reject);
  EXPECT_EQ(result.reason, "no prompts after 6pm");
}

TEST_F(ClaudeCode, ExitTwoOnSessionStartIsShownToTheUser) {
  settings(one("SessionStart", "", "echo 'dependencies are stale' >&2; exit 2"));
  install();
  EXPECT_THAT(hooks_.emit(SessionStartEvent{.context = context()}).system_messages, ElementsAre("dependencies are stale"));
}

// ---------------------------------------- CLAUDE_ENV_FILE (SessionStart)

// Hooks writing CLAUDE_ENV_FILE as Claude Code's docs show, in bash, Python and Node.
TEST_F(ClaudeCode, WhatASessionStartHookExportsInItsEnvFileIsInTheResultForTheEnginesLaterTools) {
  const fs::path sh = write_script(script("env.sh"),
                                   "echo 'export NODE_ENV=production' >> \"$CLAUDE_ENV_FILE\"\n"
                                   "echo 'export PATH=\"$PATH:./node_modules/.bin\"' >> \"$CLAUDE_ENV_FILE\"\n");
  const fs::path py = write_file(script("env.py"),
                                 "#!/usr/bin/env python3\nimport os\n"
                                 "with open(os.environ['CLAUDE_ENV_FILE'], 'a') as f:\n"
                                 "    f.write('export DEBUG_LOG=true\\n')\n",
                                 0755);
  const fs::path js = write_file(script("env.js"),
                                 "#!/usr/bin/env node\nrequire('fs').appendFileSync(process.env.CLAUDE_ENV_FILE, "
                                 "'export API_URL=\"http://localhost:3000\"\\n');\n",
                                 0755);
  settings(R"({"SessionStart": [{"hooks": [{"type": "command", "command": ")" + sh.string() +
           R"("}, {"type": "command", "command": ")" + py.string() + R"("}, {"type": "command", "command": ")" +
           js.string() + R"("}]}]})");
  install();
  EXPECT_THAT(hooks_.emit(SessionStartEvent{.context = context()}).environment,
              ElementsAre(EnvironmentVariable{"NODE_ENV", "production"},
                          EnvironmentVariable{"PATH", std::string(std::getenv("PATH")) + ":./node_modules/.bin"},
                          EnvironmentVariable{"DEBUG_LOG", "true"},
                          EnvironmentVariable{"API_URL", "http://localhost:3000"}));
}

TEST_F(ClaudeCode, EachRunGetsAFreshEmptyPrivateEnvFileOutsideTheProjectRemovedAfterIt) {
  settings(one("SessionStart", "", write_script(script("where.sh"),
                                                "f=\"$CLAUDE_ENV_FILE\"\n"
                                                "echo \"$f $(stat -c %a \"$(dirname \"$f\")\") $(stat -c %a \"$f\") "
                                                "$(wc -c < \"$f\")\" >> \"$CLAUDE_PROJECT_DIR/runs\"\n"
                                                "echo 'export A=1' >> \"$f\"\n")
                                       .string()));
  install();
  (void)hooks_.emit(SessionStartEvent{.context = context()});
  (void)hooks_.emit(SessionStartEvent{.context = context()});
  std::istringstream runs(testing::read_file(file("runs")));
  std::vector<fs::path> files;
  for (std::string path, directory_mode, file_mode, size; runs >> path >> directory_mode >> file_mode >> size;) {
    EXPECT_EQ(directory_mode, "700");
    EXPECT_EQ(file_mode, "600");
    EXPECT_EQ(size, "0");
    EXPECT_FALSE(path.starts_with(project_.path().string())) << path;
    EXPECT_FALSE(fs::exists(fs::path(path).parent_path())) << path;
    files.emplace_back(path);
  }
  ASSERT_EQ(files.size(), 2u);
  EXPECT_NE(files[0], files[1]);
}

TEST_F(ClaudeCode, AnEnvFileLineHookbusCannotReadIsAWarningNamingTheHookAndTheLine) {
  settings(one("SessionStart", "", write_script(script("nvm.sh"),
                                                "printf 'export A=1\\nsource ~/.nvm/nvm.sh\\nexport B=2\\n' "
                                                ">> \"$CLAUDE_ENV_FILE\"\n")
                                       .string()));
  install();
  EXPECT_THAT(hooks_.emit(SessionStartEvent{.context = context()}).environment,
              ElementsAre(EnvironmentVariable{"A", "1"}, EnvironmentVariable{"B", "2"}));
  EXPECT_THAT(log_.str(), AllOf(HasSubstr("nvm.sh (" + project_settings().string() + ": hooks.SessionStart[0].hooks[0]): "
                                          "its CLAUDE_ENV_FILE, line 2: `source ~/.nvm/nvm.sh`"),
                                HasSubstr("never runs")));
}

TEST_F(ClaudeCode, ALoaderOrShellStartUpVariableAnEnvFileExportsIsNotPassedOnAndTheWarningSaysWhy) {
  settings(one("SessionStart", "", write_script(script("preload.sh"),
                                                "printf 'export LD_PRELOAD=/tmp/x.so LD_AUDIT=/tmp/a.so\\n"
                                                "export DYLD_INSERT_LIBRARIES=/tmp/x.dylib BASH_ENV=/tmp/x.sh\\n"
                                                "export ENV=/tmp/x.sh PROMPT_COMMAND=x NODE_ENV=production\\n' "
                                                ">> \"$CLAUDE_ENV_FILE\"\n")
                                       .string()));
  install();
  EXPECT_THAT(hooks_.emit(SessionStartEvent{.context = context()}).environment,
              ElementsAre(EnvironmentVariable{"NODE_ENV", "production"}));
  for (const char* name : {"LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_ENV", "ENV", "PROMPT_COMMAND"})
    EXPECT_THAT(log_.str(), HasSubstr(std::string("its CLAUDE_ENV_FILE exports ") + name + ", which is not passed on: "));
  EXPECT_THAT(log_.str(), HasSubstr("the dynamic loader would load the libraries it names"));
}

TEST_F(ClaudeCode, AnEnvFileTheHookReplacedWithALinkIsNotFollowed) {
  write_file(file("exports"), "export SECRET=from-the-link\n");
  settings(one("SessionStart", "", write_script(script("link.sh"),
                                                "rm \"$CLAUDE_ENV_FILE\"\n"
                                                "ln -s \"$CLAUDE_PROJECT_DIR/exports\" \"$CLAUDE_ENV_FILE\"\n")
                                       .string()));
  install();
  EXPECT_THAT(hooks_.emit(SessionStartEvent{.context = context()}).environment, IsEmpty());
  EXPECT_THAT(log_.str(), HasSubstr("its CLAUDE_ENV_FILE is a link, which hookbus does not follow"));
  EXPECT_TRUE(fs::exists(file("exports")));
}

TEST_F(ClaudeCode, ExitTwoOnPreCompactIsShownToTheUser) {
  settings(one("PreCompact", "", "echo 'compacting loses the plan' >&2; exit 2"));
  install();
  EXPECT_THAT(hooks_.emit(SessionBeforeCompactEvent{.context = context()}).system_messages,
              ElementsAre("compacting loses the plan"));
}

TEST_F(ClaudeCode, AnotherExitCodeIsANonBlockingError) {
  settings(one("PreToolUse", "", "echo 'jq: not found' >&2; exit 127"));
  install();
  EXPECT_EQ(hooks_.emit(bash("ls")).decision, Decision::none);
  ASSERT_EQ(errors_seen_.size(), 1u);
  EXPECT_THAT(errors_seen_[0].message, AllOf(HasSubstr("exit code 127"), HasSubstr("jq: not found")));
}

// A run given a smaller stdout limit than the default is read with its own.
TEST_F(ClaudeCode, OutputCutAtTheRunsOwnLimitIsAFailureNamingThatLimit) {
  const ClaudeCodeCommand command{.event = "PreToolUse", .command = "echo 0123456789abcdef0123", .label = "chatty",
                                  .source = "settings.json: hooks.PreToolUse[0].hooks[0]"};
  const ProcessResult run =
      run_process({.program = "/bin/sh", .arguments = {"-c", command.command}, .stdout_limit = 16});
  ASSERT_TRUE(run.stdout_truncated);
  try {
    (void)claude_code_outcome(command, bash("ls"), run, {});
    ADD_FAILURE() << "no failure";
  } catch (const ExternalHookError& error) {
    EXPECT_THAT(error.what(), AllOf(HasSubstr("chatty (settings.json: hooks.PreToolUse[0].hooks[0])"),
                                    HasSubstr("printed more than its stdout limit of 16 bytes")));
  }
}

TEST_F(ClaudeCode, PlainTextOnStdoutOfOtherEventsIsIgnored) {
  settings(one("PreToolUse", "", "echo 'checking...'"));
  install();
  EXPECT_EQ(hooks_.emit(bash("ls")), ToolCallResult{});
  EXPECT_THAT(errors_seen_, IsEmpty());
}

TEST_F(ClaudeCode, AnAnswerOfTheWrongShapeIsAFailureNamingTheField) {
  settings(one("PreToolUse", "", R"(echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"maybe\"}}')"));
  install();
  EXPECT_EQ(hooks_.emit(bash("ls")).decision, Decision::none);
  ASSERT_EQ(errors_seen_.size(), 1u);
  EXPECT_THAT(errors_seen_[0].message, HasSubstr("hookSpecificOutput.permissionDecision must be \"allow\", \"deny\", \"ask\" or \"defer\""));
}

TEST_F(ClaudeCode, TheTopLevelApproveBlockAndAskDecisionsStillWork) {
  settings(one("PreToolUse", "", R"(read p; case \"$p\" in *push*) echo '{\"decision\": \"block\", \"reason\": \"no\"}';; *rebase*) echo '{\"decision\": \"ask\", \"reason\": \"sure?\"}';; *) echo '{\"decision\": \"approve\"}';; esac)"));
  install();
  EXPECT_EQ(hooks_.emit(bash("git push")).decision, Decision::deny);
  const ToolCallResult asked = hooks_.emit(bash("git rebase"));
  EXPECT_EQ(asked.decision, Decision::ask);
  EXPECT_EQ(asked.reason, "sure?");
  EXPECT_EQ(hooks_.emit(bash("ls")).decision, Decision::allow);
}

TEST_F(ClaudeCode, SuppressOutputIsAccepted) {
  settings(one("PreToolUse", "", R"(echo '{\"suppressOutput\": true, \"systemMessage\": \"checked\"}')"));
  install();
  EXPECT_THAT(hooks_.emit(bash("ls")).system_messages, ElementsAre("checked"));
  EXPECT_THAT(errors_seen_, IsEmpty());
}

// One hook answers every event with hookSpecificOutput.additionalContext naming the event.
TEST_F(ClaudeCode, JsonAdditionalContextReachesTheResultOfEveryEventThatTakesIt) {
  const std::string answer =
      R"(jq -c '{hookSpecificOutput: {hookEventName: .hook_event_name, additionalContext: (\"for \" + .hook_event_name)}}')";
  const auto group = [&](const std::string& event) {
    return "\"" + event + R"(": [{"hooks": [{"type": "command", "command": ")" + answer + R"("}]}])";
  };
  settings("{" + group("PreToolUse") + ", " + group("PostToolUse") + ", " + group("PostToolUseFailure") + ", " +
           group("UserPromptSubmit") + ", " + group("SessionStart") + "}");
  install();
  EXPECT_THAT(hooks_.emit(bash("ls")).additional_context, ElementsAre("for PreToolUse"));
  EXPECT_THAT(hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "bash"}).additional_context,
              ElementsAre("for PostToolUse"));
  EXPECT_THAT(hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "bash", .is_error = true}).additional_context,
              ElementsAre("for PostToolUseFailure"));
  EXPECT_THAT(hooks_.emit(ToolExecutionFailureEvent{.context = context(), .tool_name = "bash", .error = "killed"})
                  .additional_context,
              ElementsAre("for PostToolUseFailure"));
  EXPECT_THAT(hooks_.emit(InputEvent{.context = context(), .text = "hi"}).additional_context,
              ElementsAre("for UserPromptSubmit"));
  EXPECT_THAT(hooks_.emit(SessionStartEvent{.context = context()}).additional_context, ElementsAre("for SessionStart"));
  EXPECT_THAT(errors_seen_, IsEmpty());
}

TEST_F(ClaudeCode, ADecisionBlockOnPostToolUseGivesTheReasonToTheModel) {
  settings(one("PostToolUse", "", R"(echo '{\"decision\": \"block\", \"reason\": \"the file no longer compiles\"}')"));
  install();
  EXPECT_THAT(hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "edit"}).additional_context,
              ElementsAre("the file no longer compiles"));
}

// PostToolUse and PostToolUseFailure read one answer alike: the block's reason, then the context.
TEST_F(ClaudeCode, AfterAToolTheBlockReasonComesBeforeTheAdditionalContext) {
  const std::string answer =
      R"(jq -c '{decision: \"block\", reason: \"the reason\", hookSpecificOutput: {hookEventName: .hook_event_name, additionalContext: \"the context\"}}')";
  const auto group = [&](const std::string& event) {
    return "\"" + event + R"(": [{"hooks": [{"type": "command", "command": ")" + answer + R"("}]}])";
  };
  settings("{" + group("PostToolUse") + ", " + group("PostToolUseFailure") + "}");
  install();
  EXPECT_THAT(hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "bash"}).additional_context,
              ElementsAre("the reason", "the context"));
  EXPECT_THAT(hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "bash", .is_error = true}).additional_context,
              ElementsAre("the reason", "the context"));
  EXPECT_THAT(hooks_.emit(ToolExecutionFailureEvent{.context = context(), .tool_name = "bash", .error = "killed"})
                  .additional_context,
              ElementsAre("the reason", "the context"));
  EXPECT_THAT(errors_seen_, IsEmpty());
}

TEST_F(ClaudeCode, UpdatedMcpToolOutputReplacesTheToolsResult) {
  settings(one("PostToolUse", "mcp__.*", R"(echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"updatedMCPToolOutput\": \"[redacted]\"}}')"));
  install();
  const ToolResultResult result = hooks_.emit(
      ToolResultEvent{.context = context(), .tool_name = "mcp__vault__read", .content = {TextPart{"s3cr3t"}}});
  ASSERT_TRUE(result.content.has_value());
  EXPECT_THAT(*result.content, ElementsAre(ContentPart{TextPart{"[redacted]"}}));
}

TEST_F(ClaudeCode, UpdatedToolOutputReplacesTheResultOfABuiltinTool) {
  settings(one("PostToolUse", "Read", R"(echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"updatedToolOutput\": \"[redacted]\"}}')"));
  install();
  const ToolResultResult result =
      hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "read", .content = {TextPart{"s3cr3t"}}});
  ASSERT_TRUE(result.content.has_value());
  EXPECT_THAT(*result.content, ElementsAre(ContentPart{TextPart{"[redacted]"}}));
}

TEST_F(ClaudeCode, UpdatedToolOutputWinsOverUpdatedMcpToolOutputInOneAnswer) {
  settings(one("PostToolUse", "", R"(echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"updatedMCPToolOutput\": \"older\", \"updatedToolOutput\": \"newer\"}}')"));
  install();
  const ToolResultResult result = hooks_.emit(
      ToolResultEvent{.context = context(), .tool_name = "mcp__vault__read", .content = {TextPart{"s3cr3t"}}});
  ASSERT_TRUE(result.content.has_value());
  EXPECT_THAT(*result.content, ElementsAre(ContentPart{TextPart{"newer"}}));
}

TEST_F(ClaudeCode, APreToolUseDeferWinsOverAskAndAllowAndDropsItsUpdatedInput) {
  const auto answer = [](const std::string& decision, const std::string& more) {
    return R"({"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \")" +
           decision + R"(\")" + more + R"(}}'"})";
  };
  settings(R"({"PreToolUse": [{"hooks": [)" + answer("allow", "") + ", " +
           answer("defer", R"(, \"updatedInput\": {\"command\": \"ls\"})") + ", " + answer("ask", "") + "]}]}");
  install();
  const ToolCallResult deferred = hooks_.emit(bash("git push"));
  EXPECT_EQ(deferred.decision, Decision::defer);
  EXPECT_EQ(deferred.input, std::nullopt) << "Claude Code ignores updatedInput with a defer";
}

TEST_F(ClaudeCode, ExitTwoOnSubagentStopKeepsTheSubagentGoingWithStderr) {
  settings(one("SubagentStop", "", "echo 'the review is not finished' >&2; exit 2"));
  install();
  EXPECT_THAT(hooks_.emit(SubagentEndEvent{.context = context(), .label = "reviewer"}).follow_up_messages,
              ElementsAre("the review is not finished"));
}

TEST_F(ClaudeCode, ExitTwoOnPostToolUseFailureGivesStderrToTheModel) {
  settings(one("PostToolUseFailure", "", "echo 'try with sudo' >&2; exit 2"));
  install();
  EXPECT_THAT(hooks_.emit(ToolResultEvent{.context = context(), .tool_name = "bash", .is_error = true}).additional_context,
              ElementsAre("try with sudo"));
  EXPECT_THAT(hooks_.emit(ToolExecutionFailureEvent{.context = context(), .tool_name = "bash"}).additional_context,
              ElementsAre("try with sudo"));
}

TEST_F(ClaudeCode, ExitTwoOnPermissionRequestDeniesWithStderr) {
  settings(one("PermissionRequest", "", "echo 'not on this branch' >&2; exit 2"));
  install();
  const PermissionRequestResult result =
      hooks_.emit(PermissionRequestEvent{.context = context(), .tool_call_id = "t", .tool_name = "bash"});
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "not on this branch");
}

// Claude Code shows the user what these hooks say on exit 2; hookbus logs it as a warning.
TEST_F(ClaudeCode, ExitTwoOnEventsThatOnlyObserveIsLoggedForTheUser) {
  settings(R"({"Notification": [{"hooks": [{"type": "command", "command": "echo notified badly >&2; exit 2"}]}],
               "SessionEnd": [{"hooks": [{"type": "command", "command": "echo ended badly >&2; exit 2"}]}],
               "SubagentStart": [{"hooks": [{"type": "command", "command": "echo started badly >&2; exit 2"}]}]})");
  install();
  hooks_.emit(NotificationEvent{.context = context(), .kind = "idle_prompt"});
  hooks_.emit(SessionShutdownEvent{.context = context()});
  hooks_.emit(SubagentStartEvent{.context = context(), .label = "reviewer"});
  EXPECT_THAT(log_.str(), AllOf(HasSubstr("on Notification: notified badly"), HasSubstr("on SessionEnd: ended badly"),
                                HasSubstr("on SubagentStart: started badly")));
  EXPECT_THAT(errors_seen_, IsEmpty());
}

// No engine sees a stop on an event without a result: it is a warning, naming the hook and the reason.
TEST_F(ClaudeCode, ContinueFalseOnAnEventWithoutAResultIsAWarningNamingTheHookAndTheReason) {
  settings(one("Notification", "", R"(echo '{\"continue\": false, \"stopReason\": \"quota reached\"}')"));
  install();
  hooks_.emit(NotificationEvent{.context = context(), .kind = "idle_prompt"});
  EXPECT_THAT(log_.str(), AllOf(HasSubstr(project_settings().string() + ": hooks.Notification[0].hooks[0]"),
                                HasSubstr("asks to stop the agent"), HasSubstr("stopReason \"quota reached\""),
                                HasSubstr("the agent goes on")));
}

TEST_F(ClaudeCode, AStopHookFindsAnEmptyTranscriptBeforeTheSessionsFirstMessage) {
  settings(one("Stop", "", "wc -c < $(jq -r .transcript_path) > " + file("size").string()));
  install();
  (void)hooks_.emit(AgentEndEvent{.context = context()});
  EXPECT_EQ(testing::read_file(file("size")), "0\n");
  const fs::path transcript = claude_code_transcript_path(root_.path() / "state" / "transcripts", "s-1");
  EXPECT_EQ(fs::status(transcript).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
}

// A handler of the emit (here an error listener, called between two hooks)
// emits the same event again: each emit runs each hook once.
TEST_F(ClaudeCode, AnEmitNestedInAnotherOfTheSameEventRunsEachHookOncePerEmit) {
  const std::string log = file("runs").string();
  settings(R"({"PreToolUse": [{"hooks": [{"type": "command", "command": "echo a >> )" + log + R"(; exit 1"},
                                         {"type": "command", "command": "echo b >> )" + log + R"("}]}]})");
  install();
  bool nested = false;
  const Connection reemit = hooks_.on_handler_error([&](const HandlerFailure&) {
    if (std::exchange(nested, true)) return;
    (void)hooks_.emit(bash("nested"));
  });
  (void)hooks_.emit(bash("outer"));
  std::string runs = testing::read_file(file("runs"));
  std::sort(runs.begin(), runs.end());
  EXPECT_EQ(runs, "\n\n\n\naabb") << "a and b once in the outer emit and once in the nested one";
}

TEST_F(ClaudeCode, AHookThatTimesOutIsANonBlockingError) {
  settings(one("PreToolUse", "", "exec sleep 30", R"(, "timeout": 0.2)"));
  install();
  EXPECT_EQ(hooks_.emit(bash("ls")).decision, Decision::none);
  ASSERT_EQ(errors_seen_.size(), 1u);
  EXPECT_THAT(errors_seen_[0].message, HasSubstr("timed out after 200 ms"));
}

TEST_F(ClaudeCode, AFailClosedClaudeCodeHookFileDeniesWhenItFails) {
  write_script(project_.path() / ".hookbus" / "hooks" / "guard.sh", "echo 'jq: not found' >&2; exit 127\n");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hooks": {"guard.sh": {"protocol": "claude_code", "events": ["PreToolUse"], "failure": "fail_closed"}}})");
  install();
  const ToolCallResult result = hooks_.emit(bash("ls"));
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_THAT(result.reason, AllOf(HasSubstr("hook 'guard.sh' failed"), HasSubstr("exit code 127")));
  EXPECT_THAT(result.decided_by, Optional(::testing::Field(&Decider::handler, "guard.sh")));
}

TEST_F(ClaudeCode, AnAskNamesTheHookThatAsked) {
  published(testing::kApprove);
  install();
  const ToolCallResult asked = hooks_.emit(bash("git push"));
  EXPECT_EQ(asked.decision, Decision::ask);
  EXPECT_EQ(asked.decided_by, (Decider{"approve.js", project_settings().string() + ": hooks.PreToolUse[0].hooks[0]"}));
}

TEST_F(ClaudeCode, ARejectedPromptNamesTheHookThatRejectedIt) {
  settings(one("UserPromptSubmit", "", "echo 'not now' >&2; exit 2"));
  install();
  const InputResult rejected = hooks_.emit(InputEvent{.context = context(), .text = "hi"});
  EXPECT_EQ(rejected.action, InputAction::reject);
  ASSERT_TRUE(rejected.decided_by.has_value());
  EXPECT_EQ(rejected.decided_by->source, project_settings().string() + ": hooks.UserPromptSubmit[0].hooks[0]");
}

// ============================================================== matchers

// Claude Code's hooks reference, "Matcher patterns" (docs/claude-code.md, "Matchers").
TEST(ClaudeCodeMatcher, StarAndEmptyMatchEverything) {
  EXPECT_TRUE(ClaudeCodeMatcher("").matches("Anything"));
  EXPECT_TRUE(ClaudeCodeMatcher("*").matches("Anything"));
}

TEST(ClaudeCodeMatcher, ANameMatchesOnlyThatName) {
  EXPECT_TRUE(ClaudeCodeMatcher("Bash").matches("Bash"));
  EXPECT_FALSE(ClaudeCodeMatcher("Bash").matches("BashOutput"));
  EXPECT_FALSE(ClaudeCodeMatcher("mcp__memory").matches("mcp__memory__create_entities"));
  EXPECT_TRUE(ClaudeCodeMatcher("code-reviewer").matches("code-reviewer"));
  EXPECT_FALSE(ClaudeCodeMatcher("code-reviewer").matches("code-reviewers"));
}

TEST(ClaudeCodeMatcher, AListOfNamesMatchesEachOfThemExactly) {
  EXPECT_TRUE(ClaudeCodeMatcher("Edit|Write").matches("Write"));
  EXPECT_FALSE(ClaudeCodeMatcher("Edit|Write").matches("NotebookEdit"));
  EXPECT_FALSE(ClaudeCodeMatcher("Edit|Write").matches("Read"));
  EXPECT_TRUE(ClaudeCodeMatcher("Edit, Write").matches("Write"));
  EXPECT_TRUE(ClaudeCodeMatcher("Edit | Write").matches("Edit"));
  EXPECT_FALSE(ClaudeCodeMatcher("Edit,Write").matches("MultiEdit"));
}

TEST(ClaudeCodeMatcher, ARegularExpressionMatchesAnywhereInTheName) {
  EXPECT_TRUE(ClaudeCodeMatcher("^Bash").matches("BashOutput"));
  EXPECT_TRUE(ClaudeCodeMatcher("mcp__.*__write").matches("mcp__fs__write_file"));
  EXPECT_TRUE(ClaudeCodeMatcher("Edit.*").matches("NotebookEdit"));
  EXPECT_TRUE(ClaudeCodeMatcher("mcp__memory__.*").matches("mcp__memory__create_entities"));
  EXPECT_FALSE(ClaudeCodeMatcher("mcp__memory__.*").matches("mcp__github__search"));
}

TEST(ClaudeCodeMatcher, AnchorsMakeAnExpressionMatchTheWholeName) {
  EXPECT_TRUE(ClaudeCodeMatcher("^Bash$").matches("Bash"));
  EXPECT_FALSE(ClaudeCodeMatcher("^Bash$").matches("BashOutput"));
  EXPECT_FALSE(ClaudeCodeMatcher("^Edit.*").matches("NotebookEdit"));
}

TEST(ClaudeCodeMatcher, AnInvalidExpressionOrAListOfNoNameIsAnError) {
  EXPECT_THROW(ClaudeCodeMatcher("Edit|("), ConfigError);
  EXPECT_THROW(ClaudeCodeMatcher("|"), ConfigError);
  EXPECT_THROW(ClaudeCodeMatcher(" , "), ConfigError);
}

TEST_F(ClaudeCode, AMatcherThatIsAnExpressionRunsItsHookForAToolNameItMatchesPartOf) {
  settings(one("PreToolUse", "mcp__.*__write", "echo 'no MCP writes' >&2; exit 2"));
  install();
  EXPECT_EQ(hooks_.emit(ToolCallEvent{.context = context(), .tool_name = "mcp__fs__write_file"}).decision, Decision::deny);
  EXPECT_EQ(hooks_.emit(ToolCallEvent{.context = context(), .tool_name = "mcp__fs__read_file"}).decision, Decision::none);
}

TEST(ClaudeCodeToolNames, MapBuiltinNamesIgnoringCaseAndTheMapBothWays) {
  const ClaudeCodeToolNames names(std::map<std::string, std::string>{{"read_file", "Read"}});
  EXPECT_EQ(names.to_claude("bash"), "Bash");
  EXPECT_EQ(names.to_claude("WEBFETCH"), "WebFetch");
  EXPECT_EQ(names.to_claude("read_file"), "Read");
  EXPECT_EQ(names.to_claude("deploy"), "deploy");
  EXPECT_EQ(names.to_engine("Read"), "read_file");
  EXPECT_EQ(names.to_engine("Bash"), "Bash");
}

TEST_F(ClaudeCode, APreCompactMatcherAppliesToTheTrigger) {
  settings(one("PreCompact", "manual", "echo x >> " + file("ran").string()));
  install();
  (void)hooks_.emit(SessionBeforeCompactEvent{.context = context(), .trigger = CompactTrigger::auto_});
  EXPECT_FALSE(fs::exists(file("ran")));
  (void)hooks_.emit(SessionBeforeCompactEvent{.context = context(), .trigger = CompactTrigger::manual});
  EXPECT_TRUE(fs::exists(file("ran")));
}

TEST_F(ClaudeCode, ANotificationMatcherAppliesToTheNotificationType) {
  settings(one("Notification", "permission_prompt", "echo x >> " + file("ran").string()));
  install();
  hooks_.emit(NotificationEvent{.context = context(), .message = "waiting", .kind = "idle_prompt"});
  EXPECT_FALSE(fs::exists(file("ran")));
  hooks_.emit(NotificationEvent{.context = context(), .message = "may I?", .kind = "permission_prompt"});
  EXPECT_TRUE(fs::exists(file("ran")));
}

TEST_F(ClaudeCode, SubagentStartAndStopMatchersApplyToTheAgentType) {
  settings(R"({"SubagentStart": [{"matcher": "Explore|Plan", "hooks": [{"type": "command", "command": "echo start >> )" +
           file("ran").string() + R"("}]}],
               "SubagentStop": [{"matcher": "reviewer", "hooks": [{"type": "command", "command": "echo stop >> )" +
           file("ran").string() + R"("}]}]})");
  install();
  hooks_.emit(SubagentStartEvent{.context = context(), .label = "reviewer"});
  (void)hooks_.emit(SubagentEndEvent{.context = context(), .label = "Explore"});
  EXPECT_FALSE(fs::exists(file("ran")));
  hooks_.emit(SubagentStartEvent{.context = context(), .label = "Plan"});
  (void)hooks_.emit(SubagentEndEvent{.context = context(), .label = "reviewer"});
  EXPECT_EQ(testing::read_file(file("ran")), "start\nstop\n");
}

// Claude Code ignores a matcher on events that have none, even one that is no valid expression.
TEST_F(ClaudeCode, MatchersOfUserPromptSubmitAndStopAreIgnored) {
  settings(R"({"UserPromptSubmit": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo prompt >> )" +
           file("ran").string() + R"("}]}],
               "Stop": [{"matcher": "(", "hooks": [{"type": "command", "command": "echo stop >> )" + file("ran").string() +
           R"("}]}]})");
  install();
  (void)hooks_.emit(InputEvent{.context = context(), .text = "hi"});
  (void)hooks_.emit(AgentEndEvent{.context = context()});
  EXPECT_EQ(testing::read_file(file("ran")), "prompt\nstop\n");
}

// The tool-name map goes one way only: no answer names a tool, and
// updatedInput replaces the input of the engine's call under its own name.
TEST_F(ClaudeCode, AMappedToolsUpdatedInputReplacesTheEnginesInput) {
  settings(one("PreToolUse", "Bash", "{ tee " + file("pre.json").string() +
                                         R"( >/dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"cmd\": \"make -j2\"}}}'; })"),
           R"({"run_shell": "Bash"})");
  install();
  const ToolCallResult result = hooks_.emit(
      ToolCallEvent{.context = context(), .tool_call_id = "t", .tool_name = "run_shell", .input = {{"cmd", "make"}}});
  EXPECT_EQ(captured("pre.json").at("tool_name"), "Bash");
  EXPECT_EQ(result.decision, Decision::allow);
  EXPECT_EQ(result.input, (json::object{{"cmd", "make -j2"}}));
}

// ================================================================ tracing

TEST_F(ClaudeCode, ATraceRecordsEachCommandAsAnExternalHookOfTheClaudeCodeProtocol) {
  settings(one("PreToolUse", "Bash", "exit 0"));
  install();
  std::vector<EmissionRecord> records;
  const Connection observer = hooks_.on_emission([&](const EmissionRecord& r) { records.push_back(r); });
  (void)hooks_.emit(bash("ls"));
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].handlers.size(), 1u);
  const HandlerRecord& command = records[0].handlers[0];
  EXPECT_EQ(command.kind, RecordedKind::external);
  EXPECT_EQ(command.protocol, "claude_code");
  EXPECT_EQ(command.layer, Layer::project);
  EXPECT_THAT(command.source, AllOf(HasSubstr(project_settings().string()), HasSubstr("hooks.PreToolUse[0].hooks[0]")));
  EXPECT_EQ(command.action, HandlerAction::no_change);
}

TEST_F(ClaudeCode, ACommandItsMatcherExcludesIsRecordedAsSkipped) {
  settings(one("PreToolUse", "Edit|Write", "touch " + file("ran").string()));
  install();
  std::vector<EmissionRecord> records;
  const Connection observer = hooks_.on_emission([&](const EmissionRecord& r) { records.push_back(r); });
  (void)hooks_.emit(bash("ls"));
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].handlers.size(), 1u);
  EXPECT_EQ(records[0].handlers[0].action, HandlerAction::skipped);
  EXPECT_FALSE(fs::exists(file("ran")));
}

// A command's report goes to its own emit's record only: run by an emit
// nobody records, nested in a recorded handler's call (another bus's), its
// matcher's skip does not mark that handler skipped.
TEST_F(ClaudeCode, ACommandSkippedInAnUnrecordedEmitNestedInARecordedCallLeavesThatCallsRecordAlone) {
  settings(one("PreToolUse", "Edit|Write", "touch " + file("ran").string()));
  install();
  Hooks recorded;
  std::vector<EmissionRecord> records;
  const Connection observer = recorded.on_emission([&](const EmissionRecord& r) { records.push_back(r); });
  const Connection outer = recorded.on<TurnStartEvent>([&](const TurnStartEvent&) { (void)hooks_.emit(bash("ls")); });
  recorded.emit(TurnStartEvent{});
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].handlers.size(), 1u);
  EXPECT_EQ(records[0].handlers[0].action, HandlerAction::no_change);
  EXPECT_FALSE(fs::exists(file("ran")));
}

// Two commands that each wait for the other's mark run at the same time
// (TheMatchingHooksOfOneSettingsFileRunInParallel): each entry is its own
// process's run, so the two overlap, although the bus called the second
// handler only once the first handler's call (which ran the group) returned.
TEST_F(ClaudeCode, EachCommandOfAGroupIsRecordedWithItsOwnRun) {
  install_two_commands_waiting_for_each_other();
  std::vector<EmissionRecord> records;
  const Connection observer = hooks_.on_emission([&](const EmissionRecord& r) { records.push_back(r); });
  (void)hooks_.emit(bash("ls"));
  for (const auto& error : errors_seen_) ADD_FAILURE() << error.message;
  ASSERT_EQ(records.size(), 1u);
  ASSERT_EQ(records[0].handlers.size(), 2u);
  const HandlerRecord& first = records[0].handlers[0];
  const HandlerRecord& second = records[0].handlers[1];
  EXPECT_LT(first.start_offset, second.start_offset + second.duration);
  EXPECT_LT(second.start_offset, first.start_offset + first.duration);
}

TEST_F(ClaudeCode, EachRunIsLoggedAtDebugLevelWithItsEventExitCodeAndBytes) {
  settings(one("PreToolUse", "Bash", "cat > /dev/null; echo done >&2; exit 1"));
  install();
  logger()->set_level(spdlog::level::debug);
  (void)hooks_.emit(bash("ls"));
  EXPECT_THAT(log_.str(), AllOf(HasSubstr("hooks.PreToolUse[0].hooks[0]) ran for 'PreToolUse': exit code 1, "),
                                ::testing::ContainsRegex(R"( ms, [1-9][0-9]* bytes in, 0 bytes out, 5 bytes on stderr)")));
}

// ============================================== parallel runs, dedup, order

TEST_F(ClaudeCode, TheMatchingHooksOfOneSettingsFileRunInParallel) {
  install_two_commands_waiting_for_each_other();
  EXPECT_EQ(hooks_.emit(bash("ls")).decision, Decision::none);
  for (const auto& error : errors_seen_) ADD_FAILURE() << error.message;
}

TEST_F(ClaudeCode, IdenticalCommandsRunOnce) {
  const std::string count = "echo x >> " + file("count").string();
  settings(R"({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ")" + count + R"("}]},
                              {"matcher": "*", "hooks": [{"type": "command", "command": ")" + count + R"("}]}]})");
  install();
  (void)hooks_.emit(bash("ls"));
  EXPECT_EQ(testing::read_file(file("count")), "x\n");
}

TEST_F(ClaudeCode, ResultsFoldInDeclarationOrderDenyWinningOverAskAndAllow) {
  const auto decide = [](const std::string& decision, const std::string& reason) {
    return R"(echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \")" + decision +
           R"(\", \"permissionDecisionReason\": \")" + reason + R"(\"}}')";
  };
  settings(R"({"PreToolUse": [{"hooks": [{"type": "command", "command": ")" + decide("allow", "fine") + R"("},
                                         {"type": "command", "command": ")" + decide("ask", "ask first") + R"("},
                                         {"type": "command", "command": ")" + decide("deny", "first deny") + R"("},
                                         {"type": "command", "command": ")" + decide("deny", "second deny") + R"("}]}]})");
  install();
  const ToolCallResult result = hooks_.emit(bash("ls"));
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "first deny");
  EXPECT_THAT(result.decided_by, Optional(::testing::Field(&Decider::source, HasSubstr("hooks.PreToolUse[0].hooks[2]"))));
}

TEST_F(ClaudeCode, AnInProcessAskWinsOverAClaudeCodeAllowAndADenyOverBoth) {
  settings(one("PreToolUse", "", R"(echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\"}}')"));
  install();
  auto ask = hooks_.on<ToolCallEvent>([](const ToolCallEvent& e) -> std::optional<ToolCallResult> {
    if (e.input.at("command") == "git push") return ToolCallResult{.decision = Decision::ask, .reason = "confirm the push"};
    if (e.input.at("command") == "rm -rf /") return ToolCallResult{.decision = Decision::deny, .reason = "never"};
    return std::nullopt;
  }, {.label = "engine-policy"});
  const ToolCallResult asked = hooks_.emit(bash("git push"));
  EXPECT_EQ(asked.decision, Decision::ask);
  EXPECT_EQ(asked.decided_by->handler, "engine-policy");
  EXPECT_EQ(hooks_.emit(bash("rm -rf /")).decision, Decision::deny);
  EXPECT_EQ(hooks_.emit(bash("ls")).decision, Decision::allow);
}

// Claude Code runs identical commands once, whichever settings files declare them.
TEST_F(ClaudeCode, IdenticalCommandsOfTheUserAndTheProjectSettingsRunOnce) {
  const std::string count = "echo x >> " + file("count").string();
  write_file(locations().claude / "settings.json", R"({"hooks": )" + one("PreToolUse", "", count) + "}");
  write_file(project_settings(), R"({"hooks": )" + one("PreToolUse", "Bash", count) + "}");
  write_file(locations().config_file(Layer::user), R"({"claude_code": {"settings": ["user", "project"]}})");
  install();
  (void)hooks_.emit(bash("ls"));
  EXPECT_EQ(testing::read_file(file("count")), "x\n");
}

// Closing events may call their handlers last-registered first (HooksOptions::nested_ordering).
TEST_F(ClaudeCode, UnderNestedOrderingEachHookOfAClosingEventRunsOnce) {
  settings(R"({"Stop": [{"hooks": [{"type": "command", "command": "echo a >> )" + file("ran").string() + R"("},
                                   {"type": "command", "command": "echo b >> )" + file("ran").string() + R"("}]}]})");
  Hooks bus(HooksOptions{.nested_ordering = true});
  const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations(),
                                             .project_trust = ProjectTrustPolicy::trust_all});
  (void)bus.emit(AgentEndEvent{.context = context()});
  std::string ran = testing::read_file(file("ran"));
  std::sort(ran.begin(), ran.end());
  EXPECT_EQ(ran, "\n\nab");
}

// Each thread's emit runs its own hooks and gets its own answers.
TEST_F(ClaudeCode, EmitsOnSeveralThreadsAtOnceEachGetTheirOwnAnswers) {
  settings(R"({"PreToolUse": [{"hooks": [{"type": "command", "command": "jq -r .tool_input.command >&2; exit 2"},
                                         {"type": "command", "command": "true"}]}]})");
  install();
  std::vector<std::string> reasons(4);
  {
    std::vector<std::jthread> threads;
    for (std::size_t t = 0; t < reasons.size(); ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 3; ++i) reasons[t] += hooks_.emit(bash("thread " + std::to_string(t))).reason + ";";
      });
  }
  for (std::size_t t = 0; t < reasons.size(); ++t)
    EXPECT_EQ(reasons[t], fmt::format("thread {0};thread {0};thread {0};", t));
}

// The emit waits for every run of the group, even when the first denies and
// stops the chain: nothing runs on when the emit has returned.
TEST_F(ClaudeCode, ADenyThatStopsTheChainLeavesNoRunOfItsGroupBehind) {
  const std::string slow = "echo $$ > " + (dir_ / "pid").string() + "; sleep 0.3; touch " + file("finished").string();
  settings(R"({"PreToolUse": [{"hooks": [{"type": "command", "command": "echo no >&2; exit 2"},
                                         {"type": "command", "command": ")" + slow + R"("}]}]})");
  install();
  EXPECT_EQ(hooks_.emit(bash("ls")).decision, Decision::deny);
  EXPECT_TRUE(fs::exists(file("finished")));
  EXPECT_TRUE(testing::process_gone(pid_in("pid")));
}

// ===================================================== once, async, plugins

TEST_F(ClaudeCode, AOnceHookRunsOncePerSession) {
  settings(one("UserPromptSubmit", "", "echo x >> " + file("count").string(), R"(, "once": true)"));
  install();
  (void)hooks_.emit(InputEvent{.context = context(), .text = "a"});
  (void)hooks_.emit(InputEvent{.context = context(), .text = "b"});
  EventContext other = context();
  other.session_id = "s-2";
  (void)hooks_.emit(InputEvent{.context = other, .text = "c"});
  EXPECT_EQ(testing::read_file(file("count")), "x\nx\n");
}

TEST_F(ClaudeCode, AnAsyncHookRunsInTheBackgroundAndItsExitTwoRefusesNothing) {
  settings(one("PreToolUse", "", "touch " + file("ran").string() + "; echo denied >&2; exit 2", R"(, "async": true)"));
  Hooks bus;  // its end waits for the background run
  const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations(),
                                             .project_trust = ProjectTrustPolicy::trust_all});
  EXPECT_EQ(bus.emit(bash("ls")).decision, Decision::none);
  for (auto waited = 0ms; !fs::exists(file("ran")) && waited < kHangBound; waited += 10ms) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(fs::exists(file("ran")));
}

// A background test runner in the published style: its verdict reaches the
// model at the next event whose result carries context, never at its own.
TEST_F(ClaudeCode, AnAsyncHooksContextAndMessageGoToTheModelAtTheNextEventThatTakesThem) {
  write_script(script("tests.py"),
               "#!/usr/bin/python3\nimport json, sys\n"
               "data = json.load(sys.stdin)\n"
               "print(json.dumps({'systemMessage': 'tests failed after editing ' + data['tool_input']['file_path'],\n"
               "    'hookSpecificOutput': {'hookEventName': 'PostToolUse', 'additionalContext': 'see parser_test'}}))\n");
  settings(one("PostToolUse", "Edit", "python3 $CLAUDE_PROJECT_DIR/.claude/hooks/tests.py", R"(, "async": true)"));
  Hooks bus;
  const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations(),
                                             .project_trust = ProjectTrustPolicy::trust_all});
  const ToolResultEvent edited{.context = context(), .tool_call_id = "t1", .tool_name = "edit",
                               .input = {{"file_path", "parser.py"}}};
  EXPECT_THAT(bus.emit(edited).additional_context, IsEmpty());
  installed.background.wait();
  EXPECT_THAT(bus.emit(InputEvent{.context = context(), .text = "go on"}).additional_context,
              ElementsAre("see parser_test", "tests failed after editing parser.py"));
  EXPECT_THAT(bus.emit(InputEvent{.context = context(), .text = "and?"}).additional_context, IsEmpty());
}

// On an event hookbus gives no result, an async hook's context and message
// are not lost: the next event that takes them gets them.
TEST_F(ClaudeCode, AnAsyncHooksMessageOnAnEventWithoutAResultGoesToTheNextEventThatTakesIt) {
  write_script(script("notify.py"),
               "#!/usr/bin/python3\nimport json, sys\n"
               "data = json.load(sys.stdin)\n"
               "print(json.dumps({'systemMessage': 'the user was told: ' + data['message'],\n"
               "    'hookSpecificOutput': {'hookEventName': 'Notification', 'additionalContext': 'they are away'}}))\n");
  settings(one("Notification", "", "python3 $CLAUDE_PROJECT_DIR/.claude/hooks/notify.py", R"(, "async": true)"));
  Hooks bus;
  const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations(),
                                             .project_trust = ProjectTrustPolicy::trust_all});
  bus.emit(NotificationEvent{.context = context(), .message = "waiting for input", .kind = "idle_prompt"});
  installed.background.wait();
  EXPECT_THAT(bus.emit(InputEvent{.context = context(), .text = "back"}).additional_context,
              ElementsAre("they are away", "the user was told: waiting for input"));
}

TEST_F(ClaudeCode, AnAsyncHooksDecisionIsNotAppliedAndIsLoggedAsIgnoredWithWhy) {
  write_script(script("deny.sh"), "#!/bin/sh\ncat >/dev/null\n"
                                  "jq -n '{hookSpecificOutput: {hookEventName: \"PreToolUse\", permissionDecision: "
                                  "\"deny\", permissionDecisionReason: \"not now\"}}'\n");
  settings(one("PreToolUse", "Bash", "$CLAUDE_PROJECT_DIR/.claude/hooks/deny.sh", R"(, "async": true)"));
  Hooks bus;
  const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations(),
                                             .project_trust = ProjectTrustPolicy::trust_all});
  EXPECT_EQ(bus.emit(bash("ls")).decision, Decision::none);
  installed.background.wait();
  EXPECT_THAT(log_.str(), HasSubstr("deny.sh (" + project_settings().string() +
                                    ": hooks.PreToolUse[0].hooks[0]) on PreToolUse: its answer's decision, reason are "
                                    "ignored: the hook ran in the background, and the event it answers was over"));
}

TEST_F(ClaudeCode, AsyncAnswersBeyondTheLimitAreDroppedCountedAndWarnedAbout) {
  write_script(script("note.sh"), "#!/bin/sh\ncat >/dev/null\necho '{\"systemMessage\": \"noted\"}'\n");
  settings(one("Stop", "", "$CLAUDE_PROJECT_DIR/.claude/hooks/note.sh", R"(, "async": true)"));
  Hooks bus;
  const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations(),
                                             .project_trust = ProjectTrustPolicy::trust_all});
  for (int i = 0; i < 33; ++i) (void)bus.emit(AgentEndEvent{.context = context()});
  installed.background.wait();
  EXPECT_THAT(log_.str(), HasSubstr("is dropped: 32 answers of async hooks already wait for an event that takes them "
                                    "(1 dropped so far)"));
  EXPECT_EQ(bus.emit(InputEvent{.context = context(), .text = "next"}).additional_context.size(), 32u);
}

TEST_F(ClaudeCode, AnAsyncRewakeHooksExitTwoGoesToTheModelAtTheNextEventThatTakesIt) {
  settings(one("PreToolUse", "Bash", "cat >/dev/null; echo 'the build broke' >&2; exit 2", R"(, "asyncRewake": true)"));
  Hooks bus;
  const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations(),
                                             .project_trust = ProjectTrustPolicy::trust_all});
  EXPECT_EQ(bus.emit(bash("make")).decision, Decision::none);
  installed.background.wait();
  EXPECT_THAT(bus.emit(InputEvent{.context = context(), .text = "go on"}).additional_context,
              ElementsAre("the build broke"));
}

TEST_F(ClaudeCode, AsyncRewakeRunsInTheBackgroundWithAWarningNamingItsEntry) {
  write_file(project_settings(), R"({"hooks": {"PostToolUse": [{"hooks": [
    {"type": "command", "command": "./review.sh", "asyncRewake": true}]}]}})");
  const ClaudeCodeSettings read = read_claude_code_settings(project_settings(), Layer::project);
  ASSERT_EQ(read.commands.size(), 1u);
  EXPECT_TRUE(read.commands[0].async);
  EXPECT_TRUE(read.commands[0].async_rewake);
  EXPECT_THAT(read.skipped, ElementsAre(AllOf(HasSubstr("hooks.PostToolUse[0].hooks[0].asyncRewake"),
                                              HasSubstr("hookbus cannot wake an idle agent"))));
}

TEST_F(ClaudeCode, AnAsyncRunStillGoingWhenItsBusEndsIsCancelled) {
  settings(one("PreToolUse", "", "echo $$ > " + (dir_ / "pid").string() + "; exec sleep 60", R"(, "async": true)"));
  {
    Hooks bus;
    const Installation installed = setup(bus, {.project_dir = project_.path(), .locations = locations(),
                                               .project_trust = ProjectTrustPolicy::trust_all});
    (void)bus.emit(bash("ls"));
    (void)pid_in("pid");  // it runs
  }
  EXPECT_TRUE(testing::process_gone(pid_in("pid")));
}

TEST_F(ClaudeCode, APluginsHooksRunWithClaudePluginRoot) {
  const fs::path plugin = root_.path() / "plugins" / "fmt";
  write_script(plugin / "scripts" / "mark.sh", "echo \"$CLAUDE_PLUGIN_ROOT\" > " + file("root").string() + "\n");
  write_file(plugin / "hooks" / "hooks.json", R"({"description": "formatter", "hooks": )" +
                                                  one("PreToolUse", "", "${CLAUDE_PLUGIN_ROOT}/scripts/mark.sh") + "}");
  write_file(locations().config_file(Layer::user), R"({"claude_code": {"plugins": [")" + plugin.string() + R"("]}})");
  install();
  (void)hooks_.emit(bash("ls"));
  EXPECT_EQ(testing::read_file(file("root")), plugin.string() + "\n");
}

// Claude Code dedups identical commands, but ${CLAUDE_PLUGIN_ROOT}/mark.sh of
// two plugins are two scripts: the second plugin's guard must run.
TEST_F(ClaudeCode, TheSameCommandTextInTwoPluginsRunsEachPluginsScript) {
  const fs::path marker = root_.path() / "plugins" / "marker";
  const fs::path guard = root_.path() / "plugins" / "guard";
  write_script(marker / "mark.sh", "echo marked >> " + file("marks").string() + "\n");
  write_script(guard / "mark.sh", "echo 'the guard plugin says no' >&2; exit 2\n");
  for (const fs::path& plugin : {marker, guard})
    write_file(plugin / "hooks" / "hooks.json", R"({"hooks": )" + one("PreToolUse", "", "${CLAUDE_PLUGIN_ROOT}/mark.sh") + "}");
  write_file(locations().config_file(Layer::user),
             R"({"claude_code": {"plugins": [")" + marker.string() + R"(", ")" + guard.string() + R"("]}})");
  install();
  const ToolCallResult result = hooks_.emit(bash("ls"));
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "the guard plugin says no");
  EXPECT_EQ(testing::read_file(file("marks")), "marked\n");
}

TEST_F(ClaudeCode, AClaudeCodePluginThatDoesNotExistIsAnErrorNamingTheConfigFileAndPath) {
  const fs::path missing = root_.path() / "plugins" / "security-guard";
  write_file(locations().config_file(Layer::user), R"({"claude_code": {"plugins": [")" + missing.string() + R"("]}})");
  EXPECT_THAT([&] { install(); },
              ::testing::ThrowsMessage<ConfigError>(AllOf(
                  HasSubstr(locations().config_file(Layer::user).string() + ": claude_code.plugins[0]: "),
                  HasSubstr("the Claude Code plugin directory " + missing.string() + " does not exist"))));
}

TEST_F(ClaudeCode, AClaudeCodePluginWithoutHooksJsonIsAnError) {
  const fs::path plugin = root_.path() / "plugins" / "commands-only";
  write_file(plugin / ".claude-plugin" / "plugin.json", R"({"name": "commands-only"})");
  write_file(locations().config_file(Layer::user), R"({"claude_code": {"plugins": [")" + plugin.string() + R"("]}})");
  EXPECT_THAT([&] { install(); },
              ::testing::ThrowsMessage<ConfigError>(AllOf(HasSubstr("claude_code.plugins[0]: "),
                                                          HasSubstr(plugin.string() + " has no hooks/hooks.json"))));
}

TEST_F(ClaudeCode, AClaudeCodePluginTheEngineAsksForThatDoesNotExistIsAnErrorNamingSetupOptions) {
  const fs::path missing = root_.path() / "plugins" / "gone";
  EXPECT_THAT(
      [&] {
        (void)setup(hooks_, {.project_dir = project_.path(), .locations = locations(),
                             .claude_code = ClaudeCodeSetup{.import = {.plugins = {missing}}}});
      },
      ::testing::ThrowsMessage<ConfigError>(HasSubstr("SetupOptions::claude_code.import.plugins[0]: the Claude Code plugin "
                                                      "directory " + missing.string() + " does not exist")));
}

TEST_F(ClaudeCode, AHookFileDeclaredWithTheClaudeCodeProtocolIsNeverQueried) {
  write_script(project_.path() / ".hookbus" / "hooks" / "validate-bash.sh",
               "echo \"$@\" >> " + file("args").string() + "\n"
               "jq -e '.hook_event_name == \"PreToolUse\" and .tool_name == \"Bash\"' >/dev/null && { echo nope >&2; exit 2; }\n");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hooks": {"validate-bash.sh": {"protocol": "claude_code", "events": ["PreToolUse"], "matcher": "Bash"}}})");
  install();
  const ToolCallResult result = hooks_.emit(bash("ls"));
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "nope");
  EXPECT_EQ(testing::read_file(file("args")), "\n") << "run without arguments, never asked `hook`";
}

// ============================================================== settings

TEST_F(ClaudeCode, SettingsThatAreNotJsonAreAnErrorNamingTheFile) {
  write_file(project_settings(), "{\"hooks\": ");
  EXPECT_THAT([&] { (void)read_claude_code_settings(project_settings(), Layer::project); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr(project_settings().string() + ": invalid JSON")));
}

TEST_F(ClaudeCode, AHooksBlockOfTheWrongShapeIsAnErrorNamingThePath) {
  write_file(project_settings(), R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": 7}]}]}})");
  EXPECT_THAT([&] { (void)read_claude_code_settings(project_settings(), Layer::project); },
              ::testing::ThrowsMessage<ConfigError>(
                  HasSubstr(project_settings().string() + ": hooks.PreToolUse[0].hooks[0].command: expected string, got number")));
}

TEST_F(ClaudeCode, EventsWithoutAnEquivalentAndOtherHookTypesAreSkippedWithAWarning) {
  write_file(project_settings(), R"({"hooks": {
    "WorktreeCreate": [{"hooks": [{"type": "command", "command": "true"}]}],
    "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work complete?"}]}]}})");
  const ClaudeCodeSettings read = read_claude_code_settings(project_settings(), Layer::project);
  EXPECT_THAT(read.commands, IsEmpty());
  EXPECT_THAT(read.skipped, ElementsAre(AllOf(HasSubstr("hooks.WorktreeCreate"), HasSubstr("no equivalent")),
                                        AllOf(HasSubstr("hooks.Stop[0].hooks[0]"), HasSubstr("\"prompt\" is not supported"))));
}

// ---------------------------------------------------------------- "if"

TEST_F(ClaudeCode, AHandlersIfRunsItOnlyOnTheCommandsItsRuleMatches) {
  settings(one("PreToolUse", "Bash", "touch " + file("ran").string() + "; echo 'no pushing' >&2; exit 2",
               R"x(, "if": "Bash(git push *)")x"));
  install();
  EXPECT_EQ(hooks_.emit(bash("git status")).decision, Decision::none);
  EXPECT_FALSE(fs::exists(file("ran"))) << "no process starts for a call its rule does not match";
  const ToolCallResult denied = hooks_.emit(bash("npm test && git push origin main"));
  EXPECT_EQ(denied.decision, Decision::deny);
  EXPECT_EQ(denied.reason, "no pushing");
}

TEST_F(ClaudeCode, AnIfPathRuleIsReadRelativeToTheProject) {
  settings(one("PreToolUse", "", "echo 'src is frozen' >&2; exit 2", R"x(, "if": "Edit(/src/**)")x"));
  install();
  const auto edit = [&](const fs::path& path) {
    return hooks_.emit(ToolCallEvent{.context = context(), .tool_call_id = "t", .tool_name = "edit",
                                     .input = {{"file_path", path.string()}}});
  };
  EXPECT_EQ(edit(file("src/main.cpp")).decision, Decision::deny);
  EXPECT_EQ(edit(file("docs/main.md")).decision, Decision::none);
  EXPECT_EQ(hooks_.emit(bash("cat src/main.cpp")).decision, Decision::none) << "Edit rules do not match Bash";
}

TEST_F(ClaudeCode, AnIfMcpRuleMatchesTheToolsOfItsServerOnly) {
  settings(one("PreToolUse", "", "echo 'not github' >&2; exit 2", R"(, "if": "mcp__github__*")"));
  install();
  const auto call = [&](const std::string& tool) {
    return hooks_.emit(ToolCallEvent{.context = context(), .tool_call_id = "t", .tool_name = tool}).decision;
  };
  EXPECT_EQ(call("mcp__github__create_issue"), Decision::deny);
  EXPECT_EQ(call("mcp__slack__post"), Decision::none);
}

TEST_F(ClaudeCode, AnIfHookbusCannotEvaluateIsAConfigErrorNamingTheFileAndJsonPath) {
  settings(one("PreToolUse", "", "exit 2", R"x(, "if": "Write(docs/**)")x"));
  EXPECT_THAT([&] { install(); },
              ::testing::ThrowsMessage<ConfigError>(
                  HasSubstr(project_settings().string() + ": hooks.PreToolUse[0].hooks[0].if: ")));
}

TEST_F(ClaudeCode, AnIfOnAnEventWithoutAToolCallIsNotImportedWithAWarning) {
  write_file(project_settings(), R"({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "if": "Bash"}]}]}})");
  const ClaudeCodeSettings read = read_claude_code_settings(project_settings(), Layer::project);
  EXPECT_THAT(read.commands, IsEmpty());
  EXPECT_THAT(read.skipped, ElementsAre(AllOf(HasSubstr("hooks.Stop[0].hooks[0].if"), HasSubstr("only on tool events"))));
}

TEST_F(ClaudeCode, APowerShellCommandIsNotImportedWithAWarningAndBashIsRunAsEver) {
  write_file(project_settings(), R"({"hooks": {"PreToolUse": [{"hooks": [
    {"type": "command", "shell": "powershell", "command": "Write-Output hi"},
    {"type": "command", "shell": "bash", "command": "true"}]}]}})");
  const ClaudeCodeSettings read = read_claude_code_settings(project_settings(), Layer::project);
  ASSERT_EQ(read.commands.size(), 1u);
  EXPECT_EQ(read.commands[0].command, "true");
  EXPECT_THAT(read.skipped, ElementsAre(AllOf(HasSubstr("hooks.PreToolUse[0].hooks[0].shell"),
                                              HasSubstr("PowerShell command is not imported"))));
}

TEST_F(ClaudeCode, AShellOtherThanBashOrPowerShellIsAnErrorNamingItsPath) {
  write_file(project_settings(), R"({"hooks": {"Stop": [{"hooks": [{"type": "command", "shell": "zsh", "command": "true"}]}]}})");
  EXPECT_THAT([&] { (void)read_claude_code_settings(project_settings(), Layer::project); },
              ::testing::ThrowsMessage<ConfigError>(HasSubstr("hooks.Stop[0].hooks[0].shell: expected \"bash\" or \"powershell\"")));
}

TEST_F(ClaudeCode, TimeoutsAreSecondsWithClaudeCodesDefault) {
  write_file(project_settings(), R"({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "timeout": 30},
                                                                    {"type": "command", "command": "b"}]}]}})");
  const ClaudeCodeSettings read = read_claude_code_settings(project_settings(), Layer::project);
  ASSERT_EQ(read.commands.size(), 2u);
  EXPECT_EQ(read.commands[0].timeout, 30s);
  EXPECT_EQ(read.commands[1].timeout, claude_code_default_timeout);
}

TEST_F(ClaudeCode, AnUntrustedProjectsSettingsDoNotRun) {
  settings(one("PreToolUse", "", "echo x >> " + file("ran").string()));
  installed_ = setup(hooks_, {.project_dir = project_.path(), .locations = locations()});
  (void)hooks_.emit(bash("ls"));
  EXPECT_FALSE(fs::exists(file("ran")));
  EXPECT_EQ(installed_->report.trust.state, TrustState::untrusted);
}

TEST_F(ClaudeCode, TheScriptsAProjectsSettingsRunArePartOfItsFingerprint) {
  write_script(script("guard.sh"), "exit 0\n");
  settings(one("PreToolUse", "", "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"));
  Hooks scratch;
  const Installation looked = setup(scratch, {.project_dir = project_.path(), .locations = locations()});
  EXPECT_THAT(looked.report.trust.now.files,
              Contains(::testing::Field(&FingerprintedFile::path, ".claude/hooks/guard.sh")));
  EXPECT_THAT(looked.report.trust.now.files, Contains(::testing::Field(&FingerprintedFile::path, ".claude/settings.json")));
}

// What a command reaches through the shell is what its project's fingerprint covers.
TEST_F(ClaudeCode, AScriptACommandReachesThroughCdIsPartOfItsFingerprint) {
  write_script(file("tools/check.sh"), "exit 0\n");
  settings(one("PreToolUse", "", "cd \\\"$CLAUDE_PROJECT_DIR/tools\\\" && ./check.sh"));
  Hooks scratch;
  const Installation looked = setup(scratch, {.project_dir = project_.path(), .locations = locations()});
  EXPECT_THAT(looked.report.trust.now.files, Contains(::testing::Field(&FingerprintedFile::path, "tools/check.sh")));
}

// The check before each run resolves the command as its fingerprint did:
// a script reached through `cd` and changed after setup does not run.
TEST_F(ClaudeCode, AScriptReachedThroughCdChangedAfterSetupDoesNotRun) {
  write_script(file("tools/check.sh"), "echo ran >> " + file("runs").string() + "\n");
  settings(one("PreToolUse", "", "cd tools && ./check.sh"));
  install_trusted();
  (void)hooks_.emit(bash("ls"));
  write_script(file("tools/check.sh"), "echo changed >> " + file("runs").string() + "\n");
  (void)hooks_.emit(bash("ls"));
  EXPECT_EQ(testing::read_file(file("runs")), "ran\n");
  EXPECT_THAT(errors_seen_, Contains(::testing::Field(&HandlerFailure::message, HasSubstr("changed content since the project"))));
}

// Regression (issue 25): a project's Claude Code plugin whose command named a
// project script outside the plugin was refused right after `hookctl trust`
// ("appeared since the project was trusted"): plugin commands were not resolved for the fingerprint.
TEST_F(ClaudeCode, AProjectPluginsCommandsRunRightAfterTrust) {
  const fs::path plugin = project_.path() / "plugins" / "guard";
  write_script(plugin / "scripts" / "mark.sh", "echo plugin >> " + file("runs").string() + "\n");
  write_script(file("tools/mark.sh"), "echo project >> " + file("runs").string() + "\n");
  write_file(plugin / "hooks" / "hooks.json",
             R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/mark.sh"},
                                                       {"type": "command", "command": "$CLAUDE_PROJECT_DIR/tools/mark.sh"}]}]}})");
  write_file(locations().config_file(Layer::project), R"({"claude_code": {"plugins": ["plugins/guard"]}})");
  install_trusted();
  (void)hooks_.emit(bash("ls"));
  EXPECT_THAT(errors_seen_, IsEmpty());
  const std::string runs = testing::read_file(file("runs"));
  EXPECT_THAT(runs, AllOf(HasSubstr("plugin\n"), HasSubstr("project\n")));
}

TEST_F(ClaudeCode, AProjectPluginsScriptReachedThroughDotDotIsPartOfTheFingerprint) {
  const fs::path plugin = project_.path() / "plugins" / "guard";
  write_script(project_.path() / "plugins" / "shared" / "check.sh", "exit 0\n");
  write_file(plugin / "hooks" / "hooks.json", R"({"hooks": )" + one("PreToolUse", "", "${CLAUDE_PLUGIN_ROOT}/../shared/check.sh") + "}");
  write_file(locations().config_file(Layer::project), R"({"claude_code": {"plugins": ["plugins/guard"]}})");
  Hooks scratch;
  const Installation looked = setup(scratch, {.project_dir = project_.path(), .locations = locations()});
  EXPECT_THAT(looked.report.trust.now.files,
              Contains(::testing::Field(&FingerprintedFile::path, "plugins/shared/check.sh")));
}

// Trust says what it does not cover: files outside the project, constructs it cannot resolve.
TEST_F(ClaudeCode, WhatAProjectsCommandsReachBeyondTheFingerprintIsReported) {
  write_script(root_.path() / "bin" / "helper.sh", "exit 0\n");
  settings(one("PreToolUse", "", root_.path().string() + "/bin/helper.sh && $TOOLS/run.sh"));
  Hooks scratch;
  const Installation looked = setup(scratch, {.project_dir = project_.path(), .locations = locations()});
  const std::string source = project_settings().string() + ": hooks.PreToolUse[0].hooks[0]";
  EXPECT_THAT(looked.report.trust.outside, ElementsAre(OutsideFile{root_.path() / "bin" / "helper.sh", source}));
  EXPECT_THAT(looked.report.trust.unresolved,
              ElementsAre(AllOf(::testing::Field(&UnresolvedCommand::source, source),
                                ::testing::Field(&UnresolvedCommand::construct, "$TOOLS/run.sh"),
                                ::testing::Field(&UnresolvedCommand::why, HasSubstr("$TOOLS")))));
}

TEST_F(ClaudeCode, TheUsersSettingsRunInEveryProject) {
  write_file(locations().claude / "settings.json",
             R"({"hooks": )" + one("PreToolUse", "Bash", "echo 'not in any project' >&2; exit 2") + "}");
  write_file(locations().config_file(Layer::user), R"({"claude_code": {"settings": ["user"]}})");
  installed_ = setup(hooks_, {.project_dir = project_.path(), .locations = locations()});  // the project is not trusted
  EXPECT_EQ(hooks_.emit(bash("ls")).reason, "not in any project");
}

TEST_F(ClaudeCode, TheLocalSettingsRunInATrustedProject) {
  write_file(project_.path() / ".claude" / "settings.local.json",
             R"({"hooks": )" + one("PreToolUse", "", "echo 'local says no' >&2; exit 2") + "}");
  write_file(locations().config_file(Layer::user), R"({"claude_code": {"settings": ["local"]}})");
  install();
  EXPECT_EQ(hooks_.emit(bash("ls")).reason, "local says no");
  EXPECT_EQ(hooks_.emit(bash("ls")).decided_by->source,
            (project_.path() / ".claude" / "settings.local.json").string() + ": hooks.PreToolUse[0].hooks[0]");
}

// ============================= imported settings belong to the less trusted of importer and owner

// Regression (issue 25, attack 7): a project's config importing the user's
// ~/.claude/settings.json installed its commands as user-layer handlers.
TEST_F(ClaudeCode, AProjectImportingTheUsersSettingsGetsThemAsProjectLayerHandlers) {
  write_file(user_settings(), R"({"hooks": )" + one("PreToolUse", "Bash", "exit 0") + "}");
  write_file(locations().config_file(Layer::project), R"({"claude_code": {"settings": ["user"]}})");
  install();
  EXPECT_THAT(installed_->report.hooks.installed,
              ElementsAre(AllOf(::testing::Field(&InstallReport::Installed::source, HasSubstr(user_settings().string())),
                                ::testing::Field(&InstallReport::Installed::layer, Layer::project))));
}

TEST_F(ClaudeCode, TheUsersOwnImportOfTheirSettingsKeepsThemInTheUserLayer) {
  write_file(user_settings(), R"({"hooks": )" + one("PreToolUse", "Bash", "exit 0") + "}");
  write_file(locations().config_file(Layer::user), R"({"claude_code": {"settings": ["user"]}})");
  write_file(locations().config_file(Layer::project), R"({"claude_code": {"settings": ["user"]}})");
  install();
  EXPECT_THAT(installed_->report.hooks.installed,
              ElementsAre(::testing::Field(&InstallReport::Installed::layer, Layer::user)));
}

TEST_F(ClaudeCode, TheLocalConfigImportingTheProjectsSettingsLeavesThemInTheProjectLayer) {
  write_file(project_settings(), R"({"hooks": )" + one("PreToolUse", "Bash", "exit 0") + "}");
  write_file(locations().config_file(Layer::local), R"({"claude_code": {"settings": ["project"]}})");
  install();
  EXPECT_THAT(installed_->report.hooks.installed,
              ElementsAre(::testing::Field(&InstallReport::Installed::layer, Layer::project)));
}

// ================================ tool names across layers (docs/security.md, T1)
// A layer's commands see the engine's names and those of the layers at least
// as trusted as theirs: a project cannot rename a tool out of the user's guard's matcher.

TEST_F(ClaudeCode, AProjectsToolNamesDoNotStopTheUsersGuardFromMatching) {
  user_guard_beside_a_project_naming_bash_shell();
  install();
  const ToolCallResult denied = hooks_.emit(bash("rm -rf /"));
  EXPECT_EQ(denied.decision, Decision::deny);
  EXPECT_EQ(denied.reason, "the user says no");
  ASSERT_TRUE(denied.decided_by.has_value());
  EXPECT_EQ(denied.decided_by->source, user_settings().string() + ": hooks.PreToolUse[0].hooks[0]");
}

TEST_F(ClaudeCode, AProjectsCommandsSeeTheProjectsToolNames) {
  user_guard_beside_a_project_naming_bash_shell();
  install();
  EXPECT_EQ(hooks_.emit(bash("ls")).decision, Decision::none);
  EXPECT_EQ(captured("project.json").at("tool_name"), "Shell");
}

TEST_F(ClaudeCode, AProjectNamingAToolTheUsersCommandMatchesIsAWarningNamingTheFileAndKey) {
  user_guard_beside_a_project_naming_bash_shell();
  install();
  EXPECT_THAT(installed_->report.warnings,
              Contains(AllOf(HasSubstr(locations().config_file(Layer::project).string() + ": claude_code.tool_names.bash: "),
                             HasSubstr("'Shell'"), HasSubstr(user_settings().string() + ": hooks.PreToolUse[0].hooks[0]"),
                             HasSubstr("still sees 'Bash'"))));
}

// The local layer holds the user's own settings for the project: it ranks above the project's.
TEST_F(ClaudeCode, TheLocalLayersCommandsDoNotSeeTheProjectsToolNames) {
  write_file(project_.path() / ".claude" / "settings.local.json",
             R"({"hooks": )" + one("PreToolUse", "", capture("local.json")) + "}");
  write_file(locations().config_file(Layer::user), R"({"claude_code": {"settings": ["local"]}})");
  write_file(locations().config_file(Layer::project), R"({"claude_code": {"tool_names": {"bash": "Shell"}}})");
  install();
  (void)hooks_.emit(bash("ls"));
  EXPECT_EQ(captured("local.json").at("tool_name"), "Bash");
}

// One transcript serves every layer's commands: it names tools as the most
// trusted layer with a Claude Code command sees them.
TEST_F(ClaudeCode, TheTranscriptNamesToolsAsTheMostTrustedLayerWithACommandSeesThem) {
  user_guard_beside_a_project_naming_bash_shell();
  install();
  hooks_.emit(MessageEndEvent{.context = context(),
                              .message = {.role = Role::assistant, .tool_calls = {{.id = "t", .name = "bash", .input = {}}}}});
  const json::object line =
      json::parse(testing::read_file(claude_code_transcript_path(root_.path() / "state" / "transcripts", "s-1"))).as_object();
  EXPECT_EQ(line.at("message").at("content").at(0).at("name"), "Bash");
}

// Never silently: setup() logs each skipped settings event and hook type, naming the file and the entry.
TEST_F(ClaudeCode, WhatSetupSkipsInSettingsIsALoggedWarning) {
  settings(R"({"WorktreeCreate": [{"hooks": [{"type": "command", "command": "true"}]}],
               "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work complete?"}]}]})");
  install();
  const auto skipped_event = AllOf(HasSubstr(project_settings().string()), HasSubstr("hooks.WorktreeCreate"));
  const auto skipped_type = AllOf(HasSubstr(project_settings().string()), HasSubstr("hooks.Stop[0].hooks[0]"));
  EXPECT_THAT(installed_->report.warnings, AllOf(Contains(skipped_event), Contains(skipped_type)));
  EXPECT_THAT(log_.str(), AllOf(skipped_event, skipped_type, HasSubstr("warning")));
}

// A script in a hookbus hook directory that a settings command runs is run
// by the settings only: discovery neither asks it `hook` nor runs it again.
TEST_F(ClaudeCode, DiscoveryNeverRunsAScriptASettingsCommandRuns) {
  const fs::path script = write_script(project_.path() / ".hookbus" / "hooks" / "cc.sh",
                                       "echo \"run:$*\" >> " + file("runs").string() + "\n");
  settings(one("PreToolUse", "", "$CLAUDE_PROJECT_DIR/.hookbus/hooks/cc.sh"));
  install();
  (void)hooks_.emit(bash("ls"));
  EXPECT_EQ(testing::read_file(file("runs")), "run:\n") << "once, by the settings, never with `hook`";
  EXPECT_THAT(installed_->report.discovery.skipped,
              Contains(AllOf(::testing::Field(&SkippedFile::path, script),
                             ::testing::Field(&SkippedFile::why, SkippedFile::Why::ignored),
                             ::testing::Field(&SkippedFile::reason, HasSubstr("hooks.PreToolUse[0].hooks[0]")))));
}

// ================================================== the C++ API, without config

// SetupOptions::claude_code: the engine picks the settings, names its tools and places the transcripts.
TEST_F(ClaudeCode, AnEngineImportsClaudeCodeSettingsThroughSetupOptions) {
  write_file(project_settings(), R"({"hooks": )" + one("PreToolUse", "Bash", capture("pre.json")) + "}");
  const fs::path transcripts = root_.path() / "engine-transcripts";
  installed_ = setup(hooks_, {.project_dir = project_.path(),
                              .locations = locations(),
                              .project_trust = ProjectTrustPolicy::trust_all,
                              .claude_code = ClaudeCodeSetup{.import = {.settings = {Layer::project},
                                                                         .tool_names = {{"run_shell", "Bash"}}},
                                                             .transcript_dir = transcripts}});
  (void)hooks_.emit(ToolCallEvent{.context = context(), .tool_call_id = "t", .tool_name = "run_shell", .input = {{"cmd", "ls"}}});
  EXPECT_EQ(captured("pre.json").at("tool_name"), "Bash");
  EXPECT_EQ(captured("pre.json").at("transcript_path").as_string(), claude_code_transcript_path(transcripts, "s-1").string());
}

TEST_F(ClaudeCode, TheProjectSettingsAnEngineImportsArePartOfTheFingerprint) {
  write_script(script("guard.sh"), "exit 0\n");
  write_file(project_settings(), R"({"hooks": )" + one("PreToolUse", "", "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh") + "}");
  Hooks scratch;
  const Installation looked = setup(scratch, {.project_dir = project_.path(),
                                              .locations = locations(),
                                              .claude_code = ClaudeCodeSetup{.import = {.settings = {Layer::project}}}});
  EXPECT_THAT(looked.report.trust.now.files, Contains(::testing::Field(&FingerprintedFile::path, ".claude/settings.json")));
  EXPECT_THAT(looked.report.trust.now.files,
              Contains(::testing::Field(&FingerprintedFile::path, ".claude/hooks/guard.sh")));
}

// The pieces on their own: settings read by hand, installed on a bare bus, with a transcript.
TEST_F(ClaudeCode, TheLowLevelApiRunsSettingsWithoutSetup) {
  testing::write_published_hook(project_.path(), testing::kFinishTodos);
  write_file(project_settings(), R"({"hooks": )" + testing::hooks_block({testing::kFinishTodos}) + "}");
  const ClaudeCodeSettings read =
      read_claude_code_settings(claude_code_settings_file(locations(), Layer::project), Layer::project);
  const ClaudeCodeOptions options{.tool_names = {}, .project_dir = project_.path(),
                                  .transcript_dir = root_.path() / "transcripts"};
  Hooks bus;
  const Connection transcript = record_claude_code_transcript(bus, options.transcript_dir, options.tool_names);
  const ConnectionGroup installed = install_claude_code_hooks(bus, read.commands, options);
  bus.emit(MessageEndEvent{.context = context(),
                           .message = {.role = Role::assistant, .content = {TextPart{"TODO: the docs"}}}});
  EXPECT_THAT(bus.emit(AgentEndEvent{.context = context()}).follow_up_messages,
              ElementsAre("You left a TODO: finish it before stopping."));
}

// ================================================================ transcripts

TEST(ClaudeCodeTranscriptPath, IsOneFileInTheDirectoryForAnySessionId) {
  const fs::path dir = "/var/hookbus/transcripts";
  EXPECT_EQ(claude_code_transcript_path(dir, "s-1"), dir / "s-1.jsonl");
  EXPECT_EQ(claude_code_transcript_path(dir, ""), dir / "session.jsonl");
  for (const std::string& id : std::vector<std::string>{"/etc/passwd", "../../escaped", "..", ".", "a/b",
                                                        std::string("nul\0byte", 8), std::string(300, 'x'),
                                                        std::string(300, '/')})
    EXPECT_EQ(claude_code_transcript_path(dir, id).parent_path(), dir) << id;
  EXPECT_NE(claude_code_transcript_path(dir, "a/b"), claude_code_transcript_path(dir, "a%2Fb"));
  EXPECT_NE(claude_code_transcript_path(dir, std::string(300, 'x')), claude_code_transcript_path(dir, std::string(301, 'x')));
}

TEST_F(ClaudeCode, ATranscriptStaysInItsDirectoryWhateverTheSessionId) {
  settings(one("Stop", "", "true"));
  install();
  const fs::path transcripts = root_.path() / "state" / "transcripts";
  for (const std::string& id : std::vector<std::string>{(root_.path() / "escaped").string(), "../escaped"}) {
    EventContext session = context();
    session.session_id = id;
    hooks_.emit(MessageEndEvent{.context = session, .message = {.role = Role::user, .content = {TextPart{"hi"}}}});
    EXPECT_TRUE(fs::exists(claude_code_transcript_path(transcripts, id))) << id;
  }
  EXPECT_FALSE(fs::exists(root_.path() / "escaped.jsonl"));
  EXPECT_FALSE(fs::exists(root_.path() / "state" / "escaped.jsonl"));
}

// ================================================================== kodelet

TEST(KodeletPayload, HasToolUserIdToolOutputTurnNumberResponseAndRecipeName) {
  EventContext context{.session_id = "c", .recipe_name = "reviewer"};
  const json::object call = hook_payload(ToolCallEvent{.context = context, .tool_call_id = "u1", .tool_name = "bash"}, "before_tool_call");
  EXPECT_EQ(call.at("tool_user_id"), "u1");
  EXPECT_EQ(call.at("recipe_name"), "reviewer");
  const json::object result = hook_payload(
      ToolResultEvent{.context = context, .tool_call_id = "u1", .tool_name = "bash", .content = {TextPart{"out"}}}, "after_tool_call");
  EXPECT_EQ(result.at("tool_output").at("toolName"), "bash");
  EXPECT_EQ(result.at("tool_output").at("success"), true);
  EXPECT_FALSE(result.at("tool_output").as_object().contains("error")) << "left out when empty, as kodelet does";
  EXPECT_FALSE(result.at("tool_output").as_object().contains("result")) << "not one of kodelet's fields";
  const json::object failed = hook_payload(
      ToolResultEvent{.context = context, .tool_name = "bash", .content = {TextPart{"no such file"}}, .is_error = true},
      "after_tool_call");
  EXPECT_EQ(failed.at("tool_output").at("success"), false);
  EXPECT_EQ(failed.at("tool_output").at("error"), "no such file");
  const json::object turn = hook_payload(
      TurnEndEvent{.context = context, .turn_index = 2, .message = {.role = Role::assistant, .content = {TextPart{"hi"}}}}, "turn_end");
  EXPECT_EQ(turn.at("turn_number"), 3);
  EXPECT_EQ(turn.at("response"), "hi");
  EXPECT_FALSE(hook_payload(AgentStartEvent{}, "agent_start").contains("recipe_name")) << "left out when empty, as kodelet does";
}

// kodelet's AgentStopPayload: messages as llmtypes.Message, {role, content: string}.
TEST(KodeletPayload, AgentStopMessagesHaveKodeletsRoleAndTextContent) {
  const AgentEndEvent event{.messages = {Message::user("fix the parser"),
                                         Message::assistant("on it", {ToolCall{.id = "c1", .name = "bash", .input = {{"command", "make"}}}}),
                                         Message{.role = Role::tool, .content = {TextPart{"ok"}}, .tool_call_id = "c1"},
                                         Message::assistant("done")}};
  const json::array messages = hook_payload(event, "agent_stop").at("messages").as_array();
  EXPECT_EQ(messages, (json::array{json::object{{"role", "user"}, {"content", "fix the parser"}},
                                   json::object{{"role", "assistant"}, {"content", "on it"}},
                                   json::object{{"role", "assistant"}, {"content", "\U0001F527 Using tool: bash with input: {\"command\":\"make\"}"}},
                                   json::object{{"role", "user"}, {"content", "\U0001F504 Tool result:\nok"}},
                                   json::object{{"role", "assistant"}, {"content", "done"}}}));
}

TEST(KodeletPayload, AgentEndByItsOwnNameKeepsTheCataloguesMessages) {
  const AgentEndEvent event{.messages = {Message::assistant("done")}};
  EXPECT_TRUE(hook_payload(event, "agent_end").at("messages").at(0).at("content").is_array());
}

TEST(KodeletPayload, CwdIsTheProjectDirectoryWhenTheEventHasNone) {
  TempDir dir;
  write_script(dir / "where", "jq -r .cwd > " + (dir / "cwd").string() + "\n");
  const ExternalHook hook{"where", dir / "where", 5s, dir.path()};
  const ProcessResult run = run_external_hook(hook, ToolCallEvent{.tool_name = "bash"}, "before_tool_call");
  ASSERT_TRUE(run.succeeded()) << run.stderr_text;
  EXPECT_EQ(testing::read_file(dir / "cwd"), dir.path().string() + "\n");
}

// A kodelet agent_stop hook in the style of kodelet's examples: the last
// message's content is a string it can search.
TEST_F(ClaudeCode, AKodeletAgentStopHookReadsTheLastMessageAsText) {
  write_script(project_.path() / ".hookbus" / "hooks" / "todo-check",
               "[ \"$1\" = hook ] && { echo agent_stop; exit 0; }\n"
               "last=$(jq -r '.messages[-1].content')\n"
               "case \"$last\" in *TODO*) echo '{\"follow_up_messages\": [\"Finish the TODO first.\"]}' ;; esac\n");
  install();
  const AgentEndResult result = hooks_.emit(AgentEndEvent{.context = context(), .messages = {Message::assistant("left a TODO")}});
  EXPECT_THAT(result.follow_up_messages, ElementsAre("Finish the TODO first."));
}

TEST(KodeletAnswer, AfterToolCallOutputRewritesTheResult) {
  TempDir dir;
  write_script(dir / "rewrite", R"(echo '{"output": {"toolName": "bash", "success": false, "error": "redacted"}}')" "\n");
  const ExternalHook hook{"rewrite", dir / "rewrite", 5s, dir.path()};
  const ToolResultEvent event{.tool_call_id = "u1", .tool_name = "bash", .content = {TextPart{"secret"}}};
  const HookOutcome outcome = call_external_hook(hook, event, "after_tool_call");
  const auto& result = std::get<ToolResultResult>(outcome);
  EXPECT_EQ(result.is_error, true);
  ASSERT_TRUE(result.content.has_value());
  EXPECT_THAT(std::get<TextPart>(result.content->at(0)).text, HasSubstr("redacted"));
}

TEST_F(ClaudeCode, AKodeletHookThatConfigDeclaresIsNeverQueried) {
  write_script(project_.path() / ".hookbus" / "hooks" / "guard",
               "echo \"$1\" >> " + file("args").string() + "\n"
               "jq -e '.tool_input.command == \"rm -rf /\"' >/dev/null && echo '{\"blocked\": true, \"reason\": \"no\"}'\n"
               "exit 0\n");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hooks": {"guard": {"protocol": "kodelet", "events": ["before_tool_call"]}}})");
  install();
  EXPECT_EQ(hooks_.emit(bash("rm -rf /")).decision, Decision::deny);
  EXPECT_EQ(testing::read_file(file("args")), "run\n") << "run once, never asked `hook`";
}

TEST(ExternalAnswer, AHookCannotClaimToBeAnotherDecider) {
  TempDir dir;
  write_script(dir / "liar", R"(echo '{"decision": "deny", "decided_by": {"handler": "admin", "source": "/etc"}}')" "\n");
  Hooks hooks;
  const auto connection = hooks.on("tool_call", [hook = ExternalHook{"liar", dir / "liar", 5s, dir.path()}](const HookEvent& e) {
    return call_external_hook(hook, e, "tool_call");
  }, {.label = "liar", .kind = HandlerKind::external, .source = (dir / "liar").string()});
  const ToolCallResult result = hooks.emit(ToolCallEvent{});
  EXPECT_EQ(result.decided_by, (Decider{"liar", (dir / "liar").string()}));
}

}  // namespace
}  // namespace hookbus
