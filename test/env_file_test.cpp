// The lines a Claude Code SessionStart hook appends to CLAUDE_ENV_FILE, read
// as bash evaluates them without running anything
// (lib/formats/claude_code/env_file.hpp, docs/claude-code-rules.md).
#include "formats/claude_code/env_file.hpp"

#include "script_fixture.hpp"
#include "support/text.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace hookbus::detail {
namespace {

using Variables = std::vector<EnvFileVariable>;
using Environment = std::map<std::string, std::string>;

const Environment kEnvironment = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/home/dev"}};

Variables variables_of(const std::string& text, const Environment& environment = kEnvironment) {
  const EnvFile file = parse_env_file(text, environment);
  EXPECT_TRUE(file.warnings.empty()) << text << "\nfirst warning: line " << file.warnings.front().line << ": "
                                     << file.warnings.front().message;
  return file.variables;
}

std::string value_of(const std::string& line) {
  const Variables found = variables_of(line);
  EXPECT_EQ(found.size(), 1u) << line;
  return found.empty() ? "" : found.front().value;
}

TEST(EnvFile, TheDocumentedExportLinesSetTheirVariables) {
  // Claude Code's hooks reference, "Persist environment variables".
  EXPECT_EQ(variables_of("export NODE_ENV=production\n"
                         "export DEBUG_LOG=true\n"
                         "export PATH=\"$PATH:./node_modules/.bin\"\n"),
            (Variables{{"NODE_ENV", "production"},
                       {"DEBUG_LOG", "true"},
                       {"PATH", "/usr/bin:/bin:./node_modules/.bin"}}));
}

TEST(EnvFile, QuotesAndEscapesAreReadAsBashReadsThem) {
  EXPECT_EQ(value_of("export A=\"b c\""), "b c");
  EXPECT_EQ(value_of("export A='b $c \"d\"'"), "b $c \"d\"");
  EXPECT_EQ(value_of("export A=b\\ c"), "b c");
  EXPECT_EQ(value_of(R"(export A="x\"y\$z\`w\\q\n")"), "x\"y$z`w\\q\\n");
  EXPECT_EQ(value_of(R"(export A=$'a\nb\t\x41')"), "a\nb\tA");
  EXPECT_EQ(value_of("export A=\"line 1\nline 2\""), "line 1\nline 2");
  EXPECT_EQ(value_of("export A="), "");
  EXPECT_EQ(value_of("export A=''"), "");
  EXPECT_EQ(value_of("export A=*.txt"), "*.txt");  // no pathname expansion in an assignment
}

TEST(EnvFile, WhatBashsExportPWritesReadsBackAsTheSameValues) {
  // The second form the docs suggest: the lines `export -p` prints (bash's
  // declare -x, with $'...' for control characters), diffed before and after.
  const std::vector<std::string> values = {"plain", "two words", "quote \" and ' and \\ and $HOME and `x`",
                                           "line 1\nline 2", "tab\tbell\x07", "caf\u00e9 \u65e5\u672c", ""};
  std::string command = "env -i";
  for (std::size_t i = 0; i < values.size(); ++i)
    command += " " + shell_quoted("V" + std::to_string(i) + "=" + values[i]);
  command += " bash -c 'export -p'";
  std::string printed;
  FILE* bash = ::popen(command.c_str(), "r");
  ASSERT_NE(bash, nullptr);
  char buffer[4096];
  for (std::size_t read; (read = std::fread(buffer, 1, sizeof buffer, bash)) > 0;) printed.append(buffer, read);
  ASSERT_EQ(::pclose(bash), 0);
  ASSERT_NE(printed.find("declare -x V0=\"plain\""), std::string::npos) << printed;

  const EnvFile file = parse_env_file(printed, {});
  EXPECT_TRUE(file.warnings.empty()) << file.warnings.front().message;
  std::map<std::string, std::string> read;
  for (const auto& [name, value] : file.variables) read[name] = value;
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(read["V" + std::to_string(i)], values[i]) << i;
}

TEST(EnvFile, ExportAndDeclareTakeSeveralNamesAndMarkSetOnesExported) {
  EXPECT_EQ(variables_of("C=3\n"
                         "export A=1 B=2 C\n"
                         "declare -x D=\"d\"\n"
                         "declare -rx E=e\n"
                         "typeset -x F=f\n"
                         "declare -x UNSET_ONE\n"
                         "export -- G=g\n"),
            (Variables{{"C", "3"}, {"A", "1"}, {"B", "2"}, {"D", "d"}, {"E", "e"}, {"F", "f"}, {"G", "g"}}));
}

TEST(EnvFile, AnAssignmentIsExportedWhenTheEnvironmentHasItOrAnExportNamesIt) {
  EXPECT_EQ(variables_of("PATH=/opt/bin:$PATH"), (Variables{{"PATH", "/opt/bin:/usr/bin:/bin"}}));
  EXPECT_EQ(variables_of("A=1\nexport A"), (Variables{{"A", "1"}}));
  EXPECT_EQ(variables_of("export A\nA=1"), (Variables{{"A", "1"}}));
  const EnvFile file = parse_env_file("B=1\n", kEnvironment);
  EXPECT_TRUE(file.variables.empty());
  EXPECT_EQ(file.warnings, (std::vector<EnvFileWarning>{
                               {1, "B is set but never exported, so the commands run later would not see it: write "
                                   "export B=..."}}));
}

TEST(EnvFile, VariablesExpandFromWhatTheFileSetThenFromTheEnvironment) {
  EXPECT_EQ(variables_of("export A=1\n"
                         "export B=\"$A-${A}-$HOME\"\n"
                         "export C=\"$NOT_SET\"\n"),
            (Variables{{"A", "1"}, {"B", "1-1-/home/dev"}, {"C", ""}}));
}

TEST(EnvFile, ExportExpandsAllItsArgumentsFirstAndAssignmentsOneAfterTheOther) {
  // As bash: `export A=1 B=$A` gives B the A from before; `A=1 B=$A` gives it 1.
  EXPECT_EQ(variables_of("export HOME=/elsewhere E=$HOME X=1 Y=$X\n"
                         "F=2 G=$F; export F G\n"),
            (Variables{{"HOME", "/elsewhere"}, {"E", "/home/dev"}, {"X", "1"}, {"Y", ""}, {"F", "2"}, {"G", "2"}}));
}

TEST(EnvFile, ATildeExpandsToHomeWhereBashExpandsItInAnAssignment) {
  EXPECT_EQ(value_of("export P=~/bin:~/.local/bin:~"), "/home/dev/bin:/home/dev/.local/bin:/home/dev");
  EXPECT_EQ(value_of("export P=\"~/bin\""), "~/bin");
  EXPECT_EQ(value_of("export P=a~b"), "a~b");
}

TEST(EnvFile, CommentsBlankLinesAndSemicolonsAreReadAsBashReadsThem) {
  EXPECT_EQ(variables_of("# set by the hook\n\n   \nexport A=1 # the first\nexport B=2; export C=3;\n#\n"),
            (Variables{{"A", "1"}, {"B", "2"}, {"C", "3"}}));
}

TEST(EnvFile, EachVariableComesOnceWithItsLastValueInTheOrderFirstSet) {
  EXPECT_EQ(variables_of("export B=1\nexport A=2\nexport B=3\n"), (Variables{{"B", "3"}, {"A", "2"}}));
}

TEST(EnvFile, ACommandSubstitutionIsNeverRunAndItsStatementIsSkipped) {
  testing::TempDir dir;
  const auto marker = dir / "ran";
  const EnvFile file = parse_env_file("export A=1 B=$(touch " + marker.string() + ")\nexport C=`touch " +
                                          marker.string() + "`\nexport D=4\n",
                                      kEnvironment);
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_EQ(file.variables, (Variables{{"D", "4"}}));  // A is not set either: the statement is skipped whole
  ASSERT_EQ(file.warnings.size(), 2u);
  EXPECT_EQ(file.warnings[0].line, 1u);
  EXPECT_EQ(file.warnings[0].message, "`export A=1 B=$(touch " + marker.string() + ")`: $(touch " + marker.string() +
                                          ") runs a command, which hookbus never does; the statement is skipped");
  EXPECT_EQ(file.warnings[1].line, 2u);
}

TEST(EnvFile, EachStatementItCannotReadIsAWarningNamingItsLine) {
  struct Row {
    std::string line;
    std::string message;
  };
  const std::vector<Row> rows = {
      {"echo hi", "`echo hi`: `echo` is a command, which hookbus never runs: it reads assignments only (export "
                  "NAME=value); the statement is skipped"},
      {"A=1 make", "`A=1 make`: `make` is a command, which hookbus never runs: it reads assignments only (export "
                   "NAME=value); the statement is skipped"},
      {"source ~/.nvm/nvm.sh", "`source ~/.nvm/nvm.sh`: `source` is a command, which hookbus never runs: it reads "
                               "assignments only (export NAME=value); the statement is skipped"},
      {"export A=1 && export B=2", "`export A=1 && export B=2`: `&&` makes it more than assignments, which is all "
                                   "hookbus reads (export NAME=value); the statement is skipped"},
      {"export A=1 >/dev/null", "`export A=1 >/dev/null`: `>` makes it more than assignments, which is all hookbus "
                                "reads (export NAME=value); the statement is skipped"},
      {"unset A", "`unset A`: unset is not applied: hookbus passes on variables the file sets, and removes none; the "
                  "statement is skipped"},
      {"export A=${B:-x}", "`export A=${B:-x}`: ${B:-x} is an expansion hookbus does not evaluate; write $NAME or "
                           "${NAME}; the statement is skipped"},
      {"export A=$1", "`export A=$1`: $1 is an expansion hookbus does not evaluate; write $NAME or ${NAME}; the "
                      "statement is skipped"},
      {"export A=$((1+2))", "`export A=$((1+2))`: $((1+2)): an arithmetic expansion: its value is known only when the "
                            "command runs; the statement is skipped"},
      {"export 1A=x", "`export 1A=x`: `1A=x` is not a variable's name; the statement is skipped"},
      {"export -n A", "`export -n A`: `-n` is not a variable's name; the statement is skipped"},
      {"declare -i N=1+1", "`declare -i N=1+1`: declare -i gives a variable more than a value to export, which "
                           "hookbus does not read; write export NAME=value; the statement is skipped"},
      {"export A=(1 2)", "`export A=(1 2)`: `(` makes it more than assignments, which is all hookbus reads (export "
                         "NAME=value); the statement is skipped"},
      {"export A=~bob/bin", "`export A=~bob/bin`: ~bob names a user's home directory, which hookbus does not look "
                            "up; write $HOME; the statement is skipped"},
  };
  for (const auto& row : rows) {
    const EnvFile file = parse_env_file("export BEFORE=1\n" + row.line + "\nexport AFTER=2\n", kEnvironment);
    EXPECT_EQ(file.warnings, (std::vector<EnvFileWarning>{{2, row.message}})) << row.line;
    EXPECT_EQ(file.variables.front(), (EnvFileVariable{"BEFORE", "1"})) << row.line;
  }
}

TEST(EnvFile, AWarningNamesTheLineItsStatementStartsOn) {
  const EnvFile file = parse_env_file("export A=\"one\ntwo\"\n\nexport B=$(x)\nexport C=3; echo hi\n", kEnvironment);
  ASSERT_EQ(file.warnings.size(), 2u);
  EXPECT_EQ(file.warnings[0].line, 4u);
  EXPECT_EQ(file.warnings[1].line, 5u);
  EXPECT_EQ(file.variables, (Variables{{"A", "one\ntwo"}, {"C", "3"}}));
}

TEST(EnvFile, AWarningQuotesAtMostTheStartOfALongStatement) {
  const EnvFile file = parse_env_file("export A=$(" + std::string(1000, 'x') + ")\n", kEnvironment);
  ASSERT_EQ(file.warnings.size(), 1u);
  EXPECT_LT(file.warnings[0].message.size(), 600u);
  EXPECT_EQ(file.warnings[0].message.substr(0, 15), "`export A=$(xxx");
}

TEST(EnvFile, AnUnterminatedQuoteSkipsTheRestOfTheFile) {
  const EnvFile file = parse_env_file("export A=1\nexport B=\"open\nexport C=3\n", kEnvironment);
  EXPECT_EQ(file.variables, (Variables{{"A", "1"}}));
  EXPECT_EQ(file.warnings, (std::vector<EnvFileWarning>{
                               {2, "`export B=\"open\nexport C=3\n`: B=\"open\nexport C=3\n: an unterminated quote, "
                                   "which /bin/sh refuses; the statement is skipped"}}));
}

TEST(EnvFile, AValueWithANulByteIsSkippedAndDollarQuotesEndAtOne) {
  const EnvFile file =
      parse_env_file(R"(export A=$'a\x00b')" "\nexport B=\"x" + std::string(1, '\0') + "y\"\n", kEnvironment);
  EXPECT_EQ(file.variables, (Variables{{"A", "a"}}));  // bash ends the string of $'...' at its NUL
  ASSERT_EQ(file.warnings.size(), 1u);
  EXPECT_EQ(file.warnings[0].line, 2u);
  EXPECT_TRUE(file.warnings[0].message.ends_with("the value holds a NUL byte, which no variable can; the statement is "
                                                 "skipped"));
}

}  // namespace
}  // namespace hookbus::detail
