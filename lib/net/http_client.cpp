// The HTTP/1.1 client: each step of a request (resolve, connect, TLS
// handshake, send, receive) is an asynchronous Beast operation on the
// connection's own io_context, which the requesting thread runs for the time
// the request has left; a stop stops that io_context from whichever thread
// asks. Connections are kept per origin between requests (see
// http_client.hpp for the guarantees, docs/security.md, "Network", for the
// allowance).
#include "net/http_client.hpp"

#include <hookbus/log.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/span_body.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <mutex>
#include <stop_token>

namespace hookbus::detail {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
namespace ip = boost::asio::ip;
using boost::system::error_code;
using tcp = ip::tcp;
using Clock = std::chrono::steady_clock;
using Kind = HttpError::Kind;
// The request's body is sent from HttpRequest::body itself, not a copy.
using RequestMessage = http::request<http::span_body<const char>>;

constexpr int max_redirects = 3;

// "policy.example.com", "127.0.0.1:8080", "[::1]:9000": the Host header's value, the origin without its scheme.
std::string host_header(const HttpUrl& url) {
  const std::string origin = url.origin();
  return origin.substr(origin.find("://") + 3);
}

// What every step of one exchange is bounded by.
struct ExchangeBounds {
  const HttpUrl& url;
  Clock::time_point deadline;
  Duration timeout;
  const std::stop_token& stop;
};

// The response and, for a redirect, where it points.
struct HttpAnswer {
  HttpResponse response;
  std::string location;
};

// Nothing of a response came before the connection failed: on a kept
// connection the server had closed it while idle, and the request may go again.
class UnansweredRequest : public HttpError {
 public:
  explicit UnansweredRequest(const std::string& message) : HttpError(Kind::protocol, message) {}
};

// Retry-After in seconds; its HTTP-date form is not read.
std::optional<Duration> retry_after_seconds(std::string_view value) {
  std::uint32_t seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || error != std::errc() || end != value.data() + value.size()) return std::nullopt;
  return std::chrono::seconds(seconds);
}

HttpError read_failure(const HttpUrl& url, const error_code& error, std::size_t limit) {
  if (error == http::error::body_limit)
    return {Kind::too_large,
            fmt::format("the response of {} is longer than the client's limit of {} bytes", url.text(), limit)};
  if (error == http::error::partial_message || error == asio::error::eof || error == ssl::error::stream_truncated ||
      error == asio::error::connection_reset)
    return {Kind::protocol, fmt::format("the server of {} closed the connection mid-response", url.text())};
  if (error.category() == http::make_error_code(http::error::bad_version).category())  // from Beast's parser
    return {Kind::protocol, fmt::format("the response of {} is not HTTP/1.1: {}", url.text(), error.message())};
  return {Kind::protocol, fmt::format("reading the response of {} failed: {}", url.text(), error.message())};
}

// One connection to an origin: its socket, in a TLS stream for https, on an
// io_context of its own that the requesting thread runs.
class HttpConnection {
 public:
  // `tls_context` is for an https URL, nullptr for http.
  HttpConnection(const HttpUrl& url, ssl::context* tls_context) : origin_(url.origin()) {
    if (tls_context != nullptr) start_tls(url, *tls_context);
  }
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Resolves the host, connects to an address the allowance lets it reach,
  // and shakes hands for https. Throws HttpError.
  void open(const ExchangeBounds& bounds);
  // Sends the request and reads its response. Throws HttpError, UnansweredRequest
  // when no byte of a response came.
  HttpAnswer exchange(const RequestMessage& request, std::size_t limit, const ExchangeBounds& bounds) {
    return tls_ ? exchange_over(*tls_, request, limit, bounds) : exchange_over(socket_, request, limit, bounds);
  }

  [[nodiscard]] const std::string& origin() const noexcept { return origin_; }
  [[nodiscard]] bool reusable() const noexcept { return reusable_; }
  Clock::time_point idle_since;

 private:
  void start_tls(const HttpUrl& url, ssl::context& tls_context);
  template <class Stream>
  HttpAnswer exchange_over(Stream& stream, const RequestMessage& request, std::size_t limit,
                           const ExchangeBounds& bounds);
  template <class Start>
  error_code run(const ExchangeBounds& bounds, std::string_view step, Start start);
  std::string tls_failure(const HttpUrl& url, const error_code& error);

  std::string origin_;
  asio::io_context io_;
  tcp::resolver resolver_{io_};
  tcp::socket socket_{io_};
  std::optional<ssl::stream<tcp::socket&>> tls_;
  boost::beast::flat_buffer buffer_;
  bool reusable_ = false;  // the last response left it open for another request
};

// The peer is checked against the host the URL names: SNI and a name check
// for a name, an address check for an address (which SNI may not carry).
void HttpConnection::start_tls(const HttpUrl& url, ssl::context& tls_context) {
  tls_.emplace(socket_, tls_context);
  SSL* const handle = tls_->native_handle();
  X509_VERIFY_PARAM* const checks = SSL_get0_param(handle);
  const bool set = url.host_is_address()
                       ? X509_VERIFY_PARAM_set1_ip_asc(checks, url.host.c_str()) == 1
                       : SSL_set_tlsext_host_name(handle, url.host.c_str()) == 1 &&
                             X509_VERIFY_PARAM_set1_host(checks, url.host.c_str(), 0) == 1;
  if (!set) throw HttpError(Kind::tls, fmt::format("cannot set up TLS for {}: OpenSSL refused its host", url.text()));
}

// Runs the operation `start` begins until it completes, the deadline passes
// or a stop comes; either of those last two closes the connection.
template <class Start>
error_code HttpConnection::run(const ExchangeBounds& bounds, std::string_view step, Start start) {
  std::optional<error_code> outcome;
  start([&outcome](const error_code& error, auto&&...) { outcome = error; });
  {
    // A stop before restart() is seen by stop_requested(), one after it by run_until().
    const std::stop_callback stop_at_once(bounds.stop, [this] { io_.stop(); });
    io_.restart();
    if (!bounds.stop.stop_requested()) io_.run_until(bounds.deadline);
  }
  if (outcome) return *outcome;
  // The operation ends with operation_aborted, and has to before `outcome` goes.
  resolver_.cancel();
  error_code ignored;
  socket_.close(ignored);
  io_.restart();
  io_.run();
  if (bounds.stop.stop_requested())
    throw HttpError(Kind::cancelled, fmt::format("the request to {} was cancelled, {}", bounds.url.text(), step));
  throw HttpError(Kind::timeout, fmt::format("the request to {} took longer than its timeout of {} ms, {}",
                                             bounds.url.text(), bounds.timeout.count(), step));
}

void HttpConnection::open(const ExchangeBounds& bounds) {
  const HttpUrl& url = bounds.url;
  std::vector<tcp::endpoint> found;
  if (url.host_is_address()) {
    found.emplace_back(ip::make_address(url.host), url.port);
  } else {
    tcp::resolver::results_type resolved;
    const error_code error = run(bounds, "resolving its host", [&](auto done) {
      resolver_.async_resolve(url.host, std::to_string(url.port), tcp::resolver::numeric_service,
                              [&resolved, done](const error_code& error, tcp::resolver::results_type results) mutable {
                                resolved = std::move(results);
                                done(error);
                              });
    });
    if (error)
      throw HttpError(Kind::connect,
                      fmt::format("cannot resolve {} for {}: {}", url.host, url.text(), error.message()));
    for (const auto& entry : resolved) found.push_back(entry.endpoint());
  }

  std::vector<tcp::endpoint> allowed;
  std::vector<std::string> refusals;
  for (const tcp::endpoint& endpoint : found) {
    if (auto refusal = address_refusal(url, endpoint.address())) refusals.push_back(std::move(*refusal));
    else allowed.push_back(endpoint);
  }
  if (allowed.empty()) throw HttpError(Kind::refused, fmt::format("{}", fmt::join(refusals, "; ")));

  error_code error = run(bounds, "connecting", [&](auto done) { asio::async_connect(socket_, allowed, done); });
  if (error) {
    std::vector<std::string> addresses;
    for (const tcp::endpoint& endpoint : allowed) addresses.push_back(endpoint.address().to_string());
    throw HttpError(Kind::connect, fmt::format("cannot connect to {} (at {}): {}", url.text(),
                                               fmt::join(addresses, ", "), error.message()));
  }
  socket_.set_option(tcp::no_delay(true), error);  // a request is one write: no waiting for more to send
  if (!tls_) return;
  error = run(bounds, "in the TLS handshake",
              [&](auto done) { tls_->async_handshake(ssl::stream_base::client, done); });
  if (error) throw HttpError(Kind::tls, tls_failure(url, error));
}

// OpenSSL's reason ("certificate verify failed (SSL routines)") and, when
// the certificate was the trouble, the check's own ("unable to get local
// issuer certificate", "hostname mismatch").
std::string HttpConnection::tls_failure(const HttpUrl& url, const error_code& error) {
  const long verified = SSL_get_verify_result(tls_->native_handle());
  if (verified == X509_V_OK)
    return fmt::format("the TLS handshake with {} failed: {}", url.text(), error.message());
  return fmt::format("the TLS handshake with {} failed: {}: {}; if its certificate comes from a CA of your own, name "
                     "the CA's PEM file in \"network\": {{\"ca_file\": ...}} of your config "
                     "(~/.config/hookbus/config.json) or the managed one (/etc/hookbus/config.json)",
                     url.text(), error.message(), X509_verify_cert_error_string(verified));
}

template <class Stream>
HttpAnswer HttpConnection::exchange_over(Stream& stream, const RequestMessage& request, std::size_t limit,
                                         const ExchangeBounds& bounds) {
  const HttpUrl& url = bounds.url;
  error_code error = run(bounds, "sending the request", [&](auto done) { http::async_write(stream, request, done); });
  if (error) throw UnansweredRequest(fmt::format("sending the request to {} failed: {}", url.text(), error.message()));

  // A 1xx interim response (100 Continue) precedes the one that answers.
  std::optional<http::response_parser<http::string_body>> parser;
  bool answered = false;
  do {
    parser.emplace();
    parser->body_limit(limit);
    error = run(bounds, "reading the response", [&](auto done) { http::async_read(stream, buffer_, *parser, done); });
    if (error && !answered && !parser->got_some())
      throw UnansweredRequest(fmt::format("the server of {} closed the connection before answering", url.text()));
    if (error) throw read_failure(url, error, limit);
    answered = true;
  } while (parser->get().result_int() / 100 == 1);

  http::response<http::string_body>& response = parser->get();
  reusable_ = response.version() == 11 && response.keep_alive();
  return {.response = {.status = response.result_int(),
                       .body = std::move(response.body()),
                       .retry_after = retry_after_seconds(response[http::field::retry_after]),
                       .connection_reused = false},
          .location = std::string(response[http::field::location])};
}

void check_request_header(const HttpUrl& url, std::string_view name, std::string_view value) {
  if (auto why = header_refusal(name, value))
    throw Error(fmt::format("header {} for {}: {}; not sent", printable(name), url.text(), *why));
}

RequestMessage request_message(const HttpUrl& url, const HttpRequest& request) {
  RequestMessage message{http::verb::post, url.target, 11};
  message.set(http::field::host, host_header(url));
  message.set(http::field::content_type, request.content_type);
  message.body() = {request.body.data(), request.body.size()};
  message.prepare_payload();  // Content-Length
  message.set(http::field::user_agent, "hookbus");
  for (const auto& [name, value] : request.headers) message.insert(name, value);
  return message;
}

// Where a redirect points, as a URL: Location is absolute, or relative to the URL redirected.
HttpUrl redirect_target(const HttpUrl& from, std::string_view location) {
  location = location.substr(0, location.find('#'));  // a fragment is the client's, never sent
  std::string absolute;
  if (const std::size_t colon = location.find(':');
      colon != std::string_view::npos && colon < location.find_first_of("/?"))
    absolute = location;
  else if (location.starts_with("//"))
    absolute = fmt::format("{}:{}", from.tls ? "https" : "http", location);
  else if (location.starts_with('/'))
    absolute = from.origin() + std::string(location);
  else
    absolute = from.origin() + from.target.substr(0, from.target.rfind('/', from.target.find('?')) + 1) +
               std::string(location);
  return parse_http_url(absolute);
}

// A CR or LF would end a header and start one the caller did not mean (a
// header injection); a NUL ends it for some servers.
bool ends_a_header(std::string_view value) {
  return value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

}  // namespace

std::optional<std::string> header_refusal(std::string_view name, std::string_view value) {
  constexpr std::string_view punctuation = "!#$%&'*+-.^_`|~";
  const bool token = !name.empty() && std::all_of(name.begin(), name.end(), [&](unsigned char c) {
    return std::isalnum(c) != 0 || punctuation.find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (!token) return "not an HTTP header name: give letters, digits and !#$%&'*+-.^_`|~";
  if (ends_a_header(value))
    return "the value holds a line break (CR or LF) or NUL, which would end the header";
  for (const std::string_view own : {"Host", "Content-Length", "Transfer-Encoding", "Content-Type"})
    if (name.size() == own.size() && std::equal(name.begin(), name.end(), own.begin(), [](unsigned char a, unsigned char b) {
          return std::tolower(a) == std::tolower(b);
        }))
      return "set by hookbus on every request: leave it out";
  return std::nullopt;
}

std::optional<std::string> origin_refusal(const HttpUrl& url, const NetworkAllowance& allowance) {
  const std::string origin = url.origin();
  if (std::find(allowance.origins.begin(), allowance.origins.end(), origin) != allowance.origins.end())
    return std::nullopt;
  return fmt::format("{}: hookbus sends nothing to {}, an origin the network allowance does not name; to allow "
                     "it, add \"{}\" to \"network\": {{\"allowed_origins\": [...]}} in your config "
                     "(~/.config/hookbus/config.json) or the managed one (/etc/hookbus/config.json)",
                     url.text(), origin, origin);
}

std::optional<std::string> address_refusal(const HttpUrl& url, const ip::address& address) {
  // Judged as the IPv4 address it carries: ::ffff:169.254.169.254 reaches 169.254.169.254.
  const ip::address judged = address.is_v6() && address.to_v6().is_v4_mapped()
                                 ? ip::address(ip::make_address_v4(ip::v4_mapped, address.to_v6()))
                                 : address;
  std::string_view kind;
  if (judged == ip::make_address("169.254.169.254") || judged == ip::make_address("fd00:ec2::254"))
    kind = "a cloud metadata service's address";
  else if (judged.is_v4() && judged.to_v4().to_bytes()[0] == 169 && judged.to_v4().to_bytes()[1] == 254)
    kind = "a link-local address";
  else if (judged.is_v6() && judged.to_v6().is_link_local())
    kind = "a link-local address";
  else if (judged.is_unspecified())
    kind = "the unspecified address";
  else if (judged.is_multicast())
    kind = "a multicast address";
  else
    return std::nullopt;
  if (url.host_is_address() && ip::make_address(url.host) == address) return std::nullopt;
  return fmt::format("{}: {} is at {}, {}, where hookbus sends only to a URL that names that address as its host",
                     url.text(), url.host, address.to_string(), kind);
}

struct HttpClient::State {
  explicit State(HttpClientOptions options_in) : options(std::move(options_in)) {}

  HttpAnswer send(const HttpUrl& url, const RequestMessage& message, const HttpRequest& request,
                  Clock::time_point deadline);

 private:
  ssl::context& tls_context(const HttpUrl& url);
  std::unique_ptr<HttpConnection> take_idle(const std::string& origin);
  void keep(std::unique_ptr<HttpConnection> connection);

 public:
  HttpClientOptions options;
  std::mutex tls_mutex;  // guards tls
  // Made at the first https request: reading the system's CA store takes some 50 ms.
  std::optional<ssl::context> tls;
  std::mutex mutex;  // guards idle
  std::map<std::string, std::vector<std::unique_ptr<HttpConnection>>> idle;  // by origin, the longest idle first
};

ssl::context& HttpClient::State::tls_context(const HttpUrl& url) {
  const std::lock_guard lock(tls_mutex);
  if (tls) return *tls;
  ssl::context context(ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(context.native_handle(), TLS1_2_VERSION);
  context.set_verify_mode(ssl::verify_peer);
  error_code error;
  context.set_default_verify_paths(error);
  if (error)
    throw HttpError(Kind::tls, fmt::format("cannot send to {}: the system's CA certificates cannot be read: {}",
                                           url.text(), error.message()));
  if (!options.allowance.ca_file.empty()) {
    context.load_verify_file(options.allowance.ca_file.string(), error);
    if (error)
      throw HttpError(Kind::tls, fmt::format("cannot send to {}: the CA file {} (\"network\": {{\"ca_file\"}}) "
                                             "cannot be read: {}; give a file of PEM certificates",
                                             url.text(), options.allowance.ca_file.string(), error.message()));
  }
  return tls.emplace(std::move(context));
}

std::unique_ptr<HttpConnection> HttpClient::State::take_idle(const std::string& origin) {
  std::vector<std::unique_ptr<HttpConnection>> expired;  // closed once the lock is let go
  const std::lock_guard lock(mutex);
  const auto kept = idle.find(origin);
  if (kept == idle.end()) return nullptr;
  auto& connections = kept->second;
  const Clock::time_point now = Clock::now();
  const auto fresh = std::find_if(connections.begin(), connections.end(), [&](const auto& connection) {
    return now - connection->idle_since < options.idle_timeout;
  });
  std::move(connections.begin(), fresh, std::back_inserter(expired));
  connections.erase(connections.begin(), fresh);
  if (connections.empty()) return nullptr;
  std::unique_ptr<HttpConnection> newest = std::move(connections.back());
  connections.pop_back();
  return newest;
}

void HttpClient::State::keep(std::unique_ptr<HttpConnection> connection) {
  if (!connection->reusable() || options.max_idle_per_origin == 0) return;
  connection->idle_since = Clock::now();
  std::unique_ptr<HttpConnection> dropped;  // closed once the lock is let go
  const std::lock_guard lock(mutex);
  auto& connections = idle[connection->origin()];
  if (connections.size() >= options.max_idle_per_origin) {
    dropped = std::move(connections.front());
    connections.erase(connections.begin());
  }
  connections.push_back(std::move(connection));
}

HttpAnswer HttpClient::State::send(const HttpUrl& url, const RequestMessage& message, const HttpRequest& request,
                                   Clock::time_point deadline) {
  if (auto refusal = origin_refusal(url, options.allowance)) throw HttpError(Kind::refused, *refusal);
  const ExchangeBounds bounds{.url = url, .deadline = deadline, .timeout = request.timeout, .stop = request.stop};
  if (std::unique_ptr<HttpConnection> kept = take_idle(url.origin())) {
    try {
      HttpAnswer answer = kept->exchange(message, options.max_response_bytes, bounds);
      answer.response.connection_reused = true;
      keep(std::move(kept));
      return answer;
    } catch (const UnansweredRequest&) {
      // The server closed it while it was idle: once more, on a new connection.
    }
  }
  auto connection = std::make_unique<HttpConnection>(url, url.tls ? &tls_context(url) : nullptr);
  connection->open(bounds);
  HttpAnswer answer = connection->exchange(message, options.max_response_bytes, bounds);
  keep(std::move(connection));
  return answer;
}

HttpClient::HttpClient(HttpClientOptions options) : state_(std::make_unique<State>(std::move(options))) {}

HttpClient::~HttpClient() = default;

const NetworkAllowance& HttpClient::allowance() const noexcept { return state_->options.allowance; }

HttpResponse HttpClient::post(const HttpRequest& request) {
  const Clock::time_point now = Clock::now();
  // A timeout longer than the clock can count is none (adding it would overflow).
  const Clock::time_point deadline =
      request.timeout < std::chrono::duration_cast<Duration>(Clock::time_point::max() - now) ? now + request.timeout
                                                                                             : Clock::time_point::max();
  // The client's own Content-Type: only its value is the caller's.
  if (ends_a_header(request.content_type))
    throw Error(fmt::format("the Content-Type for {} holds a line break or NUL: not sent", request.url.text()));
  for (const auto& [name, value] : request.headers) check_request_header(request.url, name, value);
  HttpUrl url = request.url;
  for (int redirects = 0;; ++redirects) {
    HttpAnswer answer = state_->send(url, request_message(url, request), request, deadline);
    const unsigned status = answer.response.status;
    if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308) return answer.response;
    if (answer.location.empty())
      throw HttpError(Kind::redirect, fmt::format("{} answered {}, a redirect with no Location", url.text(), status));
    HttpUrl target;
    try {
      target = redirect_target(url, answer.location);
    } catch (const Error&) {
      throw HttpError(Kind::redirect, fmt::format("{} answered {}, a redirect to a Location that is not an http:// "
                                                  "or https:// URL hookbus sends to",
                                                  url.text(), status));
    }
    if (target.origin() != url.origin())
      throw HttpError(Kind::redirect,
                      fmt::format("{} answered {}, a redirect to {}, another origin: hookbus follows redirects only "
                                  "within an origin; if requests belong there, configure that URL (and allow {})",
                                  url.text(), status, target.text(), target.origin()));
    if (status != 307 && status != 308)
      throw HttpError(Kind::redirect,
                      fmt::format("{} answered {}, a redirect to {} that would turn the POST into a GET: hookbus "
                                  "follows only 307 and 308; configure the new URL",
                                  url.text(), status, target.text()));
    if (redirects == max_redirects)
      throw HttpError(Kind::redirect, fmt::format("{} redirected more than {} times (the last to {})",
                                                  request.url.text(), max_redirects, target.text()));
    url = std::move(target);
  }
}

}  // namespace hookbus::detail
