#pragma once
// Internal: an HTTP hook's request as a file writes it, checked when the file
// is read: a hookbus hook's config entry (hooks.NAME.url, config.cpp) and an
// agent's "type": "http" handler (formats/claude_code/settings.cpp) alike.
// Where the request may go is decided when it is sent (docs/security.md,
// "Network").

#include <hookbus/config.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookbus::detail {

struct HttpRequestEntry {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
};

// Reads `url`, an http:// or https:// URL with neither credentials nor a
// variable in it (only headers take variables, from the entry's
// `variables_key`), and `headers` (or none) as read_http_headers does. Throws
// ConfigError at the value that is wrong, never quoting a header's value.
HttpRequestEntry read_http_request(const ConfigValue& url, const std::optional<ConfigValue>& headers,
                                   std::string_view variables_key);

// "headers": {"NAME": "VALUE", ...}, each checked as the HTTP client checks
// it when it sends (header_refusal, net/http_client.hpp), so that a mistake
// is the config's error naming the header, not a failure of every request.
std::vector<std::pair<std::string, std::string>> read_http_headers(const ConfigValue& headers);

}  // namespace hookbus::detail
