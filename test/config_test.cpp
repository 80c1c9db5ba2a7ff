// Configuration: the file format, strict reading with errors that name the
// file, the path and what was expected, and installing the configured
// built-ins without ever half-applying.
#include <hookbus/builtins.hpp>
#include <hookbus/config.hpp>
#include <hookbus/json.hpp>

#include "needs_root.hpp"
#include "scoped_environment.hpp"
#include "script_fixture.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::_;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MockFunction;
using ::testing::Pair;
using ::testing::Return;
using ::testing::StartsWith;
using ::testing::Optional;
using ::testing::ThrowsMessage;
using ::testing::UnorderedElementsAre;

// Each test gets a project directory of its own, removed afterwards.
class ConfigTest : public ::testing::Test {
 protected:
  // Writes `text` to the project-relative `relative` path and returns the full path.
  fs::path write(const fs::path& relative, std::string_view text) const {
    const fs::path file = project_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file;
  }
  fs::path write_config(std::string_view text) const { return write(".hookbus/config.json", text); }

  // The message load_config throws for `text`, without the file name in front.
  std::string load_error(std::string_view text) const {
    const fs::path file = write_config(text);
    try {
      (void)load_config(file);
    } catch (const ConfigError& error) {
      const std::string message = error.what();
      EXPECT_THAT(message, StartsWith(file.string() + ": "));
      return message.substr(file.string().size() + 2);
    }
    ADD_FAILURE() << "no ConfigError for " << text;
    return {};
  }

  const testing::TempDir directory_;
  const fs::path project_ = directory_.path();
};

// ----------------------------------------------------------------- reading

TEST_F(ConfigTest, ReadsEveryTopLevelSetting) {
  const Config config = load_config(write_config(R"({
    "builtins": {"tool_stats": {"log_every": 5}, "audit": {"file": "audit.jsonl"}},
    "hook_directories": ["more-hooks", "/opt/hooks"],
    "timeout_ms": 5000,
    "hooks": {
      "block-rm-rf": {"timeout_ms": 1000, "failure": "fail_closed"},
      "slow": {"disabled": true, "failure": "fail_open"}
    }
  })"));
  ASSERT_EQ(config.builtins.size(), 2u);
  EXPECT_EQ(config.builtins[0].name, "tool_stats");
  EXPECT_EQ(config.builtins[0].settings, (boost::json::object{{"log_every", 5}}));
  EXPECT_EQ(config.builtins[1].name, "audit");
  EXPECT_THAT(config.hook_directories, ElementsAre(project_ / "more-hooks", fs::path("/opt/hooks")));
  EXPECT_EQ(config.default_timeout, std::chrono::milliseconds(5000));
  ASSERT_EQ(config.hooks.size(), 2u);
  const HookSettings& guard = config.hooks.at("block-rm-rf");
  EXPECT_EQ(guard.timeout, std::chrono::milliseconds(1000));
  EXPECT_EQ(guard.failure, FailurePolicy::fail_closed);
  EXPECT_EQ(guard.disabled, std::nullopt);
  EXPECT_EQ(guard.location.path, "hooks.block-rm-rf");
  const HookSettings& slow = config.hooks.at("slow");
  EXPECT_EQ(slow.failure, FailurePolicy::fail_open);
  EXPECT_EQ(slow.disabled, true);
  EXPECT_EQ(slow.timeout, std::nullopt);
}

TEST_F(ConfigTest, EmptyObjectKeepsTheDefaults) {
  const fs::path file = write_config("{}");
  const Config config = load_config(file);
  EXPECT_THAT(config.builtins, IsEmpty());
  EXPECT_THAT(config.hook_directories, IsEmpty());
  EXPECT_EQ(config.default_timeout, std::nullopt);
  EXPECT_THAT(config.hooks, IsEmpty());
  EXPECT_EQ(config.file, file);
  EXPECT_EQ(config.project_dir, project_);
}

TEST_F(ConfigTest, FileOutsideDotHookbusResolvesPathsAgainstItsOwnDirectory) {
  const Config config = load_config(write("conf/custom.json", R"({"hook_directories": ["hooks"]})"));
  EXPECT_EQ(config.project_dir, project_ / "conf");
  EXPECT_THAT(config.hook_directories, ElementsAre(project_ / "conf" / "hooks"));
}

TEST_F(ConfigTest, ProjectConfigIsOptional) { EXPECT_EQ(load_project_config(project_), std::nullopt); }

TEST_F(ConfigTest, ProjectConfigIsReadFromDotHookbus) {
  write_config(R"({"timeout_ms": 1234})");
  const auto config = load_project_config(project_);
  ASSERT_TRUE(config.has_value());
  EXPECT_EQ(config->default_timeout, std::chrono::milliseconds(1234));
}

// ------------------------------------------------------------------ errors

TEST_F(ConfigTest, MissingFileIsAnErrorNamingTheFile) {
  const fs::path file = project_ / "missing.json";
  EXPECT_THAT([&] { (void)load_config(file); },
              ThrowsMessage<ConfigError>(file.string() + ": cannot read: No such file or directory"));
}

TEST_F(ConfigTest, InvalidJsonGivesLineColumnAndOffset) {
  EXPECT_EQ(load_error("{\n  \"timeout_ms\": ,\n}"), "invalid JSON at line 2, column 17 (offset 18): syntax error");
}

TEST_F(ConfigTest, DataAfterTheDocumentIsInvalidJson) {
  EXPECT_EQ(load_error("{} {}"), "invalid JSON at line 1, column 4 (offset 3): extra data after the document");
}

TEST_F(ConfigTest, DuplicateKeyIsAnErrorNamingItsPath) {
  EXPECT_EQ(load_error(R"({"builtins": {"tool_policy": {"deny": ["a"], "deny": ["b"]}}})"),
            "builtins.tool_policy.deny: duplicate key; each key may appear once");
}

TEST_F(ConfigTest, DuplicateKeyInsideAnArrayElementNamesTheElement) {
  EXPECT_EQ(load_error(R"({"builtins": {"tool_policy": {"deny": ["a", {"tool": "b", "tool": "c"}]}}})"),
            "builtins.tool_policy.deny[1].tool: duplicate key; each key may appear once");
}

TEST_F(ConfigTest, ANumberBeyondADoublesRangeIsAnErrorNamingItsPath) {
  EXPECT_EQ(load_error(R"({"hooks": {"guard": {"timeout_ms": 1e400}}})"),
            "hooks.guard.timeout_ms: number out of range: 1e400 is beyond a double's range (about ±1.8e308)");
}

TEST_F(ConfigTest, NestingDeeperThanSixtyFourLevelsIsAnError) {
  EXPECT_THAT(load_error("{\"a\": " + std::string(100, '[') + std::string(100, ']') + "}"),
              HasSubstr("nested more than 64 levels deep"));
}

TEST_F(ConfigTest, DocumentMustBeAnObject) { EXPECT_EQ(load_error("[]"), "expected object, got array"); }

TEST_F(ConfigTest, UnknownTopLevelKeyIsAnErrorListingTheKnownOnes) {
  EXPECT_EQ(load_error(R"({"timeout": 5})"),
            "timeout: unknown key; expected one of: builtins, hook_directories, timeout_ms, hooks, claude_code, "
            "agent_hooks, disable_all_hooks, allow_managed_hooks_only, project_trust, detached_processes, trace, "
            "network");
}

TEST_F(ConfigTest, WrongTypeIsAnErrorNamingThePathAndBothTypes) {
  EXPECT_EQ(load_error(R"({"timeout_ms": "5s"})"), "timeout_ms: expected integer from 1 to 86400000, got string");
}

TEST_F(ConfigTest, TimeoutMustBePositive) {
  EXPECT_EQ(load_error(R"({"timeout_ms": 0})"), "timeout_ms: expected integer from 1 to 86400000, got 0");
}

TEST_F(ConfigTest, HookDirectoryOfWrongTypeNamesItsIndex) {
  EXPECT_EQ(load_error(R"({"hook_directories": ["a", 7]})"), "hook_directories[1]: expected string, got number");
}

TEST_F(ConfigTest, UnknownHookOverrideKeyIsAnError) {
  EXPECT_EQ(load_error(R"({"hooks": {"guard": {"timeout": 5}}})"),
            "hooks.guard.timeout: unknown key; expected one of: timeout_ms, failure, disabled, protocol, events, "
            "matcher, tools, mode, instances, start, async, sequential, url, headers, allowed_env_vars");
}

TEST_F(ConfigTest, FailurePolicyMustBeFailOpenOrFailClosed) {
  EXPECT_EQ(load_error(R"({"hooks": {"guard": {"failure": "closed"}}})"),
            R"(hooks.guard.failure: expected "fail_open" or "fail_closed", got "closed")");
}

// Every setting that names an enum's value is read by ConfigValue::as_enum:
// its error names the values accepted, in the enum's order, and what was given.
TEST_F(ConfigTest, AnEnumSettingNamesTheValuesItAcceptsAndWhatItGot) {
  EXPECT_EQ(load_error(R"({"hooks": {"g": {"protocol": "kodlet"}}})"),
            R"(hooks.g.protocol: expected "hookbus", "claude_code", "kodelet", "codex", "qwen_code", "gemini_cli", "cursor", "vscode", "copilot" or "cline", got "kodlet")");
  const fs::path user = write("user/config.json", R"({"project_trust": "always"})");
  EXPECT_THAT([&] { (void)load_config(user, Layer::user); },
              ThrowsMessage<ConfigError>(user.string() + R"(: project_trust: expected "trust_all", "require" or )"
                                                         R"("ignore", got "always")"));
}

TEST(ConfigValue, AsEnumReadsAWireNameOfTheEnumOrOfTheValuesItIsGiven) {
  const boost::json::value local = "local", managed = "managed", keyword = "continue", number = 3;
  const ConfigLocation where{.file = {}, .project_dir = {}, .path = "x", .layer = {}};
  EXPECT_EQ(ConfigValue(local, where).as_enum<Layer>(), Layer::local);
  EXPECT_EQ(ConfigValue(local, where).as_enum<Layer>({Layer::user, Layer::local}), Layer::local);
  EXPECT_EQ(ConfigValue(keyword, where).as_enum<InputAction>(), InputAction::continue_);
  EXPECT_THAT([&] { (void)ConfigValue(managed, where).as_enum<Layer>({Layer::user, Layer::local}); },
              ThrowsMessage<ConfigError>(R"(x: expected "user" or "local", got "managed")"));
  EXPECT_THAT([&] { (void)ConfigValue(managed, where).as_enum<Layer>({Layer::user}); },
              ThrowsMessage<ConfigError>(R"(x: expected "user", got "managed")"));
  EXPECT_THAT([&] { (void)ConfigValue(number, where).as_enum<Layer>(); },
              ThrowsMessage<ConfigError>("x: expected string, got number"));
}

TEST_F(ConfigTest, HookNamesThatAreNotIdentifiersAreQuotedInPaths) {
  EXPECT_EQ(load_error(R"({"hooks": {"org/repo/guard": {"disabled": "yes"}}})"),
            R"(hooks["org/repo/guard"].disabled: expected boolean, got string)");
}

TEST_F(ConfigTest, BuiltinSettingsMustBeAnObject) {
  EXPECT_EQ(load_error(R"({"builtins": {"audit": true}})"), "builtins.audit: expected object, got boolean");
}

TEST_F(ConfigTest, ErrorCarriesTheFileAndThePath) {
  const fs::path file = write_config(R"({"hooks": {"guard": {"timeout_ms": -1}}})");
  try {
    (void)load_config(file);
    FAIL() << "no ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.file(), file);
    EXPECT_EQ(error.path(), "hooks.guard.timeout_ms");
  }
}

TEST_F(ConfigTest, ReadsHookDeclarationsAndTheClaudeCodeImport) {
  const Config config = load_config(write_config(R"({
    "hooks": {
      "validate-bash.sh": {"protocol": "claude_code", "events": ["PreToolUse"], "matcher": "Bash"},
      "guard": {"protocol": "kodelet", "events": ["before_tool_call"], "tools": "bash|shell"}
    },
    "claude_code": {"settings": ["user", "project"], "plugins": ["plugins/fmt"], "tool_names": {"read_file": "Read"}}
  })"));
  const HookSettings& claude = config.hooks.at("validate-bash.sh");
  EXPECT_EQ(claude.protocol, HookProtocol::claude_code);
  EXPECT_THAT(claude.events, ElementsAre("PreToolUse"));
  EXPECT_EQ(claude.matcher, "Bash");
  const HookSettings& guard = config.hooks.at("guard");
  EXPECT_EQ(guard.protocol, HookProtocol::kodelet);  // hookbus's protocol, named as declared
  EXPECT_EQ(guard.tools, "bash|shell");
  ASSERT_TRUE(config.claude_code.has_value());
  EXPECT_THAT(config.claude_code->settings, ElementsAre(Layer::user, Layer::project));
  EXPECT_THAT(config.claude_code->plugins, ElementsAre(project_ / "plugins/fmt"));
  EXPECT_THAT(config.claude_code->tool_names, ElementsAre(Pair("read_file", "Read")));
}

TEST_F(ConfigTest, AgentHooksNamesWhichAgentsHookFilesToReadWithEachOnesToolNames) {
  const Config config = load_config(write_config(R"({"agent_hooks": {
    "codex": {"settings": ["user", "project"], "plugins": ["plugins/guard"]},
    "qwen_code": {"settings": ["project"], "tool_names": {"sh": "run_shell_command"}}}})"));
  ASSERT_EQ(config.agent_hooks.size(), 2U);
  EXPECT_THAT(config.agent_hooks.at(HookProtocol::codex).settings, ElementsAre(Layer::user, Layer::project));
  EXPECT_THAT(config.agent_hooks.at(HookProtocol::codex).plugins, ElementsAre(project_ / "plugins/guard"));
  EXPECT_THAT(config.agent_hooks.at(HookProtocol::qwen_code).tool_names, ElementsAre(Pair("sh", "run_shell_command")));
  EXPECT_EQ(agent_hooks_import(config, HookProtocol::qwen_code), &config.agent_hooks.at(HookProtocol::qwen_code));
  EXPECT_FALSE(config.claude_code);
}

TEST_F(ConfigTest, ClaudeCodeUnderAgentHooksIsTheClaudeCodeSection) {
  const Config config =
      load_config(write_config(R"({"agent_hooks": {"claude_code": {"settings": ["project"]}}})"));
  ASSERT_TRUE(config.claude_code);
  EXPECT_THAT(config.claude_code->settings, ElementsAre(Layer::project));
  EXPECT_EQ(config.claude_code->location.path, "agent_hooks.claude_code");
}

TEST_F(ConfigTest, ClaudeCodeImportedInBothPlacesAddsUp) {
  const Config config = load_config(write_config(R"({"claude_code": {"settings": ["user"], "tool_names": {"sh": "Bash"}},
    "agent_hooks": {"claude_code": {"settings": ["project", "user"], "tool_names": {"sh": "Bash", "cat": "Read"}}}})"));
  ASSERT_TRUE(config.claude_code);
  EXPECT_THAT(config.claude_code->settings, ElementsAre(Layer::user, Layer::project));
  EXPECT_THAT(config.claude_code->tool_names, ElementsAre(Pair("cat", "Read"), Pair("sh", "Bash")));
}

TEST_F(ConfigTest, AToolNameTheTwoClaudeCodeSectionsMapOtherwiseIsAnError) {
  EXPECT_EQ(load_error(R"({"claude_code": {"tool_names": {"sh": "Bash"}},
    "agent_hooks": {"claude_code": {"tool_names": {"sh": "Shell"}}}})"),
            "agent_hooks.claude_code.tool_names.sh: \"claude_code\" maps 'sh' to 'Bash'; one name for a tool: keep one "
            "of the two");
}

TEST_F(ConfigTest, AnAgentHookbusReadsNoHookFilesOfIsAnErrorListingThoseItReads) {
  EXPECT_EQ(load_error(R"({"agent_hooks": {"windsurf": {}}})"),
            "agent_hooks.windsurf: unknown key; expected one of: claude_code, codex, qwen_code, gemini_cli, cursor, vscode, "
            "copilot, cline");
}

TEST_F(ConfigTest, ACodexHookFileDeclaresCodexsEventNames) {
  EXPECT_THAT(load_error(R"({"hooks": {"v.sh": {"protocol": "codex", "events": ["PostToolUseFailure"]}}})"),
              StartsWith(R"(hooks["v.sh"].events[0]: "PostToolUseFailure" is not a Codex event that hookbus runs )"
                         R"(hooks on; a codex hook declares Codex's event names: SessionStart, )"));
}

TEST_F(ConfigTest, AClaudeCodeHookMustDeclareItsEvents) {
  EXPECT_THAT(load_error(R"({"hooks": {"v.sh": {"protocol": "claude_code"}}})"),
              HasSubstr(R"(hooks["v.sh"]: a claude_code hook must declare its "events")"));
}

TEST_F(ConfigTest, AnInvalidClaudeCodeMatcherIsAnErrorNamingItsPath) {
  EXPECT_THAT(load_error(R"({"hooks": {"v.sh": {"protocol": "claude_code", "events": ["PreToolUse"], "matcher": "Edit|("}}})"),
              StartsWith(R"(hooks["v.sh"].matcher: matcher "Edit|(" is not a valid regular expression)"));
}

TEST_F(ConfigTest, AClaudeCodeHookDeclaringAHookbusEventNameIsAnErrorNamingTheClaudeCodeName) {
  const std::string error = load_error(R"({"hooks": {"v.sh": {"protocol": "claude_code", "events": ["Stop", "tool_call"]}}})");
  EXPECT_THAT(error, StartsWith(R"(hooks["v.sh"].events[1]: "tool_call" is not a Claude Code event that hookbus runs hooks on (did you mean PreToolUse?))"));
  EXPECT_THAT(error, HasSubstr("PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, UserPromptSubmit"));
}

TEST_F(ConfigTest, AClaudeCodeHookDeclaringAnUnknownEventIsAnErrorListingTheValidNames) {
  EXPECT_THAT(load_error(R"({"hooks": {"v.sh": {"protocol": "claude_code", "events": ["pretooluse"]}}})"),
              AllOf(StartsWith(R"(hooks["v.sh"].events[0]: "pretooluse" is not a Claude Code event that hookbus runs hooks on (did you mean PreToolUse?))"),
                    HasSubstr("SessionStart, SessionEnd")));
  EXPECT_THAT(load_error(R"({"hooks": {"v.sh": {"protocol": "claude_code", "events": ["WorktreeCreate"]}}})"),
              StartsWith(R"(hooks["v.sh"].events[0]: "WorktreeCreate" is not a Claude Code event that hookbus runs hooks on; a claude_code hook declares)"));
}

TEST_F(ConfigTest, AMatcherIsOnlyForClaudeCodeHooksAndToolsOnlyForHookbusOnes) {
  EXPECT_THAT(load_error(R"({"hooks": {"g": {"matcher": "Bash"}}})"), HasSubstr("hooks.g.matcher: \"matcher\" is Claude Code's"));
  EXPECT_THAT(load_error(R"({"hooks": {"g": {"protocol": "claude_code", "events": ["Stop"], "tools": "bash"}}})"),
              HasSubstr("hooks.g.tools: \"tools\" is for hookbus-protocol hooks"));
}

TEST_F(ConfigTest, AToolFilterWithAnEmptyAlternativeIsAnErrorNamingIt) {
  EXPECT_THAT(load_error(R"({"hooks": {"g": {"tools": "bash|"}}})"),
              ::testing::AllOf(StartsWith("hooks.g.tools: tool matcher 'bash|' has an empty alternative"), HasSubstr("Bash|Shell")));
}

TEST_F(ConfigTest, ReadsAPersistentHooksModeInstancesStartAndAsync) {
  const Config config = load_config(write_config(R"({
    "hooks": {
      "guard": {"mode": "persistent", "instances": 2, "start": "eager"},
      "audit": {"async": true},
      "once": {"mode": "spawn", "async": false}
    }
  })"));
  const HookSettings& guard = config.hooks.at("guard");
  EXPECT_EQ(guard.mode, HookMode::persistent);
  EXPECT_EQ(guard.instances, 2);
  EXPECT_EQ(guard.start, HookStart::eager);
  EXPECT_EQ(guard.async, std::nullopt);
  EXPECT_EQ(config.hooks.at("audit").async, true);
  EXPECT_EQ(config.hooks.at("audit").mode, std::nullopt);
  EXPECT_EQ(config.hooks.at("once").mode, HookMode::spawn);
}

TEST_F(ConfigTest, ModeStartInstancesAndAsyncAcceptOnlyTheirValues) {
  EXPECT_EQ(load_error(R"({"hooks": {"g": {"mode": "daemon"}}})"),
            R"(hooks.g.mode: expected "spawn" or "persistent", got "daemon")");
  EXPECT_EQ(load_error(R"({"hooks": {"g": {"mode": "persistent", "start": "now"}}})"),
            R"(hooks.g.start: expected "lazy" or "eager", got "now")");
  EXPECT_EQ(load_error(R"({"hooks": {"g": {"mode": "persistent", "instances": 0}}})"),
            "hooks.g.instances: expected integer from 1 to 16, got 0");
  EXPECT_EQ(load_error(R"({"hooks": {"g": {"mode": "persistent", "instances": 17}}})"),
            "hooks.g.instances: expected integer from 1 to 16, got 17");
  EXPECT_EQ(load_error(R"({"hooks": {"g": {"async": "yes"}}})"), "hooks.g.async: expected boolean, got string");
}

TEST_F(ConfigTest, ReadsWhetherAHookIsSequential) {
  const Config config = load_config(write_config(R"({"hooks": {"audit": {"sequential": true}, "lint": {}}})"));
  EXPECT_EQ(config.hooks.at("audit").sequential, true);
  EXPECT_EQ(config.hooks.at("lint").sequential, std::nullopt);
  EXPECT_EQ(load_error(R"({"hooks": {"g": {"sequential": 1}}})"), "hooks.g.sequential: expected boolean, got number");
}

TEST_F(ConfigTest, InstancesOrStartInAnEntryThatSaysSpawnIsAnError) {
  EXPECT_THAT(load_error(R"({"hooks": {"g": {"mode": "spawn", "instances": 2}}})"),
              StartsWith(R"(hooks.g.instances: "instances" is for persistent hooks; this entry makes the hook "mode": "spawn")"));
  EXPECT_THAT(load_error(R"({"hooks": {"g": {"mode": "spawn", "start": "eager"}}})"),
              StartsWith(R"(hooks.g.start: "start" is for persistent hooks)"));
}

TEST_F(ConfigTest, InstancesWithoutModeAreReadForAModeAnotherLayerSets) {
  const Config config = load_config(write_config(R"({"hooks": {"g": {"instances": 3}}})"));
  EXPECT_EQ(config.hooks.at("g").instances, 3);
}

TEST_F(ConfigTest, AClaudeCodeHookHasNoPersistentMode) {
  EXPECT_THAT(load_error(R"({"hooks": {"g": {"protocol": "claude_code", "events": ["Stop"], "mode": "persistent"}}})"),
              StartsWith(R"(hooks.g.mode: "mode" is for hookbus-protocol hooks)"));
  EXPECT_THAT(load_error(R"({"hooks": {"g": {"protocol": "claude_code", "events": ["Stop"], "instances": 2}}})"),
              StartsWith(R"(hooks.g.instances: "instances" is for persistent hooks; this entry makes the hook a claude_code hook)"));
}

TEST_F(ConfigTest, ClaudeCodeSettingsNameOnlyUserProjectOrLocal) {
  EXPECT_EQ(load_error(R"({"claude_code": {"settings": ["managed"]}})"),
            R"(claude_code.settings[0]: expected "user", "project" or "local", got "managed")");
}

TEST_F(ConfigTest, AnUnknownKeyInTheClaudeCodeImportIsAnError) {
  EXPECT_EQ(load_error(R"({"claude_code": {"toolnames": {"bash": "Bash"}}})"),
            "claude_code.toolnames: unknown key; expected one of: settings, plugins, tool_names");
}

// A key a layer may not set is ignored with a warning naming the file and
// key, never an error: a project that tries must not stop the user's guards.
TEST_F(ConfigTest, OnlyManagedConfigMaySetAllowManagedHooksOnly) {
  const fs::path project = write_config(R"({"allow_managed_hooks_only": true})");
  const Config ignored = load_config(project);
  EXPECT_EQ(ignored.allow_managed_hooks_only, std::nullopt);
  EXPECT_THAT(ignored.warnings, ElementsAre(project.string() + ": allow_managed_hooks_only: may not be set in project "
                                                               "config (only an administrator's managed config "
                                                               "decides it); ignored"));
  const fs::path file = write("managed/config.json", R"({"allow_managed_hooks_only": true})");
  EXPECT_EQ(load_config(file, Layer::managed).allow_managed_hooks_only, true);
}

TEST_F(ConfigTest, AProjectMayNotDecideItsOwnTrust) {
  const fs::path project = write_config(R"({"project_trust": "trust_all"})");
  const Config ignored = load_config(project);
  EXPECT_EQ(ignored.project_trust, std::nullopt);
  EXPECT_THAT(ignored.warnings, ElementsAre(HasSubstr("project_trust: may not be set in project config (a project may "
                                                      "not decide its own trust); ignored")));
  const fs::path file = write("user/config.json", R"({"project_trust": "ignore"})");
  EXPECT_EQ(load_config(file, Layer::user).project_trust, ProjectTrustPolicy::ignore);
  EXPECT_THAT(load_config(file, Layer::user).warnings, IsEmpty());
}

// Every layer may set it: a project for its own hooks (LayeredConfig decides whose).
TEST_F(ConfigTest, ReadsDetachedProcessesInEveryLayerAndOnlyItsTwoValues) {
  EXPECT_EQ(load_config(write_config(R"({"detached_processes": "kill"})")).detached_processes, DetachedProcesses::kill);
  EXPECT_EQ(load_config(write("user/config.json", R"({"detached_processes": "allow"})"), Layer::user).detached_processes,
            DetachedProcesses::allow);
  EXPECT_EQ(load_error(R"({"detached_processes": "never"})"),
            R"(detached_processes: expected "allow" or "kill", got "never")");
}

TEST_F(ConfigTest, AConfigKnowsTheSha256OfTheBytesItWasReadFrom) {
  EXPECT_EQ(load_config(write_config("{}")).sha256, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
}

// Regression (review, issue 10 point 7): a FIFO as config.json blocked hookctl forever.
TEST_F(ConfigTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  fs::create_directories(project_ / ".hookbus");
  const fs::path file = project_ / ".hookbus" / "config.json";
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  EXPECT_THAT([&] { (void)load_config(file); },
              ThrowsMessage<ConfigError>(file.string() + ": is a FIFO, not a regular file"));
}

// Regression (review, issue 10 point 7): a symlink to /dev/zero read until std::bad_alloc.
TEST_F(ConfigTest, ADeviceIsRefused) {
  fs::create_directories(project_ / ".hookbus");
  const fs::path file = project_ / ".hookbus" / "config.json";
  fs::create_symlink("/dev/zero", file);
  EXPECT_THAT([&] { (void)load_config(file); },
              ThrowsMessage<ConfigError>(file.string() + ": is a character device, not a regular file"));
}

// Opening a device can act (a watchdog arms, a tape rewinds), and a
// repository's config may be a link to one: what is no regular file is
// refused before it is opened. A FIFO shows it, as inotify sees every open.
TEST_F(ConfigTest, WhatIsNoRegularFileIsRefusedWithoutBeingOpened) {
  fs::create_directories(project_ / ".hookbus");
  const fs::path file = project_ / ".hookbus" / "config.json";
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(::inotify_add_watch(watch, file.c_str(), IN_OPEN), 0);
  EXPECT_THROW((void)load_config(file), ConfigError);
  char event[sizeof(inotify_event) + 256];
  EXPECT_EQ(::read(watch, event, sizeof event), -1) << "the FIFO was opened";
  ::close(watch);
}

TEST_F(ConfigTest, AFileOverTheSizeLimitIsRefused) {
  const fs::path file = write_config("{}" + std::string(max_config_file_size, ' '));
  EXPECT_THAT([&] { (void)load_config(file); },
              ThrowsMessage<ConfigError>(HasSubstr("over the limit of 1048576 bytes")));
}

// Regression (review, issue 10 point 7): a dangling config.json symlink was
// "no config", so its fail-closed settings and tool policy silently vanished.
TEST_F(ConfigTest, ADanglingSymlinkIsAnErrorNamingItsTarget) {
  fs::create_directories(project_ / ".hookbus");
  fs::create_symlink(project_ / "gone.json", project_ / ".hookbus" / "config.json");
  EXPECT_THAT([&] { (void)load_project_config(project_); },
              ThrowsMessage<ConfigError>(HasSubstr("is a symlink to '" + (project_ / "gone.json").string() +
                                                   "', which does not exist")));
}

// ------------------------------------------------------------- file checks

TEST_F(ConfigTest, ALayerConfigOthersCanWriteIsAnErrorNamingItAndTheFix) {
  const fs::path file = write("user/config.json", "{}");
  ::chmod(file.c_str(), 0666);
  EXPECT_THAT([&] { (void)load_layer_config(file, Layer::user); },
              ThrowsMessage<ConfigError>(AllOf(StartsWith(file.string() + ": not safe: "),
                                               HasSubstr("writable by group or others"), HasSubstr("chmod go-w"))));
}

// /proc/self/root/... names this process's root: another process (chrooted,
// in another mount namespace) or another name there (/proc/self/cwd) is
// another file. A config is read through no such name.
TEST_F(ConfigTest, ALayerConfigReachedThroughProcIsAnErrorNotTheFileItNamesHere) {
  const fs::path real = write("elsewhere/config.json", "{}");
  const fs::path file = project_ / "user" / "config.json";
  fs::create_directories(file.parent_path());
  fs::create_symlink(fs::path("/proc/self/root") / real.relative_path(), file);
  EXPECT_THAT([&] { (void)load_layer_config(file, Layer::user); },
              ThrowsMessage<ConfigError>(AllOf(StartsWith(file.string() + ": not safe: "), HasSubstr("procfs"))));
}

TEST_F(ConfigTest, ALayerConfigInADirectoryOthersCanWriteIsAnError) {
  const fs::path file = write("managed/config.json", "{}");
  ::chmod(file.parent_path().c_str(), 0777);
  EXPECT_THAT([&] { (void)load_layer_config(file, Layer::managed); },
              ThrowsMessage<ConfigError>(HasSubstr("the directory '" + file.parent_path().string() + "' on its path")));
}

TEST_F(ConfigTest, ALayerConfigOwnedByAnotherUserIsAnError) {
  HOOKBUS_NEEDS_ROOT();
  const fs::path file = write("managed/config.json", "{}");
  ASSERT_EQ(::chown(file.c_str(), testing::another_user, testing::another_user), 0);
  EXPECT_THAT([&] { (void)load_layer_config(file, Layer::managed); },
              ThrowsMessage<ConfigError>(HasSubstr("is owned by user 65534")));
}

// Regression (issue 9 audit): HOOKBUS_MANAGED_DIR, which anyone can set,
// replaced the administrator's /etc/hookbus in every build.
TEST_F(ConfigTest, HookbusManagedDirIsIgnoredWhereTheSystemsManagedDirectoryExists) {
  const fs::path system = write("etc-hookbus/config.json", R"({"disable_all_hooks": true})").parent_path();
  const testing::ScopedEnvironment env{{"HOOKBUS_MANAGED_DIR", (project_ / "empty").string()}};
  EXPECT_EQ(managed_directory(system), system);
}

TEST_F(ConfigTest, HookbusManagedDirNamesTheManagedDirectoryWhereTheSystemHasNone) {
  const testing::ScopedEnvironment env{{"HOOKBUS_MANAGED_DIR", (project_ / "managed").string()}};
  EXPECT_EQ(managed_directory(project_ / "no-etc-hookbus"), project_ / "managed");
}

// ------------------------------------------------------------------ layers

Config layer_config(Layer layer, std::map<std::string, HookSettings> hooks) {
  Config config;
  config.layer = layer;
  config.file = fmt::format("/{}/config.json", layer_name(layer));
  for (auto& [name, settings] : hooks) settings.location = ConfigLocation{.file = config.file, .path = "hooks." + name};
  config.hooks = std::move(hooks);
  return config;
}

TEST(LayeredConfig, ALayerGovernsItselfAndLessTrustedLayersOnly) {
  EXPECT_TRUE(governs(Layer::managed, Layer::user));
  EXPECT_TRUE(governs(Layer::user, Layer::project));
  EXPECT_TRUE(governs(Layer::local, Layer::project));
  EXPECT_FALSE(governs(Layer::project, Layer::user));
  EXPECT_FALSE(governs(Layer::local, Layer::user));
  EXPECT_FALSE(governs(Layer::project, Layer::managed));
}

TEST(LayeredConfig, AProjectConfigCannotDisableOrWeakenAUserHook) {
  const LayeredConfig config({layer_config(Layer::user, {{"guard", {.failure = FailurePolicy::fail_closed}}}),
                              layer_config(Layer::project, {{"guard", {.timeout = Duration(1),
                                                                       .failure = FailurePolicy::fail_open,
                                                                       .disabled = true}}})});
  const ResolvedHookSettings user_guard = config.hook_settings(Layer::user, "guard");
  EXPECT_FALSE(user_guard.disabled.value);
  EXPECT_EQ(user_guard.failure.value, FailurePolicy::fail_closed);
  EXPECT_EQ(user_guard.timeout.value, default_hook_timeout);
  // The project's own hook of that name is its to change.
  const ResolvedHookSettings project_guard = config.hook_settings(Layer::project, "guard");
  EXPECT_TRUE(project_guard.disabled.value);
  EXPECT_EQ(project_guard.timeout.value, Duration(1));
}

TEST(LayeredConfig, SecuritySettingsGoToTheMostTrustedLayerTheRestToTheMostSpecific) {
  const LayeredConfig config(
      {layer_config(Layer::user, {{"lint", {.timeout = Duration(100), .failure = FailurePolicy::fail_closed}}}),
       layer_config(Layer::project, {{"lint", {.timeout = Duration(200), .failure = FailurePolicy::fail_open}}})});
  const ResolvedHookSettings lint = config.hook_settings(Layer::project, "lint");
  EXPECT_EQ(lint.failure.value, FailurePolicy::fail_closed);
  EXPECT_EQ(lint.failure.origin.file, "/user/config.json");
  EXPECT_EQ(lint.failure.origin.path, "hooks.lint.failure");
  EXPECT_EQ(lint.timeout.value, Duration(200));
  EXPECT_EQ(lint.timeout.origin.file, "/project/config.json");
}

TEST(LayeredConfig, AProjectConfigCannotMakeAUserHookAsync) {
  const LayeredConfig config({layer_config(Layer::user, {{"guard", {.failure = FailurePolicy::fail_closed}}}),
                              layer_config(Layer::project, {{"guard", {.async = true}}})});
  EXPECT_FALSE(config.hook_settings(Layer::user, "guard").async.value);
  EXPECT_TRUE(config.hook_settings(Layer::project, "guard").async.value);
}

TEST(LayeredConfig, AsyncIsASecuritySettingTheMostTrustedLayerDecides) {
  const LayeredConfig config({layer_config(Layer::user, {{"guard", {.async = false}}}),
                              layer_config(Layer::project, {{"guard", {.async = true}}})});
  const ResolvedHookSettings guard = config.hook_settings(Layer::project, "guard");
  EXPECT_FALSE(guard.async.value);
  EXPECT_EQ(guard.async.origin.file, "/user/config.json");
  EXPECT_EQ(guard.async.origin.path, "hooks.guard.async");
}

TEST(LayeredConfig, SequentialIsASecuritySettingAProjectCannotTakeFromAUsersHook) {
  const LayeredConfig config({layer_config(Layer::user, {{"audit", {.sequential = true}}}),
                              layer_config(Layer::project, {{"audit", {.sequential = false}}})});
  const ResolvedHookSettings audit = config.hook_settings(Layer::project, "audit");
  EXPECT_EQ(audit.sequential.value, true);
  EXPECT_EQ(audit.sequential.origin.path, "hooks.audit.sequential");
  EXPECT_EQ(config.hook_settings(Layer::user, "audit").sequential.value, true);
  EXPECT_EQ(config.hook_settings(Layer::user, "lint").sequential.value, std::nullopt);
}

TEST(LayeredConfig, ModeInstancesAndStartGoToTheMostSpecificLayer) {
  const LayeredConfig config(
      {layer_config(Layer::user, {{"lint", {.mode = HookMode::persistent, .instances = 4}}}),
       layer_config(Layer::project, {{"lint", {.instances = 2, .start = HookStart::eager}}})});
  const ResolvedHookSettings lint = config.hook_settings(Layer::project, "lint");
  EXPECT_EQ(lint.mode.value, HookMode::persistent);
  EXPECT_EQ(lint.mode.origin.file, "/user/config.json");
  EXPECT_EQ(lint.instances.value, 2);
  EXPECT_EQ(lint.start.value, HookStart::eager);
  const ResolvedHookSettings other = config.hook_settings(Layer::project, "other");
  EXPECT_EQ(other.mode.value, HookMode::spawn);
  EXPECT_EQ(other.instances.value, 1);
  EXPECT_EQ(other.start.value, HookStart::lazy);
  EXPECT_FALSE(other.async.value);
}

TEST(LayeredConfig, TheLocalLayerMayChangeProjectHooksButNotUserHooks) {
  const LayeredConfig config({layer_config(Layer::project, {{"fmt", {.disabled = false}}}),
                              layer_config(Layer::local, {{"fmt", {.disabled = true}}, {"guard", {.disabled = true}}})});
  EXPECT_TRUE(config.hook_settings(Layer::project, "fmt").disabled.value);
  EXPECT_FALSE(config.hook_settings(Layer::user, "guard").disabled.value);
}

TEST(LayeredConfig, DefaultTimeoutOfALayerReachesOnlyTheLayersItGoverns) {
  Config user = layer_config(Layer::user, {});
  user.default_timeout = Duration(5000);
  Config project = layer_config(Layer::project, {});
  project.default_timeout = Duration(1);
  const LayeredConfig config({user, project});
  EXPECT_EQ(config.default_timeout(Layer::managed).value, default_hook_timeout);
  EXPECT_EQ(config.default_timeout(Layer::user).value, Duration(5000));
  EXPECT_EQ(config.default_timeout(Layer::project).value, Duration(1));
}

TEST(LayeredConfig, DetachedProcessesIsTheStrictestOfTheEnginesAndTheGoverningLayers) {
  Config user = layer_config(Layer::user, {});
  user.detached_processes = DetachedProcesses::allow;
  Config project = layer_config(Layer::project, {});
  project.detached_processes = DetachedProcesses::kill;
  const LayeredConfig config({user, project});
  EXPECT_EQ(config.detached_processes(Layer::user, DetachedProcesses::allow).value, DetachedProcesses::allow);
  const Sourced<DetachedProcesses> projects = config.detached_processes(Layer::project, DetachedProcesses::allow);
  EXPECT_EQ(projects.value, DetachedProcesses::kill);
  EXPECT_EQ(projects.origin.file, project.file);
  EXPECT_EQ(config.detached_processes(Layer::local, DetachedProcesses::allow).value, DetachedProcesses::kill);
  // The engine's kill: config's allow loosens nothing.
  EXPECT_EQ(config.detached_processes(Layer::user, DetachedProcesses::kill).value, DetachedProcesses::kill);
  EXPECT_TRUE(config.detached_processes(Layer::user, DetachedProcesses::kill).origin.file.empty());
}

TEST(LayeredConfig, DisableAllHooksStopsItsLayerAndLessTrustedOnes) {
  Config user = layer_config(Layer::user, {});
  user.disable_all_hooks = true;
  const LayeredConfig config({user});
  EXPECT_EQ(config.hooks_forbidden(Layer::managed), std::nullopt);
  EXPECT_THAT(config.hooks_forbidden(Layer::user), Optional(HasSubstr("disable_all_hooks is set in /user/config.json")));
  EXPECT_TRUE(config.hooks_forbidden(Layer::project).has_value());
}

TEST(LayeredConfig, AProjectCannotDisableTheHooksOfMoreTrustedLayers) {
  Config project = layer_config(Layer::project, {});
  project.disable_all_hooks = true;
  const LayeredConfig config({project});
  EXPECT_EQ(config.hooks_forbidden(Layer::user), std::nullopt);
  EXPECT_TRUE(config.hooks_forbidden(Layer::project).has_value());
}

TEST(LayeredConfig, AllowManagedHooksOnlyStopsEveryOtherLayer) {
  Config managed = layer_config(Layer::managed, {});
  managed.allow_managed_hooks_only = true;
  const LayeredConfig config({managed});
  EXPECT_EQ(config.hooks_forbidden(Layer::managed), std::nullopt);
  for (const Layer layer : {Layer::user, Layer::project, Layer::local})
    EXPECT_THAT(config.hooks_forbidden(layer), Optional(HasSubstr("allow_managed_hooks_only is set in /managed/config.json")));
}

TEST(LayeredConfig, TheStrictestTrustPolicyWins) {
  Config user = layer_config(Layer::user, {});
  user.project_trust = ProjectTrustPolicy::trust_all;
  EXPECT_EQ(LayeredConfig({user}).project_trust(ProjectTrustPolicy::require), ProjectTrustPolicy::require);
  user.project_trust = ProjectTrustPolicy::ignore;
  EXPECT_EQ(LayeredConfig({user}).project_trust(ProjectTrustPolicy::trust_all), ProjectTrustPolicy::ignore);
}

TEST(LayeredConfig, ClaudeCodeImportsAppend) {
  Config user = layer_config(Layer::user, {});
  user.claude_code = ClaudeCodeImport{.settings = {Layer::user}, .plugins = {"/p/a"}, .tool_names = {}};
  Config project = layer_config(Layer::project, {});
  project.claude_code = ClaudeCodeImport{.settings = {Layer::project}, .plugins = {"/p/b"}, .tool_names = {}};
  const auto merged = LayeredConfig({user, project}).claude_code();
  ASSERT_TRUE(merged.has_value());
  EXPECT_THAT(merged->settings, UnorderedElementsAre(Layer::user, Layer::project));
  EXPECT_THAT(merged->plugins, UnorderedElementsAre(fs::path("/p/a"), fs::path("/p/b")));
}

// A layer's Claude Code commands see the tool names of the layers at least as
// trusted as theirs (managed, user, local, project), the most specific winning.
TEST(LayeredConfig, ClaudeCodeToolNamesOfALessTrustedLayerReachOnlyItsOwnAndLessTrustedCommands) {
  const auto with_names = [](Layer layer, std::map<std::string, std::string> names) {
    Config config = layer_config(layer, {});
    config.claude_code = ClaudeCodeImport{.settings = {}, .plugins = {}, .tool_names = std::move(names),
                                          .location = {.file = config.file, .project_dir = {}, .path = "claude_code"}};
    return config;
  };
  const LayeredConfig config({with_names(Layer::managed, {{"read_file", "Read"}}),
                              with_names(Layer::user, {{"sh", "Bash"}, {"read_file", "View"}}),
                              with_names(Layer::project, {{"sh", "Shell"}, {"deploy", "Deploy"}}),
                              with_names(Layer::local, {{"grep", "Grep"}})});
  const auto values = [&](Layer owner) {
    std::map<std::string, std::string> seen;
    for (const auto& [name, value] : config.claude_code_tool_names(owner)) seen.emplace(name, value.value);
    return seen;
  };
  EXPECT_THAT(values(Layer::managed), ElementsAre(Pair("read_file", "Read")));
  EXPECT_THAT(values(Layer::user), ElementsAre(Pair("read_file", "View"), Pair("sh", "Bash")));
  EXPECT_THAT(values(Layer::local), ElementsAre(Pair("grep", "Grep"), Pair("read_file", "View"), Pair("sh", "Bash")));
  EXPECT_THAT(values(Layer::project), ElementsAre(Pair("deploy", "Deploy"), Pair("grep", "Grep"),
                                                  Pair("read_file", "View"), Pair("sh", "Shell")));
  const Sourced<std::string> shell = config.claude_code_tool_names(Layer::project).at("sh");
  EXPECT_EQ(shell.origin.file, "/project/config.json");
  EXPECT_EQ(shell.origin.path, "claude_code.tool_names.sh");
}

TEST(LayeredConfig, TwoConfigsForOneLayerAreAProgrammingError) {
  EXPECT_THROW(LayeredConfig({layer_config(Layer::user, {}), layer_config(Layer::user, {})}), std::invalid_argument);
}

// ------------------------------------------------------- install_builtins

TEST_F(ConfigTest, InstallsEveryConfiguredBuiltin) {
  Hooks hooks;
  const auto installed = install_builtins(hooks, load_config(write_config(R"({"builtins": {
    "tool_stats": {}, "tool_policy": {"deny": ["bash"]}}})")));
  EXPECT_THAT(hooks.handlers("tool_call"), ElementsAre("builtin:tool_stats", "builtin:tool_policy"));
  // Assigned, not designated-initialised: GCC 12 at -O3 warns falsely
  // (-Wmaybe-uninitialized) about the omitted members' strings here.
  ToolCallEvent call;
  call.tool_name = "bash";
  EXPECT_EQ(hooks.emit(call).decision, Decision::deny);
}

TEST_F(ConfigTest, DroppingTheInstalledGroupUninstallsTheBuiltins) {
  Hooks hooks;
  {
    const auto installed = install_builtins(hooks, load_config(write_config(R"({"builtins": {"tool_stats": {}}})")));
    EXPECT_EQ(hooks.handler_count("tool_call"), 1u);
  }
  EXPECT_THAT(hooks.registered_events(), IsEmpty());
}

TEST_F(ConfigTest, UnknownBuiltinNamesTheFileAndListsTheAvailableOnes) {
  Hooks hooks;
  const fs::path file = write_config(R"({"builtins": {"tool_polcy": {}}})");
  EXPECT_THAT([&] { (void)install_builtins(hooks, load_config(file)); },
              ThrowsMessage<ConfigError>(file.string() +
                                         R"(: builtins.tool_polcy: unknown built-in "tool_polcy"; )"
                                         "available: audit, redact, stt, swap_context, tool_policy, tool_stats, tts"));
}

TEST_F(ConfigTest, BadBuiltinSettingsNameTheFileAndThePathInIt) {
  Hooks hooks;
  const fs::path file = write_config(R"({"builtins": {"tool_policy": {"deny": [
    "mcp__*", {"tool": "bash", "argument": "command", "pattern": 5}]}}})");
  EXPECT_THAT([&] { (void)install_builtins(hooks, load_config(file)); },
              ThrowsMessage<ConfigError>(file.string() +
                                         ": builtins.tool_policy.deny[1].pattern: expected string, got number"));
}

TEST_F(ConfigTest, OneBadBuiltinMeansNoneIsInstalled) {
  Hooks hooks;
  const Config config = load_config(write_config(R"({"builtins": {
    "tool_stats": {}, "audit": {"file": "audit.jsonl"}, "redact": {"patterns": ["("]}}})"));
  EXPECT_THROW((void)install_builtins(hooks, config), ConfigError);
  EXPECT_EQ(hooks.handler_count("tool_call"), 0u);
  EXPECT_EQ(hooks.handler_count("tool_execution_end"), 0u);
  EXPECT_EQ(hooks.handler_count("tool_result_persist"), 0u);
  EXPECT_THAT(hooks.registered_events(), IsEmpty());
}

TEST_F(ConfigTest, RelativeBuiltinFilePathsResolveAgainstTheProjectDir) {
  Hooks hooks;
  const auto installed =
      install_builtins(hooks, load_config(write_config(R"({"builtins": {"audit": {"file": "audit.jsonl"}}})")));
  EXPECT_TRUE(fs::exists(project_ / "audit.jsonl"));
}

// The audit log's file is checked when the config is read, as the trace's
// are: a repository's config naming a file outside the project never loads,
// so nothing of it runs (docs/security.md, "Files a project names").
TEST_F(ConfigTest, AProjectsAuditFileOutsideTheProjectIsAnErrorWhenTheConfigIsRead) {
  for (const Layer layer : {Layer::project, Layer::local}) {
    for (const auto& [path, why] : {std::pair<std::string, std::string>{"/home/dev/.bashrc", "is an absolute path"},
                                    {"../.bashrc", "leaves the project directory"},
                                    {"logs/../../.bashrc", "leaves the project directory"}}) {
      const fs::path file = write(".hookbus/config.json", R"({"builtins": {"audit": {"file": ")" + path + R"("}}})");
      EXPECT_THAT([&] { (void)load_config(file, layer); },
                  ThrowsMessage<ConfigError>(StartsWith(file.string() + ": builtins.audit.file: \"" + path + "\" " +
                                                        why + ", and a project's config may have hookbus write only "
                                                              "inside the project")))
          << layer_name(layer) << " " << path;
    }
  }
}

TEST_F(ConfigTest, AProjectsAuditFileInVersionControlMetadataIsAnErrorWhenTheConfigIsRead) {
  for (const auto& [path, metadata] :
       {std::pair<std::string, std::string>{".git/config", ".git"}, {"sub/.Git/hooks/pre-commit", ".Git"}, {".git", ".git"},
        {".hg/hgrc", ".hg"}, {".svn/entries", ".svn"}, {".bzr/branch/branch.conf", ".bzr"},
        {"_darcs/prefs/defaults", "_darcs"}, {".jj/repo/config.toml", ".jj"}, {".pijul/config", ".pijul"}}) {
    EXPECT_EQ(load_error(R"({"builtins": {"audit": {"file": ")" + path + R"("}}})"),
              "builtins.audit.file: \"" + path + "\" is in version-control metadata (" + metadata +
                  "), and a project's config may have hookbus write only inside the project, outside "
                  "version-control metadata: give a path relative to the project directory, or set this in your "
                  "user config to write elsewhere");
  }
}

TEST_F(ConfigTest, AFileToWriteNamingADirectoryIsAnErrorWhateverTheLayer) {
  for (const Layer layer : {Layer::managed, Layer::user, Layer::project}) {
    for (const std::string path : {".", "logs/", "logs/.."}) {
      const fs::path file = write(".hookbus/config.json", R"({"builtins": {"audit": {"file": ")" + path +
                                                              R"("}}, "trace": {"jsonl": ")" + path + R"("}})");
      EXPECT_THAT([&] { (void)load_config(file, layer); },
                  ThrowsMessage<ConfigError>(file.string() + ": builtins.audit.file: \"" + path +
                                             "\" names a directory, not a file: give the path of a file, such as "
                                             "\"trace/session.jsonl\""))
          << layer_name(layer) << " " << path;
    }
  }
}

TEST_F(ConfigTest, CustomRegistryFactoryReceivesTheSettingsAndTheirLocation) {
  Hooks hooks;
  const fs::path file = write_config(R"({"builtins": {"marker": {"colour": "red"}}})");
  MockFunction<BuiltinProvider(const ConfigObject&)> factory;
  EXPECT_CALL(factory, Call(_)).WillOnce([&](const ConfigObject& settings) -> BuiltinProvider {
    EXPECT_EQ(settings.json(), (boost::json::object{{"colour", "red"}}));
    EXPECT_EQ(settings.location().file, file);
    EXPECT_EQ(settings.location().path, "builtins.marker");
    EXPECT_EQ(settings.location().project_dir, project_);
    EXPECT_EQ(settings.location().layer, Layer::project);
    return [](Registrar&) {};
  });
  BuiltinRegistry registry;
  registry.add("marker", factory.AsStdFunction());
  const auto installed = install_builtins(hooks, load_config(file), registry);
}

// ------------------------------------------------------- the fuzz seed

// Every key of every object in `value` (a JSON pointer to each object, with
// its ConfigLocation).
void each_object(const boost::json::value& value, const std::string& pointer, const ConfigLocation& where,
                 const std::function<void(const std::string&, const ConfigLocation&)>& visit) {
  if (value.is_array())
    for (std::size_t i = 0; i < value.get_array().size(); ++i)
      each_object(value.get_array()[i], pointer + "/" + std::to_string(i), where.element(i), visit);
  if (!value.is_object()) return;
  visit(pointer, where);
  for (const auto& member : value.get_object()) {
    std::string key(member.key());  // a JSON pointer's escapes
    for (std::size_t at = 0; (at = key.find_first_of("~/", at)) != std::string::npos; at += 2)
      key.replace(at, 1, key[at] == '~' ? "~0" : "~1");
    each_object(member.value(), pointer + "/" + key, where.key(member.key()), visit);
  }
}

// The list after `intro` in `message` ("unknown key; expected one of: a, b").
std::vector<std::string> listed_after(const std::string& message, std::string_view intro) {
  std::vector<std::string> names;
  std::istringstream list(message.substr(message.find(intro) + intro.size()));
  for (std::string name; std::getline(list, name, ',');) names.push_back(name.substr(name.find_first_not_of(' ')));
  return names;
}

// The place `pointer` stands for: array elements as "*", and so is the hook
// name in /hooks/NAME (every hook's settings have the same keys).
std::string place_of(const std::string& pointer) {
  std::string place;
  std::istringstream segments(pointer);
  std::getline(segments, place, '/');  // "" before the first '/'
  for (std::string segment; std::getline(segments, segment, '/');)
    place += segment.find_first_not_of("0123456789") == std::string::npos || place == "/hooks" ? "/*" : "/" + segment;
  return place.empty() ? "/" : place;
}

// The config fuzz target's seed (test/fuzz/config_every_key.json) uses every
// key the reader knows at every place that has keys of its own, and every
// built-in of the library: what the reader's "unknown key" and "unknown
// built-in" errors list when an unknown key is added to the object there.
// The voice built-ins are plugins with settings of their own (docs/voice.md).
TEST_F(ConfigTest, TheFuzzSeedUsesEveryKeyTheReaderKnows) {
  std::ifstream in(HOOKBUS_CONFIG_EVERY_KEY);
  std::ostringstream text;
  text << in.rdbuf();
  const boost::json::value seed = parse_json(text.str(), "config_every_key.json");
  const auto load_and_install = [&](const boost::json::value& document) {
    Hooks hooks;
    (void)install_builtins(hooks, load_config(write_config(write_json(document)), Layer::managed));
  };
  ASSERT_NO_THROW(load_and_install(seed)) << "the seed loads and installs in managed config, which may set every key";
  std::map<std::string, std::set<std::string>> known, used;  // by place
  each_object(seed, "", ConfigLocation{}, [&](const std::string& pointer, const ConfigLocation& where) {
    boost::json::value document = seed;
    document.at_pointer(pointer).as_object()["zz_unknown"] = boost::json::object{};
    try {
      load_and_install(document);
      return;  // a map (hooks by name): the added entry is one more
    } catch (const ConfigError& error) {
      const std::string message = error.what();
      ASSERT_EQ(error.path(), where.key("zz_unknown").path) << message;
      const std::string place = place_of(pointer);
      for (const auto& member : seed.at_pointer(pointer).as_object()) used[place].emplace(member.key());
      if (message.find("unknown key; expected one of: ") != std::string::npos) {
        for (std::string& key : listed_after(message, "expected one of: ")) known[place].insert(std::move(key));
      } else if (message.find("unknown built-in") != std::string::npos) {
        for (std::string& builtin : listed_after(message, "available: "))
          if (builtin != "stt" && builtin != "tts") known[place].insert(std::move(builtin));
      }  // else a map whose entries have a type (tool_names): nothing to list
    }
  });
  EXPECT_GE(known.size(), 12u) << "the walk reached the nested objects";
  for (const auto& [place, keys] : known)
    for (const std::string& key : keys) EXPECT_TRUE(used[place].contains(key)) << "the seed lacks " << place << "/" << key;
}

}  // namespace
}  // namespace hookbus
