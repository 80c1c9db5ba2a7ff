#pragma once
// Internal: the debug line every external hook run leaves on the `hookbus`
// logger, like `claude --debug`: which file ran for which event, how it ended,
// how long it took and how much went in and out.

#include <hookbus/co_process.hpp>
#include <hookbus/process.hpp>

#include "support/logging.hpp"

#include <cstddef>
#include <filesystem>
#include <string_view>

namespace hookbus::detail {

inline void log_hook_run(std::string_view hook, const std::filesystem::path& file, std::string_view event,
                         std::size_t bytes_in, const ProcessResult& run) {
  if (!logger()->should_log(spdlog::level::debug)) return;  // spares building the status and path on every run
  log(spdlog::level::debug, "hook '{}' ({}) ran for '{}': {}, {} ms, {} bytes in, {} bytes out, {} bytes on stderr",
      hook, file.string(), event, run.status(), run.duration.count(), bytes_in, run.stdout_text.size(),
      run.stderr_text.size());
}

// A persistent hook's request: the instance that served it instead of a process.
inline void log_hook_request(std::string_view hook, const std::filesystem::path& file, std::string_view event,
                             std::size_t instance, std::size_t bytes_in, const CoProcessReply& reply) {
  if (!logger()->should_log(spdlog::level::debug)) return;
  log(spdlog::level::debug,
      "persistent hook '{}' ({}) instance {} served '{}': {}, {} ms, {} bytes in, {} bytes out", hook, file.string(),
      instance, event, reply.status(), reply.duration.count(),
      bytes_in, reply.line.size());
}

}  // namespace hookbus::detail
