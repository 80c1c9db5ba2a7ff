#pragma once
// The `hookbus` spdlog logger, through which handler failures and external-hook
// warnings are reported. An application can replace it (set_logger, or by
// registering its own spdlog logger named "hookbus" before first use) or
// silence it (logger()->set_level(spdlog::level::off)).

#include <memory>
#include <string>
#include <string_view>

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

// Text from outside (a hook's name or output, a path, a reason) as hookbus
// shows it in logs and on terminals, so that it can neither forge a line nor
// move the cursor or change colours: a backslash is doubled; tab, newline and
// carriage return become \t \n \r; other control characters (C0, DEL, C1)
// and the bidirectional-text overrides become \xNN or \uNNNN; a byte that is
// not well-formed UTF-8 becomes \xNN. Everything else is kept as it is.
// Everything hookbus logs goes through it.
std::string printable(std::string_view text);

}  // namespace hookbus
