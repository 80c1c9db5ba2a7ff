#include <hookbus/log.hpp>

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

}  // namespace hookbus
