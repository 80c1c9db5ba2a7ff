// Hooks written for Gemini CLI run unchanged (docs/agent-formats.md, "Gemini
// CLI"): installed where Gemini's docs say (`hooks` in .gemini/settings.json,
// ~/.gemini/settings.json, an extension's hooks/hooks.json), switched on by
// config's "agent_hooks", read with Gemini's events, milliseconds and tool
// names, fed Gemini's payload and answered as Gemini reads answers. The hooks
// are written here from Gemini's documented payload and answer (its
// docs/hooks reference), in bash + jq, Python and Node, and run through
// setup() and Hooks::emit.
#include "agent_hooks_fixture.hpp"
#include "scoped_environment.hpp"

#include <hookbus/events.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/setup.hpp>
#include <hookbus/trust.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::read_file;
using testing::TempDir;
using testing::write_file;

// A BeforeTool guard in bash + jq, as Gemini's docs write one: denies
// `rm -rf` in a shell command with a reason for the model.
constexpr const char* kGeminiGuard =
    "#!/bin/sh\n"
    "input=$(cat)\n"
    "command=$(printf '%s' \"$input\" | jq -r '.tool_input.command // empty')\n"
    "case \"$command\" in *'rm -rf'*)\n"
    "  jq -n --arg c \"$command\" '{decision: \"deny\", reason: (\"Blocked by policy: \" + $c)}'\n"
    "  exit 0\n"
    "esac\n"
    "echo '{\"decision\": \"allow\"}'\n";

class GeminiCli : public testing::AgentHooksFixture {
 protected:
  // The project's .gemini/settings.json with `hooks`, switched on by its config, and trusted.
  void projects_hooks(const std::string& hooks) {
    switch_on("gemini_cli");
    write_file(in_project(".gemini/settings.json"), R"({"general": {"vimMode": true}, "hooks": )" + hooks + "}");
    trust_project();
  }
  // One group of `event` whose one hook runs `command` (with `extra` handler keys).
  static std::string group(const std::string& event, const std::string& command, const std::string& matcher = "",
                           const std::string& extra = "") {
    return R"({")" + event + R"(": [{"matcher": )" + write_json(json::string(matcher)) +
           R"(, "hooks": [{"type": "command", "command": )" + write_json(json::string(command)) + extra + "}]}]}";
  }
  // A project hook of `event` that prints `out` and exits with `code`.
  void project_hook_answers(const std::string& event, const std::string& out, int code, const std::string& to = "1") {
    write_file(in_project(".gemini/hooks/answer.sh"),
               "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '" + out + "' >&" + to + "\nexit " + std::to_string(code) + "\n",
               0755);
    projects_hooks(group(event, "sh .gemini/hooks/answer.sh"));
  }
  ToolCallResult emit_shell(const std::string& command, const std::string& tool = "bash") {
    install();
    return hooks_.emit(ToolCallEvent{.context = context(),
                                     .tool_call_id = "c1",
                                     .tool_name = tool,
                                     .input = {{"command", command}, {"timeout", 5}}});
  }
  // A model call as the engine sends it: a system prompt, a turn each, two tools and a temperature.
  BeforeModelCallEvent model_call() const {
    return BeforeModelCallEvent{.context = context(),
                                .model = "gemini-2.5-pro",
                                .messages = {Message::user("hello"), Message::assistant("hi there")},
                                .system_prompt = "Be brief.",
                                .tools = {ToolSpec{.name = "bash"}, ToolSpec{.name = "read"}},
                                .settings = {.temperature = 0.2}};
  }
  ToolResultResult emit_result(const std::string& text, bool failed = false) {
    install();
    return hooks_.emit(ToolResultEvent{.context = context(),
                                       .tool_call_id = "c1",
                                       .tool_name = "read",
                                       .input = {{"file_path", "notes.txt"}},
                                       .content = {TextPart{text}},
                                       .is_error = failed});
  }
};

// --------------------------------------------------------------- files

TEST_F(GeminiCli, AProjectBeforeToolGuardDeniesAsInGemini) {
  write_file(in_project(".gemini/hooks/guard.sh"), kGeminiGuard, 0755);
  projects_hooks(group("BeforeTool", "$GEMINI_PROJECT_DIR/.gemini/hooks/guard.sh", "run_shell_command",
                       R"(, "name": "guard", "timeout": 5000)"));
  const ToolCallResult denied = emit_shell("rm -rf /");
  EXPECT_EQ(denied.decision, Decision::deny);
  EXPECT_EQ(denied.reason, "Blocked by policy: rm -rf /");
  EXPECT_EQ(emit_shell("ls").decision, Decision::none);  // Gemini's "allow" changes nothing
}

TEST_F(GeminiCli, GeminisHooksAreNotReadWithoutTheConfigThatAsksForThem) {
  write_file(root_ / "gemini" / "settings.json", R"({"hooks": )" + group("BeforeTool", "echo no >&2; exit 2") + "}");
  EXPECT_EQ(emit_shell("ls").decision, Decision::none);
}

TEST_F(GeminiCli, TheUsersHooksAreInDotGemini) {
  write_file(root_ / "gemini" / "settings.json", R"({"hooks": )" + group("BeforeTool", "echo no >&2; exit 2") + "}");
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"gemini_cli": {"settings": ["user"]}}})");
  EXPECT_EQ(emit_shell("ls").decision, Decision::deny);
}

TEST_F(GeminiCli, GeminiCliHomeMovesTheUsersDotGemini) {
  const testing::ScopedEnvironment environment{{"GEMINI_CLI_HOME", (root_ / "elsewhere").string()}};
  EXPECT_EQ(Locations::from_environment(project_.path()).gemini, root_ / "elsewhere" / ".gemini");
}

// An extension's hooks/hooks.json, its command naming ${extensionPath} as
// Gemini's extension docs write it.
// The system settings an administrator installs (/etc/gemini-cli/settings.json) are the managed
// layer's when the managed config asks for them: run first, not undone by a project's allow.
TEST_F(GeminiCli, TheSystemSettingsAreTheManagedLayersAndAProjectsAllowDoesNotUndoThem) {
  write_file(root_ / "etc-gemini" / "settings.json",
             R"({"hooks": )" + group("BeforeTool", "echo '{\"decision\": \"deny\", \"reason\": \"policy\"}'") + "}");
  write_file(locations().config_file(Layer::managed), R"({"agent_hooks": {"gemini_cli": {"settings": ["managed"]}}})");
  projects_hooks(group("BeforeTool", "echo '{\"decision\": \"allow\"}'"));
  const ToolCallResult result = emit_shell("ls");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "policy");
  ASSERT_EQ(installed_->report.hooks.installed.size(), 2U);
  EXPECT_EQ(installed_->report.hooks.installed[0].layer, Layer::managed);
  EXPECT_THAT(installed_->report.hooks.installed[0].source, HasSubstr((root_ / "etc-gemini" / "settings.json").string()));
}

// GEMINI_CLI_SYSTEM_SETTINGS_PATH names the system settings only where an administrator installed
// none (as HOOKBUS_MANAGED_DIR names the managed directory), and only as an absolute path.
TEST_F(GeminiCli, GeminiCliSystemSettingsPathMovesTheSystemSettingsWhereNoneIsInstalled) {
  ASSERT_FALSE(fs::exists("/etc/gemini-cli/settings.json")) << "this machine has Gemini CLI's system settings";
  const std::string elsewhere = (root_ / "system.json").string();
  const testing::ScopedEnvironment absolute{{"GEMINI_CLI_SYSTEM_SETTINGS_PATH", elsewhere}};
  EXPECT_EQ(Locations::from_environment(project_.path()).gemini_system_settings, elsewhere);
  const testing::ScopedEnvironment relative{{"GEMINI_CLI_SYSTEM_SETTINGS_PATH", ".gemini/settings.json"}};
  EXPECT_EQ(Locations::from_environment(project_.path()).gemini_system_settings, "/etc/gemini-cli/settings.json");
}

// hooksConfig "enabled": false, or "disabled" naming a hook (its "name", else its command, as
// Gemini names hooks), switches hooks off in the file's own layer and the less trusted ones.
TEST_F(GeminiCli, HooksConfigSwitchesOffTheHooksItNamesInItsOwnLayerAndLessTrustedOnes) {
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"gemini_cli": {"settings": ["user"]}}})");
  const std::string deny = R"(echo '{"decision": "deny"}')";
  const struct {
    std::string name, hooks_config, user_settings;
    Decision decision;
  } cases[] = {
      {R"(, "name": "guard")", R"({"disabled": ["guard"]})", "{}", Decision::none},
      {"", R"({"disabled": ["echo '{\"decision\": \"deny\"}'"]})", "{}", Decision::none},
      {R"(, "name": "guard")", R"({"disabled": ["echo '{\"decision\": \"deny\"}'"]})", "{}", Decision::deny},
      {R"(, "name": "guard")", R"({"disabled": ["another"]})", "{}", Decision::deny},
      {R"(, "name": "guard")", R"({"enabled": false})", "{}", Decision::none},
      {R"(, "name": "guard")", R"({})", R"({"hooksConfig": {"enabled": false}})", Decision::none},
      {R"(, "name": "guard")", R"({})", R"({"hooksConfig": {"disabled": ["guard"]}})", Decision::none},
  };
  for (const auto& c : cases) {
    write_file(root_ / "gemini" / "settings.json", c.user_settings);
    projects_hooks(group("BeforeTool", deny, "", c.name) + R"(, "hooksConfig": )" + c.hooks_config);
    EXPECT_EQ(emit_shell("ls").decision, c.decision) << c.hooks_config << " " << c.user_settings;
  }
}

// A project's hooksConfig never switches off the user's hook: the user's guard still denies, and a
// warning names the project's file and the hook that runs.
TEST_F(GeminiCli, AProjectsHooksConfigDoesNotSwitchOffTheUsersHook) {
  write_file(root_ / "gemini" / "settings.json",
             R"({"hooks": )" + group("BeforeTool", "echo '{\"decision\": \"deny\", \"reason\": \"users guard\"}'",
                                     "", R"(, "name": "guard")") + "}");
  write_file(locations().config_file(Layer::user), R"({"agent_hooks": {"gemini_cli": {"settings": ["user"]}}})");
  write_file(in_project(".gemini/settings.json"), R"({"hooksConfig": {"enabled": false, "disabled": ["guard"]}})");
  write_file(locations().config_file(Layer::project), R"({"agent_hooks": {"gemini_cli": {"settings": ["project"]}}})");
  Hooks scratch;
  TrustStore::at(locations())
      .trust(project_.path(), setup(scratch, {.project_dir = project_.path(), .locations = locations()}).report.trust.now);
  const ToolCallResult result = emit_shell("ls");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "users guard");
  EXPECT_THAT(warnings_, Contains(AllOf(HasSubstr(in_project(".gemini/settings.json").string()),
                                        HasSubstr("switches off only its project layer's hooks"),
                                        HasSubstr("of the user layer runs"))));
}

// A group's "sequential": true runs its hooks one after another, the second seeing the
// first's rewrite of tool_input; without it they run together, each seeing the call as made.
TEST_F(GeminiCli, ASequentialGroupsHooksRunOneAfterAnotherEachSeeingTheInputTheOnesBeforeRewrote) {
  write_file(in_project(".gemini/hooks/record.py"),
             "import json, sys\n"
             "call = json.load(sys.stdin)\n"
             "with open(sys.argv[1], 'a') as seen:\n"
             "    seen.write(call['tool_input']['command'] + '\\n')\n");
  const std::string seen = (root_ / "seen").string();
  for (const auto& [sequential, record_sees] :
       {std::pair{std::string(R"("sequential": true, )"), "ls -a\n"}, std::pair{std::string(), "ls\n"}}) {
    projects_hooks(R"({"BeforeTool": [{)" + sequential + R"("hooks": [)"
                   R"({"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"tool_input\": {\"command\": \"ls -a\"}}}'"},)"
                   R"({"type": "command", "command": "python3 .gemini/hooks/record.py )" + seen + R"("}]}]})");
    fs::remove(seen);
    const ToolCallResult result = emit_shell("ls");
    ASSERT_TRUE(result.input) << sequential;
    EXPECT_EQ(result.input->at("command"), "ls -a") << sequential;
    EXPECT_EQ(read_file(seen), record_sees) << sequential;
  }
}

TEST_F(GeminiCli, AnExtensionsHooksRunWithItsPath) {
  const fs::path extension = root_ / "extensions" / "guard";
  write_file(extension / "hooks" / "deny.py",
             "import json, sys\n"
             "call = json.load(sys.stdin)\n"
             "print(json.dumps({'decision': 'block', 'reason': 'extension says no to ' + call['tool_name']}))\n");
  write_file(extension / "hooks" / "hooks.json",
             R"({"hooks": )" + group("BeforeTool", "python3 ${extensionPath}/hooks/deny.py") + "}");
  write_file(locations().config_file(Layer::user),
             R"({"agent_hooks": {"gemini_cli": {"plugins": [)" + write_json(json::string(extension.string())) + "]}}}");
  const ToolCallResult result = emit_shell("ls");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "extension says no to run_shell_command");
}

// A BeforeTool or AfterTool matcher is a regular expression searched for in
// the tool's name, a plain name too, as Gemini's RegExp.test reads it.
TEST_F(GeminiCli, AToolMatcherIsARegularExpressionSearchedForAsInGemini) {
  projects_hooks(group("BeforeTool", R"(echo '{"decision": "deny", "reason": "no writes"}')", "write_file"));
  EXPECT_EQ(emit_shell("ls", "write_file").decision, Decision::deny);
  EXPECT_EQ(emit_shell("ls", "mcp_fs_write_file").decision, Decision::deny);
  EXPECT_EQ(emit_shell("ls").decision, Decision::none);
}

// --------------------------------------------------------------- events

// ------------------------------------------------------------ model calls

// BeforeModel reads Gemini's llm_request (the system prompt is a system
// message, the model's messages are "model"'s) and answers the call with its
// llm_response: the model is not called.
TEST_F(GeminiCli, ABeforeModelHookReadsTheLlmRequestAndAnswersWithItsLlmResponse) {
  write_file(in_project(".gemini/hooks/cache.py"),
             "import json, sys\n"
             "request = json.load(sys.stdin)['llm_request']\n"
             "seen = ' | '.join(m['role'] + ':' + m['content'] for m in request['messages'])\n"
             "seen += ' | ' + request['model'] + ' ' + str(request['config']['temperature'])\n"
             "seen += ' ' + ','.join(request['toolConfig']['allowedFunctionNames'])\n"
             "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'BeforeModel', 'llm_response': {\n"
             "    'candidates': [{'content': {'role': 'model', 'parts': [seen]}, 'finishReason': 'STOP'}]}}}))\n");
  projects_hooks(group("BeforeModel", "python3 .gemini/hooks/cache.py"));
  install();
  const BeforeModelCallResult outcome = hooks_.emit(model_call());
  EXPECT_EQ(outcome.response, Message::assistant("system:Be brief. | user:hello | model:hi there | gemini-2.5-pro 0.2 "
                                                 "run_shell_command,read_file"));
}

// BeforeModel's llm_request changes the request: the messages (its system
// message is the system prompt), the model and the config.
TEST_F(GeminiCli, ABeforeModelHooksLlmRequestChangesTheRequest) {
  project_hook_answers("BeforeModel", R"({"hookSpecificOutput": {"llm_request": {"model": "gemini-2.5-flash", )"
                                      R"("messages": [{"role": "system", "content": "Be terse."}, )"
                                      R"({"role": "user", "content": "[redacted]"}], )"
                                      R"("config": {"temperature": 0, "maxOutputTokens": 256, "stopSequences": ["END"]}}}})",
                       0);
  install();
  const BeforeModelCallResult outcome = hooks_.emit(model_call());
  EXPECT_FALSE(outcome.response);
  EXPECT_EQ(outcome.model, "gemini-2.5-flash");
  EXPECT_EQ(outcome.system_prompt, "Be terse.");
  EXPECT_EQ(outcome.messages, std::vector{Message::user("[redacted]")});
  EXPECT_EQ(outcome.settings, (ModelSettings{.temperature = 0.0, .max_output_tokens = 256u, .stop_sequences = {"END"}}));
}

TEST_F(GeminiCli, ABeforeModelDenyRejectsTheCallWithTheReason) {
  project_hook_answers("BeforeModel", R"({"decision": "deny", "reason": "over budget"})", 0);
  install();
  const BeforeModelCallResult outcome = hooks_.emit(model_call());
  EXPECT_TRUE(outcome.reject);
  EXPECT_EQ(outcome.reason, "over budget");
}

// BeforeToolSelection's toolConfig: only the tools it allows (by Gemini's
// names) are offered, with its mode.
TEST_F(GeminiCli, ABeforeToolSelectionHookNarrowsTheToolsOfferedAndSetsTheMode) {
  project_hook_answers("BeforeToolSelection", R"({"hookSpecificOutput": {"toolConfig": )"
                                              R"({"mode": "ANY", "allowedFunctionNames": ["read_file"]}}})",
                       0);
  install();
  const BeforeModelCallResult outcome = hooks_.emit(model_call());
  ASSERT_TRUE(outcome.tools);
  ASSERT_EQ(outcome.tools->size(), 1u);
  EXPECT_EQ(outcome.tools->at(0).name, "read");
  ASSERT_TRUE(outcome.settings);
  EXPECT_EQ(outcome.settings->tool_choice, ToolChoice::required);
  EXPECT_EQ(outcome.settings->temperature, 0.2) << "the other settings are kept";
}

// AfterModel reads the llm_response and replaces it with its own, or denies it.
TEST_F(GeminiCli, AnAfterModelHookReplacesTheResponseOrRejectsIt) {
  write_file(in_project(".gemini/hooks/redact.py"),
             "import json, sys\n"
             "text = json.load(sys.stdin)['llm_response']['candidates'][0]['content']['parts'][0]\n"
             "print(json.dumps({'hookSpecificOutput': {'llm_response': {'text': text.replace('sk-123', '[key]')}}}))\n");
  projects_hooks(group("AfterModel", "python3 .gemini/hooks/redact.py"));
  install();
  const AfterModelCallResult replaced =
      hooks_.emit(AfterModelCallEvent{.context = context(), .model = "gemini-2.5-pro", .response = Message::assistant("sk-123")});
  EXPECT_EQ(replaced.response, Message::assistant("[key]"));
  project_hook_answers("AfterModel", R"({"decision": "deny", "reason": "leaks a key"})", 0);
  install();
  const AfterModelCallResult rejected =
      hooks_.emit(AfterModelCallEvent{.context = context(), .model = "gemini-2.5-pro", .response = Message::assistant("sk-123")});
  EXPECT_TRUE(rejected.reject);
  EXPECT_EQ(rejected.reason, "leaks a key");
}

// An answer of the wrong shape is a failed run naming the hook and the JSON path; the call goes on.
TEST_F(GeminiCli, AModelAnswerOfTheWrongShapeIsAFailedRunNamingTheJsonPath) {
  project_hook_answers("BeforeModel", R"({"hookSpecificOutput": {"llm_request": {"messages": [{"role": "tool"}]}}})", 0);
  install();
  EXPECT_EQ(hooks_.emit(model_call()), BeforeModelCallResult{});
  EXPECT_THAT(log_.text(), AllOf(HasSubstr("answer.sh"), HasSubstr("hookSpecificOutput.llm_request.messages[0].role"),
                                 HasSubstr(R"(must be "user", "model" or "system", got "tool")")));
}

// -------------------------------------------------------------- payload

// A BeforeTool hook reads Gemini's fields: its event name, Gemini's tool name
// for the engine's shell, the arguments, the session, a timestamp.
TEST_F(GeminiCli, ABeforeToolHookReadsGeminisPayload) {
  write_file(in_project(".gemini/hooks/echo.py"),
             "import json, sys\n"
             "call = json.load(sys.stdin)\n"
             "seen = [call['hook_event_name'], call['tool_name'], call['tool_input']['command'], call['session_id'],\n"
             "        str('timestamp' in call), str('permission_mode' in call), call['cwd']]\n"
             "print(json.dumps({'decision': 'deny', 'reason': ' '.join(seen)}))\n");
  projects_hooks(group("BeforeTool", "python3 .gemini/hooks/echo.py"));
  EXPECT_EQ(emit_shell("ls").reason,
            "BeforeTool run_shell_command ls s1 True False " + project_.path().string());
}

// AfterTool's tool_response is Gemini's {llmContent, returnDisplay, error}.
TEST_F(GeminiCli, AnAfterToolHookReadsGeminisToolResponse) {
  write_file(in_project(".gemini/hooks/after.js"),
             "let input = '';\n"
             "process.stdin.on('data', d => input += d).on('end', () => {\n"
             "  const call = JSON.parse(input);\n"
             "  const r = call.tool_response;\n"
             "  const context = `${call.tool_name}: ${r.llmContent} / ${r.error ? r.error.message : 'ok'}`;\n"
             "  console.log(JSON.stringify({hookSpecificOutput: {hookEventName: 'AfterTool', additionalContext: context}}));\n"
             "});\n");
  projects_hooks(group("AfterTool", "node .gemini/hooks/after.js", "read_file"));
  EXPECT_EQ(emit_result("hello").additional_context, std::vector<std::string>{"read_file: hello / ok"});
  EXPECT_EQ(emit_result("no such file", true).additional_context,
            std::vector<std::string>{"read_file: no such file / no such file"});
}

// --------------------------------------------------------------- answer

// What a BeforeTool hook prints and its exit code decide as in Gemini's
// hookRunner: JSON on any exit code; plain text allows on exit 0 and 1 and
// denies, with the text as the reason, on any other; nothing printed decides nothing.
TEST_F(GeminiCli, ExitCodesAndAnswersDecideAsInGemini) {
  struct Case {
    std::string out;
    int code;
    std::string to;  // "1" stdout, "2" stderr
    Decision decision;
    std::string reason;
  };
  const Case cases[] = {
      {R"({"decision": "deny", "reason": "no"})", 0, "1", Decision::deny, "no"},
      {R"({"decision": "block", "reason": "no"})", 0, "1", Decision::deny, "no"},
      {R"({"decision": "allow"})", 0, "1", Decision::none, ""},
      {R"({"decision": "deny", "reason": "no"})", 1, "1", Decision::deny, "no"},
      {"not allowed here", 2, "2", Decision::deny, "not allowed here"},
      {"not allowed here", 3, "1", Decision::deny, "not allowed here"},
      {"just saying", 0, "1", Decision::none, ""},
      {"careful", 1, "2", Decision::none, ""},
      {"", 2, "2", Decision::none, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.out + " exit " + std::to_string(c.code));
    project_hook_answers("BeforeTool", c.out, c.code, c.to);
    const ToolCallResult result = emit_shell("ls");
    EXPECT_EQ(result.decision, c.decision);
    EXPECT_EQ(result.reason, c.reason);
  }
}

TEST_F(GeminiCli, BeforeToolsAskAsksTheUser) {
  project_hook_answers("BeforeTool", R"({"decision": "ask", "systemMessage": "a shell command"})", 0);
  EXPECT_EQ(emit_shell("ls").decision, Decision::ask);
}

TEST_F(GeminiCli, ADecisionGeminiDoesNotKnowIsAFailedRunNamingTheValues) {
  project_hook_answers("BeforeTool", R"({"decision": "maybe"})", 0);
  EXPECT_EQ(emit_shell("ls").decision, Decision::none);
  EXPECT_THAT(log_.text(), AllOf(HasSubstr("answer.sh"), HasSubstr(R"("allow", "deny", "block" or "ask", got "maybe")")));
}

// BeforeTool's hookSpecificOutput.tool_input is merged into the arguments:
// the keys it names change, the others keep their values.
TEST_F(GeminiCli, BeforeToolsToolInputIsMergedIntoTheArguments) {
  project_hook_answers("BeforeTool", R"({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": )"
                                     R"({"command": "ls -la", "description": "list"}}})",
                       0);
  const ToolCallResult result = emit_shell("ls");
  ASSERT_TRUE(result.input.has_value());
  EXPECT_EQ(*result.input, (json::object{{"command", "ls -la"}, {"timeout", 5}, {"description", "list"}}));
}

TEST_F(GeminiCli, ContinueFalseStopsTheAgentWithTheStopReason) {
  project_hook_answers("BeforeTool", R"({"continue": false, "stopReason": "budget spent", "systemMessage": "bye"})", 0);
  const ToolCallResult result = emit_shell("ls");
  ASSERT_TRUE(result.stop.has_value());
  EXPECT_EQ(result.stop->reason, "budget spent");
  EXPECT_EQ(result.system_messages, std::vector<std::string>{"bye"});
}

// AfterTool's deny: the model reads "Tool result blocked: <reason>" instead of the result.
TEST_F(GeminiCli, AfterToolsDenyReplacesTheResultTheModelReads) {
  project_hook_answers("AfterTool", R"({"decision": "deny", "reason": "it holds a secret"})", 0);
  const ToolResultResult result = emit_result("AKIA...");
  ASSERT_TRUE(result.content.has_value());
  EXPECT_EQ(text_of(*result.content), "Tool result blocked: it holds a secret");
}

TEST_F(GeminiCli, BeforeAgentsContextReachesTheModelAndItsDenyRejectsThePrompt) {
  project_hook_answers("BeforeAgent", R"({"hookSpecificOutput": {"hookEventName": "BeforeAgent", )"
                                      R"("additionalContext": "branch main"}})",
                       0);
  install();
  EXPECT_EQ(hooks_.emit(InputEvent{.text = "hi"}).additional_context, std::vector<std::string>{"branch main"});
  project_hook_answers("BeforeAgent", R"({"decision": "deny", "reason": "no secrets in prompts"})", 0);
  install();
  const InputResult rejected = hooks_.emit(InputEvent{.text = "my key is AKIA"});
  EXPECT_EQ(rejected.action, InputAction::reject);
  EXPECT_EQ(rejected.reason, "no secrets in prompts");
}

// AfterAgent's deny retries the turn with its reason, as a ralph-style loop
// asks: the agent goes on with the reason as its next message; the hook reads
// stop_hook_active to let the next stop through.
TEST_F(GeminiCli, AfterAgentsDenyKeepsTheAgentGoingWithTheReason) {
  write_file(in_project(".gemini/hooks/ralph.js"),
             "let input = '';\n"
             "process.stdin.on('data', d => input += d).on('end', () => {\n"
             "  const turn = JSON.parse(input);\n"
             "  if (turn.stop_hook_active || turn.prompt_response.includes('DONE')) return;\n"
             "  console.log(JSON.stringify({decision: 'deny', reason: `Keep going on: ${turn.prompt}`}));\n"
             "});\n");
  projects_hooks(group("AfterAgent", "node .gemini/hooks/ralph.js"));
  install();
  const std::vector<Message> turn{{.role = Role::user, .content = {TextPart{"fix the build"}}},
                                  {.role = Role::assistant, .content = {TextPart{"I looked at it"}}}};
  EXPECT_EQ(hooks_.emit(AgentEndEvent{.messages = turn}).follow_up_messages,
            std::vector<std::string>{"Keep going on: fix the build"});
  EXPECT_THAT(hooks_.emit(AgentEndEvent{.messages = turn, .after_follow_up = true}).follow_up_messages, IsEmpty());
}

// ------------------------------------------------------ time and crashes

// A timeout counts milliseconds; a hook that overruns it, or crashes, is a
// failed run that Gemini ignores: the call goes on, with a warning.
TEST_F(GeminiCli, AHookThatTimesOutOrCrashesIsAFailedRunAndTheCallGoesOn) {
  const std::string deny = R"(echo '{"decision": "deny", "reason": "late"}')";
  for (const auto& [command, status] : {std::pair<std::string, std::string>{"exec sleep 5", "timed out"},
                                        std::pair<std::string, std::string>{"kill -9 $$; " + deny, "signal 9"}}) {
    SCOPED_TRACE(command);
    projects_hooks(group("BeforeTool", command, "", R"(, "timeout": 200)"));
    EXPECT_EQ(emit_shell("ls").decision, Decision::none);
    EXPECT_THAT(log_.text(), HasSubstr(status));
  }
}

}  // namespace
}  // namespace hookbus
