#include <hookbus/log.hpp>

#include "support/logging.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <mutex>

namespace hookbus {
namespace {

std::mutex logger_mutex;
std::shared_ptr<spdlog::logger> current_logger;  // guarded by logger_mutex

std::shared_ptr<spdlog::logger> default_logger() {
  if (auto registered = spdlog::get("hookbus")) return registered;
  try {
    return spdlog::stderr_color_mt("hookbus");
  } catch (const spdlog::spdlog_ex&) {  // registered by another thread in between
    return spdlog::get("hookbus");
  }
}

}  // namespace

std::shared_ptr<spdlog::logger> logger() {
  std::lock_guard lock(logger_mutex);
  if (!current_logger) current_logger = default_logger();
  return current_logger;
}

void set_logger(std::shared_ptr<spdlog::logger> replacement) {
  std::lock_guard lock(logger_mutex);
  current_logger = std::move(replacement);
}

std::string printable(std::string_view text) {
  std::string shown;
  shown.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = detail::utf8_sequence_length(text, i);
    if (length == 0) {
      shown += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    const char32_t c = detail::utf8_code_point(text, i, length);
    if (c == '\\') shown += "\\\\";
    else if (c == '\n') shown += "\\n";
    else if (c == '\r') shown += "\\r";
    else if (c == '\t') shown += "\\t";
    else if (c < 0x20 || c == 0x7F) shown += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
    else if ((c >= 0x80 && c <= 0x9F) || detail::reorders_or_breaks_lines(c))
      shown += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    else shown.append(text.substr(i, length));
    i += length;
  }
  return shown;
}

namespace detail {

void log_message(spdlog::level::level_enum level, std::string_view message) {
  logger()->log(level, "{}", printable(message));
}

}  // namespace detail

}  // namespace hookbus
