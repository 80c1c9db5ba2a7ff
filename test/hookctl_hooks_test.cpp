// `hookctl list`, `emit`, `run-hook`, `trust` and `config`, run as the real binary against
// projects written into temporary directories; and the example hooks of
// examples/hooks/, run the way a hook author would debug them.
#include "claude_code_hooks.hpp"
#include "hookctl_fixture.hpp"
#include "http_test_server.hpp"
#include "needs_root.hpp"
#include "script_fixture.hpp"

#include <hookbus/json.hpp>
#include <hookbus/process.hpp>
#include <hookbus/trace.hpp>

#include <boost/json/parse.hpp>
#include <fmt/format.h>
#include <sys/stat.h>
#include <zlib.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::kCall;
using testing::kExamples;
using testing::kHookctl;
using testing::TempDir;
using testing::write_file;
using testing::write_script;

// Every test ends by checking that nothing hookctl or its hooks started is left
// (testing::NothingLeftBehind): no process, however detached, no descriptor.
class Hookctl : public testing::HookctlFixture {};

// -------------------------------------------------------------------- list

TEST_F(Hookctl, ListShowsEachHookWithItsEventsPathLayerAndProtocol) {
  add_hook("guard", "before_tool_call agent_end", "");
  trust();
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("project " + project_.path().string() + ": trusted"),
                                   HasSubstr("guard: before_tool_call (= tool_call), agent_end"),
                                   HasSubstr(hook("guard").string() +
                                             "  (project layer, trusted, hookbus protocol, events asked)")));
}

TEST_F(Hookctl, ListShowsEveryHooksLayerTrustStateProtocolAndWhyItWouldNotRun) {
  write_script(user_config_.path() / "hookbus" / "hooks" / "audit", "echo tool_call\n");
  add_hook("guard", "tool_call", "");
  write_script(hook("claude-guard"), "exit 0\n");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hooks": {"claude-guard": {"protocol": "claude_code", "events": ["PreToolUse"]}}})");
  const std::string untrusted = hookctl({"list"}).stdout_text;
  EXPECT_THAT(untrusted,
              AllOf(HasSubstr((user_config_.path() / "hookbus" / "hooks" / "audit").string() +
                              "  (user layer, trust n/a, hookbus protocol, events asked)"),
                    HasSubstr("not run guard: the project is untrusted: run `hookctl trust` after reviewing its hooks\n    " +
                              hook("guard").string() + "  (project layer, untrusted, hookbus protocol)"),
                    HasSubstr(hook("claude-guard").string() + "  (project layer, untrusted, claude_code protocol)")));
  trust();
  add_hook("guard", "tool_call", "exit 1\n");
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              HasSubstr(hook("guard").string() + "  (project layer, changed, hookbus protocol)"));
  const auto listing = boost::json::parse(hookctl({"list", "--json"}).stdout_text);
  EXPECT_EQ(listing.at("hooks").at(0).at("trust"), "n/a");
  EXPECT_EQ(listing.at("skipped").at(0).at("trust"), "changed");
  EXPECT_EQ(listing.at("skipped").at(0).at("protocol"), "claude_code");
}

// One agent's project hook as `hookctl list` shows it: its format (its
// protocol), the file that declares it and the path of its entry there (a
// TOML path in config.toml); `hookctl trust` records the script it runs.
struct ListedAgentHook {
  std::string key;       // the agent's under agent_hooks
  std::string script;    // what the hook runs, relative to the project
  std::string file;      // the file that declares it, relative to the project; Cline's: the script
  std::string contents;  // the file's, where not the script
  std::string listed;    // what `hookctl list` shows for it, FILE standing for the file's absolute path
  std::string also{};    // more that it says, on stdout or stderr
};

void PrintTo(const ListedAgentHook& hook, std::ostream* out) { *out << hook.key; }

const ListedAgentHook kListedAgentHooks[] = {
    {.key = "codex",
     .script = ".codex/hooks/guard.sh",
     .file = ".codex/config.toml",
     .contents = "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\n"
                 "command = \"sh .codex/hooks/guard.sh\"\n",
     .listed = "guard.sh: PreToolUse (matcher Bash)\n    FILE: hooks.PreToolUse[0].hooks[0]: sh .codex/hooks/guard.sh  "
               "(project layer, trusted, codex protocol)"},
    {.key = "gemini_cli",
     .script = ".gemini/hooks/guard.sh",
     .file = ".gemini/settings.json",
     .contents = R"({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [)"
                 R"({"type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/guard.sh"}]}]}})",
     .listed = "guard.sh: BeforeTool (matcher run_shell_command)\n    FILE: hooks.BeforeTool[0].hooks[0]: "
               "$GEMINI_PROJECT_DIR/.gemini/hooks/guard.sh  (project layer, trusted, gemini_cli protocol)"},
    {.key = "cursor",
     .script = ".cursor/hooks/guard.sh",
     .file = ".cursor/hooks.json",
     .contents = R"({"version": 1, "hooks": {"beforeShellExecution": [{"command": ".cursor/hooks/guard.sh", "matcher": "rm"}]}})",
     .listed = "guard.sh: beforeShellExecution (matcher rm)\n    FILE: hooks.beforeShellExecution[0]: .cursor/hooks/guard.sh  "
               "(project layer, trusted, cursor protocol)"},
    {.key = "vscode",
     .script = ".github/hooks/scripts/guard.sh",
     .file = ".github/hooks/guard.json",
     .contents = R"({"hooks": {"PreToolUse": [{"type": "command", "command": "sh .github/hooks/scripts/guard.sh", )"
                 R"("matcher": "Edit"}]}})",
     .listed = "guard.sh: PreToolUse\n    FILE: hooks.PreToolUse[0]: sh .github/hooks/scripts/guard.sh  (project layer, "
               "trusted, vscode protocol)",
     .also = "hooks.PreToolUse[0].matcher: VS Code ignores a matcher"},
    {.key = "copilot",
     .script = ".github/hooks/scripts/guard.sh",
     .file = ".github/hooks/guard.json",
     .contents = R"({"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "sh .github/hooks/scripts/guard.sh", )"
                 R"("matcher": "bash"}]}})",
     .listed = "guard.sh: preToolUse (matcher bash)\n    FILE: hooks.preToolUse[0]: sh .github/hooks/scripts/guard.sh  "
               "(project layer, trusted, copilot protocol)"},
    {.key = "cline",
     .script = ".clinerules/hooks/PreToolUse",
     .file = ".clinerules/hooks/PreToolUse",
     .contents = "",
     .listed = "PreToolUse: PreToolUse\n    FILE  (project layer, trusted, cline protocol)"},
};

class HookctlListsAgentHooks : public Hookctl, public ::testing::WithParamInterface<ListedAgentHook> {};

INSTANTIATE_TEST_SUITE_P(Formats, HookctlListsAgentHooks, ::testing::ValuesIn(kListedAgentHooks),
                         [](const auto& info) { return info.param.key; });

TEST_P(HookctlListsAgentHooks, ListShowsTheHooksFormatFileAndPathAndTrustRecordsWhatItRuns) {
  const ListedAgentHook& hook = GetParam();
  write_script(project_.path() / hook.script, "echo '{}'\n");
  if (hook.file != hook.script) write_file(project_.path() / hook.file, hook.contents);
  write_file(user_config_.path() / "hookbus" / "config.json",
             R"({"agent_hooks": {")" + hook.key + R"(": {"settings": ["project"]}}})");
  const ProcessResult trusted = hookctl({"trust"});
  EXPECT_EQ(trusted.exit_code, 0) << trusted.stderr_text;
  EXPECT_THAT(trusted.stdout_text, HasSubstr(hook.script));
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  std::string listed = hook.listed;
  listed.replace(listed.find("FILE"), 4, (project_.path() / hook.file).string());
  EXPECT_THAT(r.stdout_text, HasSubstr(listed));
  EXPECT_THAT(r.stdout_text + r.stderr_text, HasSubstr(hook.also));
}

// A script's name holding a newline and a terminal's escape is recorded under
// its own name and shown escaped: it can neither forge a line nor hide one.
TEST_F(Hookctl, TrustShowsTheNameOfAQwenHooksScriptEscaped) {
  const std::string name = "tip\n  0755  0000000000000000  .qwen/ok\x1b[2J.sh";
  write_script(project_.path() / ".qwen" / "hooks" / name, "exit 0\n");
  write_file(project_.path() / ".qwen" / "settings.json",
             R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": )" +
                 write_json(boost::json::string("sh '.qwen/hooks/" + name + "'")) + "}]}]}}");
  write_file(user_config_.path() / "hookbus" / "config.json", R"({"agent_hooks": {"qwen_code": {"settings": ["project"]}}})");
  const ProcessResult r = hookctl({"trust"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr(".qwen/hooks/tip\\n  0755  0000000000000000  .qwen/ok\\x1b[2J.sh\n"),
                                   Not(HasSubstr("\x1b")), Not(HasSubstr("\n  0755  0000000000000000"))));
}

// `hookctl list` shows what a Claude Code command's entry says of when and
// how it runs: its matcher, "if", "once", "async" or "asyncRewake", "statusMessage".
TEST_F(Hookctl, ListShowsAClaudeCodeCommandsIfOnceAsyncAndStatusMessage) {
  for (const char* script : {"guard.sh", "later.sh", "plain.sh"})
    write_script(project_.path() / ".claude" / "hooks" / script, "exit 0\n");
  write_file(project_.path() / ".claude" / "settings.json", R"json({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "sh .claude/hooks/guard.sh", "if": "Bash(git push:*)", "once": true,
     "statusMessage": "Checking the push"},
    {"type": "command", "command": "sh .claude/hooks/later.sh", "asyncRewake": true},
    {"type": "command", "command": "sh .claude/hooks/plain.sh"}]}]}})json");
  write_file(user_config_.path() / "hookbus" / "config.json", R"({"claude_code": {"settings": ["project"]}})");
  trust();
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text,
              AllOf(HasSubstr("guard.sh: PreToolUse (matcher Bash, if Bash(git push:*), once, status \"Checking the "
                              "push\")\n"),
                    HasSubstr("later.sh: PreToolUse (matcher Bash, asyncRewake)\n"),
                    HasSubstr("plain.sh: PreToolUse (matcher Bash)\n")));
  const auto listing = boost::json::parse(hookctl({"list", "--json"}).stdout_text);
  const auto& hooks = listing.at("hooks").as_array();
  ASSERT_EQ(hooks.size(), 3U) << listing;
  EXPECT_EQ(hooks[0].at("if"), "Bash(git push:*)");
  EXPECT_EQ(hooks[0].at("once"), true);
  EXPECT_EQ(hooks[0].at("status_message"), "Checking the push");
  EXPECT_EQ(hooks[0].at("async_rewake"), false);
  EXPECT_EQ(hooks[1].at("async"), true);
  EXPECT_EQ(hooks[1].at("async_rewake"), true);
  EXPECT_EQ(hooks[2].at("if"), "");
  EXPECT_EQ(hooks[2].at("once"), false);
}

// Regression (issue 9 audit): Claude Code commands of an untrusted project,
// imported by the user's config, were not listed at all.
TEST_F(Hookctl, ListShowsAnUntrustedProjectsClaudeCodeCommandsAsNotRun) {
  write_script(project_.path() / ".claude" / "hooks" / "no-rm.sh", "exit 0\n");
  write_file(project_.path() / ".claude" / "settings.json", R"({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/no-rm.sh"}]}]}})");
  write_file(user_config_.path() / "hookbus" / "config.json", R"({"claude_code": {"settings": ["project"]}})");
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text,
              AllOf(HasSubstr("not installed, and why:\n  no-rm.sh: PreToolUse\n    " +
                              (project_.path() / ".claude" / "settings.json").string() +
                              ": hooks.PreToolUse[0].hooks[0]: $CLAUDE_PROJECT_DIR/.claude/hooks/no-rm.sh  (project "
                              "layer, untrusted, claude_code protocol)\n    the project is untrusted")));
  const auto listing = boost::json::parse(hookctl({"list", "--json"}).stdout_text);
  EXPECT_EQ(listing.at("not_installed").at(0).at("protocol"), "claude_code");
  EXPECT_EQ(listing.at("not_installed").at(0).at("trust"), "untrusted");
}

// Regression (issue 9 audit): an untrusted project's built-ins were not
// listed at all, and plugins had no trust state or protocol.
TEST_F(Hookctl, ListShowsEveryLayersBuiltinsAndPluginsWithLayerFileTrustProtocolAndWhyNot) {
  const fs::path user_config = user_config_.path() / "hookbus" / "config.json";
  write_file(user_config, R"({"builtins": {"tool_stats": {}}})");
  const fs::path project_config = project_.path() / ".hookbus" / "config.json";
  write_file(project_config, R"({"builtins": {"tool_policy": {"deny": ["deploy"]}}})");
  const fs::path plugins = project_.path() / ".hookbus" / "plugins";
  testing::make_directories(plugins);
  fs::copy_file(fs::path(HOOKBUS_TEST_PLUGINS) / "guard.so", plugins / "guard.so");
  const std::string untrusted = "the project is untrusted: run `hookctl trust` after reviewing its hooks";
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              AllOf(HasSubstr("plugins:\n  guard.so: not loaded: " + untrusted + "\n    " + (plugins / "guard.so").string() +
                              "  (project layer, untrusted, plugin)"),
                    HasSubstr("built-ins:\n  tool_stats: installed\n    " + user_config.string() +
                              "  (user layer, trust n/a, built-in)\n  tool_policy: not installed: " + untrusted +
                              "\n    " + project_config.string() + "  (project layer, untrusted, built-in)")));
  const auto listing = boost::json::parse(hookctl({"list", "--json"}).stdout_text);
  EXPECT_EQ(listing.at("builtins").at(1), (boost::json::object{{"name", "tool_policy"},
                                                               {"layer", "project"},
                                                               {"trust", "untrusted"},
                                                               {"protocol", "built-in"},
                                                               {"file", project_config.string()},
                                                               {"installed", false},
                                                               {"reason", untrusted}}));
  EXPECT_EQ(listing.at("plugins").at(0).at("trust"), "untrusted");
  trust();
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              AllOf(HasSubstr("  guard: loaded\n    " + (plugins / "guard.so").string() + "  (project layer, trusted, plugin)"),
                    HasSubstr("  tool_policy: installed\n    " + project_config.string() +
                              "  (project layer, trusted, built-in)")));
}

// The query cache as a user meets it: hookctl list and emit, run again and
// again, ask an unchanged hook once; the answers live in $XDG_CACHE_HOME/hookbus/.
TEST_F(Hookctl, AnUnchangedHookIsQueriedOnceAcrossRunsAndItsAnswerIsCachedUnderXdgCacheHome) {
  const fs::path queries = home_.path() / "queries";
  add_hook("guard", "tool_call", "");
  write_script(hook("guard"), "[ \"$1\" = hook ] && { echo x >> '" + queries.string() + "'; echo tool_call; }\nexit 0\n");
  trust();
  for (int run = 0; run < 3; ++run) EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr("guard: tool_call"));
  EXPECT_EQ(hookctl({"emit", "tool_call", kCall}).exit_code, 0);
  EXPECT_EQ(testing::read_file(queries), "x\n");
  EXPECT_TRUE(fs::exists(home_.path() / "cache" / "hookbus" / "queries.json"));
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr("events cached answer"));
}

TEST_F(Hookctl, ListShowsAHooksToolFilterAndEmitRunsItOnlyForThoseTools) {
  write_file(project_.path() / ".hookbus" / "config.json", R"({"hooks": {"guard": {"tools": "bash|shell"}}})");
  add_hook("guard", "tool_call", "echo '{\"decision\": \"deny\", \"reason\": \"ran\"}'\n");
  trust();
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              HasSubstr("(project layer, trusted, hookbus protocol, events asked) [tools bash|shell]"));
  EXPECT_THAT(hookctl({"emit", "tool_call", kCall}).stdout_text, HasSubstr("denied by guard: ran"));
  EXPECT_THAT(hookctl({"emit", "tool_call", R"({"tool_name": "python"})"}).stdout_text, Not(HasSubstr("ran")));
}

// An HTTP hook the user's config declares (docs/fleet.md): hookctl list
// shows the request it makes and no header, hookctl emit asks the service.
TEST_F(Hookctl, EmitAsksAnHttpHookOfTheUsersConfigAndListShowsItsRequestWithoutHeaders) {
  test::HttpTestServer service(
      [](const test::ReceivedRequest&) { return test::Reply{.body = R"({"decision": "deny", "reason": "policy"})"}; });
  write_file(user_config_.path() / "hookbus" / "config.json",
             fmt::format(R"({{"network": {{"allowed_origins": ["{}"]}},
                 "hooks": {{"policy": {{"url": "{}", "events": ["tool_call"],
                                        "headers": {{"Authorization": "Bearer s3cret"}}}}}}}})",
                         service.origin(), service.url("/decide")));
  const ProcessResult listed = hookctl({"list"});
  EXPECT_THAT(listed.stdout_text, HasSubstr("POST " + service.url("/decide")));
  EXPECT_THAT(listed.stdout_text + listed.stderr_text, Not(HasSubstr("s3cret")));
  const ProcessResult emitted = hookctl({"emit", "tool_call", kCall});
  EXPECT_THAT(emitted.stdout_text, HasSubstr("denied by policy: policy"));
  ASSERT_EQ(service.requests().size(), 1U);
  EXPECT_EQ(service.requests().front().headers.at("authorization"), "Bearer s3cret");
}

TEST_F(Hookctl, ConfigShowsWhereRequestsMayGoAndNoHeaderValue) {
  write_file(user_config_.path() / "hookbus" / "config.json", R"({
      "network": {"allowed_origins": ["https://policy.example.com", "http://127.0.0.1:4318"]},
      "hooks": {"policy": {"url": "https://policy.example.com/decide", "events": ["tool_call"],
                           "headers": {"Authorization": "Bearer s3cret-hook"}}},
      "trace": {"otlp": {"endpoint": "http://127.0.0.1:4318/v1/traces",
                         "headers": {"Authorization": "Bearer s3cret-otlp"}}}})");
  const ProcessResult shown = hookctl({"config"});
  EXPECT_EQ(shown.exit_code, 0) << shown.stderr_text;
  EXPECT_THAT(shown.stdout_text, HasSubstr("network.allowed_origins"));
  EXPECT_THAT(shown.stdout_text, HasSubstr("https://policy.example.com"));
  EXPECT_THAT(shown.stdout_text, HasSubstr("POST https://policy.example.com/decide"));
  EXPECT_THAT(shown.stdout_text, HasSubstr("(hidden)"));
  EXPECT_THAT(shown.stdout_text + shown.stderr_text, Not(HasSubstr("s3cret")));
}

TEST_F(Hookctl, ListShowsAHooksModeInstancesAndAsync) {
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hooks": {"guard": {"mode": "persistent", "instances": 2, "start": "eager"}, "audit": {"async": true}}})");
  add_hook("guard", "tool_call", "");
  add_hook("audit", "agent_end", "");
  trust();
  const std::string text = hookctl({"list"}).stdout_text;
  EXPECT_THAT(text, HasSubstr("(project layer, trusted, hookbus protocol, events asked) [persistent, 2 instances, eager]"));
  EXPECT_THAT(text, HasSubstr("(project layer, trusted, hookbus protocol, events asked) [async]"));
  const auto json = boost::json::parse(hookctl({"list", "--json"}).stdout_text);
  for (const auto& hook : json.at("hooks").as_array()) {
    if (hook.at("name") == "guard") {
      EXPECT_EQ(hook.at("mode"), "persistent");
      EXPECT_EQ(hook.at("instances"), 2);
      EXPECT_EQ(hook.at("start"), "eager");
      EXPECT_EQ(hook.at("async"), false);
    } else {
      EXPECT_EQ(hook.at("mode"), "spawn");
      EXPECT_EQ(hook.at("async"), true);
    }
  }
}

TEST_F(Hookctl, EmitWaitsForItsAsyncHooksToEndBeforeItExits) {
  write_file(project_.path() / ".hookbus" / "config.json", R"({"hooks": {"audit": {"async": true}}})");
  const fs::path done = project_.path() / "audited";
  add_hook("audit", "agent_end", "sleep 0.3; echo done > '" + done.string() + "'\n");
  trust();
  EXPECT_EQ(hookctl({"emit", "agent_end"}).exit_code, 0);
  EXPECT_TRUE(fs::exists(done)) << "hookctl's exit stopped the async hook before it wrote its file";
}

TEST_F(Hookctl, ListShowsAnUntrustedProjectsHooksAndWhyTheyDoNotRun) {
  add_hook("guard", "tool_call", "");
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr(": untrusted"), HasSubstr("hookctl trust --project"),
                                   HasSubstr("not run guard: the project is untrusted")));
}

TEST_F(Hookctl, ListShowsTheConfigFileOfEachLayerAndWhetherItApplied) {
  write_file(project_.path() / ".hookbus" / "config.json", "{}");
  const ProcessResult r = hookctl({"list"});
  EXPECT_THAT(r.stdout_text,
              AllOf(HasSubstr("managed  " + (home_.path() / "managed" / "config.json").string() + "  (absent)"),
                    HasSubstr("project  " + (project_.path() / ".hookbus" / "config.json").string() +
                              "  (not applied: untrusted)")));
}

TEST_F(Hookctl, ListShowsSkippedAndShadowedFilesAndWhy) {
  add_hook("notes", "tool_call", "");
  fs::permissions(hook("notes"), fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::remove);
  add_hook("guard", "tool_call", "");
  write_script(project_.path() / ".hookbus" / "plugins" / "acme" / "tools" / "hooks" / "guard", "echo tool_call\n");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hook_directories": [".hookbus/more-hooks"]})");
  add_hook("../more-hooks/guard", "tool_call", "");
  trust();
  const ProcessResult r = hookctl({"list"});
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("ignored notes: not executable"),
                                   HasSubstr("shadowed guard: shadowed by " +
                                             (project_.path() / ".hookbus" / "more-hooks" / "guard").string())));
}

TEST_F(Hookctl, ListShowsWhatTheConfigChangesAboutAHook) {
  add_hook("guard", "tool_call", "");
  add_hook("lint", "tool_call", "");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hooks": {"guard": {"timeout_ms": 500, "failure": "fail_closed"}, "lint": {"disabled": true}}})");
  trust();
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              AllOf(HasSubstr("[timeout 500 ms, fail-closed]"),
                    HasSubstr("lint: tool_call\n    " + hook("lint").string() +
                              "  (project layer, trusted, hookbus protocol)\n    disabled by " +
                              (project_.path() / ".hookbus" / "config.json").string() + ": hooks.lint.disabled")));
}

TEST_F(Hookctl, ListJsonHasTrustDirectoriesHooksAndSkippedFiles) {
  add_hook("guard", "before_tool_call", "");
  add_hook("notes.disable", "tool_call", "");
  trust();
  const ProcessResult r = hookctl({"list", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const auto listing = boost::json::parse(r.stdout_text);
  EXPECT_EQ(listing.at("project").as_string(), project_.path().string());
  EXPECT_EQ(listing.at("trust").at("state"), "trusted");
  EXPECT_EQ(listing.at("trust").at("may_run"), true);
  EXPECT_EQ(listing.at("config_files").at(0).at("layer"), "managed");
  EXPECT_THAT(listing.at("directories").as_array(),
              ::testing::Contains(boost::json::object{{"layer", "project"},
                                                      {"path", hook("").parent_path().string()},
                                                      {"source", "project"},
                                                      {"exists", true}}));
  EXPECT_EQ(listing.at("hooks").at(0),
            (boost::json::object{{"name", "guard"},
                                 {"layer", "project"},
                                 {"trust", "trusted"},
                                 {"events", boost::json::array{"tool_call"}},
                                 {"path", hook("guard").string()},
                                 {"source", "project"},
                                 {"protocol", "hookbus"},
                                 {"events_from", "asked"},
                                 {"matcher", ""},
                                 {"command", ""},
                                 {"timeout_ms", 30000},
                                 {"failure", "fail_open"},
                                 {"tools", ""},
                                 {"mode", "spawn"},
                                 {"instances", 1},
                                 {"start", "lazy"},
                                 {"async", false},
                                 {"sequential", nullptr}}));
  EXPECT_EQ(listing.at("skipped").at(0).at("why"), "ignored");
  EXPECT_EQ(listing.at("skipped").at(0).at("name"), "notes.disable");
}

TEST_F(Hookctl, ListWithAnInvalidConfigExitsThree) {
  write_file(user_config_.path() / "hookbus" / "config.json", R"({"timeout_ms": "soon"})");
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("hookctl list: "), HasSubstr("config.json"), HasSubstr("timeout_ms")));
}

TEST_F(Hookctl, ListFailsOnABuiltinSettingThatEmitWouldReject) {
  write_file(user_config_.path() / "hookbus" / "config.json",
             R"({"builtins": {"tool_policy": {"deny": [{"tool": "bash", "argument": "command"}]}}})");
  const ProcessResult list = hookctl({"list"});
  const ProcessResult emit = hookctl({"emit", "agent_start"});
  EXPECT_EQ(list.exit_code, 3);
  EXPECT_EQ(emit.exit_code, 3);
  EXPECT_THAT(list.stderr_text, HasSubstr("builtins.tool_policy.deny[0]"));
}

// Every file and directory under `roots`, to compare before and after a command.
std::set<fs::path> tree_of(std::initializer_list<fs::path> roots) {
  std::set<fs::path> entries;
  for (const fs::path& root : roots)
    for (const auto& entry : fs::recursive_directory_iterator(root)) entries.insert(entry.path());
  return entries;
}

// A project that traces to files in directories that do not exist yet, and a
// workspace that does too, both trusted.
class ReadOnlyCommands : public Hookctl {
 protected:
  void SetUp() override {
    Hookctl::SetUp();
    const std::string traced = R"({"trace": {"jsonl": "traces/session.jsonl", "chrome": "chrome/session.json",
                                             "otlp": "otlp/spans.jsonl"}})";
    write_file(project_.path() / ".hookbus" / "config.json", traced);
    write_file(workspace_ / "config.json", traced);
    trust();
    const ProcessResult r = hookctl({"trust", "--workspace", workspace_.string()});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  }

  // Runs `hookctl ARGS` and `hookctl ARGS --json` and expects them to create nothing.
  void expect_nothing_created(const std::vector<std::string>& command) const {
    const std::set<fs::path> before = tree_of({project_.path(), user_config_.path(), home_.path()});
    for (const bool json : {false, true}) {
      std::vector<std::string> args = command;
      if (json) args.push_back("--json");
      const ProcessResult r = hookctl(args);
      EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    }
    EXPECT_EQ(tree_of({project_.path(), user_config_.path(), home_.path()}), before);
    EXPECT_FALSE(fs::exists(project_.path() / "traces"));
    EXPECT_FALSE(fs::exists(workspace_ / "traces"));
  }

  const fs::path workspace_ = home_.path() / "workspaces" / "ops";
};

// Issue 11 (audit): `list` and `config` created the trace directories.
TEST_F(ReadOnlyCommands, ListCreatesNoTraceDirectoryNorAnythingElse) {
  expect_nothing_created({"list", "--workspace", workspace_.string()});
}

TEST_F(ReadOnlyCommands, ConfigCreatesNoTraceDirectoryNorAnythingElse) { expect_nothing_created({"config"}); }

TEST_F(ReadOnlyCommands, EmitStillTracesToTheConfiguredFiles) {
  const ProcessResult r = hookctl({"emit", "agent_start", "--workspace", workspace_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_TRUE(fs::exists(project_.path() / "traces" / "session.jsonl"));
  EXPECT_TRUE(fs::exists(workspace_ / "traces" / "session.jsonl"));
}

TEST_F(Hookctl, ListShowsAHookNameWithControlCharactersEscaped) {
  add_hook("evil\n[hookbus] [info] all good\x1b[2J", "tool_call", "");
  trust();
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("evil\\n[hookbus] [info] all good\\x1b[2J: tool_call"));
  EXPECT_THAT(r.stdout_text, Not(HasSubstr("\x1b")));
}

TEST_F(Hookctl, AnErrorShowsControlCharactersEscaped) {
  const fs::path config_home = user_config_.path() / "evil\x1b[2J";
  write_file(config_home / "hookbus" / "config.json", R"({"timeout_ms": "soon"})");
  const ProcessResult r = hookctl({"list"}, "", {{"XDG_CONFIG_HOME", config_home.string()}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.stderr_text, HasSubstr("evil\\x1b[2J/hookbus/config.json: timeout_ms"));
  EXPECT_THAT(r.stderr_text, Not(HasSubstr("\x1b")));
}

// -------------------------------------------------------------------- emit

TEST_F(Hookctl, EmitPrintsTheVerdictAndTheResult) {
  use_example("block-rm-rf");
  trust();
  const ProcessResult r =
      hookctl({"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "rm -rf /"}})"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, StartsWith("tool_call: denied by block-rm-rf: rm -rf is not allowed"));
  EXPECT_THAT(r.stdout_text, HasSubstr("\n  \"decision\": \"deny\",\n"));
}

TEST_F(Hookctl, EmitJsonHasTheEventWhetherRefusedAndTheResult) {
  use_example("block-rm-rf");
  trust();
  const ProcessResult r = hookctl(
      {"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "rm -rf /"}})", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const auto outcome = boost::json::parse(r.stdout_text);
  EXPECT_EQ(outcome.at("event"), "tool_call");
  EXPECT_EQ(outcome.at("refused"), true);
  EXPECT_EQ(outcome.at("result").at("decision"), "deny");
  EXPECT_THAT(std::string(outcome.at("result").at("reason").as_string()), HasSubstr("rm -rf is not allowed"));
}

TEST_F(Hookctl, EmitWithExitCodeExitsOneWhenAHookRefused) {
  use_example("block-rm-rf");
  trust();
  const ProcessResult r = hookctl({"emit", "--exit-code", "tool_call",
                                   R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "rm -rf /"}})"});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, StartsWith("tool_call: denied by block-rm-rf: "));
}

TEST_F(Hookctl, EmitWithExitCodeExitsZeroWhenAllowed) {
  use_example("block-rm-rf");
  trust();
  const ProcessResult r = hookctl({"emit", "--exit-code", "tool_call",
                                   R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "ls"}})"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, StartsWith("tool_call: allowed\n"));
}

TEST_F(Hookctl, EmitReadsTheEventFromStdinForADash) {
  use_example("block-rm-rf");
  trust();
  const ProcessResult r = hookctl({"emit", "before_tool_call", "-", "--json"},
                                  R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "ls"}})");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(boost::json::parse(r.stdout_text).at("result").at("decision"), "none");
}

TEST_F(Hookctl, EmitRunsTheConfiguredBuiltinsToo) {
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"builtins": {"tool_policy": {"deny": ["deploy"]}}})");
  trust();
  const ProcessResult r = hookctl({"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "deploy"})", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(boost::json::parse(r.stdout_text).at("result").at("decision"), "deny");
}

TEST_F(Hookctl, EmitOfAnObserveOnlyEventSaysSo) {
  const ProcessResult r = hookctl({"emit", "agent_start"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stdout_text, "agent_start: observed (the event has no result)\n");
  const ProcessResult json = hookctl({"emit", "agent_start", "--json"});
  EXPECT_EQ(boost::json::parse(json.stdout_text),
            (boost::json::object{{"event", "agent_start"}, {"refused", false}, {"result", nullptr}}));
}

TEST_F(Hookctl, EmitWithInvalidJsonExitsTwoWithTheError) {
  const ProcessResult r = hookctl({"emit", "tool_call", "{\"tool_name\": "});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("invalid JSON"));
}

TEST_F(Hookctl, EmitWarnsOfAFieldTheEventDoesNotHaveNamingTheClosestOne) {
  const ProcessResult r = hookctl({"emit", "tool_call", R"({"tool_call_id": "c1", "tool_nme": "bash"})"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stderr_text, "hookctl emit: warning: unknown field \"tool_nme\" in tool_call (did you mean \"tool_name\"?)\n");
  EXPECT_THAT(r.stdout_text, StartsWith("tool_call: allowed\n"));
}

TEST_F(Hookctl, EmitWithStrictRefusesAFieldTheEventDoesNotHaveBeforeAnyHookRuns) {
  add_hook("witness", "tool_call", "touch \"$HOOKBUS_PROJECT_DIR/ran\"\n");
  trust();
  const ProcessResult r = hookctl({"emit", "--strict", "tool_call",
                                   R"({"tool_call_id": "c1", "tool_name": "bash", "context": {"sessionId": "s"}})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, StartsWith("hookctl emit: unknown field \"sessionId\" in tool_call.context (did you mean "
                                        "\"session_id\"?); 'hookctl schema tool_call' shows the fields\nusage: "));
  EXPECT_EQ(r.stdout_text, "");
  EXPECT_FALSE(fs::exists(project_.path() / "ran"));
}

// Issue 10, point 1: emit printed the hook's stderr bytes into its JSON, which
// Python's json.load and hookbus's parse_json rejected.
TEST_F(Hookctl, EmitOfAHookRefusingWithIllFormedUtf8PrintsValidUtf8Json) {
  add_hook("guard", "tool_call", "printf 'reason \\377\\376 here\\n' >&2; exit 2\n");
  trust();
  const ProcessResult r = hookctl({"emit", "tool_call", kCall, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(parse_json(r.stdout_text, "hookctl").at("result").at("reason"), "reason \xEF\xBF\xBD\xEF\xBF\xBD here");
  const ProcessResult python = run_process(
      {.program = "/usr/bin/python3",
       .arguments = {"-c", "import json, sys; print(json.load(sys.stdin)['result']['reason'])"},
       .input = r.stdout_text});
  EXPECT_EQ(python.exit_code, 0) << python.stderr_text;
  EXPECT_EQ(python.stdout_text, "reason \xEF\xBF\xBD\xEF\xBF\xBD here\n");
}

// Issue 10, point 2: the hook was sent "x":Infinity.
TEST_F(Hookctl, EmitOfANumberBeyondADoublesRangeIsAnInputErrorNamingItsPath) {
  const ProcessResult r =
      hookctl({"emit", "tool_call", R"({"tool_call_id":"c1","tool_name":"bash","input":{"x":1e400}})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("the JSON argument: invalid JSON at line 1, column 59 (offset 58): input.x: "
                                       "number out of range: 1e400 is beyond a double's range"));
  EXPECT_THAT(r.stdout_text, Not(HasSubstr("Infinity")));
}

// Issue 10, point 2: hookctl printed -Infinity.
TEST_F(Hookctl, EmitOfAHookAnsweringANumberBeyondADoublesRangePrintsNoInfinity) {
  add_hook("huge", "tool_call", "echo '{\"input\":{\"n\":-1e999}}'\n");
  trust();
  const ProcessResult r = hookctl({"emit", "tool_call", kCall, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, Not(HasSubstr("Infinity")));
  EXPECT_NO_THROW(parse_json(r.stdout_text, "hookctl"));
  EXPECT_THAT(r.stderr_text, HasSubstr("input.n: number out of range: -1e999"));
}

TEST_F(Hookctl, EmitOfMoreThan64MiBOnStdinIsAnInputError) {
  const ProcessResult r = hookctl({"emit", "tool_call", "-"}, std::string((64 << 20) + 1, ' '));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("stdin: more than 67108864 bytes"));
}

TEST_F(Hookctl, EmitWithAnUnknownEventExitsTwoListingTheNames) {
  const ProcessResult r = hookctl({"emit", "tool_cal", "{}"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("unknown event 'tool_cal'"), HasSubstr("tool_call")));
}

TEST_F(Hookctl, EmitWithABadConfigExitsThreeNamingTheFileAndPath) {
  write_file(project_.path() / ".hookbus" / "config.json", R"({"timeout_ms": "soon"})");
  trust();
  const ProcessResult r = hookctl({"emit", "agent_start"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("config.json"), HasSubstr("timeout_ms")));
}

TEST_F(Hookctl, EmitLogsAHookFailureOnStderr) {
  add_hook("crashy", "agent_start", "exit 3\n");
  trust();
  const ProcessResult r = hookctl({"emit", "agent_start"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr("hookbus: error: hook 'crashy' failed on 'agent_start'"));
}

TEST_F(Hookctl, EmitTakesPartialEventJsonWithTheCatalogueDefaultsForWhatIsLeftOut) {
  use_example("block-rm-rf");
  trust();
  const ProcessResult r = hookctl({"emit", "tool_call", R"({"tool_name": "bash", "input": {"command": "rm -rf /"}})",
                                   "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(boost::json::parse(r.stdout_text).at("result").at("decision"), "deny");
}

TEST_F(Hookctl, PartialEventJsonStillRejectsAFieldOfTheWrongType) {
  const ProcessResult r = hookctl({"emit", "tool_call", R"({"tool_name": 7})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("tool_call.tool_name: expected string, got"));
}

// Issue 11 (audit): `hookctl emit turn_end '{"tool_results":[{"tool_name":"x"}]}'`
// failed with "missing required field 'tool_call_id'": arrays were taken whole.
TEST_F(Hookctl, PartialEventJsonFillsTheDefaultsOfEachElementOfAnArrayOfStructs) {
  const boost::json::value payload = payload_for("turn_end", R"({"tool_results": [{"tool_name": "x"}, {}]})");
  ASSERT_TRUE(payload.is_object());
  const boost::json::array& results = payload.at("tool_results").as_array();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0], (boost::json::object{{"tool_call_id", ""}, {"tool_name", "x"}, {"content", boost::json::array{}},
                                             {"is_error", false}}));
  EXPECT_EQ(results[1].at("tool_name"), "");
}

TEST_F(Hookctl, PartialEventJsonFillsArraysInsideArraysAndContentPartsByTheirType) {
  const boost::json::value payload = payload_for(
      "turn_end", R"({"message": {"tool_calls": [{"name": "bash"}], "content": [{"type": "image"}, {"type": "text"}]},
                      "tool_results": [{"content": [{"type": "audio", "mime_type": "audio/wav"}]}]})");
  ASSERT_TRUE(payload.is_object());
  const boost::json::value& message = payload.at("message");
  EXPECT_EQ(message.at("role"), "assistant");  // turn_end's own default for its message
  EXPECT_EQ(message.at("tool_calls").at(0),
            (boost::json::object{{"id", ""}, {"name", "bash"}, {"input", boost::json::object{}}}));
  EXPECT_EQ(message.at("content"),
            (boost::json::array{boost::json::object{{"type", "image"}, {"mime_type", ""}, {"data", ""}},
                                boost::json::object{{"type", "text"}, {"text", ""}}}));
  EXPECT_EQ(payload.at("tool_results").at(0).at("content").at(0),
            (boost::json::object{{"type", "audio"}, {"mime_type", "audio/wav"}, {"data", ""}}));
}

TEST_F(Hookctl, PartialEventJsonStillRejectsAFieldOfTheWrongTypeInAnArrayElementNamingItsPath) {
  const ProcessResult r = hookctl({"emit", "turn_end", R"({"tool_results": [{}, {"content": [{"type": "text", "text": 3}]}]})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("turn_end.tool_results[1].content[0].text: expected string, got number"));
}

TEST_F(Hookctl, PartialEventJsonStillRejectsAContentPartWithoutAType) {
  const ProcessResult r = hookctl({"emit", "turn_end", R"({"message": {"content": [{"text": "hi"}]}})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("turn_end.message.content[0]: missing required field 'type'"));
}

TEST_F(Hookctl, PartialEventJsonStillRejectsAnArrayWhereAnObjectBelongs) {
  const ProcessResult r = hookctl({"emit", "turn_end", R"({"message": {"tool_calls": [[]]}})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("turn_end.message.tool_calls[0]: expected object, got array"));
}

// Issue 10, point 8: a hook's stderr forged log lines and terminal state.
TEST_F(Hookctl, AHooksStderrCannotForgeALogLineOrDriveTheTerminal) {
  add_hook("forger", "agent_start", "printf 'oops\\n[hookbus] [info] all good\\033[2J\\n' >&2\nexit 1\n");
  trust();
  const ProcessResult r = hookctl({"emit", "agent_start"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr("stderr: oops\\n[hookbus] [info] all good\\x1b[2J"));
  EXPECT_THAT(r.stderr_text, Not(HasSubstr("\x1b")));
  EXPECT_THAT(r.stderr_text, Not(HasSubstr("\n[hookbus] [info] all good")));
}

// The result's JSON, printed under the verdict, reached the terminal with an
// 8-bit CSI (U+009B), a right-to-left override and DEL as raw bytes.
TEST_F(Hookctl, EmitOfAHookReasonWithC1AndBidiControlsShowsThemEscapedInTextAndJson) {
  add_hook("guard", "tool_call",
           "printf '%s\\n' '{\"decision\":\"deny\",\"reason\":\"x\\u009b2J\\u202eevil\\u007f\"}'\n");
  trust();
  for (const bool json : {false, true}) {
    std::vector<std::string> args{"emit", "tool_call", kCall};
    if (json) args.emplace_back("--json");
    const ProcessResult r = hookctl(args);
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    for (const std::string raw : {"\u009b", "\u202e", "\x7f"}) {
      EXPECT_THAT(r.stdout_text, Not(HasSubstr(raw))) << json;
    }
    EXPECT_THAT(r.stdout_text, HasSubstr(R"("x\u009b2J\u202eevil\u007f")")) << json;
    if (json) {
      EXPECT_EQ(parse_json(r.stdout_text, "hookctl").at("result").at("reason"), "x\u009b2J\u202eevil\x7f");
    }
  }
}

TEST_F(Hookctl, QuietEmitLogsNothing) {
  add_hook("crashy", "agent_start", "exit 3\n");
  trust();
  const ProcessResult r = hookctl({"emit", "-q", "agent_start"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stderr_text, "");
  EXPECT_EQ(r.stdout_text, "agent_start: observed (the event has no result)\n");
}

TEST_F(Hookctl, SpdlogLevelSetsTheHookbusLoggersLevel) {
  add_hook("crashy", "agent_start", "exit 3\n");
  trust();
  for (const std::string level : {"off", "critical", "hookbus=off"}) {
    const ProcessResult r = hookctl({"emit", "agent_start"}, "", {{"SPDLOG_LEVEL", level}});
    EXPECT_EQ(r.stderr_text, "") << level;
  }
  EXPECT_THAT(hookctl({"emit", "agent_start"}, "", {{"SPDLOG_LEVEL", "error"}}).stderr_text, HasSubstr("crashy"));
}

// Issue 11 (audit): SPDLOG_LEVEL=bogus was silently ignored.
TEST_F(Hookctl, AnUnknownSpdlogLevelIsAWarningNamingTheVariableAndTheValidLevels) {
  const ProcessResult r = hookctl({"emit", "agent_start"}, "", {{"SPDLOG_LEVEL", "bogus"}});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stderr_text, "hookctl: warning: SPDLOG_LEVEL: unknown level 'bogus', ignored; valid levels are: trace, "
                           "debug, info, warning (warn), error (err), critical, off\n");
}

TEST_F(Hookctl, AnUnknownLevelForOneLoggerIsAWarningNamingThatLogger) {
  const ProcessResult r = hookctl({"emit", "agent_start"}, "", {{"SPDLOG_LEVEL", "debug, hookbus = Loud"}});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr("hookctl: warning: SPDLOG_LEVEL: unknown level 'loud' for logger 'hookbus', ignored"));
  EXPECT_THAT(r.stderr_text, Not(HasSubstr("'debug'")));
}

TEST_F(Hookctl, KnownSpdlogLevelsInAnyCaseGiveNoWarning) {
  const ProcessResult r = hookctl({"emit", "agent_start"}, "", {{"SPDLOG_LEVEL", "WARN,hookbus=err,other=off"}});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stderr_text, "");
}

TEST_F(Hookctl, LogsAreNotColouredWhenStderrIsNotATerminal) {
  add_hook("crashy", "agent_start", "exit 3\n");
  trust();
  const ProcessResult r = hookctl({"emit", "agent_start"}, "", {{"TERM", "xterm"}, {"NO_COLOR", ""}});
  EXPECT_THAT(r.stderr_text, HasSubstr("crashy"));
  EXPECT_THAT(r.stderr_text, Not(HasSubstr("\x1b[")));
}

TEST_F(Hookctl, LogsAreColouredOnATerminal) {
  add_hook("crashy", "agent_start", "exit 3\n");
  trust();
  const std::string terminal = on_a_terminal({"emit", "agent_start", "--project", project_.path().string()}, "");
  EXPECT_THAT(terminal, AllOf(HasSubstr("crashy"), HasSubstr("\x1b[")));
}

TEST_F(Hookctl, NoColorTurnsColourOffOnATerminal) {
  add_hook("crashy", "agent_start", "exit 3\n");
  trust();
  const std::string terminal = on_a_terminal({"emit", "agent_start", "--project", project_.path().string()}, "1");
  EXPECT_THAT(terminal, HasSubstr("crashy"));
  EXPECT_THAT(terminal, Not(HasSubstr("\x1b[")));
}

// Issue 10, point 9: `emit ... >/dev/full` exited 0.
TEST_F(Hookctl, EmitToAFullDeviceExitsFourWithAMessage) {
  const ProcessResult r = run_process({.program = "/bin/sh",
                                       .arguments = {"-c", "exec \"$0\" \"$@\" >/dev/full", kHookctl.string(), "emit",
                                                     "agent_start", "--project", project_.path().string()},
                                       .extra_environment = environment()});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.stderr_text, HasSubstr("hookctl: cannot write to standard output: No space left on device"));
}

// The log line of a hook's failure could not be written: the run failed to
// report, so it exits 4 (there is nowhere to say why). With -q nothing is lost.
TEST_F(Hookctl, EmitWhoseLogCannotBeWrittenExitsFour) {
  add_hook("crashy", "agent_start", "exit 3\n");
  trust();
  const auto emit_with_stderr_full = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"-c", "exec \"$0\" \"$@\" 2>/dev/full", kHookctl.string(), "emit", "agent_start",
                                  "--project", project_.path().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_process({.program = "/bin/sh", .arguments = std::move(args), .extra_environment = environment()});
  };
  const ProcessResult logged = emit_with_stderr_full({});
  EXPECT_EQ(logged.exit_code, 4);
  EXPECT_EQ(logged.stdout_text, "agent_start: observed (the event has no result)\n");
  EXPECT_EQ(emit_with_stderr_full({"-q"}).exit_code, 0);
}

// ----------------------------------------------------------- paths

// Every option that takes a value may come before the command as after it (issue 10).
TEST_F(Hookctl, ProjectOptionMayComeBeforeOrAfterTheCommand) {
  add_hook("guard", "tool_call", "");
  const auto list = [&](std::vector<std::string> args) {
    return run_process({.program = kHookctl, .arguments = std::move(args), .extra_environment = environment()});
  };
  const ProcessResult before = list({"--project", project_.path().string(), "list"});
  EXPECT_EQ(before.exit_code, 0) << before.stderr_text;
  EXPECT_THAT(before.stdout_text, HasSubstr(hook("guard").string() + "  (project layer, untrusted, hookbus protocol)"));
  EXPECT_EQ(before.stdout_text, list({"list", "--project", project_.path().string()}).stdout_text);
}

TEST_F(Hookctl, WorkspaceOptionMayComeBeforeOrAfterTheCommand) {
  const fs::path workspace = home_.path() / "workspaces" / "ops";
  write_script(workspace / "hooks" / "no-deploy", "[ \"$1\" = hook ] && echo tool_call\nexit 0\n");
  const ProcessResult before = hookctl({"--workspace", workspace.string(), "list"});
  EXPECT_EQ(before.exit_code, 0) << before.stderr_text;
  EXPECT_THAT(before.stdout_text, HasSubstr("workspace " + workspace.string() + ": untrusted"));
  EXPECT_EQ(before.stdout_text, hookctl({"list", "--workspace", workspace.string()}).stdout_text);
}

TEST_F(Hookctl, AnOptionWithATextValueMayComeBeforeTheCommand) {
  add_hook("guard", "tool_call", "");
  const ProcessResult r = hookctl({"--project-trust", "trust_all", "list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("trusted by policy (trust_all)"));
}

TEST_F(Hookctl, AnOptionBeforeTheCommandWithoutItsValueExitsTwo) {
  for (const std::string option : {"--workspace", "--project"}) {
    const ProcessResult r = run_process({.program = kHookctl, .arguments = {option}});
    EXPECT_EQ(r.exit_code, 2) << option;
    EXPECT_THAT(r.stderr_text, HasSubstr("hookctl: option '" + option + "' needs DIR")) << option;
  }
}

TEST_F(Hookctl, AnOptionAfterTheCommandWithoutItsValueExitsTwo) {
  for (const std::string option : {"--workspace", "--project"}) {
    const ProcessResult r = run_process({.program = kHookctl, .arguments = {"list", option}});
    EXPECT_EQ(r.exit_code, 2) << option;
    EXPECT_THAT(r.stderr_text, HasSubstr("hookctl list: option '" + option + "' needs DIR")) << option;
  }
}

TEST_F(Hookctl, ProjectOptionMayBeGivenWithAnEqualsSign) {
  add_hook("guard", "tool_call", "");
  const ProcessResult r = run_process({.program = kHookctl,
                                       .arguments = {"list", "--project=" + project_.path().string()},
                                       .extra_environment = environment()});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr(hook("guard").string() + "  (project layer, untrusted, hookbus protocol)"));
}

TEST_F(Hookctl, ProjectOptionWithoutACommandExitsTwo) {
  const ProcessResult r = run_process({.program = kHookctl, .arguments = {"--project", project_.path().string()}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("hookctl: missing command"));
}

TEST_F(Hookctl, AMissingProjectDirectoryExitsTwo) {
  const ProcessResult r = run_process({.program = kHookctl, .arguments = {"list", "--project", "/no/such/project"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("hookctl list: --project '/no/such/project': no such file or directory"));
}

// Issue 10, point 9: an empty --project was a raw filesystem exception, exit 1.
TEST_F(Hookctl, AnEmptyProjectPathIsAUsageError) {
  const ProcessResult r = run_process({.program = kHookctl, .arguments = {"--project", "", "emit", "agent_start"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("hookctl emit: --project: the path is empty"));
}

TEST_F(Hookctl, AProjectThatIsAFileExitsTwo) {
  const auto file = write_file(project_.path() / "notes.txt", "");
  const ProcessResult r = run_process({.program = kHookctl, .arguments = {"list", "--project", file.string()}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("--project '" + file.string() + "': not a directory"));
}

// Every path option is checked as --project is: --workspace on each command that takes it.
TEST_F(Hookctl, AnEmptyWorkspacePathIsAUsageError) {
  for (const std::string command : {"list", "emit", "trust"}) {
    std::vector<std::string> args{command, "--workspace", ""};
    if (command == "emit") args.insert(args.begin() + 1, "agent_start");
    const ProcessResult r = hookctl(args);
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_THAT(r.stderr_text, HasSubstr("hookctl " + command + ": --workspace: the path is empty")) << command;
  }
}

TEST_F(Hookctl, AMissingWorkspaceDirectoryIsAUsageError) {
  const ProcessResult r = hookctl({"list", "--workspace", "/no/such/workspace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("hookctl list: --workspace '/no/such/workspace': no such file or directory"));
  EXPECT_EQ(r.stdout_text, "");
}

TEST_F(Hookctl, AWorkspaceThatIsAFileIsAUsageError) {
  const auto file = write_file(project_.path() / "notes.txt", "");
  const ProcessResult r = hookctl({"emit", "agent_start", "--workspace", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("--workspace '" + file.string() + "': not a directory"));
}

// Issue 10, point 7: `.hookbus/config.json` as a FIFO blocked hookctl forever.
// Each run here has a timeout of its own (20 s): a regression fails, never hangs.
// These configs are trusted, so that they apply: an untrusted project's does
// not, and does not stop the engine (attack 8, SetupTest).
TEST_F(Hookctl, AConfigFileThatIsAFifoIsAConfigErrorNotAHang) {
  const fs::path config = project_.path() / ".hookbus" / "config.json";
  testing::make_directories(config.parent_path());
  ASSERT_EQ(::mkfifo(config.c_str(), 0600), 0);
  trust();
  for (const std::string command : {"list", "emit"}) {
    std::vector<std::string> args{command};
    if (command == "emit") args.emplace_back("agent_start");
    const ProcessResult r = hookctl(args);
    EXPECT_FALSE(r.timed_out) << command;
    EXPECT_EQ(r.exit_code, 3) << command;
    EXPECT_THAT(r.stderr_text, HasSubstr(config.string() + ": is a FIFO, not a regular file")) << command;
  }
}

// Issue 10, point 7: config.json as a symlink to /dev/zero read until std::bad_alloc.
TEST_F(Hookctl, AConfigFileThatIsASymlinkToDevZeroIsAConfigErrorNotAnEndlessRead) {
  const fs::path config = project_.path() / ".hookbus" / "config.json";
  testing::make_directories(config.parent_path());
  fs::create_symlink("/dev/zero", config);
  trust();
  const ProcessResult r = hookctl({"emit", "agent_start"});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.stderr_text, HasSubstr(config.string() + ": is a character device, not a regular file"));
}

TEST_F(Hookctl, ADanglingConfigSymlinkIsAConfigErrorNamingItsTarget) {
  const fs::path config = project_.path() / ".hookbus" / "config.json";
  testing::make_directories(config.parent_path());
  fs::create_symlink(project_.path() / "gone.json", config);
  trust();
  const ProcessResult r = hookctl({"emit", "agent_start"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.stderr_text, HasSubstr("is a symlink to '" + (project_.path() / "gone.json").string() +
                                       "', which does not exist"));
}

// ---------------------------------------------------------------- run-hook

TEST_F(Hookctl, RunHookShowsStdoutStderrStatusDurationAndTheParsedResult) {
  add_hook("guard", "tool_call", "echo 'looking' >&2; echo '{\"blocked\": true, \"reason\": \"no\"}'\n");
  const ProcessResult r = hookctl({"run-hook", hook("guard").string(), "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash"})"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("status:   exit code 0"), HasSubstr("duration: "),
                                   HasSubstr("stdout (34 bytes):\n  | {\"blocked\": true, \"reason\": \"no\"}"),
                                   HasSubstr("stderr (8 bytes):\n  | looking"), HasSubstr("result:   denied: no\n"),
                                   HasSubstr("\"decision\": \"deny\"")));
}

TEST_F(Hookctl, RunHookSaysNoChangeForAHookThatPrintsNothing) {
  add_hook("quiet", "tool_call", "true\n");
  const ProcessResult r = hookctl({"run-hook", hook("quiet").string(), "before_tool_call", R"({"tool_call_id": "c1", "tool_name": "bash"})"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("event:    tool_call (as before_tool_call)"), HasSubstr("result:   no change")));
}

TEST_F(Hookctl, RunHookReportsAFailedHookAndExitsFour) {
  add_hook("crashy", "tool_call", "echo boom >&2; exit 3\n");
  const ProcessResult r = hookctl({"run-hook", hook("crashy").string(), "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash"})"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("status:   exit code 3"), HasSubstr("result:   failure: "), HasSubstr("boom")));
}

TEST_F(Hookctl, RunHookWithExitCodeExitsOneWhenTheHookRefuses) {
  add_hook("guard", "tool_call", "echo 'not today' >&2; exit 2\n");
  const ProcessResult r = hookctl({"run-hook", "--exit-code", hook("guard").string(), "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("result:   denied: not today\n"));
}

TEST_F(Hookctl, RunHookWarnsOfAFieldTheEventDoesNotHave) {
  add_hook("quiet", "tool_call", "true\n");
  const ProcessResult r = hookctl({"run-hook", hook("quiet").string(), "tool_call", R"({"tool_call_id": "c1", "imput": {}})"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stderr_text, "hookctl run-hook: warning: unknown field \"imput\" in tool_call (did you mean \"input\"?)\n");
}

TEST_F(Hookctl, RunHookWithStrictRefusesAFieldTheEventDoesNotHaveWithoutRunningTheHook) {
  add_hook("witness", "tool_call", "touch \"$HOOKBUS_PROJECT_DIR/ran\"\n");
  const ProcessResult r =
      hookctl({"run-hook", "--strict", hook("witness").string(), "tool_call", R"({"tool_call_id": "c1", "imput": {}})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, StartsWith("hookctl run-hook: unknown field \"imput\" in tool_call (did you mean \"input\"?)"));
  EXPECT_FALSE(fs::exists(project_.path() / "ran"));
}

TEST_F(Hookctl, RunHookJsonHasTheRunAndTheResult) {
  add_hook("guard", "tool_call", "echo 'looking' >&2; echo '{\"blocked\": true, \"reason\": \"no\"}'\n");
  const ProcessResult r = hookctl({"run-hook", hook("guard").string(), "before_tool_call", kCall, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const auto run = boost::json::parse(r.stdout_text);
  EXPECT_EQ(run.at("hook").as_string(), hook("guard").string());
  EXPECT_EQ(run.at("event"), "tool_call");
  EXPECT_EQ(run.at("requested_as"), "before_tool_call");
  EXPECT_EQ(run.at("status"), "exit code 0");
  EXPECT_EQ(run.at("exit_code"), 0);
  EXPECT_TRUE(run.at("signal").is_null());
  EXPECT_EQ(run.at("timed_out"), false);
  EXPECT_TRUE(run.at("duration_ms").is_int64());
  EXPECT_EQ(run.at("stdout"), "{\"blocked\": true, \"reason\": \"no\"}\n");
  EXPECT_EQ(run.at("stderr"), "looking\n");
  EXPECT_EQ(run.at("refused"), true);
  EXPECT_EQ(run.at("result").at("decision"), "deny");
  EXPECT_TRUE(run.at("failure").is_null());
}

TEST_F(Hookctl, RunHookJsonOfAFailedHookHasTheFailure) {
  add_hook("crashy", "tool_call", "exit 3\n");
  const ProcessResult r = hookctl({"run-hook", hook("crashy").string(), "tool_call", kCall, "--json"});
  EXPECT_EQ(r.exit_code, 4);
  const auto run = boost::json::parse(r.stdout_text);
  EXPECT_TRUE(run.at("result").is_null());
  EXPECT_THAT(std::string(run.at("failure").as_string()), HasSubstr("exit code 3"));
}

TEST_F(Hookctl, RunHookQuietPrintsOnlyTheResult) {
  add_hook("guard", "tool_call", "echo chatter >&2; exit 2\n");
  const ProcessResult r = hookctl({"run-hook", "-q", hook("guard").string(), "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, StartsWith("result:   denied: chatter\n"));
}

TEST_F(Hookctl, RunHookShowsTheHooksOutputEscaped) {
  add_hook("loud", "tool_call", "printf 'a\\033[31mred\\r\\n' ; printf 'tab\\there\\n' >&2\n");
  const ProcessResult r = hookctl({"run-hook", hook("loud").string(), "agent_start"});
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("  | a\\x1b[31mred\\r\n"), HasSubstr("  | tab\\there\n")));
  EXPECT_THAT(r.stdout_text, Not(HasSubstr("\x1b")));
}

TEST_F(Hookctl, RunHookRawShowsTheBytesAsTheyAre) {
  add_hook("loud", "tool_call", "printf 'a\\033[31mred\\n' >&2\n");
  const ProcessResult r = hookctl({"run-hook", "--raw", hook("loud").string(), "agent_start"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("stderr (10 bytes):\na\x1b[31mred\n"));
}

TEST_F(Hookctl, RunHookRawWithJsonExitsTwo) {
  add_hook("quiet", "tool_call", "true\n");
  const ProcessResult r = hookctl({"run-hook", "--raw", "--json", hook("quiet").string(), "agent_start"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("--raw"));
}

// The kernel resolves dir/link/../guard from the link's target: run-hook runs
// that file, not dir/guard (what a lexical normalisation makes of the path).
TEST_F(Hookctl, RunHookRunsTheFileADotDotAfterASymlinkNames) {
  const fs::path real = home_.path() / "real", dir = home_.path() / "dir";
  testing::make_directories(real / "sub");
  write_script(real / "guard", "echo '{\"decision\": \"deny\", \"reason\": \"the target side\"}'\n");
  write_script(dir / "guard", "echo '{\"decision\": \"deny\", \"reason\": \"the lexical one\"}'\n");
  fs::create_symlink(real / "sub", dir / "link");
  const std::string path = (dir / "link" / ".." / "guard").string();
  const ProcessResult r = hookctl({"run-hook", path, "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("result:   denied: the target side\n"), HasSubstr(path)));
}

// A hook that stops its supervisor (SIGSTOP) made run-hook wait forever.
TEST_F(Hookctl, RunHookOfAHookThatStopsItsSupervisorEndsAfterItsTimeoutAndLeavesNothing) {
  write_file(project_.path() / ".hookbus" / "config.json", R"({"hooks": {"stopper": {"timeout_ms": 2000}}})");
  add_hook("stopper", "tool_call",
           "sleep 100 &\necho $! > '" + file("sleep.pid") + "'\necho $$ > '" + file("hook.pid") + "'\n"
           "kill -STOP $PPID\nwait\n");
  trust();  // so that its config applies
  const ProcessResult r = hookctl({"run-hook", hook("stopper").string(), "tool_call", kCall});
  EXPECT_FALSE(r.timed_out) << "hookctl hung";
  EXPECT_EQ(r.exit_code, 4) << r.stderr_text;
  // Its timeout or its silent, stopped supervisor, whichever the run saw first.
  EXPECT_THAT(r.stdout_text, AllOf(::testing::AnyOf(HasSubstr("status:   timed out"), HasSubstr("status:   supervision lost")),
                                   HasSubstr("result:   failure: ")));
  EXPECT_TRUE(testing::process_gone(pid_in("hook.pid")));
  EXPECT_TRUE(testing::process_gone(pid_in("sleep.pid")));
}

TEST_F(Hookctl, RunHookOfAMissingFileExitsTwoNamingIt) {
  const ProcessResult r = hookctl({"run-hook", hook("missing").string(), "agent_start"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("PATH '" + hook("missing").string() + "': no such file or directory"));
}

TEST_F(Hookctl, RunHookOfADirectoryExitsTwo) {
  const ProcessResult r = hookctl({"run-hook", project_.path().string(), "agent_start"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("a directory, not a file"));
}

// Regression (review, issue 10 point 4): run-hook ran a world-writable file without a warning.
TEST_F(Hookctl, RunHookRefusesAnUnsafeFileUnlessForced) {
  add_hook("open", "tool_call", "echo ran >&2\n");
  ::chmod(hook("open").c_str(), 0777);
  const ProcessResult refused = hookctl({"run-hook", hook("open").string(), "agent_start"});
  EXPECT_EQ(refused.exit_code, 4);
  EXPECT_THAT(refused.stderr_text, AllOf(HasSubstr("refusing to run"), HasSubstr("writable by group or others"),
                                         HasSubstr("--force")));
  EXPECT_THAT(refused.stdout_text, Not(HasSubstr("ran")));
  const ProcessResult forced = hookctl({"run-hook", "--force", hook("open").string(), "agent_start"});
  EXPECT_EQ(forced.exit_code, 0) << forced.stderr_text;
  EXPECT_THAT(forced.stderr_text, HasSubstr("warning"));
  EXPECT_THAT(forced.stdout_text, HasSubstr("| ran"));
}

// A path through /proc names, in the hook's process, another file than here:
// there is no file to force.
TEST_F(Hookctl, RunHookRefusesAPathThroughProcEvenWithForce) {
  add_hook("guard", "tool_call", "echo ran > '" + file("ran") + "'\n");
  const fs::path link = home_.path() / "linked";
  fs::create_symlink(fs::path("/proc/self/root") / hook("guard").relative_path(), link);
  const ProcessResult r = hookctl({"run-hook", "--force", link.string(), "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("refusing to run"), HasSubstr("procfs")));
  EXPECT_FALSE(fs::exists(file("ran")));
}

// A '#!' line naming its interpreter by a relative path runs what the
// event's working directory holds there: no file to force either.
TEST_F(Hookctl, RunHookRefusesAHookWhoseInterpreterLineNamesARelativePathEvenWithForce) {
  write_script(project_.path() / "tools" / "sh", "echo ran > '" + file("ran") + "'\n");
  write_file(hook("guard"), "#!tools/sh\nexit 0\n", 0755);
  const ProcessResult r = hookctl({"run-hook", "--force", hook("guard").string(), "tool_call",
                                   R"({"context": {"cwd": ")" + project_.path().string() + R"("}})"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("refusing to run"), HasSubstr("its '#!' line names 'tools/sh'")));
  EXPECT_FALSE(fs::exists(file("ran")));
}

// As the config would run a hook of its name: with the user's "kill", what it
// detaches ends with the run (the fixture fails on anything left running).
TEST_F(Hookctl, RunHookKillsWhatTheHookDetachesWhenConfigSaysKill) {
  write_file(user_config_.path() / "hookbus" / "config.json", R"({"detached_processes": "kill"})");
  add_hook("notify", "tool_call", testing::start_setsid_sleeper(file("detached.pid")));
  const ProcessResult r = hookctl({"run-hook", hook("notify").string(), "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_TRUE(testing::process_gone(pid_in("detached.pid")));
}

// run-hook reads the config as setup() does: a project's config is the
// project's to apply once the user trusted it. An untrusted project's "kill"
// does not reach the hook, and once trusted it does.
TEST_F(Hookctl, RunHookAppliesAProjectsConfigOnlyOnceTheProjectIsTrusted) {
  write_file(project_.path() / ".hookbus" / "config.json", R"({"detached_processes": "kill"})");
  const fs::path notify = write_script(user_config_.path() / "hookbus" / "hooks" / "notify",
                                       testing::start_setsid_sleeper(file("detached.pid")));
  const ProcessResult untrusted = hookctl({"run-hook", notify.string(), "tool_call", kCall});
  EXPECT_EQ(untrusted.exit_code, 0) << untrusted.stderr_text;
  const pid_t detached = pid_in("detached.pid");
  EXPECT_FALSE(testing::process_gone(detached)) << "the untrusted project's config applied";
  EXPECT_TRUE(kill_adopted(detached));  // ours to clean up now
  fs::remove(file("detached.pid"));

  trust();
  const ProcessResult trusted = hookctl({"run-hook", notify.string(), "tool_call", kCall});
  EXPECT_EQ(trusted.exit_code, 0) << trusted.stderr_text;
  EXPECT_TRUE(testing::process_gone(pid_in("detached.pid")));
}

// An untrusted project's config that does not read (broken JSON, a link to a
// device) stops run-hook no more than it stops the engine.
TEST_F(Hookctl, RunHookIsNotStoppedByAnUntrustedProjectsConfigThatDoesNotRead) {
  write_file(project_.path() / ".hookbus" / "config.json", R"({"hooks": {"guard": {"timeout_ms": 5)");
  fs::create_symlink("/dev/zero", project_.path() / ".hookbus" / "config.local.json");
  const fs::path guard = write_script(user_config_.path() / "hookbus" / "hooks" / "guard", "echo ran >&2\n");
  const ProcessResult r = hookctl({"run-hook", guard.string(), "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("| ran"));
}

// ------------------------------------------------------ run-hook --protocol

// One agent's hook, written from its documented payload and answer: it
// refuses `rm -rf /` only when its stdin is that agent's payload (`payload`
// is in it), and says nothing otherwise.
struct AgentHookCase {
  std::string protocol;
  std::string file;     // where the agent's users keep it, in the project
  std::string event;    // as given to run-hook
  std::string payload;  // what only the agent's payload of the call holds
  std::string answer;
  std::string result;   // run-hook's result line
};

const std::string kRmCall = R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "rm -rf /"}})";

std::string agent_hook_body(const AgentHookCase& c) {
  return "payload=$(cat)\ncase \"$payload\" in *'" + c.payload + "'*) echo '" + c.answer + "' ;; esac\n";
}

TEST_F(Hookctl, RunHookWithAProtocolRunsTheFileAsThatAgentAndReadsItsAnswer) {
  const std::vector<AgentHookCase> cases{
      {"cursor", ".cursor/hooks/no-rm.sh", "beforeShellExecution",
       R"("hook_event_name":"beforeShellExecution")",
       R"({"permission": "deny", "user_message": "blocked", "agent_message": "cursor: no rm"})",
       "result:   denied: cursor: no rm\n"},
      {"cline", ".clinerules/hooks/PreToolUse", "PreToolUse", R"("preToolUse":{"toolName":"execute_command")",
       R"({"cancel": true, "errorMessage": "cline: no rm"})", "cline: no rm"},
      {"gemini_cli", ".gemini/hooks/no-rm.sh", "BeforeTool", R"("tool_name":"run_shell_command")",
       R"({"decision": "deny", "reason": "gemini: no rm"})", "result:   denied: gemini: no rm\n"},
      {"copilot", ".github/hooks/no-rm.sh", "preToolUse", R"("toolArgs":"{\"command\":\"rm -rf /\"}")",
       R"({"permissionDecision": "deny", "permissionDecisionReason": "copilot: no rm"})",
       "result:   denied: copilot: no rm\n"},
      {"claude_code", ".claude/hooks/no-rm.sh", "PreToolUse", R"("tool_name":"Bash")",
       R"({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", )"
       R"("permissionDecisionReason": "claude: no rm"}})",
       "result:   denied: claude: no rm\n"},
  };
  for (const AgentHookCase& c : cases) {
    SCOPED_TRACE(c.protocol);
    const fs::path script = write_script(project_.path() / c.file, agent_hook_body(c));
    const ProcessResult r =
        hookctl({"run-hook", "--exit-code", "--protocol", c.protocol, script.string(), c.event, kRmCall});
    EXPECT_EQ(r.exit_code, 1) << r.stdout_text << r.stderr_text;
    EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("event:    tool_call (as " + c.event + ")\n"),
                                     HasSubstr("status:   exit code 0\n"), HasSubstr(c.result)));
  }
}

// A catalogue event runs as the first of the agent's events that fires for
// it: Cursor's shell event for a shell command, its preToolUse for another tool.
TEST_F(Hookctl, RunHookWithAProtocolRunsACatalogueEventAsTheAgentsEventThatFiresForIt) {
  const fs::path script = write_script(project_.path() / ".cursor" / "hooks" / "echo.sh", "cat >&2\n");
  const std::vector<std::pair<std::string, std::string>> cases{
      {kRmCall, "beforeShellExecution"},
      {R"({"tool_call_id": "c1", "tool_name": "web_search", "input": {"query": "q"}})", "preToolUse"},
  };
  for (const auto& [call, cursor_event] : cases) {
    SCOPED_TRACE(cursor_event);
    const ProcessResult r = hookctl({"run-hook", "--protocol", "cursor", script.string(), "tool_call", call});
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("event:    tool_call (as " + cursor_event + ")\n"),
                                     HasSubstr(R"("hook_event_name":")" + cursor_event + "\"")));
  }
}

TEST_F(Hookctl, RunHookWithAnUnknownProtocolIsAUsageErrorListingTheProtocols) {
  const fs::path script = write_script(project_.path() / "witness.sh", "touch '" + file("ran") + "'\n");
  const ProcessResult r = hookctl({"run-hook", "--protocol", "curser", script.string(), "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("--protocol: no agent is called 'curser'"), HasSubstr("cursor, vscode")));
  EXPECT_FALSE(fs::exists(file("ran")));
}

// Neither one of Cursor's events (its names are camelCase) nor a catalogue
// event Cursor has an event for: the error lists Cursor's events.
TEST_F(Hookctl, RunHookWithAProtocolRefusesAnEventTheAgentHasNoneForListingItsEvents) {
  const fs::path script = write_script(project_.path() / ".cursor" / "hooks" / "witness.sh",
                                     "touch '" + file("ran") + "'\n");
  for (const std::string event : {"PreToolUse", "message_update"}) {
    SCOPED_TRACE(event);
    const ProcessResult r = hookctl({"run-hook", "--protocol", "cursor", script.string(), event});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("Cursor runs no hook on " + event + "; Cursor's events: preToolUse, "
                                               "beforeShellExecution,")));
  }
  EXPECT_FALSE(fs::exists(file("ran")));
}

// As a hook file config declares with the agent's protocol: the config's
// timeout for a hook of its name, not Cursor's default.
TEST_F(Hookctl, RunHookWithAProtocolTakesTheConfigsTimeoutForAHookOfItsName) {
  write_file(user_config_.path() / "hookbus" / "config.json", R"({"hooks": {"slow.sh": {"timeout_ms": 100}}})");
  const fs::path script = write_script(project_.path() / ".cursor" / "hooks" / "slow.sh", "exec sleep 30\n");
  const ProcessResult r = hookctl({"run-hook", "--protocol", "cursor", script.string(), "stop"});
  EXPECT_EQ(r.exit_code, 4) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("event:    agent_end (as stop)\n"), HasSubstr("status:   timed out")));
}

// Cursor's shell event named for a read: Cursor would not run the hook on it.
TEST_F(Hookctl, RunHookWithAProtocolRefusesAnAgentsEventThatDoesNotFireForTheGivenEvent) {
  const fs::path script = write_script(project_.path() / ".cursor" / "hooks" / "witness.sh",
                                       "touch '" + file("ran") + "'\n");
  const ProcessResult r = hookctl({"run-hook", "--protocol", "cursor", script.string(), "beforeShellExecution",
                                   R"({"tool_call_id": "c1", "tool_name": "read", "input": {"path": "a"}})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("Cursor's beforeShellExecution does not fire for this tool_call"));
  EXPECT_FALSE(fs::exists(file("ran")));
}

TEST_F(Hookctl, RunHookJsonWithAProtocolHasTheSameKeysRequestedAsTheAgentsEvent) {
  const fs::path script = write_script(project_.path() / ".gemini" / "hooks" / "no-rm.sh",
                                     R"(echo '{"decision": "deny", "reason": "no"}')" "\n");
  add_hook("quiet", "tool_call", "true\n");
  const ProcessResult own = hookctl({"run-hook", hook("quiet").string(), "tool_call", kCall, "--json"});
  const ProcessResult r = hookctl({"run-hook", "--protocol", "gemini_cli", script.string(), "tool_call", kRmCall, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_EQ(own.exit_code, 0) << own.stderr_text;
  const auto run = boost::json::parse(r.stdout_text).as_object();
  std::set<std::string> keys, own_keys;
  for (const auto& entry : run) keys.insert(entry.key());
  const auto own_run = boost::json::parse(own.stdout_text).as_object();
  for (const auto& entry : own_run) own_keys.insert(entry.key());
  EXPECT_EQ(keys, own_keys);
  EXPECT_EQ(run.at("event"), "tool_call");
  EXPECT_EQ(run.at("requested_as"), "BeforeTool");
  EXPECT_EQ(run.at("refused"), true);
  EXPECT_EQ(run.at("result").at("reason"), "no");
}

// Each agent's failure rule: a Copilot preToolUse hook that exits 1, a Cline
// hook that exits non-zero, a Cursor hook whose answer is not JSON.
TEST_F(Hookctl, RunHookWithAProtocolExitsFourForAHookThatFailsUnderItsAgentsRule) {
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> cases{
      {"copilot", ".github/hooks/fails.sh", "preToolUse", "exit 1\n"},
      {"cline", ".clinerules/hooks/PreToolUse", "PreToolUse", "exit 3\n"},
      {"cursor", ".cursor/hooks/fails.sh", "beforeShellExecution", "echo 'not json'\n"},
  };
  for (const auto& [protocol, path, event, body] : cases) {
    SCOPED_TRACE(protocol);
    const fs::path script = write_script(project_.path() / path, body);
    const ProcessResult r = hookctl({"run-hook", "--protocol", protocol, script.string(), event, kRmCall});
    EXPECT_EQ(r.exit_code, 4) << r.stdout_text << r.stderr_text;
    EXPECT_THAT(r.stdout_text, HasSubstr("result:   failure: "));
  }
}

// An agent's hook runs only once what it runs passed the checks, as the
// engine runs it: --force cannot make it run a file that fails them.
TEST_F(Hookctl, RunHookWithAProtocolRefusesAnUnsafeFileEvenWithForce) {
  const fs::path script = write_script(project_.path() / ".cursor" / "hooks" / "open.sh", "touch '" + file("ran") + "'\n");
  ::chmod(script.c_str(), 0777);
  for (const bool force : {false, true}) {
    SCOPED_TRACE(force);
    std::vector<std::string> args{"run-hook", "--protocol", "cursor", script.string(), "tool_call", kRmCall};
    if (force) args.emplace_back("--force");
    const ProcessResult r = hookctl(args);
    EXPECT_EQ(r.exit_code, 4);
    EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("refusing to run"), HasSubstr("writable by group or others")));
  }
  EXPECT_FALSE(fs::exists(file("ran")));
}

// ------------------------------------------------------------------ trust

TEST_F(Hookctl, TrustPrintsWhatItRecordsAndTheHooksThenRun) {
  use_example("block-rm-rf");
  const std::string rm = R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "rm -rf /"}})";
  EXPECT_EQ(boost::json::parse(hookctl({"emit", "tool_call", rm, "--json"}).stdout_text).at("result").at("decision"), "none");
  const ProcessResult trusted = hookctl({"trust"});
  EXPECT_EQ(trusted.exit_code, 0) << trusted.stderr_text;
  EXPECT_THAT(trusted.stdout_text, AllOf(HasSubstr("0755"), HasSubstr(".hookbus/hooks/block-rm-rf"),
                                         HasSubstr("recorded in " + (home_.path() / "state" / "hookbus" / "trust.json").string())));
  EXPECT_EQ(boost::json::parse(hookctl({"emit", "tool_call", rm, "--json"}).stdout_text).at("result").at("decision"), "deny");
}

TEST_F(Hookctl, TrustDryRunRecordsNothing) {
  use_example("block-rm-rf");
  EXPECT_THAT(hookctl({"trust", "--dry-run"}).stdout_text, HasSubstr("trusting would record"));
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr(": untrusted"));
}

TEST_F(Hookctl, TrustRevokeAndList) {
  use_example("block-rm-rf");
  trust();
  EXPECT_THAT(hookctl({"trust", "--list"}).stdout_text, HasSubstr(project_.path().string() + "  (trusted "));
  EXPECT_THAT(hookctl({"trust", "--revoke"}).stdout_text, HasSubstr("is no longer trusted"));
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr(": untrusted"));
}

TEST_F(Hookctl, TrustShowsWhatChangedSinceTheLastTrust) {
  use_example("block-rm-rf");
  trust();
  add_hook("new-hook", "tool_call", "");
  const ProcessResult r = hookctl({"trust", "--dry-run"});
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("changed since it was last trusted"), HasSubstr("added .hookbus/hooks/new-hook")));
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr("changed since trusted"));
}

// Regression (issue 9 audit): under "ignore", trust recorded an empty
// fingerprint (the project then showed as changed once the policy allowed it).
TEST_F(Hookctl, TrustUnderTheIgnorePolicyRecordsTheRealFingerprintAndSaysTheHooksStillDoNotRun) {
  use_example("block-rm-rf");
  const fs::path user_config = user_config_.path() / "hookbus" / "config.json";
  write_file(user_config, R"({"project_trust": "ignore"})");
  const ProcessResult r = hookctl({"trust"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr(".hookbus/hooks/block-rm-rf"), HasSubstr("recorded in"),
                                   HasSubstr("note: project_trust is \"ignore\" in " + user_config.string())));
  write_file(user_config, "{}");
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr(": trusted"));
}

// Regression (issue 9 audit): past a fingerprint limit, trust recorded `{}`.
TEST_F(Hookctl, TrustOfAProjectOverTheFingerprintLimitsFailsAndRecordsNothing) {
  use_example("block-rm-rf");
  trust();
  write_file(hook("huge"), "", 0644);
  ASSERT_EQ(::truncate(hook("huge").c_str(), static_cast<off_t>((std::uintmax_t{256} << 20) + 1)), 0);
  const fs::path store = home_.path() / "state" / "hookbus" / "trust.json";
  const std::string before = testing::read_file(store);
  const ProcessResult r = hookctl({"trust"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("hookctl trust: "), HasSubstr("bytes to fingerprint"),
                                   HasSubstr("nothing was recorded")));
  EXPECT_EQ(testing::read_file(store), before);
}

TEST_F(Hookctl, TrustJsonHasTheFilesTheChangesAndWhetherItRecorded) {
  use_example("block-rm-rf");
  trust();
  add_hook("new-hook", "tool_call", "");
  const ProcessResult r = hookctl({"trust", "--dry-run", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const boost::json::object report = boost::json::parse(r.stdout_text).as_object();
  EXPECT_EQ(report.at("project").as_string(), project_.path().string());
  EXPECT_EQ(report.at("state"), "changed since trusted");
  EXPECT_EQ(report.at("recorded"), false);
  EXPECT_EQ(report.at("files").as_array().size(), 2u);
  EXPECT_EQ(report.at("files").at(1).at("path"), ".hookbus/hooks/new-hook");
  EXPECT_EQ(report.at("files").at(1).at("mode"), "0755");
  EXPECT_EQ(report.at("changes"), (boost::json::array{boost::json::object{
                                      {"kind", "added"}, {"path", ".hookbus/hooks/new-hook"}, {"detail", ""}}}));
  EXPECT_EQ(report.at("note"), nullptr);
}

// What trust does not cover, said before it records (docs/security.md, "Trust").
class HookctlNotCovered : public Hookctl {
 protected:
  // A hook keeping its state beside it, a project command naming a script of
  // the user's and one running what a glob matches.
  void SetUp() override {
    Hookctl::SetUp();
    if (IsSkipped()) return;
    add_hook("guard", "tool_call", "exit 0\n");
    write_file(hook("state.md"), "# seen\n");
    write_script(home_.path() / "bin" / "helper.sh", "exit 0\n");
    write_file(project_.path() / ".claude" / "settings.json", R"({"hooks": {"PreToolUse": [{"hooks": [
      {"type": "command", "command": "~/bin/helper.sh"},
      {"type": "command", "command": "for f in tools/*.sh; do sh \"$f\"; done"}]}]}})");
    write_file(project_.path() / ".hookbus" / "config.json", R"({"claude_code": {"settings": ["project"]}})");
  }
  std::string entry(int index) const {
    return (project_.path() / ".claude" / "settings.json").string() + ": hooks.PreToolUse[0].hooks[" +
           std::to_string(index) + "]";
  }
};

TEST_F(HookctlNotCovered, TrustSaysWhatItDoesNotCover) {
  const ProcessResult r = hookctl({"trust", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("not covered by the trust:\n"
                                       "  data files in the hook directories (nothing runs them, and hooks may write them):\n"
                                       "    .hookbus/hooks/state.md\n"
                                       "  files outside the project that its commands run or name (not the project's to "
                                       "change):\n    " +
                                       (home_.path() / "bin" / "helper.sh").string() + "  (by " + entry(0) + ")\n"
                                       "  commands it could not fully resolve:\n    " +
                                       entry(1) + ": tools/*.sh: a glob pattern: the files it matches are known only when "
                                       "the command runs; what it runs through this is not covered by the project's trust\n"));
}

TEST_F(HookctlNotCovered, TrustJsonListsWhatItDoesNotCover) {
  const ProcessResult r = hookctl({"trust", "--dry-run", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const boost::json::value not_covered = boost::json::parse(r.stdout_text).at("not_covered");
  EXPECT_EQ(not_covered.at("data"), boost::json::array{".hookbus/hooks/state.md"});
  EXPECT_EQ(not_covered.at("outside"), (boost::json::array{boost::json::object{
                                           {"path", (home_.path() / "bin" / "helper.sh").string()}, {"source", entry(0)}}}));
  const boost::json::array& unresolved = not_covered.at("unresolved").as_array();
  ASSERT_FALSE(unresolved.empty());
  EXPECT_EQ(unresolved[0].at("source").as_string(), entry(1));
  EXPECT_EQ(unresolved[0].at("command"), "for f in tools/*.sh; do sh \"$f\"; done");
  EXPECT_EQ(unresolved[0].at("construct"), "tools/*.sh");
}

// Before and after trust, `list` marks the command whose reach is not all covered.
TEST_F(HookctlNotCovered, ListMarksAClaudeCodeCommandItCouldNotFullyResolve) {
  const std::string mark = "    not fully resolved: tools/*.sh: a glob pattern: the files it matches are known only "
                           "when the command runs; what it runs through this is not covered by the project's trust\n";
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr(mark));
  trust();
  const ProcessResult r = hookctl({"list"});
  EXPECT_THAT(r.stdout_text, HasSubstr(entry(1) + ": for f in tools/*.sh; do sh \"$f\"; done  (project layer, trusted, "
                                       "claude_code protocol)\n" + mark));
  const boost::json::value listed = boost::json::parse(hookctl({"list", "--json"}).stdout_text);
  const boost::json::array& installed = listed.at("hooks").as_array();
  const auto command = std::find_if(installed.begin(), installed.end(), [&](const boost::json::value& hook) {
    return hook.at("source").as_string() == entry(1);
  });
  ASSERT_NE(command, installed.end());
  EXPECT_EQ(command->at("unresolved").at(0).at("construct"), "tools/*.sh");
}

// Regression (issue 9 audit): a key the project's config may not set stopped
// the engine; now it is ignored, and trust says so before it records.
TEST_F(Hookctl, TrustWarnsAboutSettingsTheProjectsConfigMayNotSet) {
  use_example("block-rm-rf");
  const fs::path project_config = project_.path() / ".hookbus" / "config.json";
  write_file(project_config, R"({"project_trust": "trust_all"})");
  const ProcessResult r = hookctl({"trust"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("warning: " + project_config.string() +
                                       ": project_trust: may not be set in project config (a project may not decide "
                                       "its own trust); ignored"));
  EXPECT_THAT(boost::json::parse(hookctl({"trust", "--dry-run", "--json"}).stdout_text).at("warnings").at(0).as_string(),
              HasSubstr(": project_trust: may not be set in project config"));
}

TEST_F(Hookctl, TrustShowsAConfigThatIsNoRegularFileAsUnreadableWithWhy) {
  use_example("block-rm-rf");
  fs::create_symlink("/dev/zero", project_.path() / ".hookbus" / "config.json");
  EXPECT_THAT(hookctl({"trust", "--dry-run"}).stdout_text,
              HasSubstr("  0666  unreadable        .hookbus/config.json (is a character device, not a regular file)\n"));
}

// Regression: trust recorded a hook in a directory others can write without
// a word, and every emit then refused it.
TEST_F(Hookctl, TrustSaysWhichFileItRecordsIsNotSafeAndHowToFixIt) {
  use_example("block-rm-rf");
  const fs::path hooks = hook("block-rm-rf").parent_path();
  ASSERT_EQ(::chmod(hooks.c_str(), 0777), 0);
  const std::string warning = hook("block-rm-rf").string() + " is not safe: the directory '" + hooks.string() +
                              "' on its path is writable by group or others (mode 0777)";
  const ProcessResult r = hookctl({"trust"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("warning: " + warning), HasSubstr("fix with: chmod go-w '" + hooks.string() + "'"),
                                   HasSubstr("hookbus refuses to run a hook, plugin or script")));
  const ProcessResult json = hookctl({"trust", "--dry-run", "--json"});
  EXPECT_THAT(boost::json::parse(json.stdout_text).at("warnings").at(0).as_string(), HasSubstr(warning));
}

TEST_F(Hookctl, TrustOfTwoProjectsAtOnceRecordsBothAndLeavesNoTemporaryFile) {
  use_example("block-rm-rf");
  TempDir other;
  write_file(other.path() / ".hookbus" / "hooks" / "block-rm-rf", testing::read_file(kExamples / "block-rm-rf"), 0755);
  std::vector<std::pair<std::string, std::string>> variables = environment();
  const auto start = [&](const fs::path& project) {
    return std::jthread([&variables, project] {
      EXPECT_EQ(run_process({.program = kHookctl, .arguments = {"trust", "--project", project.string()},
                             .extra_environment = variables, .timeout = std::chrono::seconds(20)})
                    .exit_code,
                0);
    });
  };
  {
    const std::jthread first = start(project_.path());
    const std::jthread second = start(other.path());
  }
  const auto listed = boost::json::parse(hookctl({"trust", "--list", "--json"}).stdout_text).at("projects");
  EXPECT_EQ(listed.as_array().size(), 2u);
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(home_.path() / "state" / "hookbus")) left.push_back(entry.path().filename().string());
  EXPECT_THAT(left, ::testing::UnorderedElementsAre("trust.json", "trust.json.lock"));
}

TEST_F(Hookctl, TrustCreatesItsStateDirectoryForTheUserAlone) {
  use_example("block-rm-rf");
  trust();
  struct stat st {};
  ASSERT_EQ(::stat((home_.path() / "state" / "hookbus").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
}

TEST_F(Hookctl, TrustListAndRevokeOfferJson) {
  use_example("block-rm-rf");
  trust();
  const boost::json::value listed = boost::json::parse(hookctl({"trust", "--list", "--json"}).stdout_text);
  ASSERT_EQ(listed.at("projects").as_array().size(), 1u);
  EXPECT_EQ(listed.at("projects").at(0).at("project").as_string(), project_.path().string());
  EXPECT_EQ(listed.at("projects").at(0).at("files").at(0).at("path"), ".hookbus/hooks/block-rm-rf");
  const boost::json::value revoked = boost::json::parse(hookctl({"trust", "--revoke", "--json"}).stdout_text);
  EXPECT_EQ(revoked, (boost::json::object{{"project", project_.path().string()}, {"revoked", true}}));
}

TEST_F(Hookctl, ConfigPrintsEveryValueWithTheFileItCameFrom) {
  add_hook("guard", "tool_call", "");
  const fs::path user_config = user_config_.path() / "hookbus" / "config.json";
  write_file(user_config, R"({"timeout_ms": 7000, "hooks": {"guard": {"failure": "fail_closed"}}})");
  trust();
  const ProcessResult r = hookctl({"config"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text,
              AllOf(HasSubstr("timeout_ms (project hooks): 7000  <- " + user_config.string() + ": timeout_ms"),
                    HasSubstr("hooks.guard.timeout_ms (hook guard of the project layer, installed): 7000  <- " +
                              user_config.string() + ": timeout_ms"),
                    HasSubstr("hooks.guard.failure (hook guard of the project layer, installed): fail_closed  <- " +
                              user_config.string() + ": hooks.guard.failure"),
                    HasSubstr("hooks.guard.disabled (hook guard of the project layer, installed): false  <- default")));
}

TEST_F(Hookctl, ConfigShowsAHooksModeInstancesStartAsyncAndSequential) {
  add_hook("guard", "tool_call", "");
  const fs::path project_config = project_.path() / ".hookbus" / "config.json";
  write_file(project_config,
             R"({"hooks": {"guard": {"mode": "persistent", "instances": 2, "async": true, "sequential": true}}})");
  trust();
  const ProcessResult r = hookctl({"config"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  const std::string of = " (hook guard of the project layer, installed): ";
  EXPECT_THAT(r.stdout_text,
              AllOf(HasSubstr("hooks.guard.mode" + of + "persistent  <- " + project_config.string() + ": hooks.guard.mode"),
                    HasSubstr("hooks.guard.instances" + of + "2  <- " + project_config.string() +
                              ": hooks.guard.instances"),
                    HasSubstr("hooks.guard.start" + of + "lazy  <- default"),
                    HasSubstr("hooks.guard.async" + of + "true  <- " + project_config.string() + ": hooks.guard.async"),
                    HasSubstr("hooks.guard.sequential" + of + "true  <- " + project_config.string() +
                              ": hooks.guard.sequential")));
}

TEST_F(Hookctl, ConfigShowsWhichAgentsHookFilesItReadsWithTheirToolNames) {
  const fs::path user_config = user_config_.path() / "hookbus" / "config.json";
  write_file(user_config, R"({"agent_hooks": {"codex": {"settings": ["user", "project"]},
    "qwen_code": {"settings": ["project"], "tool_names": {"shell": "run_shell_command"}}}})");
  const ProcessResult r = hookctl({"config"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text,
              AllOf(HasSubstr("agent_hooks.codex.settings: project  <- " + user_config.string() +
                              ": agent_hooks.codex.settings[1]"),
                    HasSubstr("agent_hooks.qwen_code.tool_names.shell (Qwen Code commands of the user, project, "
                              "local layers): run_shell_command  <- " + user_config.string() +
                              ": agent_hooks.qwen_code.tool_names.shell")));
}

TEST_F(Hookctl, ConfigShowsBuiltinSettingsTheTrustPolicyTheClaudeCodeImportAndHooksNotInstalled) {
  add_hook("lint", "tool_call", "");
  const fs::path user_config = user_config_.path() / "hookbus" / "config.json";
  write_file(user_config, R"({"project_trust": "require", "builtins": {"tool_policy": {"deny": ["curl"]}},
    "claude_code": {"settings": ["project"], "tool_names": {"shell": "Bash"}}})");
  const fs::path project_config = project_.path() / ".hookbus" / "config.json";
  write_file(project_config, R"({"hooks": {"lint": {"disabled": true}}})");
  trust();
  const ProcessResult r = hookctl({"config", "--project-trust", "trust_all"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text,
              AllOf(HasSubstr("project_trust: require  <- " + user_config.string() + ": project_trust"),
                    HasSubstr("builtins.tool_policy (user layer): {\"deny\":[\"curl\"]}  <- " + user_config.string() +
                              ": builtins.tool_policy"),
                    HasSubstr("claude_code.settings: project  <- " + user_config.string() + ": claude_code.settings[0]"),
                    HasSubstr("claude_code.tool_names.shell (Claude Code commands of the user, project, local "
                              "layers): Bash  <- " + user_config.string() + ": claude_code.tool_names.shell"),
                    HasSubstr("hooks.lint.disabled (hook lint of the project layer, not installed): true  <- " +
                              project_config.string() + ": hooks.lint.disabled")));
  EXPECT_THAT(hookctl({"config"}).stdout_text,
              HasSubstr("project_trust: require  <- the engine (hookctl --project-trust)"));
}

// Regression (issue 9 audit): "trust_all" in the user's config was ignored without a word.
TEST_F(Hookctl, ConfigShowsALooserTrustPolicyOfTheUsersConfigAsIgnored) {
  const fs::path user_config = user_config_.path() / "hookbus" / "config.json";
  write_file(user_config, R"({"project_trust": "trust_all"})");
  EXPECT_THAT(hookctl({"config"}).stdout_text,
              AllOf(HasSubstr("project_trust: require  <- the engine (hookctl --project-trust)"),
                    HasSubstr("project_trust (ignored: looser than require): trust_all  <- " + user_config.string() +
                              ": project_trust"),
                    HasSubstr("warnings:\n  " + user_config.string() + ": project_trust: \"trust_all\" is looser")));
}

// A layer's Claude Code commands see the tool names of the layers at least as trusted as theirs.
TEST_F(Hookctl, ConfigShowsWhichLayersClaudeCodeCommandsSeeEachToolName) {
  const fs::path user_config = user_config_.path() / "hookbus" / "config.json";
  write_file(user_config, R"({"claude_code": {"settings": ["project"], "tool_names": {"shell": "Bash"}}})");
  const fs::path project_config = project_.path() / ".hookbus" / "config.json";
  write_file(project_config, R"({"claude_code": {"tool_names": {"shell": "Shell"}}})");
  trust();
  const ProcessResult r = hookctl({"config"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text,
              AllOf(HasSubstr("claude_code.tool_names.shell (Claude Code commands of the user, local layers): Bash  <- " +
                              user_config.string() + ": claude_code.tool_names.shell"),
                    HasSubstr("claude_code.tool_names.shell (Claude Code commands of the project layer): Shell  <- " +
                              project_config.string() + ": claude_code.tool_names.shell")));
}

TEST_F(Hookctl, ConfigJsonHasEverySettingWithItsFileAndKey) {
  add_hook("guard", "tool_call", "");
  const fs::path user_config = user_config_.path() / "hookbus" / "config.json";
  write_file(user_config, R"({"hooks": {"guard": {"failure": "fail_closed"}}})");
  trust();
  const ProcessResult r = hookctl({"config", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const boost::json::value config = boost::json::parse(r.stdout_text);
  EXPECT_EQ(config.at("trust").at("state"), "trusted");
  const boost::json::array& settings = config.at("settings").as_array();
  EXPECT_THAT(settings, ::testing::Contains(boost::json::value(boost::json::object{
                            {"key", "hooks.guard.failure"},
                            {"applies_to", "hook guard of the project layer, installed"},
                            {"value", "fail_closed"},
                            {"file", user_config.string()},
                            {"path", "hooks.guard.failure"}})));
  EXPECT_THAT(settings, ::testing::Contains(boost::json::value(boost::json::object{{"key", "project_trust"},
                                                                                   {"applies_to", ""},
                                                                                   {"value", "require"},
                                                                                   {"file", nullptr},
                                                                                   {"path", nullptr}})));
}

// ------------------------------------------------------------ Claude Code

TEST_F(Hookctl, ClaudeCodeHooksOfAProjectsSettingsRunThroughEmitAndShowInList) {
  write_script(project_.path() / ".claude" / "hooks" / "no-rm.sh",
               "jq -r '.tool_input.command' | grep -q 'rm -rf' && { echo 'rm -rf is not allowed' >&2; exit 2; }\nexit 0\n");
  write_file(project_.path() / ".claude" / "settings.json", R"({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/no-rm.sh"}]}]}})");
  write_file(project_.path() / ".hookbus" / "config.json", R"({"claude_code": {"settings": ["project"]}})");
  trust();
  const ProcessResult emitted =
      hookctl({"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "rm -rf /"}})",
               "--json"});
  ASSERT_EQ(emitted.exit_code, 0) << emitted.stderr_text;
  const auto outcome = boost::json::parse(emitted.stdout_text).at("result");
  EXPECT_EQ(outcome.at("decision"), "deny");
  EXPECT_EQ(outcome.at("reason"), "rm -rf is not allowed");
  EXPECT_EQ(outcome.at("decided_by").at("handler"), "no-rm.sh");
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              AllOf(HasSubstr("no-rm.sh: PreToolUse (matcher Bash)"),
                    HasSubstr((project_.path() / ".claude" / "settings.json").string() +
                              ": hooks.PreToolUse[0].hooks[0]: $CLAUDE_PROJECT_DIR/.claude/hooks/no-rm.sh"),
                    HasSubstr("(project layer, trusted, claude_code protocol)")));
}

TEST_F(Hookctl, ListJsonShowsAClaudeCodeHooksProtocolEventsMatcherSourceAndCommand) {
  write_script(project_.path() / ".claude" / "hooks" / "fmt.sh", "exit 0\n");
  write_file(project_.path() / ".claude" / "settings.json", R"({"hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [
    {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/fmt.sh", "timeout": 7}]}]}})");
  write_file(project_.path() / ".hookbus" / "config.json", R"({"claude_code": {"settings": ["project"]}})");
  trust();
  const ProcessResult r = hookctl({"list", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const boost::json::array hooks = boost::json::parse(r.stdout_text).at("hooks").as_array();
  ASSERT_EQ(hooks.size(), 1u) << r.stdout_text;
  const boost::json::object& hook = hooks[0].as_object();
  EXPECT_EQ(hook.at("protocol"), "claude_code");
  EXPECT_EQ(hook.at("layer"), "project");
  EXPECT_EQ(hook.at("events"), (boost::json::array{"PostToolUse"}));
  EXPECT_EQ(hook.at("matcher"), "Edit|Write");
  EXPECT_EQ(hook.at("source").as_string(),
            (project_.path() / ".claude" / "settings.json").string() + ": hooks.PostToolUse[0].hooks[0]");
  EXPECT_EQ(hook.at("command"), "$CLAUDE_PROJECT_DIR/.claude/hooks/fmt.sh");
  EXPECT_EQ(hook.at("timeout_ms"), 7000);
}

TEST_F(Hookctl, ListShowsAClaudeCodePluginsHooksAndADeclaredClaudeCodeHookFile) {
  const fs::path plugin = home_.path() / "claude-plugins" / "fmt";
  write_file(plugin / "hooks" / "hooks.json", R"({"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [
    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/fmt.sh"}]}]}})");
  write_script(hook("validate.sh"), "exit 0\n");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"hooks": {"validate.sh": {"protocol": "claude_code", "events": ["PreToolUse"], "matcher": "Bash"}},
                 "claude_code": {"plugins": [")" + plugin.string() + R"("]}})");
  trust();
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              AllOf(HasSubstr("validate.sh: PreToolUse (matcher Bash)\n    " + hook("validate.sh").string() +
                              "  (project layer, trusted, claude_code protocol)"),
                    HasSubstr("fmt.sh: PostToolUse (matcher Edit)\n    " + (plugin / "hooks" / "hooks.json").string() +
                              ": hooks.PostToolUse[0].hooks[0]: ${CLAUDE_PLUGIN_ROOT}/fmt.sh  (project layer, trusted, claude_code protocol)")));
}

// A plugin inside the project that keeps its run-time state as published
// plugins do (setup_test.cpp's PluginState): a run through hookctl emit leaves
// the project trusted, and hookctl names the state files as not covered; a
// plugin that writes a script there revokes the trust.
TEST_F(Hookctl, APluginsRunTimeStateLeavesTheProjectTrustedAndAScriptItWritesRevokesIt) {
  const fs::path plugin = project_.path() / ".claude" / "plugins" / "loop";
  write_script(plugin / "hooks" / "loop.sh",
               "echo 'iteration: 1' >> \"$CLAUDE_PROJECT_DIR/.claude/ralph-loop.local.md\"\n"
               "mkdir -p \"$CLAUDE_PLUGIN_ROOT/sessions\"\n"
               "echo '{\"turn\": 1}' > \"$CLAUDE_PLUGIN_ROOT/sessions/s-1.json\"\n"
               "if [ -e \"$CLAUDE_PLUGIN_ROOT/write-a-script\" ]; then\n"
               "  printf '#!/bin/sh\\ntouch pwned\\n' > \"$CLAUDE_PLUGIN_ROOT/sessions/next.md\"\nfi\n");
  write_file(plugin / "hooks" / "hooks.json", R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", )"
                                              R"("command": "${CLAUDE_PLUGIN_ROOT}/hooks/loop.sh"}]}]}})");
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"claude_code": {"plugins": [")" + plugin.string() + R"("]}})");
  trust();
  const std::string call = R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "ls"}})";
  ASSERT_EQ(hookctl({"emit", "tool_call", call}).exit_code, 0);
  ASSERT_TRUE(fs::exists(plugin / "sessions" / "s-1.json"));
  EXPECT_THAT(hookctl({"list"}).stdout_text, AllOf(HasSubstr("(project layer, trusted, claude_code protocol)"),
                                                   Not(HasSubstr("changed since trusted"))));
  EXPECT_THAT(hookctl({"trust", "--dry-run"}).stdout_text,
              AllOf(Not(HasSubstr("changed since it was last trusted")), HasSubstr("sessions/s-1.json")));

  write_file(plugin / "write-a-script", "");
  trust();
  ASSERT_EQ(hookctl({"emit", "tool_call", call}).exit_code, 0);
  EXPECT_THAT(hookctl({"list"}).stdout_text, HasSubstr("changed since trusted"));
}

// The hooks of claude_code_test.cpp's "published ones", run through hookctl emit.

TEST_F(Hookctl, APublishedStyleBashAndJqHookBlocksWithExitTwoThroughEmit) {
  install_published(testing::kBlockDangerous);
  const auto denied = emitted("tool_call", R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "rm -rf /"}})");
  EXPECT_EQ(denied.at("decision"), "deny");
  EXPECT_EQ(denied.at("reason"), "Dangerous command blocked: rm -rf /");
  EXPECT_EQ(denied.at("decided_by").at("handler"), "block-dangerous.sh");
  EXPECT_EQ(emitted("tool_call", R"({"tool_name": "bash", "input": {"command": "ls"}})").at("decision"), "none");
}

TEST_F(Hookctl, APublishedStylePythonHookDeniesWithJsonThroughEmit) {
  install_published(testing::kProtectEnv, R"({"read_file": "Read"})");
  const auto denied = emitted("tool_call", R"({"tool_call_id": "c1", "tool_name": "read_file", "input": {"file_path": ".env"}})");
  EXPECT_EQ(denied.at("decision"), "deny");
  EXPECT_EQ(denied.at("reason"), "secrets stay private: .env");
  EXPECT_EQ(denied.at("decided_by").at("handler"), "protect_env.py");
  EXPECT_EQ(emitted("tool_call", R"({"tool_name": "read_file", "input": {"file_path": "main.cpp"}})").at("decision"), "none");
}

TEST_F(Hookctl, APublishedStyleNodeHookAllowsRewritesAndAsksThroughEmit) {
  install_published(testing::kApprove);
  const auto allowed = emitted("tool_call", R"({"tool_name": "bash", "input": {"command": "npm test"}})");
  EXPECT_EQ(allowed.at("decision"), "allow");
  EXPECT_EQ(allowed.at("input"), (boost::json::object{{"command", "npm test --silent"}}));
  const auto asked = emitted("tool_call", R"({"tool_name": "bash", "input": {"command": "git push"}})");
  EXPECT_EQ(asked.at("decision"), "ask");
  EXPECT_EQ(asked.at("reason"), "pushing needs a human");
}

TEST_F(Hookctl, APublishedStyleFormatterRewritesTheFileThroughEmit) {
  const fs::path source = write_file(project_.path() / "main.py", "x = 1   \ny = 2\t\n");
  install_published(testing::kFormatter);
  (void)emitted("tool_result", R"({"tool_name": "write", "input": {"file_path": ")" + source.string() + R"("}})");
  EXPECT_EQ(testing::read_file(source), "x = 1\ny = 2\n");
}

TEST_F(Hookctl, APublishedStyleRedactionHookRedactsABashResultThroughEmit) {
  install_published(testing::kRedactSecrets);
  const auto result = emitted("tool_result", R"({"tool_name": "bash", "content": [{"type": "text",
      "text": "{\"stdout\": \"key=AKIAABCDEFGHIJKLMNOP\", \"stderr\": \"\", \"interrupted\": false, \"isImage\": false}"}]})");
  const boost::json::value output = boost::json::parse(result.at("content").at(0).at("text").as_string());
  EXPECT_EQ(output.at("stdout"), "key=[REDACTED]");
}

TEST_F(Hookctl, AnIfScopedClaudeCodeHookRunsOnlyOnTheCallsItsRuleMatchesThroughEmit) {
  write_file(project_.path() / ".claude" / "settings.json", R"x({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "if": "Bash(git push:*)", "command": "echo 'no pushing' >&2; exit 2"}]}]}})x");
  write_file(project_.path() / ".hookbus" / "config.json", R"({"claude_code": {"settings": ["project"]}})");
  trust();
  EXPECT_EQ(emitted("tool_call", R"({"tool_name": "bash", "input": {"command": "git status"}})").at("decision"), "none");
  EXPECT_EQ(emitted("tool_call", R"({"tool_name": "bash", "input": {"command": "git push"}})").at("decision"), "deny");
}

TEST_F(Hookctl, APublishedStylePromptHookAddsItsPlainTextAsContextThroughEmit) {
  install_published(testing::kPromptContext);
  const auto result = emitted("input", R"({"text": "fix the bug"})");
  EXPECT_EQ(result.at("action"), "continue");
  EXPECT_EQ(result.at("additional_context"), (boost::json::array{"Current branch: main"}));
}

TEST_F(Hookctl, APublishedStyleSessionStartHookGivesContextAtStartupThroughEmit) {
  install_published(testing::kSessionContext);
  EXPECT_EQ(emitted("session_start", R"({"reason": "startup"})").at("additional_context"),
            (boost::json::array{"Recent commits: fix parser"}));
  EXPECT_EQ(emitted("session_start", R"({"reason": "resume"})").at("additional_context"), boost::json::array{})
      << "its matcher is startup";
}

// Each hookctl run is a process of its own: the transcript hookbus keeps
// under XDG_STATE_HOME carries the session from one run to the next.
TEST_F(Hookctl, APublishedStyleStopHookReadsTheTranscriptBlocksOnceThenHonoursStopHookActiveThroughEmit) {
  install_published(testing::kFinishTodos);
  (void)emitted("message_end", R"({"context": {"session_id": "s-1"},
                                   "message": {"role": "assistant", "content": [{"type": "text", "text": "done, TODO: tests"}]}})");
  EXPECT_EQ(emitted("agent_end", R"({"context": {"session_id": "s-1"}})").at("follow_up_messages"),
            (boost::json::array{"You left a TODO: finish it before stopping."}));
  EXPECT_EQ(emitted("agent_end", R"({"context": {"session_id": "s-1"}, "after_follow_up": true})").at("follow_up_messages"),
            boost::json::array{});
}

// Never silently: what is not imported is a warning on emit's stderr and in list.
TEST_F(Hookctl, SkippedClaudeCodeSettingsAreWarnedAboutByEmitAndList) {
  const fs::path settings = project_.path() / ".claude" / "settings.json";
  write_file(settings, R"({"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "true"}]}],
                                    "Stop": [{"hooks": [{"type": "prompt", "prompt": "Done?"}]}]}})");
  write_file(project_.path() / ".hookbus" / "config.json", R"({"claude_code": {"settings": ["project"]}})");
  trust();
  const ProcessResult r = hookctl({"emit", "agent_end"});
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr("warning: " + settings.string() + ": hooks.WorktreeCreate: hookbus has no equivalent"),
                                   HasSubstr(settings.string() + ": hooks.Stop[0].hooks[0]: hook type \"prompt\" is not supported")));
  EXPECT_THAT(hookctl({"list"}).stdout_text,
              AllOf(HasSubstr("warnings:"), HasSubstr(settings.string() + ": hooks.WorktreeCreate")));
}

// A guard asked for must not silently vanish: a mistyped plugin path stops list and emit.
TEST_F(Hookctl, AClaudeCodePluginThatDoesNotExistIsAConfigErrorOfListAndEmit) {
  const fs::path config = user_config_.path() / "hookbus" / "config.json";
  const fs::path missing = home_.path() / "plugins" / "security-guard";
  write_file(config, R"({"claude_code": {"plugins": [")" + missing.string() + R"("]}})");
  const ProcessResult list = hookctl({"list"});
  const ProcessResult emit = hookctl({"emit", "tool_call", kCall});
  EXPECT_EQ(list.exit_code, 3);
  EXPECT_EQ(emit.exit_code, 3);
  for (const ProcessResult* r : {&list, &emit})
    EXPECT_THAT(r->stderr_text, HasSubstr(config.string() + ": claude_code.plugins[0]: the Claude Code plugin directory " +
                                          missing.string() + " does not exist"));
}

TEST_F(Hookctl, AnInvalidClaudeCodeMatcherInConfigIsAConfigErrorOfListNamingTheFileAndPath) {
  const fs::path config = project_.path() / ".hookbus" / "config.json";
  write_script(hook("v.sh"), "exit 0\n");
  write_file(config, R"({"hooks": {"v.sh": {"protocol": "claude_code", "events": ["PreToolUse"], "matcher": "Edit|("}}})");
  trust();
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.stderr_text,
              HasSubstr(config.string() + R"(: hooks["v.sh"].matcher: matcher "Edit|(" is not a valid regular expression)"));
}

// Before the project is trusted, its config is not applied; its error is shown all the same.
TEST_F(Hookctl, ListShowsAnUntrustedProjectsClaudeCodeEventErrorWithItsConfigFile) {
  const fs::path config = project_.path() / ".hookbus" / "config.json";
  write_script(hook("v.sh"), "exit 0\n");
  write_file(config, R"({"hooks": {"v.sh": {"protocol": "claude_code", "events": ["tool_call"]}}})");
  const ProcessResult r = hookctl({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr(config.string() + R"(  (not applied: untrusted; it has an error: )" + config.string() +
                                       R"(: hooks["v.sh"].events[0]: "tool_call" is not a Claude Code event that hookbus runs hooks on (did you mean PreToolUse?))"));
}

TEST_F(Hookctl, TheUsersClaudeCodeSettingsAreReadFromHomeDotClaude) {
  write_file(home_.path() / ".claude" / "settings.json",
             R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo home says no >&2; exit 2"}]}]}})");
  write_file(user_config_.path() / "hookbus" / "config.json", R"({"claude_code": {"settings": ["user"]}})");
  EXPECT_EQ(emitted("tool_call", kCall).at("reason"), "home says no");
}

// Claude Code's own override of ~/.claude (its environment variables reference).
TEST_F(Hookctl, TheUsersClaudeCodeSettingsAreReadFromClaudeConfigDir) {
  const fs::path claude = home_.path() / "work-account";
  write_file(home_.path() / ".claude" / "settings.json",
             R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo home says no >&2; exit 2"}]}]}})");
  write_file(claude / "settings.json",
             R"({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo work says no >&2; exit 2"}]}]}})");
  write_file(user_config_.path() / "hookbus" / "config.json", R"({"claude_code": {"settings": ["user"]}})");
  const ProcessResult r = hookctl({"emit", "tool_call", kCall, "--json"}, "", {{"CLAUDE_CONFIG_DIR", claude.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(boost::json::parse(r.stdout_text).at("result").at("reason"), "work says no");
}

// ------------------------------------------------------------- workspaces

TEST_F(Hookctl, AWorkspaceRunsInEmitOnceTrustedWithTrustWorkspace) {
  const fs::path workspace = home_.path() / "workspaces" / "ops";
  write_script(workspace / "hooks" / "no-deploy",
               "[ \"$1\" = hook ] && { echo tool_call; exit 0; }\n"
               "echo '{\"decision\": \"deny\", \"reason\": \"ops says no\"}'\n");
  const std::vector<std::string> emit{"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "deploy"})",
                                      "--workspace", workspace.string()};
  EXPECT_THAT(hookctl(emit).stdout_text, HasSubstr("tool_call: allowed"));
  EXPECT_THAT(hookctl({"list", "--workspace", workspace.string()}).stdout_text,
              AllOf(HasSubstr("workspace " + workspace.string() + ": untrusted"),
                    HasSubstr("hookctl trust --workspace '" + workspace.string() + "'")));
  const ProcessResult trusted = hookctl({"trust", "--workspace", workspace.string()});
  ASSERT_EQ(trusted.exit_code, 0) << trusted.stderr_text;
  EXPECT_THAT(trusted.stdout_text, HasSubstr("hooks/no-deploy"));
  EXPECT_THAT(hookctl(emit).stdout_text, HasSubstr("tool_call: denied by no-deploy: ops says no"));
  const auto listing = boost::json::parse(hookctl({"list", "--json", "--workspace", workspace.string()}).stdout_text);
  EXPECT_EQ(listing.at("workspace").at("trust").at("state"), "trusted");
  EXPECT_EQ(listing.at("workspace").at("hooks").at(0).at("name"), "no-deploy");
  EXPECT_THAT(hookctl({"trust", "--revoke", "--workspace", workspace.string()}).stdout_text,
              HasSubstr("is no longer trusted"));
  EXPECT_THAT(hookctl(emit).stdout_text, HasSubstr("tool_call: allowed"));
}

TEST_F(Hookctl, EmitWithAWorkspaceGivesEveryHookTheWorkspacesName) {
  // A hook of the user's, not the workspace's: it sees the name too.
  write_script(user_config_.path() / "hookbus" / "hooks" / "which", testing::hook_naming_its_workspace());
  const fs::path workspace = home_.path() / "workspaces" / "research";
  testing::make_directories(workspace);
  const std::string call = R"({"tool_call_id": "c1", "tool_name": "deploy")";
  EXPECT_THAT(hookctl({"emit", "tool_call", call + "}", "--workspace", workspace.string()}).stdout_text,
              HasSubstr("tool_call: denied by which: in research"));
  EXPECT_THAT(hookctl({"emit", "tool_call", call + R"(, "context": {"workspace": "given"}})", "--workspace",
                       workspace.string()})
                  .stdout_text,
              HasSubstr("tool_call: denied by which: in given"));
}

// ---------------------------------------------------------------- plugins

TEST_F(Hookctl, AUsersPluginDecidesInEmitAndShowsInList) {
  const fs::path directory = user_config_.path() / "hookbus" / "plugins";
  testing::make_directories(directory);
  fs::copy_file(fs::path(HOOKBUS_TEST_PLUGINS) / "guard.so", directory / "guard.so");
  const ProcessResult emitted =
      hookctl({"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "deploy"})", "--json"});
  ASSERT_EQ(emitted.exit_code, 0) << emitted.stderr_text;
  const auto outcome = boost::json::parse(emitted.stdout_text).at("result");
  EXPECT_EQ(outcome.at("decision"), "deny");
  EXPECT_EQ(outcome.at("decided_by").at("handler"), "guard/no-deploy");
  const ProcessResult listed = hookctl({"list"});
  EXPECT_THAT(listed.stdout_text, HasSubstr("plugins:\n  guard: loaded\n    " + (directory / "guard.so").string() +
                                            "  (user layer, trust n/a, plugin)"));
  const auto plugins = boost::json::parse(hookctl({"list", "--json"}).stdout_text).at("plugins");
  EXPECT_EQ(plugins, (boost::json::array{boost::json::object{{"name", "guard"},
                                                             {"layer", "user"},
                                                             {"trust", "n/a"},
                                                             {"protocol", "plugin"},
                                                             {"file", (directory / "guard.so").string()},
                                                             {"loaded", true},
                                                             {"reason", ""}}}));
}

// ------------------------------------------------------- example hooks

TEST_F(Hookctl, ExampleBlockRmRfBlocksRmRfInAnyFlagOrder) {
  for (const std::string command : {"rm -rf /", "sudo rm -fr /tmp/x", "/bin/rm -r -f x", "rm --recursive --force x"}) {
    const ProcessResult r = hookctl({"run-hook", (kExamples / "block-rm-rf").string(), "tool_call",
                                     R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": ")" +
                                         command + R"("}})"});
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.stdout_text;
    EXPECT_THAT(r.stdout_text, HasSubstr("\"decision\": \"deny\"")) << command;
  }
}

TEST_F(Hookctl, ExampleBlockRmRfAllowsOtherCommands) {
  for (const std::string command : {"ls -la", "rm -r build", "rm -f a.out", "echo farm -rf"}) {
    const ProcessResult r = hookctl({"run-hook", (kExamples / "block-rm-rf").string(), "tool_call",
                                     R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": ")" +
                                         command + R"("}})"});
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.stdout_text;
    EXPECT_THAT(r.stdout_text, Not(HasSubstr("\"decision\": \"deny\""))) << command;
  }
}

TEST_F(Hookctl, ExampleAuditLogAppendsOneJsonLinePerEvent) {
  use_example("audit-log");
  trust();
  hookctl({"emit", "tool_call", R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": "ls"}})"});
  hookctl({"emit", "agent_end"});
  std::istringstream lines(testing::read_file(project_.path() / ".hookbus" / "audit.jsonl"));
  std::vector<boost::json::value> records;
  for (std::string line; std::getline(lines, line);) records.push_back(boost::json::parse(line));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].at("event"), "tool_call");
  EXPECT_EQ(records[0].at("tool"), "bash");
  EXPECT_EQ(records[0].at("input").at("command"), "ls");
  EXPECT_EQ(records[1].at("event"), "agent_end");
}

// Installed as the user's own hook, the example writes into every project,
// trusted or not: a repository's committed link must not lead it to the
// user's file (docs/security.md, "Files a project names").
TEST_F(Hookctl, ExampleAuditLogAsTheUsersHookNeverAppendsThroughALinkAtItsFile) {
  write_file(user_config_.path() / "hookbus" / "hooks" / "audit-log", testing::read_file(kExamples / "audit-log"), 0755);
  const fs::path victim = write_file(home_.path() / ".bashrc", "# the user's shell\n");
  testing::make_directories(project_.path() / ".hookbus");
  fs::create_symlink(victim, project_.path() / ".hookbus" / "audit.jsonl");
  const ProcessResult r = hookctl({"emit", "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(testing::read_file(victim), "# the user's shell\n");
}

TEST_F(Hookctl, ExampleAuditLogAsTheUsersHookNeverWritesThroughALinkedHookbusDirectory) {
  write_file(user_config_.path() / "hookbus" / "hooks" / "audit-log", testing::read_file(kExamples / "audit-log"), 0755);
  const fs::path outside = home_.path() / "outside";
  testing::make_directories(outside);
  fs::create_directory_symlink(outside, project_.path() / ".hookbus");
  const ProcessResult r = hookctl({"emit", "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_TRUE(fs::is_empty(outside));
}

// ----------------------------------------------------------------- tracing

TEST_F(Hookctl, AnUntrustedProjectsTraceSettingWritesNothing) {
  write_file(project_.path() / ".hookbus" / "config.json", R"({"trace": {"jsonl": "trace/session.jsonl"}})");
  const ProcessResult r = hookctl({"emit", "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_FALSE(fs::exists(project_.path() / "trace"));
}

// A repository that commits a link where its config puts the trace file: the
// user's file it points to must not be written (a project's trace files stay
// inside the project, reached through its own directories), and the link
// does not stop the engine: the emit is decided, and the trace's failure said.
TEST_F(Hookctl, ARepositorysLinkAtItsTraceFileCannotMakeEmitWriteOutsideIt) {
  const fs::path victim = write_file(home_.path() / "victim.txt", "the user's own file\n");
  testing::make_directories(project_.path() / "trace");
  fs::create_symlink(victim, project_.path() / "trace" / "session.jsonl");
  write_file(project_.path() / ".hookbus" / "config.json", R"({"trace": {"jsonl": "trace/session.jsonl"}})");
  trust();
  const ProcessResult r = hookctl({"emit", "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("tool_call: allowed"));
  EXPECT_THAT(r.stderr_text, HasSubstr((project_.path() / "trace" / "session.jsonl").string() + " is a symbolic link"));
  EXPECT_EQ(testing::read_file(victim), "the user's own file\n");
}

TEST_F(Hookctl, ARepositorysLinkedTraceDirectoryCannotMakeEmitWriteOutsideIt) {
  const fs::path outside = home_.path() / "outside";
  testing::make_directories(outside);
  fs::create_directory_symlink(outside, project_.path() / "trace");
  write_file(project_.path() / ".hookbus" / "config.json", R"({"trace": {"jsonl": "trace/session.jsonl"}})");
  trust();
  const ProcessResult r = hookctl({"emit", "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr((project_.path() / "trace").string() + " is a symbolic link"));
  EXPECT_TRUE(fs::is_empty(outside));
}

TEST_F(Hookctl, AProjectsConfigNamingATraceFileOutsideTheProjectDoesNotLoad) {
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"trace": {"jsonl": ")" + (home_.path() / "session.jsonl").string() + R"("}})");
  trust();
  const ProcessResult r = hookctl({"emit", "tool_call", kCall});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr((project_.path() / ".hookbus" / "config.json").string() + ": trace.jsonl:"),
                                   HasSubstr("is an absolute path")));
  EXPECT_FALSE(fs::exists(home_.path() / "session.jsonl"));
}

TEST_F(Hookctl, ARepositorysLinkAtItsAuditFileCannotMakeEmitWriteOutsideIt) {
  const fs::path victim = write_file(home_.path() / ".bashrc", "# the user's shell\n");
  write_file(project_.path() / ".hookbus" / "config.json", R"({"builtins": {"audit": {"file": ".hookbus/audit.jsonl"}}})");
  fs::create_symlink(victim, project_.path() / ".hookbus" / "audit.jsonl");
  trust();
  const ProcessResult r = hookctl({"emit", "tool_call", kCall});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("tool_call: allowed"));
  EXPECT_THAT(r.stderr_text, HasSubstr("audit.jsonl is a symbolic link, which hookbus never writes through"));
  EXPECT_EQ(testing::read_file(victim), "# the user's shell\n");
}

TEST_F(Hookctl, AProjectsConfigNamingAnAuditFileOutsideTheProjectDoesNotLoad) {
  write_file(project_.path() / ".hookbus" / "config.json",
             R"({"builtins": {"audit": {"file": ")" + (home_.path() / ".bashrc").string() + R"("}}})");
  const ProcessResult trusting = hookctl({"trust"});
  EXPECT_THAT(trusting.stdout_text, AllOf(HasSubstr("builtins.audit.file:"), HasSubstr("is an absolute path"),
                                          HasSubstr("once trusted, this stops the engine")));
  const ProcessResult r = hookctl({"emit", "tool_call", kCall});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr((project_.path() / ".hookbus" / "config.json").string() +
                                             ": builtins.audit.file:"),
                                   HasSubstr("is an absolute path")));
  EXPECT_FALSE(fs::exists(home_.path() / ".bashrc"));
}

// ------------------------------------------------------- using a recording

// A tool run through a wrapper that ran its next twice: the first run of the
// step threw, the second gave the output.
EmissionRecord retried_tool_run(std::uint64_t seq) {
  using std::chrono::microseconds;
  EmissionRecord run{.seq = seq,
                     .thread = 1,
                     .duration = microseconds(40),
                     .payload = ToolCallEvent{.tool_call_id = "c", .tool_name = "bash", .input = {{"command", "make"}}}};
  run.step = StepRecord{{
      {.label = "retry", .duration = microseconds(40), .next_calls = 2},
      {.step = true, .parent = 0, .duration = microseconds(15), .outcome = StepOutcome::threw, .error = "flaky tool"},
      {.step = true, .parent = 0, .start_offset = microseconds(20), .duration = microseconds(15)},
  }};
  return run;
}


// The project traces every emit to session.jsonl (on the emitting thread), and
// is trusted with a guard that denies `rm -rf`.
class Recording : public Hookctl {
 protected:
  void SetUp() override {
    Hookctl::SetUp();
    add_hook("guard", "tool_call", guard_body("deny"));
    write_file(project_.path() / ".hookbus" / "config.json", R"({"trace": {"jsonl": "session.jsonl", "queue": false}})");
    trust();
  }
  static std::string guard_body(const std::string& decision) {
    return "case \"$(cat)\" in *'rm -rf'*) echo '{\"decision\": \"" + decision +
           "\", \"reason\": \"rm -rf is not allowed\"}';; *) echo '{}';; esac\n";
  }
  // Records one session of one tool call (hookctl emit records it), kept aside.
  fs::path record(const std::string& command) const {
    const ProcessResult r = hookctl({"emit", "tool_call", call_of(command)});
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    const fs::path kept = home_.path() / "recording.jsonl";
    fs::copy_file(project_.path() / "session.jsonl", kept, fs::copy_options::overwrite_existing);
    return kept;
  }
  static std::string call_of(const std::string& command) {
    return R"({"tool_call_id": "c1", "tool_name": "bash", "input": {"command": ")" + command + R"("}})";
  }
  // hookctl ARGS without a project (trace view and trace summary read only the file).
  ProcessResult plain(std::vector<std::string> args) const {
    return run_process({.program = kHookctl,
                        .arguments = std::move(args),
                        .extra_environment = environment(),
                        .timeout = std::chrono::seconds(20)});
  }
};

TEST_F(Recording, ReplayOfAnUnchangedProjectReportsNothingAndExitsZero) {
  const fs::path recording = record("rm -rf /");
  const std::string recorded = testing::read_file(recording);
  const ProcessResult r = hookctl({"replay", recording.string()});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_THAT(r.stdout_text, HasSubstr("replayed 1 emits of " + recording.string() + ": every decision as recorded"));
  EXPECT_EQ(testing::read_file(recording), recorded);  // a replay records nothing over it
}

// A recording edited by hand: `before` replaced by `after` on its emit's line.
void edit_recording(const fs::path& recording, const std::string& before, const std::string& after) {
  std::string text = testing::read_file(recording);
  const auto at = text.find(before);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, before.size(), after);
  write_file(recording, text);
}

TEST_F(Recording, ReplayLeavesOutRunsOfWrappedStepsAndSaysSo) {
  const fs::path recording = record("rm -rf /");
  std::string text = testing::read_file(recording);
  text += trace_line(retried_tool_run(1)) + "\n";
  write_file(recording, text);
  const ProcessResult r = hookctl({"replay", recording.string()});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_THAT(r.stdout_text, AllOf(HasSubstr("replayed 1 emits of " + recording.string() + ": every decision as recorded"),
                                   HasSubstr("1 run of wrapped steps not replayed")));
  const ProcessResult json = hookctl({"replay", recording.string(), "--json"});
  const boost::json::value report = boost::json::parse(json.stdout_text);
  EXPECT_EQ(report.at("replayed"), 1);
  EXPECT_EQ(report.at("steps_not_replayed"), 1);
}

TEST_F(Recording, ReplayWarnsOfAFieldARecordedPayloadDoesNotHaveNamingTheLine) {
  const fs::path recording = record("rm -rf /");
  edit_recording(recording, R"("tool_call_id":"c1")", R"("tool_call_id":"c1","tool_nme":"bash")");
  const ProcessResult r = hookctl({"replay", recording.string()});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stderr_text, "hookctl replay: warning: " + recording.string() +
                               ":2: unknown field \"tool_nme\" in tool_call (did you mean \"tool_name\"?)\n");
}

TEST_F(Recording, ReplayWithStrictRefusesAFieldARecordedResultDoesNotHave) {
  const fs::path recording = record("rm -rf /");
  edit_recording(recording, R"("result":{"decision":"deny")", R"("result":{"decison":"deny","decision":"deny")");
  const ProcessResult r = hookctl({"replay", "--strict", recording.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, StartsWith("hookctl replay: " + recording.string() +
                                        ":2: unknown field \"decison\" in ToolCallResult (did you mean \"decision\"?)"));
  EXPECT_EQ(r.stdout_text, "");
}

TEST_F(Recording, ReplayFindsAGuardChangedSinceTheRecordingNamesItAndExitsOne) {
  const fs::path recording = record("rm -rf /");
  add_hook("guard", "tool_call", guard_body("allow"));
  trust();
  const ProcessResult r = hookctl({"replay", recording.string()});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_THAT(r.stdout_text,
              AllOf(HasSubstr("line 2, seq 0, tool_call: differs"),
                    HasSubstr("result: denied by guard: rm -rf is not allowed -> now allowed"),
                    HasSubstr("guard (" + hook("guard").string() + "): deny: rm -rf is not allowed -> now allow"),
                    HasSubstr("1 differs")));
}

TEST_F(Recording, ReplayJsonListsEachDifferenceWithTheHandlerAndBothAnswers) {
  const fs::path recording = record("rm -rf /");
  fs::remove(hook("guard"));
  trust();
  const ProcessResult r = hookctl({"replay", recording.string(), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  const boost::json::value report = boost::json::parse(r.stdout_text);
  EXPECT_EQ(report.at("replayed"), 1);
  EXPECT_EQ(report.at("differing"), 1);
  const boost::json::value& difference = report.at("differences").at(0);
  EXPECT_EQ(difference.at("line"), 2);
  EXPECT_EQ(difference.at("event"), "tool_call");
  EXPECT_EQ(difference.at("result").at("recorded_verdict"), "denied by guard: rm -rf is not allowed");
  EXPECT_EQ(difference.at("result").at("now_verdict"), "allowed");
  const boost::json::value& guard = difference.at("handlers").at(0);
  EXPECT_EQ(guard.at("handler"), "guard");
  EXPECT_EQ(guard.at("recorded").at("action"), "deny");
  EXPECT_TRUE(guard.at("now").is_null());  // the guard no longer runs
}

TEST_F(Recording, ReplayOfABadTraceFileNamesTheFileAndLineAndRunsNothing) {
  const fs::path recording = record("ls");
  std::string text = testing::read_file(recording);
  text += R"({"seq": 1, "event": "tool_call"})" "\n";
  write_file(recording, text);
  const ProcessResult r = hookctl({"replay", recording.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr(recording.string() + ":3:"));
  EXPECT_EQ(r.stdout_text, "");
}

TEST_F(Recording, ReplayInTheProjectItWasRecordedInWarnsOfNothing) {
  const fs::path recording = record("rm -rf /");
  const ProcessResult r = hookctl({"replay", recording.string()});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, Not(HasSubstr("warning")));
}

TEST_F(Recording, ReplayInAnotherProjectRunsThatProjectsHooksAndWarnsThatTheRecordingIsOfAnother) {
  const fs::path recording = record("rm -rf /");
  const TempDir other;  // no guard: the call recorded as denied is allowed there
  const ProcessResult r = plain({"replay", recording.string(), "--project", other.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.stderr_text;
  EXPECT_THAT(r.stderr_text, HasSubstr("hookctl replay: warning: " + recording.string() + " was recorded in " +
                                       project_.path().string() + "; it is replayed through the hooks of " +
                                       other.path().string()));
  EXPECT_THAT(r.stdout_text, HasSubstr("guard (" + hook("guard").string() + "): deny: rm -rf is not allowed -> now not run"));
}

TEST_F(Recording, ReplayWithAWorkspaceLeavesTheWorkspacesTraceUntouched) {
  const fs::path workspace = home_.path() / "workspaces" / "ops";
  write_file(workspace / "config.json", R"({"trace": {"jsonl": "workspace.jsonl", "queue": false}})");
  ASSERT_EQ(hookctl({"trust", "--workspace", workspace.string()}).exit_code, 0);
  ASSERT_EQ(hookctl({"emit", "tool_call", call_of("rm -rf /"), "--workspace", workspace.string()}).exit_code, 0);
  const fs::path recording = home_.path() / "recording.jsonl";
  fs::copy_file(project_.path() / "session.jsonl", recording);
  const std::string traced = testing::read_file(workspace / "workspace.jsonl");
  ASSERT_THAT(traced, HasSubstr("\"event\":\"tool_call\""));

  const ProcessResult r = hookctl({"replay", recording.string(), "--workspace", workspace.string()});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_EQ(testing::read_file(workspace / "workspace.jsonl"), traced);
  EXPECT_FALSE(fs::exists(workspace / "workspace.jsonl.1"));
}

// A command whose text would end the page's data element, or reopen it in a
// way that keeps it open, if written as it is; and JavaScript's old line ends.
const std::string kHostileCommand = "echo '</script><!--<script>' \xE2\x80\xA8 \xE2\x80\xA9";

// A recording of known content: tool_call three times (10, 20 and 30 µs; the
// last denied by guard; each running kHostileCommand), a session_start whose
// audit handler failed.
// A session of four emits, then a run of a wrapped step.
fs::path write_known_recording(const fs::path& file) {
  using std::chrono::microseconds;
  std::string text = trace_line(TraceHeader{.started = {}, .pid = 1, .host = "h", .project = std::nullopt}) + "\n";
  for (int i = 1; i <= 3; ++i) {
    EmissionRecord record{.seq = static_cast<std::uint64_t>(i - 1),
                          .thread = 1,
                          .duration = microseconds(10 * i),
                          .payload = ToolCallEvent{.tool_call_id = "c", .tool_name = "bash",
                                                   .input = {{"command", kHostileCommand}}}};
    HandlerRecord guard{.label = "guard", .kind = RecordedKind::external, .duration = microseconds(5 * i)};
    if (i == 3) {
      guard.action = HandlerAction::deny;
      guard.reason = "no";
      record.result = ToolCallResult{.decision = Decision::deny, .reason = "no", .decided_by = Decider{"guard", ""}};
    } else {
      record.result = ToolCallResult{};
    }
    record.handlers.push_back(guard);
    text += trace_line(record) + "\n";
  }
  EmissionRecord start{.seq = 3, .thread = 1, .duration = microseconds(7), .payload = SessionStartEvent{}};
  start.handlers.push_back(
      {.label = "audit", .duration = microseconds(2), .action = HandlerAction::failed, .error = "disk full"});
  start.result = SessionStartResult{};
  text += trace_line(start) + "\n";
  text += trace_line(retried_tool_run(4)) + "\n";
  write_file(file, text);
  return file;
}

TEST_F(Recording, TraceSummaryGivesCountPercentilesBlocksAndFailuresPerEventAndHandler) {
  const fs::path file = write_known_recording(home_.path() / "known.jsonl");
  const ProcessResult r = plain({"trace", "summary", file.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const boost::json::value summary = boost::json::parse(r.stdout_text);
  EXPECT_EQ(summary.at("emits"), 4);
  EXPECT_EQ(summary.at("steps"), 1) << "counted apart: the tool_call line is of the three emits";
  const boost::json::value& start = summary.at("events").at(0);
  const boost::json::value& call = summary.at("events").at(1);
  EXPECT_EQ(start.at("event"), "session_start");
  EXPECT_EQ(start.at("failures"), 1);
  EXPECT_EQ(call.at("event"), "tool_call");
  EXPECT_EQ(call.at("count"), 3);
  EXPECT_EQ(call.at("p50_ns"), 20000);
  EXPECT_EQ(call.at("p99_ns"), 30000);
  EXPECT_EQ(call.at("blocks"), 1);
  EXPECT_EQ(call.at("failures"), 0);
  const boost::json::value& audit = summary.at("handlers").at(0);
  const boost::json::value& guard = summary.at("handlers").at(1);
  EXPECT_EQ(audit.at("handler"), "audit");
  EXPECT_EQ(audit.at("failures"), 1);
  EXPECT_EQ(guard.at("handler"), "guard");
  EXPECT_EQ(guard.at("count"), 3);
  EXPECT_EQ(guard.at("p50_ns"), 10000);
  EXPECT_EQ(guard.at("p99_ns"), 15000);
  EXPECT_EQ(guard.at("blocks"), 1);

  const ProcessResult text = plain({"trace", "summary", file.string()});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_THAT(text.stdout_text, AllOf(HasSubstr("4 emits, 1 run of wrapped steps"), HasSubstr("tool_call guard"),
                                      HasSubstr("20.0 µs")));
}

// The pixels of an 8-bit RGB or RGBA PNG that differ from its top-left pixel.
std::size_t pixels_unlike_the_background(const std::string& png) {
  const auto be32 = [&](std::size_t at) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(png[at])) << 24 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 1])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 2])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + 3]));
  };
  std::uint32_t width = 0, height = 0;
  std::size_t channels = 0;
  std::string compressed;
  for (std::size_t at = 8; at + 8 <= png.size();) {
    const std::uint32_t length = be32(at);
    const std::string type = png.substr(at + 4, 4);
    if (type == "IHDR") {
      width = be32(at + 8);
      height = be32(at + 12);
      EXPECT_EQ(png[at + 16], 8) << "bit depth";
      channels = png[at + 17] == 6 ? 4 : png[at + 17] == 2 ? 3 : 0;
    } else if (type == "IDAT") {
      compressed += png.substr(at + 8, length);
    }
    at += 12 + length;
  }
  if (channels == 0 || width == 0) return 0;
  const std::size_t stride = width * channels;
  std::vector<unsigned char> raw((stride + 1) * height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(compressed.data()), compressed.size()) != Z_OK)
    return 0;
  std::vector<unsigned char> image(stride * height), previous(stride, 0);
  for (std::uint32_t y = 0; y < height; ++y) {
    const unsigned char filter = raw[y * (stride + 1)];
    unsigned char* line = &image[y * stride];
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= channels ? line[x - channels] : 0, b = previous[x],
                c = x >= channels ? previous[x - channels] : 0;
      const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      const int predictor = filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2
                          : filter == 4 ? (pa <= pb && pa <= pc ? a : pb <= pc ? b : c) : 0;
      line[x] = static_cast<unsigned char>(raw[y * (stride + 1) + 1 + x] + predictor);
    }
    std::copy(line, line + stride, previous.begin());
  }
  std::size_t unlike = 0;
  for (std::size_t pixel = 0; pixel < static_cast<std::size_t>(width) * height; ++pixel)
    if (!std::equal(&image[pixel * channels], &image[pixel * channels] + 3, &image[0])) ++unlike;
  return unlike;
}

// The page `hookctl trace view` writes of the known recording, in `dir`.
fs::path view_known_recording(const fs::path& dir) {
  const fs::path file = write_known_recording(dir / "known.jsonl");
  const fs::path page = dir / "trace.html";
  const ProcessResult r = run_process(
      {.program = kHookctl, .arguments = {"trace", "view", file.string(), "-o", page.string()},
       .timeout = std::chrono::seconds(20)});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  return page;
}

TEST(TraceView, TheSessionsTextCannotEndOrReopenThePagesDataElement) {
  const TempDir home;
  const std::string html = testing::read_file(view_known_recording(home.path()));
  const std::string opening = R"(<script id="trace-data" type="application/json">)";
  const std::size_t begin = html.find(opening);
  ASSERT_NE(begin, std::string::npos);
  const std::size_t data = begin + opening.size();
  const std::string text = html.substr(data, html.find("</script>", data) - data);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(html.find("\xE2\x80\xA8"), std::string::npos);
  EXPECT_EQ(html.find("\xE2\x80\xA9"), std::string::npos);
  // What the element holds is the whole session, the command as it was.
  const boost::json::value parsed = boost::json::parse(text);
  EXPECT_EQ(parsed.at("emits").as_array().size(), 5u);
  EXPECT_EQ(parsed.at("emits").at(0).at("payload").at("input").at("command").as_string(), kHostileCommand);
}

// Chromium draws it (with kHostileCommand in its data). tools/install-deps
// installs Chromium, and tools/test sets HOOKBUS_REQUIRE_CHROMIUM: there its
// absence fails the test rather than skipping it. Not a Hookctl test:
// Chromium's crash handler outlives it (a zombie of init's), which
// NothingLeftBehind would take for a process hookctl left.
TEST(TraceView, WritesOnePageThatChromiumDrawsAndThatChecksItself) {
  const fs::path chromium = "/usr/bin/chromium";
  if (!fs::exists(chromium)) {
    if (std::getenv("HOOKBUS_REQUIRE_CHROMIUM") != nullptr)
      FAIL() << "/usr/bin/chromium is missing, and HOOKBUS_REQUIRE_CHROMIUM is set (tools/install-deps installs it)";
    GTEST_SKIP() << "SKIPPED: the Debian package 'chromium' is not installed (tools/install-deps installs it)";
  }
  const TempDir home;
  const fs::path page = view_known_recording(home.path());
  const std::string html = testing::read_file(page);
  EXPECT_THAT(html, Not(HasSubstr("http")));  // loads nothing from the network
  EXPECT_THAT(html, Not(HasSubstr("<script src")));

  const std::vector<std::string> headless{"--headless", "--no-sandbox", "--disable-gpu", "--disable-crash-reporter",
                                          "--window-size=1000,600"};
  std::vector<std::string> dump = headless;
  dump.insert(dump.end(), {"--dump-dom", "file://" + page.string()});
  const ProcessResult dom = run_process({.program = chromium, .arguments = dump, .timeout = std::chrono::seconds(60)});
  // The self-check counts a row per record and per level of the wrapped step.
  EXPECT_THAT(dom.stdout_text, AllOf(HasSubstr(R"(data-self-check="passed")"), HasSubstr(R"(data-rendered="5")"),
                                     HasSubstr("<title>hookbus trace: 5 events rendered</title>")));
  EXPECT_THAT(dom.stdout_text, AllOf(HasSubstr("#4 step tool_call — output after 2 runs of the step"),
                                     HasSubstr("retry — next ×2, output"), HasSubstr("run step — threw: flaky tool")));

  std::vector<std::string> shot = headless;
  shot.insert(shot.end(), {"--screenshot=" + (home.path() / "trace.png").string(), "file://" + page.string()});
  const ProcessResult screenshot =
      run_process({.program = chromium, .arguments = shot, .timeout = std::chrono::seconds(60)});
  ASSERT_TRUE(fs::exists(home.path() / "trace.png")) << screenshot.stderr_text;
  // The legend and the rows of 5 records, their handlers and levels: far more than a blank page's nothing.
  EXPECT_GT(pixels_unlike_the_background(testing::read_file(home.path() / "trace.png")), 1000 * 600 / 50);
}

TEST_F(Recording, TraceCommandsAreAGroupInHelpAndCompletion) {
  EXPECT_THAT(plain({"help"}).stdout_text, AllOf(HasSubstr("trace view"), HasSubstr("trace summary"), HasSubstr("replay")));
  EXPECT_THAT(plain({"help", "trace", "view"}).stdout_text, HasSubstr("-o, --output FILE"));
  EXPECT_EQ(plain({"__complete", "--", "trace", ""}).stdout_text, "view\nsummary\n");
  const ProcessResult group = plain({"trace"});
  EXPECT_EQ(group.exit_code, 2);
  EXPECT_THAT(group.stderr_text, HasSubstr("'trace' needs a command: trace view, trace summary"));
}

// ------------------------------------------- trace files from outside

// What each command that reads a trace file makes of FILE.
std::vector<std::vector<std::string>> trace_commands_reading(const fs::path& file, const fs::path& page) {
  return {{"trace", "summary", file.string()},
          {"trace", "view", file.string(), "-o", page.string()},
          {"replay", file.string()}};
}

// Refused at once, exit 2, naming the file: FILE is not a trace file hookbus reads.
TEST_F(Recording, ATraceFileThatIsAFifoIsRefusedWithoutWaitingForAWriter) {
  const fs::path fifo = home_.path() / "session.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& command : trace_commands_reading(fifo, home_.path() / "page.html")) {
    const ProcessResult r = plain(command);
    EXPECT_FALSE(r.timed_out) << command[1];
    EXPECT_EQ(r.exit_code, 2) << command[1];
    EXPECT_THAT(r.stderr_text, HasSubstr(fifo.string() + ": is a FIFO, not a regular file")) << command[1];
  }
  EXPECT_FALSE(fs::exists(home_.path() / "page.html"));
}

TEST_F(Recording, ATraceFileThatIsADeviceIsRefusedWithoutReadingIt) {
  const fs::path zero = home_.path() / "session.jsonl";
  fs::create_symlink("/dev/zero", zero);
  for (const auto& command : trace_commands_reading(zero, home_.path() / "page.html")) {
    const ProcessResult r = plain(command);
    EXPECT_EQ(r.exit_code, 2) << command[1];
    EXPECT_THAT(r.stderr_text, HasSubstr(zero.string() + ": is a character device, not a regular file")) << command[1];
  }
}

TEST_F(Recording, ATraceFileThatIsADanglingSymlinkIsRefusedNamingItsTarget) {
  const fs::path link = home_.path() / "session.jsonl";
  fs::create_symlink(home_.path() / "gone.jsonl", link);
  for (const auto& command : trace_commands_reading(link, home_.path() / "page.html")) {
    const ProcessResult r = plain(command);
    EXPECT_EQ(r.exit_code, 2) << command[1];
    EXPECT_THAT(r.stderr_text, HasSubstr("FILE '" + link.string() + "': a symlink to '" +
                                         (home_.path() / "gone.jsonl").string() + "', which does not exist"))
        << command[1];
  }
}

TEST_F(Recording, ATraceFileThatIsADirectoryIsRefused) {
  for (const auto& command : trace_commands_reading(home_.path(), home_.path() / "page.html")) {
    const ProcessResult r = plain(command);
    EXPECT_EQ(r.exit_code, 2) << command[1];
    EXPECT_THAT(r.stderr_text, HasSubstr("FILE '" + home_.path().string() + "': a directory, not a file")) << command[1];
  }
}

// Sparse: over the limit without taking the disk space.
TEST_F(Recording, ATraceFileOverTheSizeLimitIsRefusedUnread) {
  const fs::path big = home_.path() / "session.jsonl";
  write_file(big, "");
  fs::resize_file(big, max_trace_file_bytes + 1);
  for (const auto& command : trace_commands_reading(big, home_.path() / "page.html")) {
    const ProcessResult r = plain(command);
    EXPECT_EQ(r.exit_code, 2) << command[1];
    EXPECT_THAT(r.stderr_text, HasSubstr(fmt::format("{}: is {} bytes, over the limit of {} bytes", big.string(),
                                                     max_trace_file_bytes + 1, max_trace_file_bytes)))
        << command[1];
  }
}

// As run-hook's path: dir/link/../known.jsonl is the file beside the link's
// target, not dir/known.jsonl (here not a trace at all).
TEST_F(Recording, TraceSummaryReadsTheFileADotDotAfterASymlinkNames) {
  const fs::path real = home_.path() / "real", dir = home_.path() / "dir";
  testing::make_directories(real / "sub");
  write_known_recording(real / "known.jsonl");
  write_file(dir / "known.jsonl", "not a trace\n");
  fs::create_symlink(real / "sub", dir / "link");
  const ProcessResult r = plain({"trace", "summary", (dir / "link" / ".." / "known.jsonl").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(boost::json::parse(r.stdout_text).at("emits"), 4);
}

TEST_F(Recording, TraceViewWithAnEmptyOutputPathIsAUsageError) {
  const fs::path file = write_known_recording(home_.path() / "known.jsonl");
  const ProcessResult r = plain({"trace", "view", file.string(), "--output", ""});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.stderr_text, HasSubstr("--output: the path is empty"));
}

TEST_F(Recording, TraceViewToAPathThatCannotBeWrittenExitsFourWithTheSystemsReason) {
  const fs::path file = write_known_recording(home_.path() / "known.jsonl");
  const fs::path page = file / "trace.html";  // under a regular file
  const ProcessResult r = plain({"trace", "view", file.string(), "-o", page.string()});
  EXPECT_EQ(r.exit_code, 4);
  // The message names the part of the path that cannot be a directory.
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr(file.string()), HasSubstr(std::strerror(ENOTDIR))));
}

// The page is written to a temporary file renamed over it: a write that fails
// (here over a file size limit, ulimit -f) leaves the old page whole and no
// temporary file.
TEST_F(Recording, TraceViewThatFailsToWriteLeavesNoHalfPage) {
  const fs::path file = write_known_recording(home_.path() / "known.jsonl");
  const fs::path pages = home_.path() / "pages";
  const fs::path page = write_file(pages / "trace.html", "the old page\n");
  const ProcessResult r = run_process(
      {.program = "/bin/sh",
       .arguments = {"-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" trace view \"$1\" -o \"$2\"", kHookctl.string(),
                     file.string(), page.string()},
       .extra_environment = environment(),
       .timeout = std::chrono::seconds(20)});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.stderr_text, AllOf(HasSubstr(page.string()), HasSubstr(std::strerror(EFBIG))));
  EXPECT_EQ(testing::read_file(page), "the old page\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(pages), fs::directory_iterator()), 1);
}

TEST_F(Recording, TraceHelpListsTheGroupsCommandsAndExitsZero) {
  for (const std::vector<std::string>& words :
       {std::vector<std::string>{"trace", "--help"}, {"trace", "-h"}, {"help", "trace"}}) {
    const ProcessResult help = plain(words);
    EXPECT_EQ(help.exit_code, 0) << words.back();
    EXPECT_THAT(help.stdout_text, AllOf(StartsWith("usage: hookctl trace COMMAND"), HasSubstr("\n  trace view FILE"),
                                        HasSubstr("\n  trace summary FILE"), HasSubstr("\n  -h, --help ")))
        << words.back();
  }
}

}  // namespace
}  // namespace hookbus
