#pragma once
// Internal: hookbus's one HTTP/1.1 client (Boost.Beast, OpenSSL), for HTTP
// hooks and the OTLP exporter. It sends only where the network allowance
// lets it (docs/security.md, "Network"): an allowed origin, at an address
// that is not link-local, a cloud metadata service, unspecified or
// multicast unless the URL names that address itself; it follows no
// redirect to another origin; TLS verifies the peer against the system's CA
// store (and the allowance's own CA file) and the host name. It keeps
// connections open per origin, so a request after the first costs one round
// trip. Safe to use from several threads at once.

#include <hookbus/network.hpp>
#include <hookbus/errors.hpp>

#include "net/url.hpp"

#include <boost/asio/ip/address.hpp>

#include <chrono>

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace hookbus::detail {

// hookbus::Duration, which types.hpp (the catalogue's, a layer above) declares.
using Duration = std::chrono::milliseconds;

// Where requests may go (network.hpp).
using hookbus::NetworkAllowance;

// Why a request to `url` may not be sent, before any address is known: its
// origin is not one the allowance names (the message says which key of which
// config file allows it). nullopt when it may.
std::optional<std::string> origin_refusal(const HttpUrl& url, const NetworkAllowance& allowance);

// Why `url`'s host may not be reached at `address`, one of those its name
// resolved to: a link-local address (169.254.0.0/16, fe80::/10, which holds
// the cloud metadata services at 169.254.169.254 and fd00:ec2::254 too), an
// unspecified one (0.0.0.0, ::) or a multicast one, unless the URL names that
// very address as its host. An IPv4-mapped IPv6 address is judged as its IPv4
// address. nullopt when it may.
std::optional<std::string> address_refusal(const HttpUrl& url, const boost::asio::ip::address& address);

// Why a request header may not be sent, nullopt when it may: a name that is
// not an HTTP token (RFC 9110), a value that holds a line break (CR or LF) or
// NUL, which would end the header and start another (a header injection),
// or one the client sets on every request (Host, Content-Length,
// Transfer-Encoding, Content-Type). The reason never quotes the value (it
// may be a secret), nor the name: the caller names it. The client and
// config's readers of headers (HTTP hooks, the OTLP exporter) share it.
std::optional<std::string> header_refusal(std::string_view name, std::string_view value);

struct HttpRequest {
  HttpUrl url;
  std::vector<std::pair<std::string, std::string>> headers;  // sent as given, after Host and Content-Type
  std::string body;
  std::string content_type = "application/json";
  Duration timeout = std::chrono::seconds(30);  // the whole exchange: resolve, connect, TLS, send, receive
  std::stop_token stop;                         // a stop closes the request's connection at once
};

struct HttpResponse {
  unsigned status = 0;
  std::string body;
  std::optional<Duration> retry_after;  // its Retry-After, in seconds (429, 503)
  bool connection_reused = false;       // sent on a connection kept from an earlier request
};

// What went wrong with a request. what() names the URL (HttpUrl::text(),
// never a header) and says what happened and, where there is one, the fix.
class HttpError : public Error {
 public:
  enum class Kind {
    refused,    // the allowance does not let it go there (origin or address)
    connect,    // resolving the name or connecting failed
    tls,        // the handshake or the certificate check failed
    timeout,    // the exchange took longer than HttpRequest::timeout
    cancelled,  // HttpRequest::stop was requested
    too_large,  // the response's body is longer than the client's limit
    redirect,   // a redirect to another origin, or too many
    protocol,   // the peer did not speak HTTP/1.1, or closed mid-response
  };
  HttpError(Kind kind, const std::string& message) : Error(message), kind_(kind) {}
  [[nodiscard]] Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

struct HttpClientOptions {
  NetworkAllowance allowance;
  std::size_t max_response_bytes = std::size_t{1} << 20;
  std::size_t max_idle_per_origin = 4;        // connections kept open per origin
  Duration idle_timeout = std::chrono::seconds(30);  // a kept connection older than this is closed, not reused
};

class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // POSTs the request and returns the response, whatever its status (a 500
  // is a response, not an error). A redirect (307, 308) within the origin is
  // followed, at most 3; one to another origin, or a 301/302/303, is an
  // HttpError(redirect) naming where it pointed. A request sent on a kept
  // connection that the server had closed is sent again on a new one, once,
  // when no byte of a response came. Throws HttpError.
  HttpResponse post(const HttpRequest& request);

  [[nodiscard]] const NetworkAllowance& allowance() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace hookbus::detail
