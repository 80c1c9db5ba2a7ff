#pragma once
// Internal: an http:// or https:// URL as hookbus sends requests to it, and
// its origin (scheme, host, port), which is what the network allowance names
// (docs/security.md, "Network").

#include <cstdint>
#include <string>
#include <string_view>

namespace hookbus::detail {

struct HttpUrl {
  bool tls = false;     // https
  std::string host;     // lower case; an IPv6 literal without its brackets
  std::uint16_t port = 80;
  std::string target;   // the path and query, "/" at least; never a fragment

  // "https://policy.example.com", "http://127.0.0.1:8080", "http://[::1]:9000":
  // the scheme, the host, and the port unless it is the scheme's default.
  [[nodiscard]] std::string origin() const;
  // The origin and the target: what a message shows of a URL (never a user or password: none is accepted).
  [[nodiscard]] std::string text() const;
  // Whether the host is written as an address (127.0.0.1, ::1), not a name.
  [[nodiscard]] bool host_is_address() const;
};

// Reads an absolute http:// or https:// URL. Throws hookbus::Error saying
// what is wrong and how to write it: another scheme, a user or password
// (`https://user:pw@host`: credentials go in headers), no host, a port that
// is not a number from 1 to 65535, spaces or control characters, a fragment.
// Percent-escapes in the path stay as written.
HttpUrl parse_http_url(std::string_view text);

// An origin as config writes it ("https://policy.example.com",
// "http://127.0.0.1:8080", with no path or a lone "/"), as HttpUrl::origin()
// writes it. Throws hookbus::Error as parse_http_url does, and for a path.
std::string parse_origin(std::string_view text);

}  // namespace hookbus::detail
