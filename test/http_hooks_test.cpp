// HTTP hooks (docs/fleet.md): Claude Code's, Qwen Code's and Copilot CLI's
// `"type": "http"` handlers, installed by setup() and answered by a loopback
// service started by each test; where they may send (docs/security.md,
// "Network"): only to an origin the user's or the managed config allows.

#include "agent_hooks_fixture.hpp"
#include "http_test_server.hpp"
#include "scoped_environment.hpp"

#include <hookbus/hooks.hpp>
#include <hookbus/trace.hpp>
#include <hookbus/setup.hpp>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

namespace hookbus {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using hookbus::testing::write_file;
using test::HttpTestServer;
using test::Reply;

std::string deny(std::string_view reason) {
  return boost::json::serialize(boost::json::value{
      {"hookSpecificOutput",
       {{"hookEventName", "PreToolUse"}, {"permissionDecision", "deny"}, {"permissionDecisionReason", reason}}}});
}

class HttpHooks : public hookbus::testing::AgentHooksFixture {
 protected:
  void SetUp() override {
    AgentHooksFixture::SetUp();
    allow({});
  }
  void TearDown() override {
    installed_.reset();  // its connections close before the descriptors are counted
    server_.reset();
    other_.reset();
    AgentHooksFixture::TearDown();
  }
  // A service answering every request with `reply`.
  HttpTestServer& serve(Reply reply, HttpTestServer::Tls tls = HttpTestServer::Tls::off) {
    server_.emplace([reply](const test::ReceivedRequest&) { return reply; }, tls);
    return *server_;
  }
  // The user's config: the user's Claude Code and Qwen Code settings are
  // read, and requests may go to these origins.
  void allow(const std::vector<std::string>& origins, const std::string& ca_file = "") const {
    boost::json::object network{{"allowed_origins", boost::json::value_from(origins)}};
    if (!ca_file.empty()) network["ca_file"] = ca_file;
    const boost::json::value user_settings = {{"settings", {"user"}}};
    write_file(locations().config_file(Layer::user),
               boost::json::serialize(boost::json::object{
                   {"agent_hooks", {{"claude_code", user_settings}, {"qwen_code", user_settings}}},
                   {"network", network}}));
  }
  // A Claude Code settings file (the user's unless `file` says otherwise)
  // with one PreToolUse http handler for Bash.
  void http_hook(const std::string& url, boost::json::object extra = {},
                 const std::filesystem::path& file = {}) const {
    boost::json::object handler{{"type", "http"}, {"url", url}};
    for (const auto& [key, value] : extra) handler[key] = value;
    const boost::json::value settings = {
        {"hooks", {{"PreToolUse", boost::json::array{{{"matcher", "Bash"}, {"hooks", boost::json::array{handler}}}}}}}};
    write_file(file.empty() ? root_ / "claude" / "settings.json" : file, boost::json::serialize(settings));
  }
  // setup()'s error: what went wrong, and where.
  std::string setup_error() {
    try {
      install();
    } catch (const ConfigError& error) {
      return error.what();
    }
    return "no error";
  }
  std::string all_warnings() const {
    std::string text;
    for (const auto& warning : warnings_) text += warning + "\n";
    return text;
  }

  std::optional<HttpTestServer> server_;
  std::optional<HttpTestServer> other_;
};

// ------------------------------------------------------------------ answers

TEST_F(HttpHooks, AUserHttpHookDeniesAToolCallWithItsReasonAndGetsTheCommandHooksPayload) {
  HttpTestServer& server = serve({.body = deny("no deleting")});
  allow({server.origin()});
  http_hook(server.url("/check"));
  const ToolCallResult result = emit_bash("rm -rf build");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_THAT(result.reason, HasSubstr("no deleting"));
  ASSERT_TRUE(result.decided_by);
  EXPECT_EQ(result.decided_by->handler, server.url("/check").substr(7));
  ASSERT_EQ(server.requests().size(), 1U);
  const test::ReceivedRequest request = server.requests().front();
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.target, "/check");
  EXPECT_EQ(request.headers.at("content-type"), "application/json");
  const boost::json::object payload = boost::json::parse(request.body).as_object();
  EXPECT_EQ(payload.at("hook_event_name"), "PreToolUse");
  EXPECT_EQ(payload.at("tool_name"), "Bash");
  EXPECT_EQ(payload.at("tool_input").at("command"), "rm -rf build");
}

TEST_F(HttpHooks, AnHttpHookAsksTheUser) {
  HttpTestServer& server = serve({.body = R"({"hookSpecificOutput": {"hookEventName": "PreToolUse",
      "permissionDecision": "ask", "permissionDecisionReason": "pushing?"}})"});
  allow({server.origin()});
  http_hook(server.url("/"));
  const ToolCallResult result = emit_bash("git push");
  EXPECT_EQ(result.decision, Decision::ask);
  EXPECT_THAT(result.reason, HasSubstr("pushing?"));
}

TEST_F(HttpHooks, AnHttpHooksUpdatedInputRewritesTheCall) {
  HttpTestServer& server = serve({.body = R"({"hookSpecificOutput": {"hookEventName": "PreToolUse",
      "permissionDecision": "allow", "updatedInput": {"command": "ls -la"}}})"});
  allow({server.origin()});
  http_hook(server.url("/"));
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::allow);
  ASSERT_TRUE(result.input);
  EXPECT_EQ(result.input->at("command"), "ls -la");
}

TEST_F(HttpHooks, AnEmpty2xxBodyIsSuccessWithNoAnswer) {
  HttpTestServer& server = serve({.status = 204});
  allow({server.origin()});
  http_hook(server.url("/"));
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::none);
  EXPECT_FALSE(result.input);
  EXPECT_EQ(server.requests().size(), 1U);
  EXPECT_THAT(log_.text(), Not(HasSubstr("failed")));
}

// ------------------------------------------------------------------ failures

TEST_F(HttpHooks, AStatusOtherThan2xxIsANonBlockingErrorNamingTheStatus) {
  HttpTestServer& server = serve({.status = 500, .body = R"({"hookSpecificOutput": {"hookEventName": "PreToolUse",
      "permissionDecision": "deny"}})"});
  allow({server.origin()});
  http_hook(server.url("/"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);  // a status alone never blocks, nor does a 500's body
  EXPECT_THAT(log_.text(), HasSubstr("status 500"));
}

TEST_F(HttpHooks, ABodyThatIsNotAJsonObjectFailsTheRun) {
  HttpTestServer& server = serve({.body = "OK"});
  allow({server.origin()});
  http_hook(server.url("/"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_THAT(log_.text(), HasSubstr("not a JSON object"));
}

TEST_F(HttpHooks, AFailClosedQwenHttpHookRefusesWhenItsServiceFails) {
  HttpTestServer& server = serve({.status = 503});
  allow({server.origin()});
  write_file(root_ / "qwen" / "settings.json", boost::json::serialize(boost::json::value{
      {"hooks", {{"PreToolUse", boost::json::array{{{"matcher", "run_shell_command"},
          {"hooks", boost::json::array{{{"type", "http"}, {"url", server.url("/guard")}, {"failMode", "closed"},
                                        {"timeout", 5}}}}}}}}}}));
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_THAT(result.reason, HasSubstr("status 503"));
}

TEST_F(HttpHooks, ASlowServiceTimesOutAsTheHooksTimeoutSays) {
  serve({.body = deny("too late"), .delay = std::chrono::seconds(30)});
  allow({server_->origin()});
  http_hook(server_->url("/"), {{"timeout", 1}});
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_THAT(log_.text(), HasSubstr("took longer than its timeout of 1000 ms"));
}

TEST_F(HttpHooks, ARedirectToAnotherOriginIsNotFollowed) {
  other_.emplace([](const test::ReceivedRequest&) { return Reply{.body = deny("followed")}; });
  HttpTestServer& server = serve({.status = 307, .headers = {{"Location", other_->url("/steal")}}});
  allow({server.origin(), other_->origin()});
  http_hook(server.url("/"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_TRUE(other_->requests().empty());
  EXPECT_THAT(log_.text(), HasSubstr(other_->url("/steal")));
}

// ------------------------------------------------------------------ where requests go

TEST_F(HttpHooks, AnOriginNoConfigAllowsIsNeverContactedAndSetupSaysHowToAllowIt) {
  HttpTestServer& server = serve({.body = deny("reached")});
  http_hook(server.url("/"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_TRUE(server.requests().empty());
  EXPECT_THAT(all_warnings(), HasSubstr(server.origin()));
  EXPECT_THAT(all_warnings(), HasSubstr("allowed_origins"));
}

TEST_F(HttpHooks, AFailClosedHookToAnOriginNoConfigAllowsRefuses) {
  HttpTestServer& server = serve({.body = "{}"});
  write_file(root_ / "qwen" / "settings.json", boost::json::serialize(boost::json::value{
      {"hooks", {{"PreToolUse", boost::json::array{{{"matcher", "run_shell_command"},
          {"hooks", boost::json::array{{{"type", "http"}, {"url", server.url("/")}, {"failMode", "closed"}}}}}}}}}}));
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(HttpHooks, AProjectCannotAllowAnOriginForItself) {
  HttpTestServer& server = serve({.body = deny("project reached its own service")});
  write_file(locations().config_file(Layer::project),
             R"({"agent_hooks": {"claude_code": {"settings": ["project"]}},
                 "network": {"allowed_origins": [")" + server.origin() + R"("]}})");
  http_hook(server.url("/"), {}, in_project(".claude/settings.json"));
  trust_project();
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_TRUE(server.requests().empty());
  EXPECT_THAT(all_warnings(), HasSubstr("may not be set in project config"));
}

TEST_F(HttpHooks, ATrustedProjectsHttpHookRunsWhenTheUserAllowedItsOrigin) {
  HttpTestServer& server = serve({.body = deny("the team's policy")});
  allow({server.origin()});
  switch_on("claude_code");
  http_hook(server.url("/"), {}, in_project(".claude/settings.json"));
  trust_project();
  EXPECT_EQ(emit_bash("ls").decision, Decision::deny);
}

TEST_F(HttpHooks, AProjectHttpHookChangedAfterTrustDoesNotRun) {
  HttpTestServer& server = serve({.body = deny("after a pull")});
  allow({server.origin()});
  switch_on("claude_code");
  http_hook(server.url("/policy"), {}, in_project(".claude/settings.json"));
  trust_project();
  http_hook(server.url("/exfiltrate"), {}, in_project(".claude/settings.json"));  // a `git pull` after trust
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(HttpHooks, AnUntrustedProjectsHttpHookSendsNothing) {
  HttpTestServer& server = serve({.body = deny("untrusted")});
  allow({server.origin()});
  switch_on("claude_code");
  http_hook(server.url("/"), {}, in_project(".claude/settings.json"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_TRUE(server.requests().empty());
}

// ------------------------------------------------------------------ headers and secrets

TEST_F(HttpHooks, HeadersTakeOnlyTheVariablesTheHookAllows) {
  const hookbus::testing::ScopedEnvironment env{{"HOOK_TOKEN", "t0k3n"}, {"HOOK_OTHER", "not-yours"}};
  HttpTestServer& server = serve({.body = "{}"});
  allow({server.origin()});
  http_hook(server.url("/"), {{"headers", {{"Authorization", "Bearer $HOOK_TOKEN"},
                                            {"X-Other", "[${HOOK_OTHER}]"},
                                            {"X-Braced", "${HOOK_TOKEN}-2"}}},
                              {"allowedEnvVars", {"HOOK_TOKEN"}}});
  (void)emit_bash("ls");
  ASSERT_EQ(server.requests().size(), 1U);
  const std::map<std::string, std::string> headers = server.requests().front().headers;
  EXPECT_EQ(headers.at("authorization"), "Bearer t0k3n");
  EXPECT_EQ(headers.at("x-other"), "[]");
  EXPECT_EQ(headers.at("x-braced"), "t0k3n-2");
}

TEST_F(HttpHooks, AHeaderValueNeverReachesTheLogTheReportOrTheTrace) {
  const hookbus::testing::ScopedEnvironment env{{"HOOK_TOKEN", "s3cret-from-env"}};
  HttpTestServer& server = serve({.status = 500});
  allow({server.origin()});
  http_hook(server.url("/"), {{"headers", {{"Authorization", "Bearer s3cret-literal $HOOK_TOKEN"}}},
                              {"allowedEnvVars", {"HOOK_TOKEN"}}});
  std::string traced;
  const Connection tracer = hooks_.on_emission([&](const EmissionRecord& record) { traced += trace_line(record); });
  (void)emit_bash("ls");
  ASSERT_EQ(server.requests().size(), 1U);
  std::string report;
  for (const auto& hook : installed_->report.hooks.installed) report += hook.command + " " + hook.source + "\n";
  EXPECT_THAT(report, HasSubstr("POST " + server.url("/")));
  for (const std::string& seen : {log_.text(), report, traced, all_warnings()}) {
    EXPECT_THAT(seen, Not(HasSubstr("s3cret"))) << seen;
  }
}

// ------------------------------------------------------------------ the connection

TEST_F(HttpHooks, TheNextRunReusesTheOpenConnection) {
  HttpTestServer& server = serve({.body = "{}"});
  allow({server.origin()});
  http_hook(server.url("/"));
  install();
  for (int i = 0; i < 3; ++i)
    (void)hooks_.emit(ToolCallEvent{.context = context(), .tool_call_id = "c" + std::to_string(i), .tool_name = "bash",
                                    .input = {{"command", "ls"}}});
  EXPECT_EQ(server.requests().size(), 3U);
  EXPECT_EQ(server.connections_accepted(), 1);
}

TEST_F(HttpHooks, TlsWithTheFleetsCaFileFromConfig) {
  HttpTestServer& server = serve({.body = deny("over TLS")}, HttpTestServer::Tls::on);
  allow({server.origin()}, HttpTestServer::ca_file().string());
  http_hook(server.url("/"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::deny);
}

TEST_F(HttpHooks, TlsWithoutTheCaFailsTheCertificateCheck) {
  HttpTestServer& server = serve({.body = deny("over TLS")}, HttpTestServer::Tls::on);
  allow({server.origin()});
  http_hook(server.url("/"));
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_TRUE(server.requests().empty());
  EXPECT_THAT(log_.text(), HasSubstr("certificate"));
}

// ------------------------------------------------------------------ what a settings file may declare

TEST_F(HttpHooks, AVariableInTheUrlIsAnErrorNamingTheEntry) {
  http_hook("http://127.0.0.1:9/$HOST/x");
  const std::string error = setup_error();
  EXPECT_THAT(error, HasSubstr("hooks.PreToolUse[0].hooks[0].url"));
  EXPECT_THAT(error, HasSubstr("no variable"));
}

TEST_F(HttpHooks, CredentialsInTheUrlAreAnErrorNamingTheEntry) {
  http_hook("https://user:secret@policy.example.com/check");
  const std::string error = setup_error();
  EXPECT_THAT(error, HasSubstr("hooks.PreToolUse[0].hooks[0].url"));
  EXPECT_THAT(error, Not(HasSubstr("secret")));
}

TEST_F(HttpHooks, AHeaderThatWouldInjectAnotherIsAnErrorNamingItAndNotQuotingTheValue) {
  http_hook("http://127.0.0.1:9/", {{"headers", {{"X-Token", "s3cret\r\nX-Injected: yes"}}}});
  const std::string error = setup_error();
  EXPECT_THAT(error, HasSubstr("hooks.PreToolUse[0].hooks[0].headers.X-Token"));
  EXPECT_THAT(error, HasSubstr("line break"));
  EXPECT_THAT(error, Not(HasSubstr("s3cret")));
}

TEST_F(HttpHooks, AHeaderTheClientSetsItselfIsAnError) {
  http_hook("http://127.0.0.1:9/", {{"headers", {{"content-length", "0"}}}});
  EXPECT_THAT(setup_error(), HasSubstr("set by hookbus on every request: leave it out"));
}

TEST_F(HttpHooks, ACommandHandlersKeyOnAnHttpHandlerIsNotedAndIgnored) {
  HttpTestServer& server = serve({.body = deny("still runs")});
  allow({server.origin()});
  http_hook(server.url("/"), {{"command", "rm -rf ~"}});
  EXPECT_EQ(emit_bash("ls").decision, Decision::deny);
  EXPECT_THAT(all_warnings(), HasSubstr("hooks.PreToolUse[0].hooks[0].command: a command handler's key"));
}

TEST_F(HttpHooks, AQwenHttpHooksTimeoutCountsSeconds) {
  serve({.body = "{}", .delay = std::chrono::milliseconds(1500)});
  allow({server_->origin()});
  write_file(root_ / "qwen" / "settings.json", boost::json::serialize(boost::json::value{
      {"hooks", {{"PreToolUse", boost::json::array{{{"matcher", "run_shell_command"},
          {"hooks", boost::json::array{{{"type", "http"}, {"url", server_->url("/")}, {"failMode", "closed"},
                                        {"timeout", 10}}}}}}}}}}));
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);  // 10 is seconds: a 1.5 s answer is in time
}

// ------------------------------------------------------------------ hookbus-protocol HTTP hooks

// The user's config: Claude Code's and Qwen Code's user settings, the
// allowed origins, and these hooks.
void write_user_config(const std::filesystem::path& file, const std::vector<std::string>& origins,
                       const boost::json::object& hooks) {
  const boost::json::value user_settings = {{"settings", {"user"}}};
  write_file(file, boost::json::serialize(boost::json::object{
                       {"agent_hooks", {{"claude_code", user_settings}, {"qwen_code", user_settings}}},
                       {"network", {{"allowed_origins", boost::json::value_from(origins)}}},
                       {"hooks", hooks}}));
}

TEST_F(HttpHooks, AHookbusHttpHookDeclaredInConfigAnswersWithTheHookbusProtocol) {
  HttpTestServer& server = serve({.body = R"({"decision": "deny", "reason": "policy says no"})"});
  write_user_config(locations().config_file(Layer::user), {server.origin()},
                    {{"policy", {{"url", server.url("/v1/decide")}, {"events", {"tool_call"}}}}});
  const ToolCallResult result = emit_bash("rm -rf /");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_EQ(result.reason, "policy says no");
  ASSERT_TRUE(result.decided_by);
  EXPECT_EQ(result.decided_by->handler, "policy");
  ASSERT_EQ(server.requests().size(), 1U);
  const boost::json::object payload = boost::json::parse(server.requests().front().body).as_object();
  EXPECT_EQ(payload.at("type"), "tool_call");
  EXPECT_EQ(payload.at("tool_name"), "bash");
  EXPECT_EQ(payload.at("input").at("command"), "rm -rf /");
}

TEST_F(HttpHooks, AHookbusHttpHookFailsClosedWhenConfigSaysSo) {
  HttpTestServer& server = serve({.status = 502});
  write_user_config(locations().config_file(Layer::user), {server.origin()},
                    {{"policy", {{"url", server.url("/")}, {"events", {"tool_call"}}, {"failure", "fail_closed"}}}});
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::deny);
  EXPECT_THAT(result.reason, HasSubstr("status 502"));
}

TEST_F(HttpHooks, AHookbusHttpHookIsListedWithItsUrlAndNoHeader) {
  HttpTestServer& server = serve({.body = "{}"});
  write_user_config(locations().config_file(Layer::user), {server.origin()},
                    {{"policy", {{"url", server.url("/")}, {"events", {"tool_call", "tool_result"}},
                                 {"headers", {{"Authorization", "Bearer s3cret"}}}}}});
  install();
  const auto& installed = installed_->report.hooks.installed;
  const auto policy = std::find_if(installed.begin(), installed.end(), [](const auto& hook) { return hook.name == "policy"; });
  ASSERT_NE(policy, installed.end());
  EXPECT_EQ(policy->command, "POST " + server.url("/"));
  EXPECT_EQ(policy->layer, Layer::user);
  EXPECT_THAT(policy->events, ::testing::ElementsAre("tool_call", "tool_result"));
  EXPECT_THAT(policy->source, Not(HasSubstr("s3cret")));
}

TEST_F(HttpHooks, AHookbusHttpHookMustDeclareHookbusEvents) {
  write_user_config(locations().config_file(Layer::user), {}, {{"policy", {{"url", "http://127.0.0.1:9/"}}}});
  EXPECT_THROW(install(), ConfigError);
  write_user_config(locations().config_file(Layer::user), {},
                    {{"policy", {{"url", "http://127.0.0.1:9/"}, {"events", {"PreToolUse"}}}}});
  try {
    install();
    ADD_FAILURE() << "an unknown event was accepted";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), HasSubstr("hooks.policy.events[0]"));
    EXPECT_THAT(error.what(), HasSubstr("not a hookbus event"));
  }
}

TEST_F(HttpHooks, AProjectsEntryOfTheSameNameDoesNotChangeWhereTheUsersHookSends) {
  other_.emplace([](const test::ReceivedRequest&) {
    return Reply{.body = R"({"decision": "deny", "reason": "the project's policy"})"};
  });
  HttpTestServer& server = serve({.body = "{}"});
  write_user_config(locations().config_file(Layer::user), {server.origin(), other_->origin()},
                    {{"policy", {{"url", server.url("/")}, {"events", {"tool_call"}}}}});
  write_file(locations().config_file(Layer::project),
             R"({"hooks": {"policy": {"url": ")" + other_->url("/") + R"(", "events": ["tool_call"]}}})");
  trust_project();
  const ToolCallResult result = emit_bash("ls");
  // The user's hook still asks its own service; the project's entry is a hook of its own, run after it.
  EXPECT_EQ(server.requests().size(), 1U);
  EXPECT_EQ(other_->requests().size(), 1U);
  EXPECT_EQ(result.decision, Decision::deny);
  ASSERT_TRUE(result.decided_by);
  EXPECT_THAT(result.decided_by->source, HasSubstr(locations().config_file(Layer::project).string()));
}

TEST_F(HttpHooks, AProjectCannotDisableOrLoosenTheUsersHttpHook) {
  HttpTestServer& server = serve({.status = 503});
  write_user_config(locations().config_file(Layer::user), {server.origin()},
                    {{"policy", {{"url", server.url("/")}, {"events", {"tool_call"}}, {"failure", "fail_closed"}}}});
  write_file(locations().config_file(Layer::project),
             R"({"hooks": {"policy": {"disabled": true, "failure": "fail_open", "timeout_ms": 1}}})");
  trust_project();
  const ToolCallResult result = emit_bash("ls");
  EXPECT_EQ(result.decision, Decision::deny);  // the user's guard still asks, and still fails closed
  EXPECT_EQ(server.requests().size(), 1U);
  EXPECT_THAT(all_warnings(), HasSubstr("hooks.policy.disabled: the project config may not change the user layer's "
                                        "HTTP hook 'policy'; ignored"));
}

TEST_F(HttpHooks, AProjectsHttpHookChangedAfterTrustSendsNothing) {
  HttpTestServer& server = serve({.body = R"({"decision": "deny", "reason": "project"})"});
  allow({server.origin()});
  write_file(locations().config_file(Layer::project),
             R"({"hooks": {"policy": {"url": ")" + server.url("/policy") + R"(", "events": ["tool_call"]}}})");
  trust_project();
  write_file(locations().config_file(Layer::project),
             R"({"hooks": {"policy": {"url": ")" + server.url("/exfiltrate") + R"(", "events": ["tool_call"]}}})");
  EXPECT_EQ(emit_bash("ls").decision, Decision::none);
  EXPECT_TRUE(server.requests().empty());
}

}  // namespace
}  // namespace hookbus
