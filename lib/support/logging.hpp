#pragma once
// Internal: how hookbus itself logs. Every message is formatted first and then
// shown through printable() (log.hpp), so a hook's name, output or path cannot
// forge a log line or drive the terminal, whichever logger the engine set.

#include <hookbus/log.hpp>

#include <fmt/format.h>
#include <spdlog/common.h>
#include <spdlog/logger.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookbus::detail {

void log_message(spdlog::level::level_enum level, std::string_view message);

template <class... Args>
void log(spdlog::level::level_enum level, fmt::format_string<Args...> format, Args&&... args) {
  if (!logger()->should_log(level)) return;
  log_message(level, fmt::format(format, std::forward<Args>(args)...));
}

// A warning for a report's list (setup's, an installation's), logged too.
inline void warn(std::vector<std::string>& warnings, std::string message) {
  log(spdlog::level::warn, "{}", message);
  warnings.push_back(std::move(message));
}

}  // namespace hookbus::detail
