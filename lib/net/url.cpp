// http:// and https:// URLs read by hand, strictly: what is not plainly a
// scheme, a host, a port and a target is an error that says how to write it,
// never a guess (a URL decides where a request and its headers go).
#include "net/url.hpp"

#include <hookbus/errors.hpp>

#include <boost/asio/ip/address.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace hookbus::detail {
namespace {

[[noreturn]] void reject_url(std::string_view text, std::string_view why) {
  throw Error(fmt::format("{} is not a URL hookbus sends to: {}", text, why));
}

std::string ascii_lower_case(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

// Checked before anything else, so that every later message may show the
// text: it is then printable ASCII.
void check_characters(std::string_view text) {
  const auto bad = std::find_if(text.begin(), text.end(), [](unsigned char c) { return c <= ' ' || c >= 0x7f; });
  if (bad != text.end())
    throw Error(fmt::format("a URL may not hold spaces, control characters or characters beyond ASCII (byte {} "
                            "of {}): percent-encode them (a space is %20)",
                            bad - text.begin() + 1, text.size()));
}

// A host name (letters, digits, '-', '_', in dot-separated labels), lower
// case; or an IPv4 address, which must be written as four decimal numbers:
// getaddrinfo would read "2852039166" or "0xa9.254.169.254" as addresses that
// the allowance could not recognise as the ones they are.
std::string read_host_name(std::string_view text, std::string_view host) {
  if (host.empty()) reject_url(text, "it has no host: write it as https://host/path");
  const bool name_characters = std::all_of(host.begin(), host.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.';
  });
  if (!name_characters)
    reject_url(text, "its host holds a character a host name cannot (letters, digits, '-', '_' and '.' only)");
  if (host.front() == '.' || host.back() == '.' || host.find("..") != std::string_view::npos)
    reject_url(text, "its host has an empty label: write the name without leading, trailing or doubled dots");
  const std::string_view last_label = host.substr(host.rfind('.') + 1);
  const bool looks_numeric = std::all_of(last_label.begin(), last_label.end(), [](unsigned char c) {
    return std::isdigit(c) != 0;
  });
  boost::system::error_code not_an_address;
  boost::asio::ip::make_address_v4(host, not_an_address);
  if (looks_numeric && not_an_address)
    reject_url(text, "its host is not an IPv4 address as a URL writes one: four decimal numbers from 0 to 255 "
                     "(192.0.2.1)");
  return ascii_lower_case(host);
}

// An IPv6 address from between the brackets, as Boost.Asio writes it
// ("[0:0::1]" is "::1"), so that an origin has one spelling.
std::string read_ipv6_host(std::string_view text, std::string_view host) {
  boost::system::error_code not_an_address;
  const auto address = boost::asio::ip::make_address_v6(host, not_an_address);
  if (not_an_address || host.find('%') != std::string_view::npos)
    reject_url(text, "what is in its brackets is not an IPv6 address (with no zone): write it as http://[::1]:8080/");
  return address.to_string();
}

std::uint16_t read_port(std::string_view text, std::string_view port) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || port.size() > 5 || error != std::errc() || end != port.data() + port.size() || value < 1 ||
      value > 65535)
    reject_url(text, fmt::format("its port \"{}\" is not a number from 1 to 65535", port));
  return static_cast<std::uint16_t>(value);
}

std::uint16_t default_port(bool tls) { return tls ? 443 : 80; }

}  // namespace

std::string HttpUrl::origin() const {
  const std::string shown_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  std::string origin = fmt::format("{}://{}", tls ? "https" : "http", shown_host);
  if (port != default_port(tls)) origin += fmt::format(":{}", port);
  return origin;
}

std::string HttpUrl::text() const { return origin() + target; }

bool HttpUrl::host_is_address() const {
  boost::system::error_code not_an_address;
  boost::asio::ip::make_address(host, not_an_address);
  return !not_an_address;
}

HttpUrl parse_http_url(std::string_view text) {
  check_characters(text);
  if (text.find('#') != std::string_view::npos)
    reject_url(text, "it has a fragment (#...), which is never sent: leave it out");
  const std::size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos)
    reject_url(text, "it is not an absolute URL: write it as https://host/path");
  const std::string scheme = ascii_lower_case(text.substr(0, scheme_end));
  if (scheme != "http" && scheme != "https")
    reject_url(text, fmt::format("its scheme is {}: hookbus sends to http:// and https:// URLs only", scheme));

  HttpUrl url;
  url.tls = scheme == "https";
  const std::string_view rest = text.substr(scheme_end + 3);
  const std::size_t authority_end = std::min(rest.find_first_of("/?"), rest.size());
  const std::string_view authority = rest.substr(0, authority_end);
  const std::string_view path = rest.substr(authority_end);
  if (authority.find('@') != std::string_view::npos)  // not shown: the text holds the password
    throw Error("a URL may not hold a user or password (user:password@host): give credentials in a header "
                "(Authorization)");

  std::string_view port;
  bool has_port = false;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) reject_url(text, "the IPv6 address of its host lacks its closing ']'");
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':')
      reject_url(text, "after an IPv6 address's ']' only a port (:8080) may follow");
    has_port = !after.empty();
    if (has_port) port = after.substr(1);
    url.host = read_ipv6_host(text, authority.substr(1, close - 1));
  } else {
    const std::size_t colon = authority.find(':');
    if (colon != std::string_view::npos && authority.find(':', colon + 1) != std::string_view::npos)
      reject_url(text, "an IPv6 address goes in brackets: http://[::1]:8080/");
    has_port = colon != std::string_view::npos;
    if (has_port) port = authority.substr(colon + 1);
    url.host = read_host_name(text, authority.substr(0, colon));
  }
  url.port = has_port ? read_port(text, port) : default_port(url.tls);
  url.target = path.empty() ? "/" : path.starts_with('?') ? "/" + std::string(path) : std::string(path);
  return url;
}

std::string parse_origin(std::string_view text) {
  const HttpUrl url = parse_http_url(text);
  if (url.target != "/")
    throw Error(fmt::format("{} is not an origin: an origin has no path or query; write it as {}", text, url.origin()));
  return url.origin();
}

}  // namespace hookbus::detail
