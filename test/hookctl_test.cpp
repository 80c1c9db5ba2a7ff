// hookctl, run as a user runs it: the built binary (HOOKCTL_PATH) through
// /bin/sh, its stdout, stderr and exit code. The command framework (help,
// options, exit codes, checked output, completion) and the catalogue commands.

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/version.hpp>

#include <boost/json/value.hpp>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace hookbus {
namespace {

using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

struct Output {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `hookctl <arguments>` through the shell: arguments are shell words, so
// a test may quote, redirect or close descriptors (`>/dev/full`, `>&-`).
// `stdout_redirect` replaces the capture of stdout.
Output shell(const std::string& command_line, std::string_view stdout_redirect = "") {
  const auto dir = std::filesystem::path(::testing::TempDir()) / fmt::format("hookctl_test.{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto out = dir / "out", err = dir / "err";
  const std::string command =
      fmt::format("{} {} 2>'{}'", command_line,
                  stdout_redirect.empty() ? fmt::format(">'{}'", out.string()) : std::string(stdout_redirect), err.string());
  const int status = std::system(command.c_str());
  Output run{.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1, .out = read_file(out), .err = read_file(err)};
  std::filesystem::remove_all(dir);
  return run;
}

Output hookctl(std::string_view arguments, std::string_view stdout_redirect = "") {
  return shell(fmt::format("'{}' {}", HOOKCTL_PATH, arguments), stdout_redirect);
}

boost::json::value parse_output(const Output& run) { return parse_json(run.out, "hookctl output"); }

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> all;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) all.push_back(line);
  return all;
}

// Every command `help` lists, as completion offers them.
std::vector<std::string> command_names() { return lines(hookctl("__complete -- ''").out); }

// ------------------------------------------------------------------ events

TEST(HookctlEvents, ListsEveryEventWithItsReductionAndResult) {
  const Output run = hookctl("events");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (std::string_view name : event_names()) EXPECT_THAT(run.out, HasSubstr(fmt::format("\n{} (", name)));
  EXPECT_THAT(run.out, HasSubstr("\ntool_call (block → ToolCallResult)\n"));
  EXPECT_THAT(run.out, HasSubstr("\nturn_start (observe)\n"));
  EXPECT_THAT(run.out, HasSubstr("\ntool_result (patch → ToolResultResult, closing)\n"));
}

TEST(HookctlEvents, ListsFieldsWithTheirCppTypes) {
  const Output run = hookctl("events");
  EXPECT_THAT(run.out, ContainsRegex("event +context +EventContext\n"));
  EXPECT_THAT(run.out, ContainsRegex("  +input +boost::json::object\n"));
  EXPECT_THAT(run.out, ContainsRegex("result +decision +Decision \\(none \\| allow \\| ask \\| defer \\| deny\\)\n"));
  EXPECT_THAT(run.out, ContainsRegex("  +timestamp +Timestamp\n"));
}

TEST(HookctlEvents, JsonHasEveryEventWithFields) {
  const Output run = hookctl("events --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const boost::json::value listing = parse_output(run);
  const auto& events = listing.at("events").as_array();
  ASSERT_EQ(events.size(), event_count);
  const auto& tool_call = events[event_index<ToolCallEvent>].as_object();
  EXPECT_EQ(tool_call.at("name"), "tool_call");
  EXPECT_EQ(tool_call.at("reduction"), "block");
  EXPECT_EQ(tool_call.at("result"), "ToolCallResult");
  EXPECT_EQ(tool_call.at("fields").at(3), (boost::json::object{{"name", "input"}, {"type", "boost::json::object"}}));
  EXPECT_EQ(tool_call.at("result_fields").at(0),
            (boost::json::object{{"name", "decision"}, {"type", "Decision"}, {"values", {"none", "allow", "ask", "defer", "deny"}}}));
  EXPECT_THAT(tool_call.at("aliases").as_array(), ::testing::Contains("before_tool_call"));
}

TEST(HookctlEvents, EnumFieldsShowTheirWireValues) {
  EXPECT_THAT(hookctl("events").out, HasSubstr("InputAction (continue | transform | handled | reject)\n"));
  const boost::json::value listing = parse_output(hookctl("events --json"));
  const auto& input = listing.at("events").at(event_index<InputEvent>);
  EXPECT_EQ(input.at("result_fields").at(0).at("values"), (boost::json::array{"continue", "transform", "handled", "reject"}));
}

// ------------------------------------------------------------------ schema

TEST(HookctlSchema, PrintsAnEventAndItsResultThatReadBack) {
  const Output run = hookctl("schema tool_call");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const boost::json::value schema = parse_output(run);
  EXPECT_TRUE(std::holds_alternative<ToolCallEvent>(event_from_json(schema.at("event"))));
  EXPECT_TRUE(std::holds_alternative<ToolCallResult>(outcome_from_json(event_index<ToolCallEvent>, schema.at("result"))));
}

TEST(HookctlSchema, ExamplePopulatesEveryField) {
  const boost::json::value schema = parse_output(hookctl("schema after_model_call"));
  for (std::string_view field : {"type", "context", "model", "response", "error"})
    EXPECT_TRUE(schema.at("event").as_object().contains(field)) << field;
}

TEST(HookctlSchema, AcceptsAnAlias) {
  const Output run = hookctl("schema before_tool_call");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(parse_output(run).at("event").at("type"), "tool_call");
}

TEST(HookctlSchema, ObserveOnlyEventHasANullResult) {
  EXPECT_TRUE(parse_output(hookctl("schema turn_start")).at("result").is_null());
}

TEST(HookctlSchema, ExampleOfEveryEventReadsBack) {
  for (std::size_t i = 0; i < event_count; ++i) {
    const boost::json::value schema = parse_output(hookctl(fmt::format("schema '{}'", event_name(i))));
    EXPECT_EQ(event_from_json(schema.at("event")).index(), i) << event_name(i);
    EXPECT_NO_THROW(outcome_from_json(i, schema.at("result"))) << event_name(i);
  }
}

TEST(HookctlSchema, JsonOptionPrintsTheSameJson) {
  const Output run = hookctl("schema tool_call --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, hookctl("schema tool_call").out);
}

// ------------------------------------------------------------------ help

TEST(HookctlHelp, HelpPrintsTheCommandsToStdout) {
  const Output run = hookctl("help");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, StartsWith("usage: hookctl [OPTIONS] COMMAND [ARGUMENTS] [OPTIONS]\n"));
  EXPECT_THAT(run.out, ContainsRegex("\n  events +list every event"));
  EXPECT_THAT(run.out, ContainsRegex("\n  schema NAME +print an example"));
  EXPECT_THAT(run.out, ContainsRegex("\n  run-hook PATH NAME \\[JSON\\] +run one hook file"));
}

TEST(HookctlHelp, OverviewDocumentsTheExitCodes) {
  const Output run = hookctl("--help");
  EXPECT_THAT(run.out, AllOf(HasSubstr("exit codes:\n  0  done"), HasSubstr("\n  1  a hook refused the event"),
                             HasSubstr("\n  2  usage or input error"), HasSubstr("\n  3  config error"),
                             HasSubstr("\n  4  failure")));
}

// Runs of blanks as one space, none at either end; without Markdown's backticks.
std::string plain_words(std::string text) {
  std::erase(text, '`');
  std::string words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words += (words.empty() ? "" : " ") + word;
  return words;
}

// Issue 11 (audit): README's table left out replay's exit 1 and "a trace file
// that does not read". Each code's text, README's row against `hookctl help`'s
// lines (a code's line and the lines continuing it).
TEST(HookctlHelp, ReadmesExitCodesAreHookctlHelps) {
  std::map<std::string, std::string> readme, help;
  const std::string document = read_file(HOOKBUS_README);
  const std::size_t table = document.find("| Code | Meaning |\n|---|---|\n");
  ASSERT_NE(table, std::string::npos) << "README.md has no exit code table";
  std::istringstream rows(document.substr(table));
  std::string row;
  std::getline(rows, row), std::getline(rows, row);
  while (std::getline(rows, row) && row.starts_with("| ")) {
    const std::size_t bar = row.find(" | ");
    readme[row.substr(2, bar - 2)] = plain_words(row.substr(bar + 3, row.rfind(" |") - bar - 3));
  }
  const std::string overview = hookctl("help").out;
  std::istringstream lines(overview.substr(overview.find("exit codes:\n")));
  std::string line, code;
  std::getline(lines, line);
  while (std::getline(lines, line) && line.starts_with("  ")) {
    if (line.size() > 3 && line[2] != ' ') code = line.substr(2, line.find(' ', 2) - 2);
    help[code] = plain_words(help[code] + " " + line.substr(code.size() + 2));
  }
  EXPECT_EQ(readme, help);
  EXPECT_THAT(help, ::testing::SizeIs(5));
}

// Every command that has --json, groups' commands included ("trace summary").
std::set<std::string> commands_with_json() {
  std::set<std::string> found;
  for (const std::string& name : command_names()) {
    std::vector<std::string> commands{name};
    if (hookctl(name + " --help").out.starts_with("usage: hookctl " + name + " COMMAND")) {
      commands.clear();
      for (const std::string& second : lines(hookctl("__complete -- " + name + " ''").out))
        commands.push_back(name + " " + second);
    }
    for (const std::string& command : commands)
      if (hookctl(command + " --help").out.find("\n  --json ") != std::string::npos) found.insert(command);
  }
  return found;
}

// Issue 11 (audit): README's list of commands with --json left out replay and trace summary.
TEST(HookctlHelp, ReadmeNamesEveryCommandWithJson) {
  const std::string document = read_file(HOOKBUS_README);
  const std::size_t start = document.find("- **`--json`**: every command that prints data (");
  ASSERT_NE(start, std::string::npos) << "README.md has no --json item";
  const std::size_t end = document.find(')', start);
  std::set<std::string> named;
  const std::string list = document.substr(start, end - start);
  for (std::size_t open = list.find('`', list.find('(')); open != std::string::npos; open = list.find('`', open + 1)) {
    const std::size_t close = list.find('`', open + 1);
    named.insert(plain_words(list.substr(open + 1, close - open - 1)));
    open = close;
  }
  EXPECT_EQ(named, commands_with_json());
  EXPECT_THAT(named, ::testing::IsSupersetOf({"replay", "trace summary"}));
}

TEST(HookctlHelp, OverviewDocumentsTheEnvironment) {
  EXPECT_THAT(hookctl("help").out, AllOf(HasSubstr("\n  SPDLOG_LEVEL "), HasSubstr("\n  NO_COLOR "),
                                         HasSubstr("\n  XDG_CONFIG_HOME ")));
}

TEST(HookctlHelp, EveryCommandHasHelpWithItsUsageAndOptions) {
  const std::vector<std::string> names = command_names();
  ASSERT_THAT(names, ::testing::IsSupersetOf({"events", "schema", "list", "emit", "run-hook", "help", "completion"}));
  for (const std::string& name : names) {
    const Output run = hookctl(name + " --help");
    EXPECT_EQ(run.exit_code, 0) << name << ": " << run.err;
    EXPECT_THAT(run.out, StartsWith("usage: hookctl " + name)) << name;
    EXPECT_THAT(run.out, AllOf(HasSubstr("\n  -h, --help "), HasSubstr("\n  -q, --quiet "))) << name;
  }
}

TEST(HookctlHelp, HelpCommandAndDashHGiveTheSameHelp) {
  for (const std::string& name : command_names()) {
    const std::string help = hookctl(name + " --help").out;
    EXPECT_EQ(hookctl("help " + name).out, help) << name;
    EXPECT_EQ(hookctl(name + " -h").out, help) << name;
  }
}

TEST(HookctlHelp, HelpComesBeforeArgumentChecks) {
  const Output run = hookctl("run-hook --help");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("usage: hookctl run-hook PATH NAME [JSON] [OPTIONS]"));
}

TEST(HookctlHelp, CommandsThatPrintDataOfferJson) {
  for (std::string_view name : {"events", "schema", "list", "emit", "run-hook", "trust", "config"})
    EXPECT_THAT(hookctl(fmt::format("{} --help", name)).out, HasSubstr("\n  --json ")) << name;
  EXPECT_THAT(hookctl("completion --help").out, Not(HasSubstr("--json")));
}

TEST(HookctlHelp, HelpOfAnUnknownCommandExits2) {
  const Output run = hookctl("help frobnicate");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("hookctl help: unknown command 'frobnicate'"));
}

TEST(HookctlHelp, OverviewMentionsVersion) {
  EXPECT_THAT(hookctl("--help").out, HasSubstr("\nhookctl --version prints the version of hookbus it was built with.\n"));
}

TEST(HookctlHelp, VersionPrintsTheLibrarysVersion) {
  const Output run = hookctl("--version");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, fmt::format("hookctl {}\n", hookbus::version().string));
  EXPECT_THAT(run.out, ContainsRegex("^hookctl [0-9]+\\.[0-9]+\\.[0-9]+\n$"));
}

// ------------------------------------------------------------- bad arguments

TEST(HookctlUsage, NoCommandExits2) {
  const Output run = hookctl("");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("hookctl: missing command\nRun 'hookctl help' for the commands."));
}

TEST(HookctlUsage, UnknownCommandExits2) {
  const Output run = hookctl("frobnicate");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("hookctl: unknown command 'frobnicate'\nRun 'hookctl help'"));
  EXPECT_THAT(run.out, IsEmpty());
}

TEST(HookctlUsage, UnknownEventNameListsValidNamesAndExits2) {
  const Output run = hookctl("schema tool_cal");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("hookctl schema: unknown event 'tool_cal'; valid names are: session_start"));
  EXPECT_THAT(run.err, HasSubstr("usage: hookctl schema NAME [OPTIONS]"));
}

TEST(HookctlUsage, MissingArgumentExits2NamingIt) {
  const Output run = hookctl("schema");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("hookctl schema: missing NAME: the event's wire name or an alias"));
  EXPECT_THAT(run.err, HasSubstr("usage: hookctl schema NAME [OPTIONS]\nRun 'hookctl schema --help' for more."));
}

TEST(HookctlUsage, ExtraArgumentExits2) {
  for (std::string_view arguments : {"schema tool_call extra", "events extra"}) {
    const Output run = hookctl(arguments);
    EXPECT_EQ(run.exit_code, 2) << arguments;
    EXPECT_THAT(run.err, HasSubstr("unexpected argument 'extra'")) << arguments;
  }
}

TEST(HookctlUsage, UnknownOptionExits2) {
  const Output run = hookctl("events --frobnicate");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("hookctl events: unknown option '--frobnicate'"));
}

TEST(HookctlUsage, JsonIsUnknownToACommandThatPrintsNoData) {
  const Output run = hookctl("completion bash --json");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("unknown option '--json'"));
}

TEST(HookctlUsage, AFlagGivenAValueExits2) {
  const Output run = hookctl("events --json=yes");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("option '--json' takes no value"));
}

TEST(HookctlUsage, OptionsMayComeBeforeTheCommand) {
  const Output run = hookctl("--json -q events");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(parse_output(run).at("events").as_array().size(), event_count);
}

TEST(HookctlUsage, DoubleDashEndsOptions) {
  const Output run = hookctl("schema -- --json");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("unknown event '--json'"));
}

TEST(HookctlUsage, ControlCharactersInAnArgumentAreShownEscaped) {
  const Output run = hookctl("frob$(printf '\\033[2J')nicate");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("unknown command 'frob\\x1b[2Jnicate'"));
  EXPECT_THAT(run.err, Not(HasSubstr("\x1b")));
}

// ------------------------------------------------------------------ output

// Issue 10, point 9: `hookctl help >/dev/full` exited 0.
TEST(HookctlOutput, HelpToAFullDeviceExits4WithAMessage) {
  const Output run = hookctl("help", ">/dev/full");
  EXPECT_EQ(run.exit_code, 4);
  EXPECT_THAT(run.err, HasSubstr("hookctl: cannot write to standard output: No space left on device"));
}

TEST(HookctlOutput, LongOutputToAFullDeviceExits4WithAMessage) {
  const Output run = hookctl("events --json", ">/dev/full");
  EXPECT_EQ(run.exit_code, 4);
  EXPECT_THAT(run.err, HasSubstr("hookctl: cannot write to standard output: No space left on device"));
}

TEST(HookctlOutput, TheOverviewToAFullDeviceExits4WithAMessage) {
  const Output run = hookctl("--help", ">/dev/full");
  EXPECT_EQ(run.exit_code, 4);
  EXPECT_THAT(run.err, HasSubstr("hookctl: cannot write to standard output: No space left on device"));
}

// The error message cannot be written either: hookctl still ends with its exit
// code, never aborts on an exception from the write.
TEST(HookctlOutput, AnErrorMessageToAFullStderrKeepsItsExitCode) {
  EXPECT_EQ(shell(fmt::format("('{}' no-such-command 2>/dev/full)", HOOKCTL_PATH)).exit_code, 2);
  EXPECT_EQ(shell(fmt::format("('{}' schema no_such_event 2>/dev/full)", HOOKCTL_PATH)).exit_code, 2);
}

TEST(HookctlOutput, ClosedStdoutExits4WithAMessage) {
  const Output run = hookctl("schema tool_call", ">&-");
  EXPECT_EQ(run.exit_code, 4);
  EXPECT_THAT(run.err, HasSubstr("hookctl: standard output is closed"));
}

TEST(HookctlOutput, ClosedStdinIsNoError) {
  const Output run = hookctl("schema tool_call <&-");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NO_THROW(parse_output(run));
}

// ------------------------------------------------------------------ completion

TEST(HookctlCompletion, CompletesCommandNames) {
  EXPECT_THAT(lines(hookctl("__complete -- e").out), ElementsAre("events", "emit"));
}

TEST(HookctlCompletion, CompletesEventNamesAndAliases) {
  EXPECT_THAT(lines(hookctl("__complete -- emit before_t").out), ElementsAre("before_tool_call"));
  EXPECT_THAT(lines(hookctl("__complete -- schema message:r").out), ElementsAre("message:receive"));
}

TEST(HookctlCompletion, CompletesTheCommandsOptions) {
  EXPECT_THAT(lines(hookctl("__complete -- run-hook --r").out), ElementsAre("--raw"));
  EXPECT_THAT(lines(hookctl("__complete -- events -").out), ElementsAre("--json", "--quiet", "--help"));
}

TEST(HookctlCompletion, AsksTheShellForFilesAndDirectories) {
  EXPECT_THAT(lines(hookctl("__complete -- run-hook ''").out), ElementsAre("@file"));
  EXPECT_THAT(lines(hookctl("__complete -- list --project ''").out), ElementsAre("@directory"));
  EXPECT_THAT(lines(hookctl("__complete -- --project ''").out), ElementsAre("@directory"));
  EXPECT_THAT(lines(hookctl("__complete -- --workspace ''").out), ElementsAre("@directory"));
}

TEST(HookctlCompletion, CompletesTheArgumentAfterOptions) {
  EXPECT_THAT(lines(hookctl("__complete -- run-hook --project /tmp ./hook tool_ca").out), ElementsAre("tool_call"));
  EXPECT_THAT(lines(hookctl("__complete -- --workspace /tmp emit tool_ca").out), ElementsAre("tool_call"));
}

// Before the command, every option of the table may come.
TEST(HookctlCompletion, CompletesEveryOptionBeforeTheCommand) {
  EXPECT_THAT(lines(hookctl("__complete -- --w").out), ElementsAre("--workspace"));
}

// The script as bash runs it on TAB: COMP_LINE up to the cursor in, COMPREPLY out.
std::vector<std::string> bash_complete(std::string_view typed) {
  const auto bin = std::filesystem::path(HOOKCTL_PATH).parent_path().string();
  const Output run = shell(fmt::format(
      "PATH='{}':\"$PATH\" bash --norc -c 'source <(hookctl completion bash); COMP_LINE=\"$0\"; "
      "COMP_POINT=${{#COMP_LINE}}; _hookctl; printf \"%s\\n\" \"${{COMPREPLY[@]}}\"' '{}'",
      bin, typed));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return lines(run.out);
}

TEST(HookctlCompletion, BashScriptCompletesCommandsThroughHookctl) {
  EXPECT_THAT(bash_complete("hookctl run-"), ElementsAre("run-hook"));
}

TEST(HookctlCompletion, BashScriptCompletesAfterAColonOnlyWhatFollowsIt) {
  EXPECT_THAT(bash_complete("hookctl emit message:rec"), ElementsAre("receive"));
}

}  // namespace
}  // namespace hookbus
