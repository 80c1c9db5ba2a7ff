// hookbus's HTTP client (lib/net/http_client.hpp) against the loopback test
// server (http_test_server.hpp), the network allowance's checks of origins
// and addresses, and the URL reader (lib/net/url.hpp).
#include "http_test_server.hpp"
#include "net/http_client.hpp"
#include "net/url.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace hookbus::detail {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;
using test::HttpTestServer;
using test::ReceivedRequest;
using test::Reply;
using Kind = HttpError::Kind;

// Far beyond any of these exchanges on loopback: a request that takes this long has hung.
constexpr Duration kPatient = 60s;

HttpClientOptions allowing(std::vector<std::string> origins, std::filesystem::path ca_file = {}) {
  HttpClientOptions options;
  options.allowance = {.origins = std::move(origins), .ca_file = std::move(ca_file)};
  return options;
}

HttpRequest post_to(const std::string& url, std::string body = R"({"event": "tool_call"})") {
  HttpRequest request;
  request.url = parse_http_url(url);
  request.body = std::move(body);
  request.timeout = kPatient;
  return request;
}

Reply ok(std::string body = "{}") { return Reply{.status = 200, .body = std::move(body)}; }

// The error `post` throws; a test fails if it throws none.
HttpError post_error(HttpClient& client, const HttpRequest& request) {
  try {
    const HttpResponse response = client.post(request);
    ADD_FAILURE() << "expected an HttpError, got status " << response.status;
  } catch (const HttpError& error) {
    return error;
  }
  return HttpError(Kind::protocol, "no error");
}

// A port on 127.0.0.1 that refuses connections for as long as it lives: bound, not listening.
class RefusingPort {
 public:
  RefusingPort() {
    socket_.open(boost::asio::ip::tcp::v4());
    socket_.bind({boost::asio::ip::make_address_v4("127.0.0.1"), 0});
  }
  [[nodiscard]] std::string url() const {
    return "http://127.0.0.1:" + std::to_string(socket_.local_endpoint().port()) + "/";
  }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_{io_};
};

// ------------------------------------------------------------- exchanges

TEST(HttpClient, PostsTheBodyAndReturnsTheStatusAndBody) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(R"({"decision": "allow"})"); });
  HttpClient client(allowing({server.origin()}));
  HttpRequest request = post_to(server.url("/hooks/tool_call?v=1"), R"({"tool": "bash"})");
  request.headers = {{"X-Hookbus-Event", "tool_call"}};

  const HttpResponse response = client.post(request);

  EXPECT_EQ(response.status, 200u);
  EXPECT_EQ(response.body, R"({"decision": "allow"})");
  EXPECT_FALSE(response.connection_reused);
  ASSERT_EQ(server.requests().size(), 1u);
  const ReceivedRequest seen = server.requests().at(0);
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.target, "/hooks/tool_call?v=1");
  EXPECT_EQ(seen.body, R"({"tool": "bash"})");
  EXPECT_EQ(seen.headers.at("host"), server.origin().substr(std::string("http://").size()));
  EXPECT_EQ(seen.headers.at("content-type"), "application/json");
  EXPECT_EQ(seen.headers.at("content-length"), "16");
  EXPECT_EQ(seen.headers.at("user-agent"), "hookbus");
  EXPECT_EQ(seen.headers.at("x-hookbus-event"), "tool_call");
}

TEST(HttpClient, AServerErrorIsAResponseNotAnError) {
  HttpTestServer server([](const ReceivedRequest&) { return Reply{.status = 500, .body = "broken"}; });
  HttpClient client(allowing({server.origin()}));

  const HttpResponse response = client.post(post_to(server.url()));

  EXPECT_EQ(response.status, 500u);
  EXPECT_EQ(response.body, "broken");
}

TEST(HttpClient, RetryAfterInSecondsIsRead) {
  HttpTestServer server([](const ReceivedRequest&) {
    return Reply{.status = 429, .body = {}, .headers = {{"Retry-After", "7"}}};
  });
  HttpClient client(allowing({server.origin()}));

  EXPECT_EQ(client.post(post_to(server.url())).retry_after, Duration(7s));
}

TEST(HttpClient, RetryAfterAsADateIsLeftUnread) {
  HttpTestServer server([](const ReceivedRequest&) {
    return Reply{.status = 503, .body = {}, .headers = {{"Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"}}};
  });
  HttpClient client(allowing({server.origin()}));

  EXPECT_EQ(client.post(post_to(server.url())).retry_after, std::nullopt);
}

// ------------------------------------------------------------- kept connections

TEST(HttpClient, KeepsTheConnectionForTheNextRequest) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(); });
  HttpClient client(allowing({server.origin()}));

  const HttpResponse first = client.post(post_to(server.url()));
  const HttpResponse second = client.post(post_to(server.url()));

  EXPECT_FALSE(first.connection_reused);
  EXPECT_TRUE(second.connection_reused);
  EXPECT_EQ(server.connections_accepted(), 1);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(HttpClient, AConnectionTheServerSaidItClosesIsNotReused) {
  HttpTestServer server([](const ReceivedRequest&) { return Reply{.status = 200, .body = "{}", .close = true}; });
  HttpClient client(allowing({server.origin()}));

  EXPECT_EQ(client.post(post_to(server.url())).status, 200u);
  const HttpResponse second = client.post(post_to(server.url()));

  EXPECT_EQ(second.status, 200u);
  EXPECT_FALSE(second.connection_reused);
  EXPECT_EQ(server.connections_accepted(), 2);
}

TEST(HttpClient, ARequestOnAConnectionTheServerDroppedGoesAgainOnANewOne) {
  HttpTestServer server([](const ReceivedRequest&) {
    return Reply{.status = 200, .body = "{}", .close_silently = true};
  });
  HttpClient client(allowing({server.origin()}));

  EXPECT_EQ(client.post(post_to(server.url())).status, 200u);
  const HttpResponse second = client.post(post_to(server.url()));

  EXPECT_EQ(second.status, 200u);
  EXPECT_FALSE(second.connection_reused);
  EXPECT_EQ(server.connections_accepted(), 2);
  EXPECT_EQ(server.requests().size(), 2u);  // the dropped connection never delivered the request
}

TEST(HttpClient, AConnectionIdleLongerThanTheIdleTimeoutIsNotReused) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(); });
  HttpClientOptions options = allowing({server.origin()});
  options.idle_timeout = Duration(0);
  HttpClient client(options);

  EXPECT_EQ(client.post(post_to(server.url())).status, 200u);
  const HttpResponse second = client.post(post_to(server.url()));

  EXPECT_FALSE(second.connection_reused);
  EXPECT_EQ(server.connections_accepted(), 2);
}

TEST(HttpClient, RequestsFromSeveralThreadsAtOnceAllGetTheirResponses) {
  HttpTestServer server([](const ReceivedRequest& request) { return ok(request.body); });
  HttpClient client(allowing({server.origin()}));
  constexpr int threads = 4;
  constexpr int requests_each = 5;
  std::vector<std::vector<std::string>> answered(threads);
  {
    std::vector<std::jthread> senders;
    for (int t = 0; t < threads; ++t) {
      senders.emplace_back([&, t] {
        for (int i = 0; i < requests_each; ++i)
          answered[t].push_back(client.post(post_to(server.url(), std::to_string(t * 100 + i))).body);
      });
    }
  }
  for (int t = 0; t < threads; ++t) {
    ASSERT_EQ(answered[t].size(), std::size_t{requests_each});
    for (int i = 0; i < requests_each; ++i) EXPECT_EQ(answered[t][i], std::to_string(t * 100 + i));
  }
  EXPECT_LE(server.connections_accepted(), threads);
}

// ------------------------------------------------------------- failures

TEST(HttpClient, AResponseSlowerThanTheTimeoutIsATimeout) {
  HttpTestServer server([](const ReceivedRequest&) { return Reply{.status = 200, .body = {}, .delay = 5s}; });
  HttpClient client(allowing({server.origin()}));
  HttpRequest request = post_to(server.url());
  request.timeout = 200ms;

  const HttpError error = post_error(client, request);

  EXPECT_EQ(error.kind(), Kind::timeout);
  EXPECT_THAT(error.what(), HasSubstr(server.url()));
  EXPECT_THAT(error.what(), HasSubstr("200 ms"));
}

TEST(HttpClient, ATimeoutLongerThanTheClockCountsIsNone) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(); });
  HttpClient client(allowing({server.origin()}));
  HttpRequest request = post_to(server.url());
  request.timeout = Duration::max();

  EXPECT_EQ(client.post(request).status, 200u);
}

TEST(HttpClient, AStopFromAnotherThreadCancelsTheRequest) {
  HttpTestServer server([](const ReceivedRequest&) { return Reply{.status = 200, .body = {}, .delay = 5s}; });
  HttpClient client(allowing({server.origin()}));
  std::stop_source stop;
  HttpRequest request = post_to(server.url());
  request.stop = stop.get_token();
  // Stops once the server has the request, and so is waiting out its delay.
  std::jthread stopper([&](const std::stop_token& done) {
    while (server.requests().empty() && !done.stop_requested()) std::this_thread::sleep_for(1ms);
    stop.request_stop();
  });

  const HttpError error = post_error(client, request);

  EXPECT_EQ(error.kind(), Kind::cancelled);
  EXPECT_THAT(error.what(), HasSubstr(server.url()));
}

TEST(HttpClient, ARequestWhoseStopWasAlreadyRequestedIsCancelledUnsent) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(); });
  HttpClient client(allowing({server.origin()}));
  std::stop_source stop;
  stop.request_stop();
  HttpRequest request = post_to(server.url());
  request.stop = stop.get_token();

  EXPECT_EQ(post_error(client, request).kind(), Kind::cancelled);
  EXPECT_TRUE(server.requests().empty());
}

TEST(HttpClient, APortWithNoListenerIsAConnectError) {
  const RefusingPort port;
  HttpClient client(allowing({parse_origin(port.url())}));

  const HttpError error = post_error(client, post_to(port.url()));

  EXPECT_EQ(error.kind(), Kind::connect);
  EXPECT_THAT(error.what(), HasSubstr(port.url()));
}

TEST(HttpClient, ABodyOverTheLimitIsTooLarge) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(std::string(4096, 'x')); });
  HttpClientOptions options = allowing({server.origin()});
  options.max_response_bytes = 1024;
  HttpClient client(options);

  const HttpError error = post_error(client, post_to(server.url()));

  EXPECT_EQ(error.kind(), Kind::too_large);
  EXPECT_THAT(error.what(), HasSubstr("1024 bytes"));
}

// ------------------------------------------------------------- redirects

TEST(HttpClient, ARedirectToAnotherOriginIsNotFollowed) {
  HttpTestServer elsewhere([](const ReceivedRequest&) { return ok(); });
  HttpTestServer server([&](const ReceivedRequest&) {
    return Reply{.status = 307, .body = {}, .headers = {{"Location", elsewhere.url("/collect")}}};
  });
  HttpClient client(allowing({server.origin(), elsewhere.origin()}));  // allowed: still not followed

  const HttpError error = post_error(client, post_to(server.url()));

  EXPECT_EQ(error.kind(), Kind::redirect);
  EXPECT_THAT(error.what(), HasSubstr(elsewhere.url("/collect")));
  EXPECT_TRUE(elsewhere.requests().empty());
}

TEST(HttpClient, A307WithinTheOriginIsFollowedWithTheSameBody) {
  HttpTestServer server([](const ReceivedRequest& request) {
    if (request.target == "/old") return Reply{.status = 307, .body = {}, .headers = {{"Location", "/new"}}};
    return ok("moved");
  });
  HttpClient client(allowing({server.origin()}));

  const HttpResponse response = client.post(post_to(server.url("/old"), "payload"));

  EXPECT_EQ(response.status, 200u);
  EXPECT_EQ(response.body, "moved");
  const std::vector<ReceivedRequest> seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].target, "/new");
  EXPECT_EQ(seen[1].method, "POST");
  EXPECT_EQ(seen[1].body, "payload");
}

TEST(HttpClient, A303WithinTheOriginIsNotFollowed) {
  HttpTestServer server([](const ReceivedRequest&) {
    return Reply{.status = 303, .body = {}, .headers = {{"Location", "/elsewhere"}}};
  });
  HttpClient client(allowing({server.origin()}));

  const HttpError error = post_error(client, post_to(server.url("/old")));

  EXPECT_EQ(error.kind(), Kind::redirect);
  EXPECT_THAT(error.what(), HasSubstr(server.url("/elsewhere")));
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(HttpClient, MoreThanThreeRedirectsAreARedirectError) {
  HttpTestServer server([](const ReceivedRequest& request) {
    return Reply{.status = 308, .body = {}, .headers = {{"Location", request.target + "x"}}};
  });
  HttpClient client(allowing({server.origin()}));

  EXPECT_EQ(post_error(client, post_to(server.url("/a"))).kind(), Kind::redirect);
  EXPECT_EQ(server.requests().size(), 4u);  // the request and three redirects followed
}

// ------------------------------------------------------------- the allowance

TEST(HttpClient, AnOriginNotAllowedIsRefusedAndNothingIsSent) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(); });
  HttpClient client(allowing({"https://policy.example.com"}));

  const HttpError error = post_error(client, post_to(server.url()));

  EXPECT_EQ(error.kind(), Kind::refused);
  EXPECT_THAT(error.what(), HasSubstr(server.origin()));
  EXPECT_THAT(error.what(), HasSubstr(R"("network": {"allowed_origins": [...]})"));
  EXPECT_THAT(error.what(), HasSubstr("~/.config/hookbus/config.json"));
  EXPECT_THAT(error.what(), HasSubstr("/etc/hookbus/config.json"));
  EXPECT_TRUE(server.requests().empty());
  EXPECT_EQ(server.connections_accepted(), 0);
}

TEST(OriginRefusal, AnOriginTheAllowanceNamesIsAllowed) {
  const NetworkAllowance allowance{.origins = {"https://policy.example.com", "http://127.0.0.1:8080"}, .ca_file = {}};

  EXPECT_EQ(origin_refusal(parse_http_url("https://POLICY.example.com:443/v1/hook"), allowance), std::nullopt);
  EXPECT_EQ(origin_refusal(parse_http_url("http://127.0.0.1:8080/"), allowance), std::nullopt);
  EXPECT_NE(origin_refusal(parse_http_url("http://policy.example.com/"), allowance), std::nullopt);  // another scheme
  EXPECT_NE(origin_refusal(parse_http_url("http://127.0.0.1:8081/"), allowance), std::nullopt);      // another port
}

struct AddressCase {
  std::string address;
  std::string kind;  // what the refusal calls it
};

class AddressRefusalOfAName : public ::testing::TestWithParam<AddressCase> {};

TEST_P(AddressRefusalOfAName, IsRefusedAndSaysWhy) {
  const auto refusal = address_refusal(parse_http_url("https://policy.example.com/hook"),
                                       boost::asio::ip::make_address(GetParam().address));

  ASSERT_NE(refusal, std::nullopt);
  EXPECT_THAT(*refusal, HasSubstr(GetParam().address));
  EXPECT_THAT(*refusal, HasSubstr(GetParam().kind));
  EXPECT_THAT(*refusal, HasSubstr("https://policy.example.com/hook"));
}

INSTANTIATE_TEST_SUITE_P(
    AddressRefusal, AddressRefusalOfAName,
    ::testing::Values(AddressCase{"169.254.169.254", "metadata"}, AddressCase{"169.254.3.4", "link-local"},
                      AddressCase{"fe80::1", "link-local"}, AddressCase{"::ffff:169.254.169.254", "metadata"},
                      AddressCase{"::ffff:169.254.0.1", "link-local"}, AddressCase{"fd00:ec2::254", "metadata"},
                      AddressCase{"0.0.0.0", "unspecified"}, AddressCase{"::", "unspecified"},
                      AddressCase{"224.0.0.1", "multicast"}, AddressCase{"ff02::1", "multicast"}));

TEST(AddressRefusal, AnAddressTheUrlNamesItselfIsAllowed) {
  for (const std::string url : {"http://169.254.169.254/latest", "http://[fe80::1]:8080/", "http://[fd00:ec2::254]/",
                                "http://[::ffff:169.254.169.254]/", "http://0.0.0.0:9000/"}) {
    const HttpUrl parsed = parse_http_url(url);
    EXPECT_EQ(address_refusal(parsed, boost::asio::ip::make_address(parsed.host)), std::nullopt) << url;
  }
}

TEST(AddressRefusal, ANamedAddressIsAllowedThereOnly) {
  EXPECT_NE(
      address_refusal(parse_http_url("http://169.254.169.254/"), boost::asio::ip::make_address("169.254.169.253")),
      std::nullopt);
}

TEST(AddressRefusal, LoopbackAndPrivateAddressesAreAllowed) {
  const HttpUrl url = parse_http_url("https://policy.example.com/");
  for (const char* address :
       {"127.0.0.1", "::1", "10.1.2.3", "172.16.0.9", "192.168.1.20", "fd12:3456::1", "192.0.2.7"})
    EXPECT_EQ(address_refusal(url, boost::asio::ip::make_address(address)), std::nullopt) << address;
}

// ------------------------------------------------------------- TLS

TEST(HttpClient, ReachesATlsServerByNameWithItsCa) {
  HttpTestServer server([](const ReceivedRequest&) { return ok("secure"); }, HttpTestServer::Tls::on);
  HttpClient client(allowing({server.origin()}, HttpTestServer::ca_file()));

  const HttpResponse response = client.post(post_to(server.url("/hook")));

  EXPECT_EQ(response.status, 200u);
  EXPECT_EQ(response.body, "secure");
  EXPECT_TRUE(client.post(post_to(server.url("/hook"))).connection_reused);
}

TEST(HttpClient, ReachesATlsServerByAddressWithItsCa) {
  HttpTestServer server([](const ReceivedRequest&) { return ok("secure"); }, HttpTestServer::Tls::on);
  const std::string origin = "https://127.0.0.1:" + std::to_string(server.port());
  HttpClient client(allowing({origin}, HttpTestServer::ca_file()));

  EXPECT_EQ(client.post(post_to(origin + "/hook")).body, "secure");
}

TEST(HttpClient, ATlsServerWhoseCaIsNotTrustedFailsCertificateVerification) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(); }, HttpTestServer::Tls::on);
  HttpClient client(allowing({server.origin()}));

  const HttpError error = post_error(client, post_to(server.url()));

  EXPECT_EQ(error.kind(), Kind::tls);
  EXPECT_THAT(error.what(), HasSubstr("certificate verify failed"));
  EXPECT_THAT(error.what(), HasSubstr("ca_file"));
  EXPECT_TRUE(server.requests().empty());
}

// ------------------------------------------------------------- headers

TEST(HttpClient, AnErrorMessageNeverHoldsAHeaderValue) {
  const RefusingPort port;
  HttpClient client(allowing({parse_origin(port.url())}));
  HttpRequest request = post_to(port.url());
  request.headers = {{"Authorization", "Bearer s3cret"}};

  const HttpError error = post_error(client, request);

  EXPECT_THAT(error.what(), Not(HasSubstr("s3cret")));
}

TEST(HttpClient, AHeaderValueWithACarriageReturnOrLineFeedIsRefused) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(); });
  HttpClient client(allowing({server.origin()}));
  for (const std::string value : {"a\r\nX-Injected: yes", "a\nX-Injected: yes", "a\rb"}) {
    HttpRequest request = post_to(server.url());
    request.headers = {{"X-Token", value}};
    try {
      (void)client.post(request);
      ADD_FAILURE() << "a header value with CR or LF was sent";
    } catch (const HttpError&) {
      ADD_FAILURE() << "expected a hookbus::Error that is not an HttpError";
    } catch (const Error& error) {
      EXPECT_THAT(error.what(), HasSubstr("X-Token"));
      EXPECT_THAT(error.what(), Not(HasSubstr("Injected")));
    }
  }
  EXPECT_TRUE(server.requests().empty());
}

TEST(HttpClient, AHeaderNameThatIsNotATokenIsRefused) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(); });
  HttpClient client(allowing({server.origin()}));
  for (const std::string name : {"X-Bad\r\nX-Injected", "X Bad", "", "X-Bad:"}) {
    HttpRequest request = post_to(server.url());
    request.headers = {{name, "value"}};
    EXPECT_THROW((void)client.post(request), Error) << name;
  }
  EXPECT_TRUE(server.requests().empty());
}

TEST(HttpClient, TheFramingHeadersAreTheClientsOwn) {
  HttpTestServer server([](const ReceivedRequest&) { return ok(); });
  HttpClient client(allowing({server.origin()}));
  for (const std::string name : {"Host", "content-length", "Transfer-Encoding"}) {
    HttpRequest request = post_to(server.url());
    request.headers = {{name, "1"}};
    EXPECT_THROW((void)client.post(request), Error) << name;
  }
  EXPECT_TRUE(server.requests().empty());
}

// ------------------------------------------------------------- URLs

struct UrlCase {
  std::string text;
  bool tls;
  std::string host;
  std::uint16_t port;
  std::string target;
  std::string origin;
};

class HttpUrlAccepted : public ::testing::TestWithParam<UrlCase> {};

TEST_P(HttpUrlAccepted, IsReadIntoItsParts) {
  const UrlCase& expected = GetParam();
  const HttpUrl url = parse_http_url(expected.text);
  EXPECT_EQ(url.tls, expected.tls);
  EXPECT_EQ(url.host, expected.host);
  EXPECT_EQ(url.port, expected.port);
  EXPECT_EQ(url.target, expected.target);
  EXPECT_EQ(url.origin(), expected.origin);
  EXPECT_EQ(url.text(), expected.origin + expected.target);
}

INSTANTIATE_TEST_SUITE_P(
    HttpUrl, HttpUrlAccepted,
    ::testing::Values(
        UrlCase{"https://policy.example.com", true, "policy.example.com", 443, "/", "https://policy.example.com"},
        UrlCase{"HTTPS://Policy.Example.COM:443/V1/Hook", true, "policy.example.com", 443, "/V1/Hook",
                "https://policy.example.com"},
        UrlCase{"http://127.0.0.1:8080/hook?x=1&y=%20", false, "127.0.0.1", 8080, "/hook?x=1&y=%20",
                "http://127.0.0.1:8080"},
        UrlCase{"http://example.com:80?q", false, "example.com", 80, "/?q", "http://example.com"},
        UrlCase{"http://[::1]:9000/", false, "::1", 9000, "/", "http://[::1]:9000"},
        UrlCase{"https://[0:0:0:0:0:0:0:1]/", true, "::1", 443, "/", "https://[::1]"},
        UrlCase{"http://my_host-1.internal:443/", false, "my_host-1.internal", 443, "/",
                "http://my_host-1.internal:443"}));

struct RejectedUrl {
  std::string text;
  std::string why;  // what the message says
};

class HttpUrlRejected : public ::testing::TestWithParam<RejectedUrl> {};

TEST_P(HttpUrlRejected, IsAnErrorThatSaysWhy) {
  try {
    (void)parse_http_url(GetParam().text);
    ADD_FAILURE() << "accepted " << GetParam().text;
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr(GetParam().why));
  }
}

INSTANTIATE_TEST_SUITE_P(
    HttpUrl, HttpUrlRejected,
    ::testing::Values(RejectedUrl{"ftp://example.com/", "http:// and https://"},
                      RejectedUrl{"file:///etc/passwd", "http:// and https://"},
                      RejectedUrl{"example.com/hook", "absolute"},
                      RejectedUrl{"https://user:pw@example.com/", "header"},
                      RejectedUrl{"https://token@example.com/", "header"},
                      RejectedUrl{"https:///hook", "no host"},
                      RejectedUrl{"https://:8080/", "no host"},
                      RejectedUrl{"http://example.com:0/", "port"},
                      RejectedUrl{"http://example.com:65536/", "port"},
                      RejectedUrl{"http://example.com:80a/", "port"},
                      RejectedUrl{"http://example.com:/", "port"},
                      RejectedUrl{"http://example.com/a b", "spaces"},
                      RejectedUrl{"http://example.com/\n", "control"},
                      RejectedUrl{"http://exa\tmple.com/", "control"},
                      RejectedUrl{"http://example.com/caf\xc3\xa9", "ASCII"},
                      RejectedUrl{"https://example.com/hook#part", "fragment"},
                      RejectedUrl{"http://::1/", "brackets"},
                      RejectedUrl{"http://[::1/", "]"},
                      RejectedUrl{"http://[::1]x/", "port"},
                      RejectedUrl{"http://[127.0.0.1]/", "IPv6"},
                      RejectedUrl{"http://[fe80::1%25eth0]/", "zone"},
                      RejectedUrl{"http://2852039166/", "IPv4"},
                      RejectedUrl{"http://256.1.1.1/", "IPv4"},
                      RejectedUrl{"http://exa%6dple.com/", "host"},
                      RejectedUrl{"http://example..com/", "label"}));

TEST(HttpUrl, OnlyAnAddressIsAnAddress) {
  EXPECT_TRUE(parse_http_url("http://127.0.0.1/").host_is_address());
  EXPECT_TRUE(parse_http_url("http://[::1]/").host_is_address());
  EXPECT_FALSE(parse_http_url("http://localhost/").host_is_address());
}

TEST(ParseOrigin, WritesTheOriginAsHttpUrlDoes) {
  EXPECT_EQ(parse_origin("HTTPS://Policy.example.com:443/"), "https://policy.example.com");
  EXPECT_EQ(parse_origin("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
  EXPECT_EQ(parse_origin("http://[::1]:9000/"), "http://[::1]:9000");
}

TEST(ParseOrigin, APathOrQueryIsAnError) {
  for (const char* text :
       {"https://policy.example.com/hook", "https://policy.example.com/?x", "https://policy.example.com?x"}) {
    try {
      (void)parse_origin(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& error) {
      EXPECT_THAT(error.what(), HasSubstr("write it as https://policy.example.com")) << text;
    }
  }
  EXPECT_THROW((void)parse_origin("ftp://example.com"), Error);
}

}  // namespace
}  // namespace hookbus::detail
