// The [hooks] tables of Codex's config.toml read as the JSON a hooks.json
// holds (lib/formats/codex/codex_toml.hpp, docs/claude-code-rules.md).
#include "formats/codex/codex_toml.hpp"

#include <hookbus/config.hpp>

#include "script_fixture.hpp"

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::ThrowsMessage;

const fs::path kFile = "/home/dev/.codex/config.toml";

boost::json::object hooks_of(const std::string& toml) { return parse_codex_toml_hooks(toml, kFile).hooks; }

boost::json::object json(std::string_view text) { return boost::json::parse(text).as_object(); }

std::string error_of(const std::string& toml) {
  try {
    (void)parse_codex_toml_hooks(toml, kFile);
  } catch (const ConfigError& error) {
    return error.what();
  }
  ADD_FAILURE() << "read without an error:\n" << toml;
  return {};
}

TEST(CodexToml, TheDocumentedTablesReadAsTheJsonOfAHooksJson) {
  // Codex's hooks page: the same hook in config.toml as in hooks.json.
  EXPECT_EQ(hooks_of(R"toml(
[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 .codex/hooks/guard.py"
timeout = 30
statusMessage = "Checking the command"
)toml"),
            json(R"json({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                 "command": "python3 .codex/hooks/guard.py", "timeout": 30,
                 "statusMessage": "Checking the command"}]}]})json"));
}

TEST(CodexToml, GroupsAndHandlersKeepTheirOrderInEveryTomlSpelling) {
  EXPECT_EQ(hooks_of(R"toml(
[hooks]
Stop = [{ hooks = [{ type = "command", command = "./first" }, { type = "command", command = "./second" }] }]

[[hooks.PostToolUse]]
matcher = "Edit|Write"
hooks = [{ type = "command", command = "./format", async = true, command_windows = "format.cmd" }]

[[hooks.PostToolUse]]
[[hooks.PostToolUse.hooks]]
type = "command"
command = "./log"
)toml"),
            json(R"json({
              "Stop": [{"hooks": [{"type": "command", "command": "./first"},
                                  {"type": "command", "command": "./second"}]}],
              "PostToolUse": [
                {"matcher": "Edit|Write",
                 "hooks": [{"type": "command", "command": "./format", "async": true,
                            "command_windows": "format.cmd"}]},
                {"hooks": [{"type": "command", "command": "./log"}]}]})json"));
}

TEST(CodexToml, AFileWithoutHooksGivesAnEmptySectionAndCodexsOwnSettingsAreNotRead) {
  const CodexTomlHooks read = parse_codex_toml_hooks(R"toml(
model = "o3"
approval_policy = "on-request"
updated = 1979-05-27T07:32:00Z
[features]
hooks = true
[mcp_servers.docs]
command = ["npx", 5]
)toml",
                                                     kFile);
  EXPECT_TRUE(read.hooks.empty());
  EXPECT_TRUE(read.state.empty());
  EXPECT_TRUE(hooks_of("").empty());
}

TEST(CodexToml, KeysTheHooksReaderJudgesPassThroughAsWritten) {
  EXPECT_EQ(hooks_of(R"toml(
[[hooks.NoSuchEvent]]
note = "an unknown event is the hooks reader's to judge"
[[hooks.NoSuchEvent.hooks]]
type = "prompt"
prompt = "x"
extra = [1, 2.5, false, { deep = "yes" }]
)toml"),
            json(R"json({"NoSuchEvent": [{"note": "an unknown event is the hooks reader's to judge",
                 "hooks": [{"type": "prompt", "prompt": "x", "extra": [1, 2.5, false, {"deep": "yes"}]}]}]})json"));
}

TEST(CodexToml, HooksStateIsCodexsRecordAndComesApartFromTheEvents) {
  const CodexTomlHooks read = parse_codex_toml_hooks(R"toml(
[[hooks.Stop]]
hooks = [{ type = "command", command = "./check" }]
[hooks.state."config.toml:stop:0:0"]
enabled = false
trusted_hash = "sha256:abc"
)toml",
                                                     kFile);
  EXPECT_EQ(read.hooks, json(R"({"Stop": [{"hooks": [{"type": "command", "command": "./check"}]}]})"));
  EXPECT_EQ(read.state, json(R"({"config.toml:stop:0:0": {"enabled": false, "trusted_hash": "sha256:abc"}})"));
}

TEST(CodexToml, TomlThatDoesNotParseIsAnErrorNamingTheFileLineAndColumn) {
  struct Row {
    std::string toml;
    std::string position;
  };
  const std::vector<Row> rows = {
      {"[[hooks.Stop]]\nmatcher = \"open\n", "line 2, column 16"},
      {"[[hooks.Stop]]\nmatcher = \"a\"\nmatcher = \"b\"\n", "line 3, column 11"},
      {"[hooks]\nStop = 1\n[[hooks.Stop]]\n", "line 3, column 1"},
      {"model = \"o3\"\n[hooks\n", "line 2, column 7"},
      {"x = \"\xff\"\n", "line 1, column 5"},
  };
  for (const auto& row : rows) {
    const std::string message = error_of(row.toml);
    EXPECT_THAT(message, StartsWith(kFile.string() + ": " + row.position + ": ")) << row.toml;
    EXPECT_THAT(message, ::testing::EndsWith("; Codex reads this file too: fix the TOML there")) << row.toml;
  }
}

TEST(CodexToml, AValueOfTheWrongTypeIsAnErrorNamingItsPathLineAndColumnAndTheFix) {
  struct Row {
    std::string toml;
    std::string message;
  };
  const std::string group = "[[hooks.PreToolUse]]\n";
  const std::string handler = group + "[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"./x\"\n";
  const std::vector<Row> rows = {
      {"hooks = 5\n", "hooks: line 1, column 9: is an integer, expected a table; write [[hooks.EVENT]] tables, as "
                      "[[hooks.PreToolUse]]"},
      {"[hooks]\nPreToolUse = \"./x\"\n",
       "hooks.PreToolUse: line 2, column 14: is a string, expected an array of matcher groups; write "
       "[[hooks.PreToolUse]], one for each group"},
      {"[hooks]\nPreToolUse = [1]\n",
       "hooks.PreToolUse[0]: line 2, column 15: is an integer, expected a table, one matcher group; write "
       "[[hooks.PreToolUse]] with its matcher and [[hooks.PreToolUse.hooks]]"},
      {group + "matcher = 5\n", "hooks.PreToolUse[0].matcher: line 2, column 11: is an integer, expected a string; "
                                "write matcher = \"Bash\", a tool name or a regular expression"},
      {group + "hooks = \"./x\"\n",
       "hooks.PreToolUse[0].hooks: line 2, column 9: is a string, expected an array of handlers; write "
       "[[hooks.PreToolUse.hooks]], one for each handler"},
      {group + "hooks = [\"./x\"]\n",
       "hooks.PreToolUse[0].hooks[0]: line 2, column 10: is a string, expected a table, one handler; write "
       "[[hooks.EVENT.hooks]] with type = \"command\" and command = \"...\""},
      {handler + "timeout = \"30\"\n",
       "hooks.PreToolUse[0].hooks[0].timeout: line 5, column 11: is a string, expected a whole number of seconds, 0 "
       "or more; write timeout = 30"},
      {handler + "timeout = 1.5\n", "hooks.PreToolUse[0].hooks[0].timeout: line 5, column 11: is a float, expected a "
                                    "whole number of seconds, 0 or more; write timeout = 30"},
      {handler + "timeout_sec = -1\n",
       "hooks.PreToolUse[0].hooks[0].timeout_sec: line 5, column 15: is negative, expected a whole number of "
       "seconds, 0 or more; write timeout_sec = 30"},
      {group + "[[hooks.PreToolUse.hooks]]\ntype = 1\n",
       "hooks.PreToolUse[0].hooks[0].type: line 3, column 8: is an integer, expected a string; write type = "
       "\"command\""},
      {group + "[[hooks.PreToolUse.hooks]]\ncommand = true\n",
       "hooks.PreToolUse[0].hooks[0].command: line 3, column 11: is a boolean, expected a string; write command = "
       "\"...\", the shell command"},
      {handler + "async = \"yes\"\n", "hooks.PreToolUse[0].hooks[0].async: line 5, column 9: is a string, expected a "
                                      "boolean; write async = true or async = false"},
      {handler + "command_windows = 2\n",
       "hooks.PreToolUse[0].hooks[0].command_windows: line 5, column 19: is an integer, expected a string; write "
       "command_windows = \"...\""},
      {handler + "statusMessage = []\n",
       "hooks.PreToolUse[0].hooks[0].statusMessage: line 5, column 17: is an array, expected a string; write "
       "statusMessage = \"...\""},
      {"[hooks]\nstate = 1\n", "hooks.state: line 2, column 9: is an integer, expected a table; write "
                               "[hooks.state], Codex's own record of each hook"},
      {handler + "when = 1979-05-27\n", "hooks.PreToolUse[0].hooks[0].when: line 5, column 8: is a date or time, "
                                        "which no hook setting is; write it as a string"},
      {handler + "weight = inf\n", "hooks.PreToolUse[0].hooks[0].weight: line 5, column 10: is not a finite number, "
                                   "which JSON cannot hold; write a number"},
  };
  for (const auto& row : rows) EXPECT_EQ(error_of(row.toml), kFile.string() + ": " + row.message) << row.toml;
}

TEST(CodexToml, AFileIsReadAsConfigFilesAreRead) {
  testing::TempDir dir;
  const fs::path file = dir / "config.toml";
  EXPECT_TRUE(read_codex_toml_hooks(file).hooks.empty());  // nothing there: no hooks
  testing::write_file(file, "[[hooks.Stop]]\nhooks = [{ type = \"command\", command = \"./x\" }]\n");
  EXPECT_EQ(read_codex_toml_hooks(file).hooks.size(), 1u);
  testing::write_file(file, "x = \"" + std::string(max_config_file_size, 'a') + "\"\n");
  EXPECT_THAT([&] { (void)read_codex_toml_hooks(file); },
              ThrowsMessage<ConfigError>(HasSubstr("over the limit of 1048576 bytes")));
  for (const auto& kind : testing::no_regular_files()) {
    fs::remove_all(file);
    kind.put(file);
    EXPECT_THAT([&] { (void)read_codex_toml_hooks(file); },
                ThrowsMessage<ConfigError>(AllOf(StartsWith(file.string() + ": "),
                                                 AnyOf(HasSubstr(", not a regular file"),
                                                       HasSubstr("', which does not exist")))))
        << kind.what;
  }
}

}  // namespace
}  // namespace hookbus::detail
