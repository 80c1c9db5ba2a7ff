// The tracer's OTLP/HTTP exporter (docs/tracing.md, "Sending spans to a
// Collector"): a real tracer on a real bus sending to a loopback receiver
// that answers as each test says; its config; and setup() giving it the
// user's network allowance. The tracers record on the emitting thread and
// send only when they end (a flush interval of an hour), so each test knows
// which requests it gets.

#include "agent_hooks_fixture.hpp"
#include "http_test_server.hpp"
#include "log_capture.hpp"
#include "script_fixture.hpp"

#include <hookbus/config.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/json.hpp>
#include <hookbus/log.hpp>
#include <hookbus/trace_options.hpp>
#include <hookbus/tracer.hpp>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hookbus {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::SizeIs;
using test::HttpTestServer;
using test::ReceivedRequest;
using test::Reply;

// Answers each request with the next of `replies`, and every request after them with the last.
std::function<Reply(const ReceivedRequest&)> in_turn(std::vector<Reply> replies) {
  auto answered = std::make_shared<std::atomic<std::size_t>>(0);
  return [replies = std::move(replies), answered](const ReceivedRequest&) {
    return replies[std::min(answered->fetch_add(1), replies.size() - 1)];
  };
}

// A receiver that holds every answer until the test lets it go, or it goes:
// a Collector that does not answer.
class StalledReceiver {
 public:
  StalledReceiver()
      : server_([this](const ReceivedRequest&) {
          std::unique_lock lock(mutex_);
          arrived_ = true;
          changed_.notify_all();
          changed_.wait(lock, [&] { return released_; });
          return Reply{.body = "{}"};
        }) {}
  ~StalledReceiver() { release(); }  // before the server's thread is joined
  StalledReceiver(const StalledReceiver&) = delete;
  StalledReceiver& operator=(const StalledReceiver&) = delete;

  // Whether a request came (waiting a minute at most: only a failing test waits that long).
  bool wait_for_a_request() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::minutes(1), [&] { return arrived_; });
  }
  void release() {
    const std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }
  const HttpTestServer& server() const { return server_; }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool arrived_ = false;
  bool released_ = false;
  HttpTestServer server_;  // last: its thread ends before what it waits on goes
};

json::value body_of(const ReceivedRequest& request) { return parse_json(request.body, "the request's body"); }

const json::array& spans_of(const json::value& request) {
  return request.at("resourceSpans").at(0).at("scopeSpans").at(0).at("spans").as_array();
}

// The attributes of a span or a resource: each key's AnyValue's one value.
std::map<std::string, json::value> attributes_of(const json::value& holder) {
  std::map<std::string, json::value> attributes;
  for (const json::value& attribute : holder.at("attributes").as_array())
    attributes.emplace(attribute.at("key").as_string(), attribute.at("value").as_object().begin()->value());
  return attributes;
}

// A span as two writers of the same record make it: all but its new ids.
json::object without_ids(json::object span) {
  span.erase("traceId");
  span.erase("spanId");
  span.erase("parentSpanId");
  return span;
}

ToolCallEvent rm_rf() {
  return ToolCallEvent{.context = {.session_id = "session-7"},
                       .tool_call_id = "call_1",
                       .tool_name = "bash",
                       .input = {{"command", "rm -rf /"}}};
}

class OtlpHttp : public ::testing::Test {
 protected:
  // Sending to `server`'s /v1/traces, an origin the allowance names, only when the tracer ends.
  static OtlpHttpTraceOptions sending_to(const HttpTestServer& server) {
    return {.endpoint = server.url("/v1/traces"),
            .network = {.origins = {server.origin()}},
            .flush_interval = std::chrono::hours(1)};
  }
  // Runs `emits` with the bus traced to `options`, on the emitting thread; the tracer's end sends what is queued.
  void trace(const OtlpHttpTraceOptions& options, const std::function<void()>& emits) {
    Tracer tracer(TraceOptions{.otlp_http = options, .queue = std::nullopt});
    const ConnectionGroup tracing = hooks.add(tracer);
    emits();
  }
  void emit_turns(int count) {
    for (int i = 0; i < count; ++i) (void)hooks.emit(TurnStartEvent{.turn_index = static_cast<std::uint32_t>(i)});
  }

  testing::LogCapture log;
  testing::TempDir dir;
  Hooks hooks;
};

// ------------------------------------------------------------------ what is sent

TEST_F(OtlpHttp, TheCollectorGetsOneJsonExportRequestWithTheSpansTheOtlpFileHolds) {
  HttpTestServer server([](const ReceivedRequest&) { return Reply{.body = "{}"}; });
  const Connection policy = hooks.on<ToolCallEvent>(
      [](const ToolCallEvent&) -> std::optional<ToolCallResult> {
        return ToolCallResult{.decision = Decision::deny, .reason = "rm -rf is not allowed"};
      },
      {.label = "no-rm-rf", .source = "engine/policy"});
  const auto file = dir / "session.otlp.jsonl";
  {
    Tracer tracer(TraceOptions{.otlp = OtlpTraceOptions{.file = file},
                               .otlp_http = sending_to(server),
                               .queue = std::nullopt,
                               .project = dir.path()});
    const ConnectionGroup tracing = hooks.add(tracer);
    (void)hooks.emit(rm_rf());
  }
  const std::vector<ReceivedRequest> requests = server.requests();
  ASSERT_THAT(requests, SizeIs(1));
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/v1/traces");
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json");
  const json::value sent = body_of(requests[0]);
  const json::value written = parse_json(testing::read_file(file), file.string());
  const json::value& resource = sent.at("resourceSpans").at(0).at("resource");
  EXPECT_EQ(resource, written.at("resourceSpans").at(0).at("resource"));
  EXPECT_EQ(attributes_of(resource).at("service.name"), "hookbus");
  EXPECT_EQ(attributes_of(resource).at("hookbus.project"), json::value(dir.path().string()));
  EXPECT_EQ(sent.at("resourceSpans").at(0).at("scopeSpans").at(0).at("scope").at("name"), "hookbus");
  const json::array& spans = spans_of(sent);
  ASSERT_THAT(spans, SizeIs(2));  // the emit's, and the policy's under it
  for (const json::value& span : spans) {
    EXPECT_THAT(std::string(span.at("traceId").as_string()), MatchesRegex("[0-9a-f]{32}"));
    EXPECT_THAT(std::string(span.at("spanId").as_string()), MatchesRegex("[0-9a-f]{16}"));
  }
  EXPECT_EQ(spans[1].at("parentSpanId"), spans[0].at("spanId"));
  EXPECT_EQ(attributes_of(spans[0]).at("hookbus.decided_by.handler"), "no-rm-rf");
  EXPECT_EQ(attributes_of(spans[1]).at("hookbus.handler.label"), "no-rm-rf");
  const json::array& spans_written = spans_of(written);
  ASSERT_THAT(spans_written, SizeIs(2));
  for (std::size_t i = 0; i < spans.size(); ++i)
    EXPECT_EQ(without_ids(spans[i].as_object()), without_ids(spans_written[i].as_object())) << "span " << i;
}

TEST_F(OtlpHttp, ConfiguredHeadersAreSentWithTheRequest) {
  HttpTestServer server([](const ReceivedRequest&) { return Reply{.body = "{}"}; });
  OtlpHttpTraceOptions options = sending_to(server);
  options.headers = {{"Authorization", "Bearer t0k3n"}, {"X-Scope-OrgID", "tenant-7"}};
  trace(options, [&] { emit_turns(1); });
  const std::vector<ReceivedRequest> requests = server.requests();
  ASSERT_THAT(requests, SizeIs(1));
  const auto& headers = requests[0].headers;
  EXPECT_EQ(headers.at("authorization"), "Bearer t0k3n");
  EXPECT_EQ(headers.at("x-scope-orgid"), "tenant-7");
}

TEST_F(OtlpHttp, AHeadersValueNeverAppearsInTheLog) {
  HttpTestServer server([](const ReceivedRequest& request) {
    return Reply{.status = 400, .body = "rejected: " + request.headers.at("authorization")};  // echoed, as a proxy may
  });
  OtlpHttpTraceOptions options = sending_to(server);
  options.headers = {{"Authorization", "Bearer s3cret-t0k3n"}};
  logger()->set_level(spdlog::level::debug);
  trace(options, [&] { emit_turns(1); });
  ASSERT_THAT(server.requests(), SizeIs(1));
  EXPECT_THAT(log.text(), HasSubstr("answered 400"));  // the failure is logged...
  EXPECT_THAT(log.text(), Not(HasSubstr("s3cret")));   // ...without the header's value
}

// ------------------------------------------------------------------ retries and drops

TEST_F(OtlpHttp, A503AndA429AreRetriedAndEverySpanArrivesOnce) {
  HttpTestServer server(in_turn({Reply{.status = 503},
                                 Reply{.status = 429, .headers = {{"Retry-After", "0"}}},
                                 Reply{.body = "{}"}}));
  trace(sending_to(server), [&] { emit_turns(3); });
  const std::vector<ReceivedRequest> requests = server.requests();
  ASSERT_THAT(requests, SizeIs(3));
  EXPECT_EQ(requests[1].body, requests[0].body);  // the same batch, again
  EXPECT_EQ(requests[2].body, requests[0].body);
  const json::value accepted = body_of(requests[2]);
  std::set<std::string> span_ids;
  for (const json::value& span : spans_of(accepted)) span_ids.emplace(span.at("spanId").as_string());
  EXPECT_THAT(span_ids, SizeIs(3));
  EXPECT_THAT(log.text(), Not(HasSubstr("not sent")));
}

TEST_F(OtlpHttp, A400IsNotRetriedAndAWarningSaysHowManySpansWereDroppedAndTheStatus) {
  HttpTestServer server([](const ReceivedRequest&) {
    return Reply{.status = 400, .body = R"({"code": 3, "message": "invalid span"})"};
  });
  trace(sending_to(server), [&] { emit_turns(3); });
  EXPECT_THAT(server.requests(), SizeIs(1));
  EXPECT_THAT(log.text(), HasSubstr("trace: 3 spans not sent to " + server.url("/v1/traces") +
                                    ": the Collector answered 400, which is not retried"));
  EXPECT_THAT(log.text(), HasSubstr("invalid span"));
}

TEST_F(OtlpHttp, ABatchStillRefusedWhenItsRetryTimeIsUpIsDroppedWithTheLastFailure) {
  HttpTestServer server([](const ReceivedRequest&) { return Reply{.status = 503}; });
  OtlpHttpTraceOptions options = sending_to(server);
  options.max_retry_time = Duration(1);  // shorter than any backoff: the first failure is the last
  trace(options, [&] { emit_turns(2); });
  EXPECT_THAT(server.requests(), SizeIs(1));
  EXPECT_THAT(log.text(), HasSubstr("2 spans not sent to " + server.url("/v1/traces") +
                                    ": gave up after 1 attempt within 1 ms, the last: the Collector answered 503"));
}

TEST_F(OtlpHttp, SpansACollectorRejectsInAPartialSuccessAreCountedAsDropped) {
  HttpTestServer server([](const ReceivedRequest&) {
    return Reply{.body = R"({"partialSuccess": {"rejectedSpans": "2", "errorMessage": "spans too old"}})"};
  });
  trace(sending_to(server), [&] { emit_turns(3); });
  EXPECT_THAT(server.requests(), SizeIs(1));
  EXPECT_THAT(log.text(), HasSubstr("2 spans not sent to " + server.url("/v1/traces")));
  EXPECT_THAT(log.text(), HasSubstr("spans too old"));
}

// Every emit would wait here for ever if one waited for the Collector.
TEST_F(OtlpHttp, EmitsNeverWaitForACollectorThatDoesNotAnswerAndTheSpansDroppedAreCounted) {
  StalledReceiver receiver;
  OtlpHttpTraceOptions options = sending_to(receiver.server());
  options.max_queued_spans = 8;
  options.max_batch_spans = 1;  // the first span is sent at once, and held by the receiver
  {
    Tracer tracer(TraceOptions{.otlp_http = options, .queue = std::nullopt});
    const ConnectionGroup tracing = hooks.add(tracer);
    emit_turns(1);
    ASSERT_TRUE(receiver.wait_for_a_request());
    emit_turns(50);  // 8 are queued behind the one held; 42 find the queue full
    receiver.release();
  }
  EXPECT_THAT(log.text(), HasSubstr("span not sent to " + receiver.server().url("/v1/traces") +
                                    ": the queue of spans waiting to be sent is full"));
  EXPECT_THAT(log.text(), HasSubstr("trace: spans not sent to " + receiver.server().url("/v1/traces") +
                                    ": 42 of 51: 42 dropped because the queue (8 spans) was full"));
}

TEST_F(OtlpHttp, AnEndpointWhoseOriginIsNotAllowedGetsNothingAndAWarningSaysHowToAllowIt) {
  HttpTestServer server([](const ReceivedRequest&) { return Reply{.body = "{}"}; });
  OtlpHttpTraceOptions options = sending_to(server);
  options.network = {};
  trace(options, [&] { emit_turns(1); });
  EXPECT_THAT(server.requests(), SizeIs(0));
  EXPECT_THAT(log.text(), HasSubstr(server.url("/v1/traces")));
  EXPECT_THAT(log.text(), HasSubstr("\"allowed_origins\""));
  EXPECT_THAT(log.text(), HasSubstr("1 refused by the network allowance"));
}

// ------------------------------------------------------------------ config

ConfigObject settings_of(const json::object& object) {
  return ConfigObject(object, ConfigLocation{.file = "/p/.hookbus/config.json", .project_dir = "/p", .path = "trace"});
}

// What reading `settings` (a user config's) throws.
std::string error_reading(const json::object& settings) {
  try {
    (void)read_trace_options(settings_of(settings), Layer::user);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}

TEST(OtlpHttpConfig, AnEndpointAndItsSettingsAreReadAndTheAllowanceIsLeftToSetup) {
  const json::object settings{{"otlp",
                               {{"endpoint", "http://127.0.0.1:4318/v1/traces"},
                                {"headers", {{"Authorization", "Bearer t0k3n"}}},
                                {"max_queued_spans", 100},
                                {"max_batch_spans", 10},
                                {"flush_interval_ms", 200},
                                {"timeout_ms", 3000}}}};
  const TraceOptions options = read_trace_options(settings_of(settings), Layer::user);
  EXPECT_FALSE(options.otlp);
  EXPECT_EQ(options.otlp_http, (OtlpHttpTraceOptions{.endpoint = "http://127.0.0.1:4318/v1/traces",
                                                     .headers = {{"Authorization", "Bearer t0k3n"}},
                                                     .network = {},
                                                     .max_queued_spans = 100,
                                                     .max_batch_spans = 10,
                                                     .flush_interval = Duration(200),
                                                     .timeout = Duration(3000)}));
}

TEST(OtlpHttpConfig, AnEndpointAndAFileTogetherAreAnErrorSayingToChooseOne) {
  EXPECT_THAT(error_reading({{"otlp", {{"endpoint", "http://127.0.0.1:4318/v1/traces"}, {"file", "s.otlp.jsonl"}}}}),
              HasSubstr("trace.otlp: both \"endpoint\" and \"file\": choose one"));
}

TEST(OtlpHttpConfig, AnEndpointThatIsNotAnHttpUrlIsAnErrorNamingItsPath) {
  EXPECT_THAT(error_reading({{"otlp", {{"endpoint", "ftp://collector.example.com/v1/traces"}}}}),
              HasSubstr("/p/.hookbus/config.json: trace.otlp.endpoint: "));
}

TEST(OtlpHttpConfig, AHeaderValueWithALineBreakIsAnErrorThatDoesNotShowTheValue) {
  const std::string error = error_reading(
      {{"otlp", {{"endpoint", "http://127.0.0.1:4318/v1/traces"}, {"headers", {{"Authorization", "s3cret\r\nX: 1"}}}}}});
  EXPECT_THAT(error, HasSubstr("trace.otlp.headers.Authorization: the value holds a line break"));
  EXPECT_THAT(error, Not(HasSubstr("s3cret")));
}

// ------------------------------------------------------------------ through setup()

class OtlpHttpSetup : public testing::AgentHooksFixture {
 protected:
  void TearDown() override {
    installed_.reset();  // its connections close before the descriptors are counted
    server_.reset();
    AgentHooksFixture::TearDown();
  }
  HttpTestServer& receiver() {
    server_.emplace([](const ReceivedRequest&) { return Reply{.body = "{}"}; });
    return *server_;
  }
  void write_config(Layer layer, const json::object& config) const {
    testing::write_file(locations().config_file(layer), write_json(config));
  }
  bool tracer_installed() const {
    return std::ranges::any_of(installed_->report.builtins,
                               [](const BuiltinReport& builtin) { return builtin.name == "trace" && builtin.installed; });
  }

  std::optional<HttpTestServer> server_;
};

TEST_F(OtlpHttpSetup, AUsersConfigSendsTheSpansToAnOriginItAllows) {
  HttpTestServer& server = receiver();
  write_config(Layer::user, {{"network", {{"allowed_origins", {server.origin()}}}},
                             {"trace", {{"otlp", {{"endpoint", server.url("/v1/traces")}}}}}});
  (void)emit_bash("ls");
  installed_.reset();  // the tracer's end sends what is queued
  const std::vector<ReceivedRequest> requests = server.requests();
  ASSERT_THAT(requests, SizeIs(1));
  const json::value sent = body_of(requests[0]);
  const json::array& spans = spans_of(sent);
  ASSERT_FALSE(spans.empty());
  EXPECT_EQ(spans[0].at("name"), "tool_call bash");
}

TEST_F(OtlpHttpSetup, AProjectsEndpointGetsNothingAtAnOriginTheUserDidNotAllow) {
  HttpTestServer& server = receiver();
  write_config(Layer::project, {{"trace", {{"otlp", {{"endpoint", server.url("/v1/traces")}}}}}});
  trust_project();
  (void)emit_bash("ls");
  ASSERT_TRUE(tracer_installed());
  installed_.reset();
  EXPECT_THAT(server.requests(), SizeIs(0));
  EXPECT_THAT(log_.text(), HasSubstr("\"allowed_origins\""));
}

}  // namespace
}  // namespace hookbus
