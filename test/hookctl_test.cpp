// hookctl, run as a user runs it: the built binary (HOOKCTL_PATH), its stdout,
// stderr and exit code.

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>

#include <boost/json/value.hpp>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hookbus {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

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

// Runs `hookctl <arguments>` through the shell (arguments are plain words here).
Output hookctl(std::string_view arguments) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / fmt::format("hookctl_test.{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto out = dir / "out", err = dir / "err";
  const std::string command = fmt::format("'{}' {} >'{}' 2>'{}'", HOOKCTL_PATH, arguments, out.string(), err.string());
  const int status = std::system(command.c_str());
  Output run{.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1, .out = read_file(out), .err = read_file(err)};
  std::filesystem::remove_all(dir);
  return run;
}

boost::json::value parse_output(const Output& run) { return parse_json(run.out, "hookctl output"); }

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
  EXPECT_THAT(run.out, ContainsRegex("result +decision +Decision \\(none \\| allow \\| ask \\| deny\\)\n"));
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
            (boost::json::object{{"name", "decision"}, {"type", "Decision"}, {"values", {"none", "allow", "ask", "deny"}}}));
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

// ------------------------------------------------------------- bad arguments

TEST(HookctlUsage, NoCommandPrintsUsageAndExits2) {
  const Output run = hookctl("");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("usage: hookctl [--project DIR] COMMAND"));
}

TEST(HookctlUsage, UnknownCommandPrintsUsageAndExits2) {
  const Output run = hookctl("frobnicate");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("hookctl: unknown command 'frobnicate'"));
  EXPECT_THAT(run.err, HasSubstr("usage: hookctl [--project DIR] COMMAND"));
  EXPECT_THAT(run.out, IsEmpty());
}

TEST(HookctlUsage, UnknownEventNameListsValidNamesAndExits2) {
  const Output run = hookctl("schema tool_cal");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("hookctl schema: unknown event 'tool_cal'; valid names are: session_start"));
  EXPECT_THAT(run.err, HasSubstr("usage: hookctl schema NAME"));
}

TEST(HookctlUsage, MissingEventNameExits2) {
  const Output run = hookctl("schema");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("hookctl schema: missing event name\nusage: hookctl schema NAME"));
}

TEST(HookctlUsage, ExtraArgumentExits2) {
  for (std::string_view arguments : {"schema tool_call extra", "events extra"}) {
    const Output run = hookctl(arguments);
    EXPECT_EQ(run.exit_code, 2) << arguments;
    EXPECT_THAT(run.err, HasSubstr("unexpected argument 'extra'")) << arguments;
  }
}

TEST(HookctlUsage, HelpPrintsUsageToStdout) {
  const Output run = hookctl("help");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, ContainsRegex("events +\\[--json\\]"));
  EXPECT_THAT(run.out, ContainsRegex("schema +NAME"));
}

}  // namespace
}  // namespace hookbus
