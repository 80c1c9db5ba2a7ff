// An HTTP hook's request as a file writes it (config/http_request_entry.hpp).
#include "config/http_request_entry.hpp"

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
  if (headers)
    for (const auto& [name, value] : headers->as_object().members()) {
      const std::string text = value.as_string();
      if (name.empty() || name.find_first_of("\r\n:") != std::string::npos ||
          text.find_first_of("\r\n") != std::string::npos)
        throw ConfigError(value.location(), "a header's name must be a non-empty word without ':', and neither its "
                                            "name nor its value may hold a line break");
      request.headers.emplace_back(name, text);
    }
  return request;
}

}  // namespace hookbus::detail
