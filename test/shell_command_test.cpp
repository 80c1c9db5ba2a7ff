// What a shell command runs, as /bin/sh will run it (lib/trust/shell_command.hpp):
// one row per construct, over a real project on disk, with links.
#include "script_fixture.hpp"

#include "support/utf8.hpp"
#include "trust/shell_command.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using detail::CommandFileRole;
using detail::ShellCommandFiles;
using ::testing::Contains;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing::write_file;
using testing::write_script;

using Role = CommandFileRole;

// The project every row runs in, built once: scripts at its top and below,
// a package, makefiles, a link to a directory, a plugin, and a home outside it.
class ShellCommandProject {
 public:
  ShellCommandProject() {
    write_script(project() / "hook.sh", "exit 0\n");
    write_script(project() / "tools" / "run.sh", "exit 0\n");
    write_file(project() / "tools" / "helper.py", "print('hi')\n");
    for (const char* script : {"x.js", "x.ts", "x.rb", "x.pl", "x.php", "x.lua"})
      write_file(project() / "tools" / script, "\n");
    write_script(project() / "sub" / "x.sh", "exit 0\n");
    write_script(project() / "sub" / "tools" / "run.sh", "exit 0\n");  // what `cd tools` finds through CDPATH=sub
    fs::create_directories(project() / "sub" / "deep");
    fs::create_directory_symlink("sub/deep", project() / "link");
    write_file(project() / "lib" / "common.sh", "helper() { :; }\n");
    write_file(project() / "env.sh", "cd sub\n");
    write_file(project() / "pkg" / "__init__.py", "");
    write_file(project() / "pkg" / "__main__.py", "");
    write_file(project() / "pkg" / "mod.py", "");
    write_file(project() / "single.py", "");
    write_file(project() / "Makefile", "all:\n\t./hook.sh\n");
    write_file(project() / "build" / "Makefile", "all:\n");
    write_file(project() / "build" / "rules.mk", "all:\n");
    write_script(project() / "plugin" / "scripts" / "p.sh", "exit 0\n");
    // '#!' lines the kernel follows: an interpreter named relative to the
    // working directory, and env splitting a command of its own.
    write_script(project() / "interp" / "run", "exec /bin/sh \"$@\"\n");
    write_file(project() / "scripts" / "relative.sh", "#!interp/run\nexit 0\n", 0755);
    write_file(project() / "scripts" / "split.sh", "#!/usr/bin/env -S node --require ./tools/x.js\n", 0755);
    write_script(home() / "bin" / "h.sh", "exit 0\n");
    write_script(home() / ".config" / "hookbus" / "hooks" / "block-rm-rf", "exit 0\n");
  }

  fs::path project() const { return root_.path() / "proj"; }
  fs::path home() const { return root_.path() / "home"; }
  const fs::path& root() const { return root_.path(); }

  ShellCommandFiles resolve(std::string_view command) const {
    return detail::resolve_shell_command(
        command, {.working_directory = project(),
                  .variables = {{"CLAUDE_PROJECT_DIR", project().string()},
                                {"CLAUDE_PLUGIN_ROOT", (project() / "plugin").string()},
                                {"HOME", home().string()},
                                {"PATH", "/usr/bin:/bin"}}});
  }

 private:
  testing::TempDir root_;
};

// One construct: the command, the files it must run or load (relative to the
// scratch root, with their role), and what it must report as not resolved.
struct Row {
  const char* name;
  const char* command;
  std::vector<std::pair<std::string, Role>> files;
  std::vector<std::string> unresolved;  // a part of each report's construct or why
};

std::ostream& operator<<(std::ostream& out, const Row& row) { return out << row.command; }

class ShellCommand : public ::testing::TestWithParam<Row> {
 protected:
  static void SetUpTestSuite() { project_ = new ShellCommandProject(); }
  static void TearDownTestSuite() {
    delete project_;
    project_ = nullptr;
  }
  static ShellCommandProject* project_;
};
ShellCommandProject* ShellCommand::project_ = nullptr;

std::string described(const ShellCommandFiles& found, const fs::path& root) {
  std::string text;
  for (const auto& file : found.files)
    text += fmt::format("  {} ({})\n", file.path.lexically_relative(root).string(), static_cast<int>(file.role));
  for (const auto& item : found.unresolved) text += fmt::format("  not resolved: {}: {}\n", item.construct, item.why);
  return text;
}

TEST_P(ShellCommand, RunsWhatShRunsAndReportsWhatItCannotResolve) {
  const Row& row = GetParam();
  const ShellCommandFiles found = project_->resolve(row.command);
  const std::string seen = described(found, project_->root());
  for (const auto& [relative, role] : row.files) {
    const fs::path path = project_->root() / relative;
    EXPECT_TRUE(std::any_of(found.files.begin(), found.files.end(),
                            [&](const auto& file) { return file.path == path && file.role == role; }))
        << relative << " as " << static_cast<int>(role) << " in:\n" << seen;
  }
  for (const auto& file : found.files) {
    if (file.role == Role::named || file.path.lexically_relative(project_->root()).string().starts_with("..")) continue;
    const std::string relative = file.path.lexically_relative(project_->root()).string();
    EXPECT_TRUE(std::any_of(row.files.begin(), row.files.end(), [&](const auto& expected) { return expected.first == relative; }))
        << "runs " << relative << ", which it should not:\n" << seen;
  }
  for (const auto& part : row.unresolved)
    EXPECT_TRUE(std::any_of(found.unresolved.begin(), found.unresolved.end(), [&](const auto& item) {
      return item.construct.find(part) != std::string::npos || item.why.find(part) != std::string::npos;
    })) << "no report of " << part << " in:\n" << seen;
  if (row.unresolved.empty()) {
    EXPECT_THAT(found.unresolved, IsEmpty()) << seen;
  }
}

const std::vector<Row> kResolved = {
    // Claude Code's variables, in every quoting form, and the working directory.
    {"ProjectDir", "$CLAUDE_PROJECT_DIR/hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"ProjectDirBraced", "${CLAUDE_PROJECT_DIR}/hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"ProjectDirQuoted", "\"$CLAUDE_PROJECT_DIR\"/hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"ProjectDirQuotedBraced", "\"${CLAUDE_PROJECT_DIR}/hook.sh\" --flag", {{"proj/hook.sh", Role::program}}, {}},
    {"ProjectDirWithDefault", "${CLAUDE_PROJECT_DIR:-.}/hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"Relative", "./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"Pwd", "$PWD/tools/run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    {"PwdQuoted", "\"$PWD/tools/run.sh\"", {{"proj/tools/run.sh", Role::program}}, {}},
    {"Tilde", "~/bin/h.sh", {{"home/bin/h.sh", Role::program}}, {}},
    {"Home", "$HOME/bin/h.sh", {{"home/bin/h.sh", Role::program}}, {}},
    {"PluginRootUp", "${CLAUDE_PLUGIN_ROOT}/../hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"PluginRoot", "\"$CLAUDE_PLUGIN_ROOT/scripts/p.sh\"", {{"proj/plugin/scripts/p.sh", Role::program}}, {}},
    // Quotes and backslashes are removed as sh removes them.
    {"BackslashEscapes", ".\\/ho\\ok.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"QuotesInsideAWord", "./ho\"ok\".'sh'", {{"proj/hook.sh", Role::program}}, {}},
    {"EscapedDollarIsNoVariable", "\\$CLAUDE_PROJECT_DIR/hook.sh; ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"LineContinued", "./ho\\\nok.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"Comment", "./hook.sh # ./tools/run.sh", {{"proj/hook.sh", Role::program}}, {}},
    // Links: a `..` after a link is the target's parent; cd's `..` is taken off as written.
    {"DotDotAfterALink", "$CLAUDE_PROJECT_DIR/link/../x.sh", {{"proj/sub/x.sh", Role::program}}, {}},
    {"CdDotDotIsLogical", "cd link/.. && ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"CdPhysicalDotDot", "cd -P link/.. && ./x.sh", {{"proj/sub/x.sh", Role::program}}, {}},
    // cd, lists and compound commands.
    {"CdAnd", "cd tools && ./run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    {"CdProjectDirSemicolon", "cd \"$CLAUDE_PROJECT_DIR/tools\"; ./run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    {"CdOrExit", "cd tools || exit 1; ./run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    {"CdInASubshellStaysThere", "(cd tools && ./run.sh); ./hook.sh",
     {{"proj/tools/run.sh", Role::program}, {"proj/hook.sh", Role::program}}, {}},
    {"CdInAGroupGoesOn", "{ cd tools; }; ./run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    {"CdThatFailsStaysWhereItWas", "cd missing; ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"CdAfterAnotherCommandMayNotHappen", "true && cd tools; ./run.sh; ./hook.sh",
     {{"proj/tools/run.sh", Role::program}, {"proj/hook.sh", Role::program}}, {}},
    {"CdInBackgroundStaysThere", "cd tools & ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"IfThenFi", "if [ -f x ]; then ./hook.sh; else cd tools && ./run.sh; fi",
     {{"proj/hook.sh", Role::program}, {"proj/tools/run.sh", Role::program}}, {}},
    {"WhileLoopsBodyRunsAgainWhereItLeftOff", "while true; do ./run.sh; cd tools; done", {{"proj/tools/run.sh", Role::program}}, {}},
    {"ForLoopOverLiterals", "for i in 1 2; do ./hook.sh; done", {{"proj/hook.sh", Role::program}}, {}},
    {"Case", "case x in a|b) ./hook.sh ;; *) cd tools && ./run.sh ;; esac",
     {{"proj/hook.sh", Role::program}, {"proj/tools/run.sh", Role::program}}, {}},
    {"Function", "f() { ./hook.sh; }; f", {{"proj/hook.sh", Role::program}}, {}},
    {"Pipeline", "cat | ./hook.sh | cat", {{"proj/hook.sh", Role::program}}, {}},
    {"NegatedAndOr", "! ./hook.sh || ./tools/run.sh", {{"proj/hook.sh", Role::program}, {"proj/tools/run.sh", Role::program}}, {}},
    {"Newlines", "cd tools\n./run.sh\n", {{"proj/tools/run.sh", Role::program}}, {}},
    // sh -c, recursively.
    {"ShDashC", "sh -c './hook.sh'", {{"proj/hook.sh", Role::program}}, {}},
    {"BashDashCWithCd", "bash -c \"cd tools && ./run.sh\"", {{"proj/tools/run.sh", Role::program}}, {}},
    {"ShDashCExpandsInside", "sh -c '$CLAUDE_PROJECT_DIR/hook.sh'", {{"proj/hook.sh", Role::program}}, {}},
    {"ShDashCArguments", "sh -c '\"$1\"' sh ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"DashEcCombined", "dash -ec './hook.sh'", {{"proj/hook.sh", Role::program}}, {}},
    {"ZshDashCNested", "zsh -c \"sh -c ./hook.sh\"", {{"proj/hook.sh", Role::program}}, {}},
    // Prefixes and assignments.
    {"Exec", "exec ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"Env", "env FOO=1 ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"EnvChdir", "env -C tools ./run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    {"Nice", "nice -n 5 ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"Nohup", "nohup ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"Time", "time -p ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"Timeout", "timeout -s KILL 5s ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"Command", "command ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"CommandDashVRunsNothing", "command -v ./hook.sh", {}, {}},
    {"Builtin", "builtin cd tools && ./run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    {"Xargs", "echo a | xargs -n 1 ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"Assignment", "A=b ./hook.sh", {{"proj/hook.sh", Role::program}}, {}},
    {"VariableSetEarlier", "D=tools; ./$D/run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    {"ExportedIntoShDashC", "export D=tools; sh -c './$D/run.sh'", {{"proj/tools/run.sh", Role::program}}, {}},
    {"PathTheCommandSets", "PATH=\"$CLAUDE_PROJECT_DIR/tools:$PATH\" run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    // Interpreters and their script.
    {"Bash", "bash tools/run.sh", {{"proj/tools/run.sh", Role::script}}, {}},
    {"ShWithOptions", "sh -e -o pipefail tools/run.sh", {{"proj/tools/run.sh", Role::script}}, {}},
    {"Python", "python3 -u tools/helper.py arg", {{"proj/tools/helper.py", Role::script}}, {}},
    {"PythonVersioned", "/usr/bin/python3.11 -X dev tools/helper.py", {{"proj/tools/helper.py", Role::script}}, {}},
    {"PythonFromInput", "python3 < tools/helper.py", {{"proj/tools/helper.py", Role::script}}, {}},
    {"Node", "node --no-warnings tools/x.js", {{"proj/tools/x.js", Role::script}}, {}},
    {"NodeRequireAPath", "node -r ./tools/x.js tools/x.ts",
     {{"proj/tools/x.js", Role::script}, {"proj/tools/x.ts", Role::script}}, {}},
    {"Deno", "deno run -A tools/x.ts", {{"proj/tools/x.ts", Role::script}}, {}},
    {"Bun", "bun tools/x.ts", {{"proj/tools/x.ts", Role::script}}, {}},
    {"Ruby", "ruby -w tools/x.rb", {{"proj/tools/x.rb", Role::script}}, {}},
    {"Perl", "perl -w tools/x.pl", {{"proj/tools/x.pl", Role::script}}, {}},
    {"Php", "php -f tools/x.php", {{"proj/tools/x.php", Role::script}}, {}},
    {"Lua", "lua tools/x.lua", {{"proj/tools/x.lua", Role::script}}, {}},
    {"Tsx", "tsx tools/x.ts", {{"proj/tools/x.ts", Role::script}}, {}},
    {"TsNode", "ts-node -P tsconfig.json tools/x.ts", {{"proj/tools/x.ts", Role::script}}, {}},
    {"UvRunWithoutTheProject", "uv run --no-project tools/helper.py", {{"proj/tools/helper.py", Role::script}}, {}},
    {"Source", "source lib/common.sh && helper", {{"proj/lib/common.sh", Role::script}}, {}},
    {"Dot", ". ./lib/common.sh", {{"proj/lib/common.sh", Role::script}}, {}},
    {"SourceLooksInPath", "PATH=./lib:$PATH; . common.sh", {{"proj/lib/common.sh", Role::script}}, {}},
    {"SourcedFileThatChangesDirectory", ". ./env.sh && ./x.sh",
     {{"proj/env.sh", Role::script}, {"proj/sub/x.sh", Role::program}}, {}},
    {"PythonModuleFile", "python3 -m single", {{"proj/single.py", Role::module}}, {}},
    {"PythonPackage", "python3 -m pkg", {{"proj/pkg/__main__.py", Role::module}}, {}},
    {"PythonPackageModule", "cd \"$CLAUDE_PROJECT_DIR\" && python3 -m pkg.mod", {{"proj/pkg/mod.py", Role::module}}, {}},
    {"PythonIsolatedModuleIsNotTheProjects", "python3 -I -m pkg", {}, {}},
    // Named files are covered, but are not what runs.
    {"NamedOnly", "[ -x ~/.config/hookbus/hooks/block-rm-rf ] || echo tip", {{"home/.config/hookbus/hooks/block-rm-rf", Role::named}}, {}},
    {"NamedArgument", "cat tools/helper.py", {{"proj/tools/helper.py", Role::named}}, {}},
    {"SpecialParametersNeverNameFiles", "./hook.sh; exit $?", {{"proj/hook.sh", Role::program}}, {}},
    {"OutputRedirectionsDecideNothing", "./hook.sh > \"$LOG\" 2>&1", {{"proj/hook.sh", Role::program}}, {}},
    {"CdLooksInCdpathFirst", "CDPATH=sub cd tools && ./run.sh", {{"proj/sub/tools/run.sh", Role::program}}, {}},
    {"AnEmptyCdpathEntryIsTheWorkingDirectory", "CDPATH=:sub; cd tools && ./run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    {"CdToADotPathLeavesCdpathAside", "CDPATH=sub cd ./tools && ./run.sh", {{"proj/tools/run.sh", Role::program}}, {}},
    // The kernel runs a '#!' line's interpreter with the script: one named by
    // a relative path is found from the working directory, and runs too.
    {"ARelativeInterpreterOfAScriptIsFoundFromTheWorkingDirectory", "./scripts/relative.sh",
     {{"proj/scripts/relative.sh", Role::program}, {"proj/interp/run", Role::program}}, {}},
    {"ARelativeInterpreterIsNotBesideTheScript", "cd scripts && ./relative.sh", {{"proj/scripts/relative.sh", Role::program}}, {}},
};

const std::vector<Row> kReported = {
    {"AnotherVariable", "$TOOLS/run.sh", {}, {"$TOOLS"}},
    {"AnotherVariableQuoted", "\"${TOOLS}/run.sh\"", {}, {"${TOOLS}"}},
    {"CommandSubstitution", "\"$(./tools/run.sh)\"/x.sh", {{"proj/tools/run.sh", Role::program}}, {"$(./tools/run.sh)"}},
    {"Backticks", "`cat .target`/run.sh", {}, {"`cat .target`"}},
    {"ArithmeticExpansion", "./hook.sh $((1 + 2))", {{"proj/hook.sh", Role::program}}, {"$((1 + 2))"}},
    {"Eval", "eval ./hook.sh", {}, {"eval"}},
    {"GlobStar", "./tools/*.sh", {}, {"glob"}},
    {"GlobQuestionMark", "./tools/run.s?", {}, {"glob"}},
    {"GlobBrackets", "./tools/[r]un.sh", {}, {"glob"}},
    {"GlobAsAScript", "bash tools/*.sh", {}, {"glob"}},
    {"ForLoopVariable", "for f in tools/*; do \"$f\"; done", {}, {"glob", "$f"}},
    {"NodeInline", "node -e \"require('./tools/x')\"", {}, {"inline code"}},
    {"PythonInline", "python3 -c 'import pkg'", {}, {"inline code"}},
    {"PerlInline", "perl -e 'do \"x.pl\"'", {}, {"inline code"}},
    {"RubyInline", "ruby -e 'load \"x.rb\"'", {}, {"inline code"}},
    {"DenoEval", "deno eval 'import \"./x.ts\"'", {}, {"inline code"}},
    {"ShDashCUnknown", "sh -c \"$SCRIPT\"", {}, {"$SCRIPT"}},
    {"Npx", "npx prettier --write .", {}, {"package.json"}},
    {"NpmRun", "npm run lint", {}, {"package.json"}},
    {"Yarn", "yarn test", {}, {"package.json"}},
    {"Pnpm", "pnpm exec eslint", {}, {"package.json"}},
    {"BunPackageScript", "bun run lint", {}, {"package.json"}},
    {"HereDocument", "sh <<EOF\n./tools/run.sh\nEOF\n./hook.sh", {{"proj/hook.sh", Role::program}}, {"here-document"}},
    {"HereString", "bash <<< './tools/run.sh'", {}, {"here-string"}},
    {"PipedCode", "cat tools/run.sh | sh", {{"proj/tools/run.sh", Role::named}}, {"pipe"}},
    {"CdToAnUnknownDirectory", "cd \"$DIR\" && ./run.sh", {}, {"$DIR", "relative to a working directory"}},
    {"AnotherUsersHome", "~root/x.sh", {}, {"another user's home"}},
    {"LoaderVariable", "LD_PRELOAD=./evil.so ./hook.sh", {{"proj/hook.sh", Role::program}}, {"LD_PRELOAD"}},
    {"PythonPath", "PYTHONPATH=lib python3 tools/helper.py", {{"proj/tools/helper.py", Role::script}}, {"PYTHONPATH"}},
    {"ProcessSubstitution", "bash <(cat tools/run.sh)", {}, {"process substitution"}},
    {"PerProcessPath", "/proc/self/cwd/hook.sh", {}, {"per-process"}},
    {"Make", "make", {{"proj/Makefile", Role::makefile}}, {"makefile's rules"}},
    {"MakeDirectory", "make -C build", {{"proj/build/Makefile", Role::makefile}}, {"makefile's rules"}},
    {"MakeDirectoryAndFile", "make -C build -f rules.mk all", {{"proj/build/rules.mk", Role::makefile}}, {"makefile's rules"}},
    {"UvRunSyncsTheProject", "uv run tools/helper.py", {{"proj/tools/helper.py", Role::script}}, {"pyproject.toml"}},
    {"UnterminatedQuote", "./hook.sh 'oops", {{"proj/hook.sh", Role::program}}, {"unterminated"}},
    {"Alias", "alias ls=./hook.sh; ls", {}, {"alias"}},
    {"DollarSingleQuote", "$'./hook.sh'", {}, {"$'"}},
    {"FieldSeparators", "IFS=_; X=./hook.sh_x; $X", {}, {"IFS"}},
    {"ACdpathNotKnown", "CDPATH=\"$DIRS\" cd tools && ./run.sh", {}, {"CDPATH"}},
    {"AnInterpreterLineSplitByEnv", "\"$CLAUDE_PROJECT_DIR\"/scripts/split.sh", {{"proj/scripts/split.sh", Role::program}},
     {"env -S"}},
};

std::string row_name(const ::testing::TestParamInfo<Row>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Resolved, ShellCommand, ::testing::ValuesIn(kResolved), row_name);
INSTANTIATE_TEST_SUITE_P(Reported, ShellCommand, ::testing::ValuesIn(kReported), row_name);

// ------------------------------------------------------------ beyond one row

class ShellCommandPaths : public ::testing::Test {
 protected:
  ShellCommandProject project_;
};

// A link is the file the command names: repointed, it is another file; its target is what opens.
TEST_F(ShellCommandPaths, ALinkKeepsItsOwnPathBesideItsTarget) {
  fs::create_symlink("../tools/run.sh", project_.project() / "sub" / "l.sh");
  const ShellCommandFiles found = project_.resolve("./sub/l.sh");
  ASSERT_EQ(found.files.size(), 1u);
  EXPECT_EQ(found.files[0].path, project_.project() / "sub" / "l.sh");
  EXPECT_EQ(found.files[0].resolved, project_.project() / "tools" / "run.sh");
  EXPECT_THAT(found.directories, Contains(project_.project() / "sub"));
  EXPECT_THAT(found.directories, Contains(project_.project() / "tools"));
}

// Helpers of a script lie beside it: its directory is where the fingerprint looks.
TEST_F(ShellCommandPaths, WhatRunsGivesTheDirectoriesOfItsHelpers) {
  EXPECT_THAT(project_.resolve("python3 tools/helper.py").directories, Contains(project_.project() / "tools"));
  EXPECT_THAT(project_.resolve("python3 -m pkg.mod").directories, Contains(project_.project() / "pkg"));
  EXPECT_THAT(project_.resolve("make -C build").directories, Contains(project_.project() / "build"));
  EXPECT_THAT(project_.resolve("cat tools/helper.py").directories, IsEmpty()) << "a named file brings no directory";
}

// A hostile command stays bounded: deep nesting and many ways through are reported, not followed forever.
TEST_F(ShellCommandPaths, DeepNestingIsReportedNotFollowed) {
  std::string substitutions;
  for (int i = 0; i < 40; ++i) substitutions += "$(";
  substitutions += "./hook.sh" + std::string(40, ')');
  EXPECT_THAT(project_.resolve(substitutions).unresolved,
              Contains(::testing::Field(&detail::UnresolvedConstruct::why, HasSubstr("nested too deeply"))));
  std::string parens(10000, '(');
  EXPECT_THAT(project_.resolve(parens + "./hook.sh").unresolved,
              Contains(::testing::Field(&detail::UnresolvedConstruct::why, HasSubstr("nested too deeply"))));
}

// A file that sources itself twice would be resolved 2^32 times; loops in loops likewise.
TEST_F(ShellCommandPaths, WhatACommandMakesToResolveIsBounded) {
  write_file(project_.project() / "twice.sh", ". ./twice.sh; . ./twice.sh\n");
  EXPECT_THAT(project_.resolve(". ./twice.sh").unresolved,
              Contains(::testing::Field(&detail::UnresolvedConstruct::why, HasSubstr("commands to resolve"))));
  std::string loops;
  for (int i = 0; i < 30; ++i) loops += "while true; do ";
  loops += "./hook.sh";
  for (int i = 0; i < 30; ++i) loops += "; done";
  EXPECT_THAT(project_.resolve(loops).unresolved,
              Contains(::testing::Field(&detail::UnresolvedConstruct::why, HasSubstr("commands to resolve"))));
}

// A command is any bytes; hookctl shows what is unresolved, and writes it to JSON.
TEST_F(ShellCommandPaths, WhatIsReportedUnresolvedIsValidUtf8AndCutAtACharacter) {
  std::string long_substitution = "$(x";
  for (int i = 0; i < 150; ++i) long_substitution += "\u00e9";
  long_substitution += ")";
  const ShellCommandFiles found = project_.resolve("./hook.sh $\xff `\xfe` $(\xe2\x82; " + long_substitution);
  ASSERT_THAT(found.unresolved, SizeIs(2u));
  EXPECT_THAT(found.unresolved, Contains(::testing::Field(&detail::UnresolvedConstruct::construct, EndsWith("..."))));
  for (const detail::UnresolvedConstruct& item : found.unresolved) {
    EXPECT_TRUE(detail::is_valid_utf8(item.construct)) << item.construct;
    EXPECT_TRUE(detail::is_valid_utf8(item.why)) << item.why;
  }
}

TEST_F(ShellCommandPaths, ManyWaysThroughACommandAreBounded) {
  std::string command;
  for (int i = 0; i < 20; ++i) command += "true && A" + std::to_string(i) + "=1; ";
  command += "./hook.sh";
  const ShellCommandFiles found = project_.resolve(command);
  EXPECT_THAT(found.unresolved,
              Contains(::testing::Field(&detail::UnresolvedConstruct::why, HasSubstr("more ways through the command"))));
}

}  // namespace
}  // namespace hookbus
