// Claude Code's permission rules for a handler's `if`
// (lib/formats/claude_code/permission_rule.hpp, docs/claude-code-rules.md):
// a table per documented form, the rows from Claude Code's own tables where
// it has them; paths over real files and links.
#include "formats/claude_code/permission_rule.hpp"

#include "script_fixture.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hookbus::detail {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_file;

struct Call {
  std::string tool;
  boost::json::value input;
};

Call bash(const std::string& command) { return {"Bash", boost::json::object{{"command", command}}}; }
Call with_path(const std::string& tool, const std::string& field, const std::string& path) {
  return {tool, boost::json::object{{field, path}}};
}
Call read(const std::string& path) { return with_path("Read", "file_path", path); }
Call edit(const std::string& path) { return with_path("Edit", "file_path", path); }
Call fetch(const std::string& url) { return {"WebFetch", boost::json::object{{"url", url}}}; }

bool rule_matches(const std::string& rule, const Call& call, const RuleContext& context = {}) {
  return matches(parse_permission_rule(rule), call.tool, call.input, context);
}

struct BashRow {
  std::string rule;
  std::string command;
  bool runs;
};

void expect_bash_rows(const std::vector<BashRow>& rows) {
  for (const auto& row : rows)
    EXPECT_EQ(rule_matches(row.rule, bash(row.command)), row.runs) << row.rule << " on: " << row.command;
}

// ---------------------------------------------------------------- reading

TEST(PermissionRuleSyntax, EachFormReadsAsItsKind) {
  using Kind = PermissionRule::Kind;
  using Anchor = PermissionRule::Anchor;
  struct Row {
    std::string text;
    Kind kind;
    std::string tool;
    std::string pattern;
    std::string parameter = {};
  };
  const std::vector<Row> rows = {
      {"Bash", Kind::tool, "Bash", ""},
      {"  Bash(*)  ", Kind::tool, "Bash", ""},
      {"Bash(git push:*)", Kind::command, "Bash", "git push *"},
      {"Bash(git:* push)", Kind::command, "Bash", "git:* push"},
      {"Bash(npm run *)", Kind::command, "Bash", "npm run *"},
      {"Bash(echo $(date))", Kind::command, "Bash", "echo $(date)"},
      {"Bash(echo \")\")", Kind::command, "Bash", "echo \")\""},
      {"Bash(run_in_background:true)", Kind::parameter, "Bash", "true", "run_in_background"},
      {"Edit(src/**)", Kind::path, "Edit", "src/**"},
      {"Read(./.env)", Kind::path, "Read", ".env"},
      {"WebFetch(domain:Example.COM.)", Kind::domain, "WebFetch", "example.com"},
      {"mcp__github", Kind::tool, "mcp__github", ""},
      {"mcp__github__*", Kind::tool, "mcp__github__*", ""},
      {"mcp__github__create_issue", Kind::tool, "mcp__github__create_issue", ""},
      {"*", Kind::tool, "*", ""},
      {"Agent(Explore)", Kind::name, "Agent", "Explore"},
      {"Task(my-plugin:reviewer)", Kind::name, "Agent", "my-plugin:reviewer"},
      {"Agent( model : opus)", Kind::parameter, "Agent", "opus", "model"},
      {"Skill(commit)", Kind::name, "Skill", "commit"},
      {"Grep(pattern:TODO*)", Kind::parameter, "Grep", "TODO*", "pattern"},
  };
  for (const auto& row : rows) {
    const PermissionRule rule = parse_permission_rule(row.text);
    EXPECT_EQ(rule.kind, row.kind) << row.text;
    EXPECT_EQ(rule.tool, row.tool) << row.text;
    EXPECT_EQ(rule.pattern, row.pattern) << row.text;
    EXPECT_EQ(rule.parameter, row.parameter) << row.text;
  }
  struct PathRow {
    std::string text;
    Anchor anchor;
    std::string pattern;
    std::size_t parents;
    bool anchored;
  };
  const std::vector<PathRow> paths = {
      {"Read(//etc/passwd)", Anchor::filesystem_root, "etc/passwd", 0, true},
      {"Read(~/.zshrc)", Anchor::home, ".zshrc", 0, true},
      {"Read(~)", Anchor::home, "", 0, true},
      {"Edit(/src/**/*.ts)", Anchor::settings_root, "src/**/*.ts", 0, true},
      {"Read(./.env)", Anchor::working_directory, ".env", 0, true},
      {"Read(.env)", Anchor::working_directory, ".env", 0, false},
      {"Read(secrets/)", Anchor::working_directory, "secrets/", 0, false},
      {"Read(src/*.ts)", Anchor::working_directory, "src/*.ts", 0, true},
      {"Read(../../shared/**)", Anchor::working_directory, "shared/**", 2, true},
      {"Read(.)", Anchor::working_directory, "", 0, true},
      {"Read(..)", Anchor::working_directory, "", 1, true},
      {"Read(.//./x)", Anchor::working_directory, "x", 0, true},
  };
  for (const auto& row : paths) {
    const PermissionRule rule = parse_permission_rule(row.text);
    EXPECT_EQ(rule.kind, Kind::path) << row.text;
    EXPECT_EQ(rule.anchor, row.anchor) << row.text;
    EXPECT_EQ(rule.pattern, row.pattern) << row.text;
    EXPECT_EQ(rule.parents, row.parents) << row.text;
    EXPECT_EQ(rule.anchored, row.anchored) << row.text;
  }
}

TEST(PermissionRuleSyntax, ARuleHookbusCannotEvaluateIsAnErrorThatSaysWhatToWrite) {
  struct Row {
    std::string text;
    std::string message;
  };
  const std::vector<Row> rows = {
      {"", "the rule is empty; write a tool's name, as Bash, or Tool(specifier), as Bash(git push *)"},
      {"(rm *)", "the rule '(rm *)' names no tool; write Tool(specifier), as Bash(git push *)"},
      {"Bash(rm *", "the rule 'Bash(rm *' has no closing parenthesis at its end; write Tool(specifier)"},
      {"Bash()", "the rule 'Bash()' has empty parentheses; write Bash to match every call, or Bash(specifier)"},
      {"Bash(rm *) && Read(.env)",
       "the rule 'Bash(rm *) && Read(.env)' is not one rule: an if holds one rule, Tool or Tool(specifier), with no "
       "&&, || or list; write a handler for each rule"},
      {"Bash, Read", "the rule 'Bash, Read' is not one rule: an if holds one rule, Tool or Tool(specifier), with no "
                     "&&, || or list; write a handler for each rule"},
      {"Bash(command:rm *)",
       "the rule 'Bash(command:rm *)' names Bash's command, which Claude Code ignores in a rule (a compound command "
       "or another spelling would pass it by); write the tool's own form, as Bash(rm *)"},
      {"Read(file_path:/x)",
       "the rule 'Read(file_path:/x)' names Read's file_path, which Claude Code ignores in a rule (a compound "
       "command or another spelling would pass it by); write the tool's own form, as Read(./path)"},
      {"PowerShell(Remove-Item *)",
       "the rule 'PowerShell(Remove-Item *)' is a PowerShell command pattern, which hookbus cannot evaluate as "
       "Claude Code does (cmdlet aliases, case, PowerShell's grammar); leave the if out, so the handler sees every "
       "PowerShell call, or write PowerShell alone"},
      {"Write(docs/**)",
       "the rule 'Write(docs/**)' is a path rule of Write, which Claude Code never consults; write Edit(docs/**) "
       "instead"},
      {"Glob(src/**)",
       "the rule 'Glob(src/**)' is a path rule of Glob, which Claude Code never consults; write Read(src/**) "
       "instead"},
      {"mcp__github__create_issue(repo:x)",
       "the rule 'mcp__github__create_issue(repo:x)' gives an MCP tool a specifier, which Claude Code skips when it "
       "loads a settings file; write mcp__server, mcp__server__tool or mcp__server__*"},
      {"B*(ls)", "the rule 'B*(ls)' gives a glob of tool names a specifier; write the tool's name, as Bash(git push "
                 "*)"},
      {"Cd(~/code/*)",
       "the rule 'Cd(~/code/*)' is a rule of /cd, which the user runs and no tool call is: an if never sees it"},
      {"Read(!.env)",
       "the rule 'Read(!.env)' negates its pattern, which one rule cannot do (gitignore's `!` only re-includes what "
       "an earlier pattern excluded); write the path to match, with \\! for a name that starts with !"},
      {"Read(#notes)", "the rule 'Read(#notes)' starts its pattern with #, which gitignore reads as a comment; write "
                       "\\# for a name that starts with #"},
      {"Read(src/../.env)",
       "the rule 'Read(src/../.env)' has . or .. inside its path, which gitignore patterns do not resolve; write "
       "the path without them (../ may only lead it)"},
      {"Read(~bob/.ssh)",
       "the rule 'Read(~bob/.ssh)' names another user's home directory, which hookbus does not look up; write "
       "~/path for yours, or //path for an absolute path"},
      {"WebFetch(https://example.com)",
       "the rule 'WebFetch(https://example.com)' is no WebFetch rule: WebFetch rules name a domain, as "
       "WebFetch(domain:example.com) or WebFetch(domain:*.example.com)"},
      {"WebFetch(domain: )",
       "the rule 'WebFetch(domain: )' names no domain; write WebFetch(domain:example.com), or WebFetch alone"},
      {"Agent(model:)",
       "the rule 'Agent(model:)' gives the parameter model no value; write Agent(model:VALUE), `*` for any value"},
      {"LS(src)", "the rule 'LS(src)' gives LS a specifier hookbus does not know the meaning of: Claude Code "
                  "documents specifiers for Bash, Read, Edit, WebFetch, Agent and Skill, and parameter rules "
                  "Tool(parameter:value) for the others; write LS alone to match every call"},
      {"Ba\"sh", "the rule 'Ba\"sh' names no tool: a tool's name has letters, digits, _, - and ., or * and ? in a "
                 "glob of names"},
  };
  for (const auto& row : rows) {
    try {
      parse_permission_rule(row.text);
      ADD_FAILURE() << "read without an error: " << row.text;
    } catch (const PermissionRuleError& error) {
      EXPECT_EQ(error.what(), row.message);
    }
  }
}

// ---------------------------------------------------------------- Bash

TEST(PermissionRule, ABareToolNameMatchesEveryCallOfThatToolAndNoOther) {
  EXPECT_TRUE(rule_matches("Bash", bash("anything at all")));
  EXPECT_TRUE(rule_matches("Bash(*)", bash("anything at all")));
  EXPECT_FALSE(rule_matches("Bash", read("/x")));
  EXPECT_TRUE(rule_matches("WebFetch", fetch("https://example.com")));
  EXPECT_FALSE(rule_matches("Write", edit("/x")));
}

TEST(PermissionRule, BashWildcardsMatchAsClaudeCodesTableShows) {
  expect_bash_rows({
      {"Bash(npm run build)", "npm run build", true},
      {"Bash(npm run build)", "npm run build --watch", false},
      {"Bash(npm run *)", "npm run build", true},
      {"Bash(npm run *)", "npm run test --watch", true},
      {"Bash(npm run *)", "npm run", true},
      {"Bash(npm run *)", "npm install", false},
      {"Bash(git log * main)", "git log --oneline main", true},
      {"Bash(git log * main)", "git log -5 main", true},
      {"Bash(git log * main)", "git log --output=out.txt main", true},
      {"Bash(git log * main)", "git log main", false},
      {"Bash(git log * main)", "git push origin main", false},
      {"Bash(git * main)", "git merge main", true},
      {"Bash(git * main)", "git push origin main", true},
      {"Bash(git * main)", "git -c core.fsmonitor=x diff main", true},
      {"Bash(git * main)", "git log", false},
      {"Bash(* --version)", "node --version", true},
      {"Bash(* --version)", "bash -c 'echo hi' --version", true},
      {"Bash(* --version)", "node -v", false},
      {"Bash(ls *)", "ls -la", true},
      {"Bash(ls *)", "ls", true},
      {"Bash(ls *)", "lsof", false},
      {"Bash(ls*)", "ls -la", true},
      {"Bash(ls*)", "lsof", true},
      {"Bash(* --help *)", "npm --help x", true},
      {"Bash(* --help *)", "npm --help", false},
  });
}

TEST(PermissionRule, BashColonStarAtTheEndIsATrailingWildcardAndElsewhereText) {
  expect_bash_rows({
      {"Bash(ls:*)", "ls -la", true},
      {"Bash(ls:*)", "ls", true},
      {"Bash(ls:*)", "lsof", false},
      {"Bash(git push:*)", "git push origin main", true},
      {"Bash(git:* push)", "git push", false},
      {"Bash(git:* push)", "git:x push", true},
  });
}

TEST(PermissionRule, ABashRuleMatchesWhenAnySubcommandOfACompoundCommandDoes) {
  expect_bash_rows({
      {"Bash(git *)", "npm test && git push", true},
      {"Bash(git *)", "npm test || git push", true},
      {"Bash(git *)", "npm test; git push", true},
      {"Bash(git *)", "npm test | git apply", true},
      {"Bash(git *)", "npm test |& git apply", true},
      {"Bash(git *)", "npm test & git push", true},
      {"Bash(git *)", "npm test\ngit push", true},
      {"Bash(git *)", "(cd sub; git push)", true},
      {"Bash(git *)", "{ git push; }", true},
      {"Bash(git *)", "if true; then git push; fi", true},
      {"Bash(git *)", "while false; do git push; done", true},
      {"Bash(git *)", "for r in a b; do git push $r; done", true},
      {"Bash(git *)", "case x in x) git push ;; esac", true},
      {"Bash(safe-cmd *)", "safe-cmd && other-cmd", true},
      {"Bash(git *)", "npm test && npm run build", false},
  });
}

TEST(PermissionRule, ABashRuleLooksInsideSubstitutionsAndTheShellsACommandStarts) {
  expect_bash_rows({
      {"Bash(rm *)", "echo $(rm -rf /)", true},
      {"Bash(rm *)", "echo `rm -rf /`", true},
      {"Bash(rm *)", "echo \"$(rm -rf /)\"", true},
      {"Bash(rm *)", "diff <(rm -rf x) y", true},
      {"Bash(rm *)", "cat > $(rm -rf x)", true},
      {"Bash(rm *)", "bash -c 'cd x && rm -rf y'", true},
      {"Bash(rm *)", "sh -ec \"rm -rf y\"", true},
      {"Bash(rm *)", "eval rm -rf y", true},
      {"Bash(rm *)", "echo $(date)", false},
      {"Bash(rm *)", "bash script.sh", false},
  });
}

TEST(PermissionRule, ABashRuleLooksPastAssignmentsAndWrappers) {
  expect_bash_rows({
      {"Bash(git *)", "FOO=bar git push", true},
      {"Bash(rm *)", "FOO=bar BAZ=\"a b\" rm -rf tmp/", true},
      {"Bash(npm test *)", "timeout 30 npm test", true},
      {"Bash(npm test *)", "nice -n 5 nohup time npm test", true},
      {"Bash(npm test *)", "stdbuf -oL npm test", true},
      {"Bash(grep *)", "xargs grep pattern", true},
      {"Bash(grep *)", "xargs -n1 grep pattern", true},
      {"Bash(rm *)", "sudo -u root rm -rf /", true},
      {"Bash(rm *)", "env -i PATH=/bin rm -rf /", true},
      {"Bash(rm *)", "exec rm -rf /", true},
      {"Bash(rm *)", "find . -name '*.tmp' -exec rm {} +", true},
      {"Bash(rm *)", "command rm -rf /", true},
      {"Bash(rm *)", "command -v rm", false},
      {"Bash(rm *)", "echo rm -rf /", false},
  });
}

TEST(PermissionRule, QuotesEscapesAndThePathOfTheProgramDoNotHideIt) {
  expect_bash_rows({
      {"Bash(rm *)", "\"rm\" -rf /", true},
      {"Bash(rm *)", "r\\m -rf /", true},
      {"Bash(rm *)", "/bin/rm -rf /", true},
      {"Bash(git commit *)", "git commit -m \"fix: a b\"", true},
      {"Bash(git commit -m \"fix: a b\")", "git commit -m \"fix: a b\"", true},
      {"Bash(npm run build)", "npm  run   build", true},
  });
}

TEST(PermissionRule, TextThatRunsNothingIsNotMatched) {
  expect_bash_rows({
      {"Bash(rm *)", "git commit -m \"rm stuff\"", false},
      {"Bash(rm *)", "cat <<EOF\nrm -rf /\nEOF", false},
      {"Bash(rm *)", "ls # rm -rf /", false},
      {"Bash(rm *)", "echo hi > rm", false},
      {"Bash(rm *)", "A=rm", false},
      {"Bash(rm *)", "echo $HOME", false},
  });
}

TEST(PermissionRule, APatternNamingMoreThanAProgramMatchesAnyCommandWithExpansions) {
  expect_bash_rows({
      {"Bash(git push *)", "echo $(date)", true},
      {"Bash(git push *)", "echo `date`", true},
      {"Bash(git push *)", "echo $HOME", true},
      {"Bash(git push *)", "git status", false},
      {"Bash(git *)", "echo $HOME", false},
  });
}

TEST(PermissionRule, ABashRuleMatchesWhenHookbusCannotTellWhatTheCommandRuns) {
  expect_bash_rows({
      {"Bash(rm *)", "$CMD -rf /", true},
      {"Bash(rm *)", "$(which rm) -rf /", true},
      {"Bash(rm *)", "/bin/r? -rf /", true},
      {"Bash(rm *)", "sh -c \"$SCRIPT\"", true},
      {"Bash(rm *)", "eval \"$SCRIPT\"", true},
      {"Bash(rm *)", "echo " + std::string(10'001, 'a'), true},
  });
  // Beyond what hookbus follows: 17 nested evals, a wrapper before 300 words.
  std::string nested = "echo hi";
  for (int i = 0; i < 17; ++i) nested = "eval " + nested;
  std::string wrapped = "xargs";
  for (int i = 0; i < 300; ++i) wrapped += " a";
  expect_bash_rows({{"Bash(rm *)", nested, true}, {"Bash(rm *)", wrapped, true}});
  expect_bash_rows({{"Bash(rm *)", nested.substr(5 * 2), false}, {"Bash(rm *)", wrapped.substr(0, 5 + 2 * 200), false}});
  EXPECT_TRUE(rule_matches("Bash(rm *)", {"Bash", boost::json::object{}}));
  EXPECT_TRUE(rule_matches("Bash(rm *)", {"Bash", boost::json::object{{"command", 5}}}));
}

// ---------------------------------------------------------------- paths

// A project with .env files, src/ and vendor/pkg/src/, links, and a home.
class PathRules : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* file : {"project/.env", "project/sub/.env", "project/src/app.ts", "project/src/a.js",
                             "project/vendor/pkg/src/lib.js", "project/secrets/key", "project/a/secrets/key",
                             "project/data/b1.csv", "project/data/d1.csv", "project/notes/secrets", "shared/x",
                             "home/.zshrc", "home/.claude/rules.md", ".env"})
      write_file(dir_ / file, "x");
    fs::create_directory_symlink(dir_ / "project", dir_ / "link-to-project");
    fs::create_symlink("../.env", dir_ / "project/sub/innocent");
  }

  [[nodiscard]] RuleContext context(const std::string& working_directory = "project") const {
    return {dir_ / "project", dir_ / working_directory, dir_ / "home"};
  }
  [[nodiscard]] std::string at(const std::string& relative) const { return (dir_ / relative).string(); }

  bool reads(const std::string& rule, const std::string& file, const std::string& working_directory = "project") {
    return rule_matches(rule, read(at(file)), context(working_directory));
  }
  bool edits(const std::string& rule, const std::string& file, const std::string& working_directory = "project") {
    return rule_matches(rule, edit(at(file)), context(working_directory));
  }

  TempDir dir_;
};

TEST_F(PathRules, ADotSlashPathIsTheFileInTheWorkingDirectory) {
  EXPECT_TRUE(reads("Read(./.env)", "project/.env"));
  EXPECT_FALSE(reads("Read(./.env)", "project/sub/.env"));
  EXPECT_TRUE(reads("Read(./.env)", "project/sub/.env", "project/sub"));
  EXPECT_TRUE(reads("Read(.)", "project/sub/.env"));  // the working directory itself: everything in it
  EXPECT_FALSE(reads("Read(.)", "shared/x"));
}

TEST_F(PathRules, ABareFileNameMatchesAtAnyDepthBelowTheWorkingDirectoryOnly) {
  EXPECT_TRUE(reads("Read(.env)", "project/.env"));
  EXPECT_TRUE(reads("Read(.env)", "project/sub/.env"));
  EXPECT_TRUE(reads("Read(**/.env)", "project/sub/.env"));
  EXPECT_FALSE(reads("Read(.env)", ".env"));  // in a parent directory
  EXPECT_TRUE(reads("Read(*.ts)", "project/src/app.ts"));
  EXPECT_FALSE(reads("Read(*.ts)", "project/src/a.js"));
}

TEST_F(PathRules, ATildePathIsBelowHome) {
  EXPECT_TRUE(reads("Read(~/.zshrc)", "home/.zshrc"));
  EXPECT_FALSE(reads("Read(~/.zshrc)", "project/.env"));
  EXPECT_TRUE(reads("Read(~)", "home/.claude/rules.md"));
}

TEST_F(PathRules, ADoubleSlashPathIsAbsolute) {
  EXPECT_TRUE(reads("Read(/" + at("shared") + "/**)", "shared/x"));
  EXPECT_TRUE(reads("Read(//**/.env)", ".env"));
  EXPECT_FALSE(reads("Read(/" + at("shared") + "/**)", "project/.env"));
}

TEST_F(PathRules, ASlashPathIsBelowTheSettingsRootWhereverTheWorkingDirectoryIs) {
  EXPECT_TRUE(edits("Edit(/src/**)", "project/src/app.ts", "project/sub"));
  EXPECT_FALSE(edits("Edit(/src/**)", "project/vendor/pkg/src/lib.js"));
  EXPECT_FALSE(edits("Edit(" + at("project/src") + "/**)", "project/src/app.ts"));  // one slash: not absolute
}

TEST_F(PathRules, ASingleSegmentDirectoryPatternMatchesOnlyInTheWorkingDirectory) {
  EXPECT_TRUE(edits("Edit(src/**)", "project/src/app.ts"));
  EXPECT_FALSE(edits("Edit(src/**)", "project/vendor/pkg/src/lib.js"));
  EXPECT_TRUE(edits("Edit(**/src/**)", "project/src/app.ts"));
  EXPECT_TRUE(edits("Edit(**/src/**)", "project/vendor/pkg/src/lib.js"));
  EXPECT_TRUE(edits("Edit(src/*.ts)", "project/src/app.ts"));
  EXPECT_FALSE(edits("Edit(src/*.ts)", "project/src/a.js"));
}

TEST_F(PathRules, GlobsFollowGitignoreAndADirectoryTakesWhatIsInItAlong) {
  EXPECT_TRUE(reads("Read(./data/[a-c]*.csv)", "project/data/b1.csv"));
  EXPECT_FALSE(reads("Read(./data/[a-c]*.csv)", "project/data/d1.csv"));
  EXPECT_TRUE(reads("Read(./data/[!a-c]?.csv)", "project/data/d1.csv"));
  EXPECT_TRUE(reads("Read(secrets)", "project/a/secrets/key"));
  EXPECT_TRUE(reads("Read(secrets/)", "project/secrets/key"));
  EXPECT_FALSE(reads("Read(secrets/)", "project/notes/secrets"));  // a file, not a directory
  EXPECT_TRUE(reads("Read(../shared/**)", "shared/x"));
}

TEST_F(PathRules, EditRulesCoverEveryEditingToolAndReadRulesTheReaders) {
  const RuleContext here = context();
  EXPECT_TRUE(rule_matches("Edit(src/**)", with_path("Write", "file_path", at("project/src/new.ts")), here));
  EXPECT_TRUE(rule_matches("Edit(src/**)", with_path("MultiEdit", "file_path", at("project/src/app.ts")), here));
  EXPECT_TRUE(rule_matches("Edit(src/**)", with_path("NotebookEdit", "notebook_path", at("project/src/n.ipynb")),
                           here));
  EXPECT_TRUE(rule_matches("Edit", with_path("Write", "file_path", at("project/x")), here));
  EXPECT_FALSE(rule_matches("Edit(src/**)", read(at("project/src/app.ts")), here));
  EXPECT_FALSE(rule_matches("Read(./.env)", edit(at("project/.env")), here));
  EXPECT_TRUE(rule_matches("Read", with_path("Grep", "path", at("project")), here));
}

TEST_F(PathRules, ADotDotInTheInputIsResolvedBeforeMatching) {
  EXPECT_TRUE(reads("Read(./.env)", "project/sub/../.env"));
  EXPECT_TRUE(rule_matches("Read(./.env)", read("sub/../.env"), context()));  // relative to the working directory
  EXPECT_FALSE(reads("Read(./sub/**)", "project/sub/../.env"));
}

TEST_F(PathRules, ALinkIsMatchedByItsOwnPathAndByWhatItLeadsTo) {
  EXPECT_TRUE(reads("Read(./.env)", "project/sub/innocent"));  // a link to ../.env
  EXPECT_TRUE(reads("Read(./sub/**)", "project/sub/innocent"));
  EXPECT_TRUE(reads("Read(./.env)", "link-to-project/.env"));  // through a linked directory
  EXPECT_TRUE(reads("Read(./.env)", "project/.env", "link-to-project"));
}

TEST_F(PathRules, ASearchMatchesAReadRuleWhenItsDirectoryAndTheRuleOverlap) {
  const RuleContext here = context();
  const auto grep = [&](const std::string& path) { return with_path("Grep", "path", at(path)); };
  EXPECT_TRUE(rule_matches("Read(./.env)", grep("project"), here));
  EXPECT_FALSE(rule_matches("Read(./.env)", grep("project/src"), here));
  EXPECT_TRUE(rule_matches("Read(./secrets/**)", grep("project/secrets"), here));
  EXPECT_TRUE(rule_matches("Read(.env)", grep("project/sub"), here));
  EXPECT_TRUE(rule_matches("Read(./.env)", {"Glob", boost::json::object{{"pattern", "**/*"}}}, here));  // no path: cwd
  EXPECT_FALSE(rule_matches("Read(./.env)", with_path("Glob", "path", at("home")), here));
}

TEST_F(PathRules, WhatTheInputDoesNotSayMatches) {
  EXPECT_TRUE(rule_matches("Read(./.env)", {"Read", boost::json::object{}}, context()));
  EXPECT_TRUE(rule_matches("Read(./.env)", {"Read", boost::json::object{{"file_path", 1}}}, context()));
  EXPECT_TRUE(rule_matches("Read(~/.zshrc)", read(at("home/.zshrc")), {}));  // no home given
}

// ---------------------------------------------------------------- WebFetch

TEST(PermissionRule, AWebFetchDomainRuleMatchesTheHostOfTheUrl) {
  const std::vector<std::pair<std::string, bool>> urls = {
      {"https://example.com/page", true},
      {"https://EXAMPLE.com./page", true},
      {"https://user:pw@example.com:8080/", true},
      {"https://api.example.com/", false},
      {"https://example.com.evil.com/", false},
      {"https://evil.com/?u=example.com", false},
  };
  for (const auto& [url, runs] : urls)
    EXPECT_EQ(rule_matches("WebFetch(domain:example.com)", fetch(url)), runs) << url;
}

TEST(PermissionRule, WebFetchWildcardsMatchAnySubdomainOrTheTextOfOneLabel) {
  EXPECT_TRUE(rule_matches("WebFetch(domain:*.example.com)", fetch("https://api.example.com")));
  EXPECT_TRUE(rule_matches("WebFetch(domain:*.example.com)", fetch("https://a.b.example.com")));
  EXPECT_FALSE(rule_matches("WebFetch(domain:*.example.com)", fetch("https://example.com")));
  EXPECT_TRUE(rule_matches("WebFetch(domain:example.*)", fetch("https://example.org")));
  EXPECT_FALSE(rule_matches("WebFetch(domain:example.*)", fetch("https://example.evil.com")));
  EXPECT_TRUE(rule_matches("WebFetch(domain:*)", fetch("https://anything.test")));
}

TEST(PermissionRule, AUrlIsReadAsABrowserReadsIt) {
  EXPECT_TRUE(rule_matches("WebFetch(domain:evil.com)", fetch("http://evil.com\\@example.com/")));
  EXPECT_TRUE(rule_matches("WebFetch(domain:evil.com)", fetch("http://ev%69l.com/")));
  EXPECT_TRUE(rule_matches("WebFetch(domain:evil.com)", fetch("http://ev\nil.com/")));
  EXPECT_TRUE(rule_matches("WebFetch(domain:example.com)", fetch("http://\xd0\xb5xample.com/")));  // IDNA: cannot tell
  EXPECT_TRUE(rule_matches("WebFetch(domain:example.com)", fetch("not a url")));
  EXPECT_TRUE(rule_matches("WebFetch(domain:example.com)", {"WebFetch", boost::json::object{}}));
}

// ---------------------------------------------------------------- tools by name

TEST(PermissionRule, McpRulesMatchAServerEachOfItsToolsOrOneTool) {
  const boost::json::value input = boost::json::object{};
  EXPECT_TRUE(rule_matches("mcp__github", {"mcp__github__create_issue", input}));
  EXPECT_FALSE(rule_matches("mcp__github", {"mcp__github2__create_issue", input}));
  EXPECT_FALSE(rule_matches("mcp__github", {"mcp__gitlab__create_issue", input}));
  EXPECT_TRUE(rule_matches("mcp__github__*", {"mcp__github__create_issue", input}));
  EXPECT_TRUE(rule_matches("mcp__github__create_issue", {"mcp__github__create_issue", input}));
  EXPECT_FALSE(rule_matches("mcp__github__create_issue", {"mcp__github__delete_repo", input}));
  EXPECT_TRUE(rule_matches("mcp__plugin_tools_db", {"mcp__plugin_tools_db__query", input}));
}

TEST(PermissionRule, AToolNameGlobMatchesTheWholeName) {
  const boost::json::value input = boost::json::object{};
  EXPECT_TRUE(rule_matches("mcp__*", {"mcp__memory__save", input}));
  EXPECT_FALSE(rule_matches("mcp__*", {"Bash", input}));
  EXPECT_TRUE(rule_matches("*", {"Bash", input}));
  EXPECT_TRUE(rule_matches("mcp__github__get_*", {"mcp__github__get_issue", input}));
  EXPECT_FALSE(rule_matches("mcp__github__get_*", {"mcp__github__list_issues", input}));
}

TEST(PermissionRule, AgentAndSkillRulesMatchTheSubagentOrTheSkill) {
  EXPECT_TRUE(rule_matches("Agent(Explore)", {"Agent", boost::json::object{{"subagent_type", "Explore"}}}));
  EXPECT_TRUE(rule_matches("Agent(Explore)", {"Task", boost::json::object{{"subagent_type", "Explore"}}}));
  EXPECT_TRUE(rule_matches("Task(Explore)", {"Agent", boost::json::object{{"subagent_type", "Explore"}}}));
  EXPECT_FALSE(rule_matches("Agent(Explore)", {"Agent", boost::json::object{{"subagent_type", "Plan"}}}));
  EXPECT_TRUE(rule_matches("Agent(my-plugin:reviewer)",
                           {"Agent", boost::json::object{{"subagent_type", "my-plugin:reviewer"}}}));
  EXPECT_TRUE(rule_matches("Skill(commit)", {"Skill", boost::json::object{{"skill", "commit"}}}));
  EXPECT_FALSE(rule_matches("Skill(commit)", {"Skill", boost::json::object{{"skill", "deploy"}}}));
  EXPECT_TRUE(rule_matches("Agent(Explore)", {"Agent", boost::json::object{{"prompt", "x"}}}));  // cannot tell
}

TEST(PermissionRule, AParameterRuleMatchesOneTopLevelValueAndNeverAnOmittedOne) {
  const auto agent = [](boost::json::object input) { return Call{"Agent", std::move(input)}; };
  EXPECT_TRUE(rule_matches("Agent(model:opus)", agent({{"model", "opus"}})));
  EXPECT_FALSE(rule_matches("Agent(model:opus)", agent({{"model", "claude-opus-4-1"}})));
  EXPECT_FALSE(rule_matches("Agent(model:opus)", agent({{"prompt", "x"}})));
  EXPECT_TRUE(rule_matches("Agent(isolation:*)", agent({{"isolation", "worktree"}})));
  EXPECT_FALSE(rule_matches("Agent(isolation:*)", agent({})));
  EXPECT_FALSE(rule_matches("Agent(isolation:*)", agent({{"isolation", boost::json::object{}}})));
  EXPECT_TRUE(rule_matches("Bash(run_in_background:true)",
                           {"Bash", boost::json::object{{"command", "x"}, {"run_in_background", true}}}));
  EXPECT_FALSE(rule_matches("Bash(run_in_background:true)",
                            {"Bash", boost::json::object{{"command", "x"}, {"run_in_background", false}}}));
  EXPECT_TRUE(rule_matches("Bash(timeout:*)", {"Bash", boost::json::object{{"command", "x"}, {"timeout", 600}}}));
  EXPECT_TRUE(rule_matches("Grep(pattern:TODO*)", {"Grep", boost::json::object{{"pattern", "TODO: x"}}}));
}

}  // namespace
}  // namespace hookbus::detail
