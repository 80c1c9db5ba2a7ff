#pragma once
// The `hookbus` spdlog logger, through which handler failures and external-hook
// warnings are reported. An application can replace it (set_logger, or by
// registering its own spdlog logger named "hookbus" before first use) or
// silence it (logger()->set_level(spdlog::level::off)).

#include <memory>

namespace spdlog {
class logger;
}

namespace hookbus {

// The current logger; created on first use (stderr, registered with spdlog as
// "hookbus") unless the application registered one under that name.
std::shared_ptr<spdlog::logger> logger();

// Replaces the logger for everything hookbus logs from now on; nullptr
// restores the default.
void set_logger(std::shared_ptr<spdlog::logger> replacement);

}  // namespace hookbus
