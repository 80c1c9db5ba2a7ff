// An HTTP hook's request as a file writes it (config/http_request_entry.hpp).
#include "config/http_request_entry.hpp"

#include "net/http_client.hpp"
#include "net/url.hpp"

#include <fmt/format.h>

namespace hookbus::detail {

HttpRequestEntry read_http_request(const ConfigValue& url, const std::optional<ConfigValue>& headers,
                                   std::string_view variables_key) {
  HttpRequestEntry request{.url = url.as_nonempty_string(), .headers = {}};
  if (request.url.find('$') != std::string::npos)
    throw ConfigError(url.location(), fmt::format("hookbus puts no variable into an HTTP hook's URL (only its "
                                                  "\"headers\" take $VAR from \"{}\"): write the URL out, or move "
                                                  "the value to a header",
                                                  variables_key));
  try {
    (void)parse_http_url(request.url);
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& error) {
    throw ConfigError(url.location(), error.what());
  }
  if (headers) request.headers = read_http_headers(*headers);
  return request;
}

std::vector<std::pair<std::string, std::string>> read_http_headers(const ConfigValue& headers) {
  std::vector<std::pair<std::string, std::string>> read;
  for (const auto& [name, value] : headers.as_object().members()) {
    std::string text = value.as_string();
    if (auto why = header_refusal(name, text)) throw ConfigError(value.location(), *why);
    read.emplace_back(name, std::move(text));
  }
  return read;
}

}  // namespace hookbus::detail
