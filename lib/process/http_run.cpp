// One run of an HTTP hook (process/http_run.hpp).
#include "process/http_run.hpp"

#include <hookbus/log.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>

namespace hookbus::detail {
namespace {

bool variable_name_char(char c, bool first) {
  return c == '_' || std::isalpha(static_cast<unsigned char>(c)) != 0 ||
         (!first && std::isdigit(static_cast<unsigned char>(c)) != 0);
}

// `value` with each `$NAME` and `${NAME}` replaced; a `$` that starts no
// name (or a `${` with no closing brace) stays as written.
std::string with_variables(std::string_view value, const std::vector<std::string>& allowed) {
  std::string sent;
  for (std::size_t i = 0; i < value.size();) {
    if (value[i] != '$') {
      sent += value[i++];
      continue;
    }
    const bool braced = i + 1 < value.size() && value[i + 1] == '{';
    const std::size_t start = i + (braced ? 2 : 1);
    std::size_t end = start;
    while (end < value.size() && variable_name_char(value[end], end == start)) ++end;
    if (end == start || (braced && (end == value.size() || value[end] != '}'))) {
      sent += value[i++];
      continue;
    }
    const std::string name(value.substr(start, end - start));
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end())
      if (const char* set = std::getenv(name.c_str()); set != nullptr) sent += set;
    i = end + (braced ? 1 : 0);
  }
  return sent;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> headers_to_send(const HttpHookRequest& request) {
  std::vector<std::pair<std::string, std::string>> headers;
  headers.reserve(request.headers.size());
  for (const auto& [name, value] : request.headers)
    headers.emplace_back(name, with_variables(value, request.allowed_env_vars));
  return headers;
}

ProcessResult post_hook_payload(HttpClient& client, const HttpHookRequest& request, std::string payload,
                                Duration timeout, std::stop_token stop) {
  const auto started = std::chrono::steady_clock::now();
  HttpResponse response = client.post({.url = parse_http_url(request.url),
                                       .headers = headers_to_send(request),
                                       .body = std::move(payload),
                                       .content_type = "application/json",
                                       .timeout = timeout,
                                       .stop = std::move(stop)});
  if (response.status < 200 || response.status > 299) {
    constexpr std::size_t kQuoted = 300;
    throw Error(fmt::format("{} answered with status {}{}{}", request.url, response.status,
                            response.body.empty() ? "" : ": ", printable(response.body.substr(0, kQuoted))));
  }
  return {.exit_code = 0,
          .stdout_text = std::move(response.body),
          .duration = std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - started)};
}

}  // namespace hookbus::detail
