#pragma once
// Internal: one run of an HTTP hook, whichever format declares it (Claude
// Code's "http" handlers, a hookbus-protocol hook's "url" in config): the
// payload POSTed through hookbus's HTTP client (lib/net), the response made
// the run a program would have had, so that each format reads the answer as
// it reads a command's stdout (docs/fleet.md).

#include <hookbus/process.hpp>
#include <hookbus/types.hpp>

#include "net/http_client.hpp"

#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace hookbus::detail {

struct HttpHookRequest {
  std::string url;
  // As written: `$NAME` and `${NAME}` in a value are replaced when it is sent (headers_to_send).
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> allowed_env_vars;
};

// The headers as sent: `$NAME` and `${NAME}` become the engine's variable
// when allowed_env_vars lists NAME, and "" otherwise (as Claude Code does),
// so a hook reads no variable the file declaring it did not let it name.
std::vector<std::pair<std::string, std::string>> headers_to_send(const HttpHookRequest& request);

// POSTs `payload` (JSON) to the hook's URL and returns the run a command
// would have had: exit code 0 with the body as its stdout for a 2xx
// response. Throws hookbus::Error for anything else, saying what happened
// and never a header's value: the request could not be sent (the allowance
// refused it, no connection, TLS, the timeout, a redirect to another
// origin: HttpError's message) or the status was not 2xx (a status alone
// never blocks: an HTTP hook refuses by its answer, as a command by its
// output), quoting the start of the body.
ProcessResult post_hook_payload(HttpClient& client, const HttpHookRequest& request, std::string payload,
                                Duration timeout, std::stop_token stop);

}  // namespace hookbus::detail
