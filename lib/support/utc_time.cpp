#include "support/utc_time.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

namespace hookbus::detail {

std::string utc_now_text(TimePrecision precision) {
  const auto now = std::chrono::system_clock::now();
  // fmt writes a time point's seconds with the fraction its duration has.
  if (precision == TimePrecision::milliseconds)
    return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", std::chrono::floor<std::chrono::milliseconds>(now));
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", std::chrono::floor<std::chrono::seconds>(now));
}

}  // namespace hookbus::detail
