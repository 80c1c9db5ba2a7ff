// Configuration: the file format, strict reading with errors that name the
// file, the path and what was expected, and installing the configured
// built-ins without ever half-applying.
#include <hookbus/builtins.hpp>
#include <hookbus/config.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::_;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MockFunction;
using ::testing::Pair;
using ::testing::Return;
using ::testing::StartsWith;
using ::testing::ThrowsMessage;

// Each test gets a project directory of its own, removed afterwards.
class ConfigTest : public ::testing::Test {
 protected:
  ConfigTest() {
    std::string pattern = (fs::temp_directory_path() / "hookbus-config-XXXXXX").string();
    project_ = fs::path(::mkdtemp(pattern.data()));
  }
  ~ConfigTest() override { fs::remove_all(project_); }

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

  fs::path project_;
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
  EXPECT_THAT(config.hooks,
              ElementsAre(Pair("block-rm-rf", HookOverride{.timeout = std::chrono::milliseconds(1000),
                                                           .failure = FailurePolicy::fail_closed}),
                          Pair("slow", HookOverride{.failure = FailurePolicy::fail_open, .disabled = true})));
}

TEST_F(ConfigTest, EmptyObjectKeepsTheDefaults) {
  const fs::path file = write_config("{}");
  const Config config = load_config(file);
  EXPECT_THAT(config.builtins, IsEmpty());
  EXPECT_THAT(config.hook_directories, IsEmpty());
  EXPECT_EQ(config.default_timeout, std::chrono::seconds(30));
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

TEST_F(ConfigTest, DocumentMustBeAnObject) { EXPECT_EQ(load_error("[]"), "expected object, got array"); }

TEST_F(ConfigTest, UnknownTopLevelKeyIsAnErrorListingTheKnownOnes) {
  EXPECT_EQ(load_error(R"({"timeout": 5})"),
            "timeout: unknown key; expected one of: builtins, hook_directories, timeout_ms, hooks");
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
            "hooks.guard.timeout: unknown key; expected one of: timeout_ms, failure, disabled");
}

TEST_F(ConfigTest, FailurePolicyMustBeFailOpenOrFailClosed) {
  EXPECT_EQ(load_error(R"({"hooks": {"guard": {"failure": "closed"}}})"),
            R"(hooks.guard.failure: expected "fail_open" or "fail_closed", got "closed")");
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
                                         "available: audit, redact, tool_policy, tool_stats"));
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

TEST_F(ConfigTest, CustomRegistryFactoryReceivesTheSettingsAndTheirLocation) {
  Hooks hooks;
  const fs::path file = write_config(R"({"builtins": {"marker": {"colour": "red"}}})");
  MockFunction<BuiltinProvider(const ConfigObject&)> factory;
  EXPECT_CALL(factory, Call(_)).WillOnce([&](const ConfigObject& settings) -> BuiltinProvider {
    EXPECT_EQ(settings.json(), (boost::json::object{{"colour", "red"}}));
    EXPECT_EQ(settings.location().file, file);
    EXPECT_EQ(settings.location().path, "builtins.marker");
    EXPECT_EQ(settings.location().project_dir, project_);
    return [](Registrar&) {};
  });
  BuiltinRegistry registry;
  registry.add("marker", factory.AsStdFunction());
  const auto installed = install_builtins(hooks, load_config(file), registry);
}

}  // namespace
}  // namespace hookbus
