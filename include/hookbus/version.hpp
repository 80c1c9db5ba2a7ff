#pragma once
// The version of hookbus a program runs with. It is the CMake project's
// version (CMakeLists.txt), as are the CMake package's
// (`find_package(hookbus 0.2)`, cmake/install.cmake) and `hookctl --version`,
// so the three always agree. CHANGELOG.md states what a version number
// promises (semantic versioning) and what changed in each.
//
//   const hookbus::Version running = hookbus::version();
//   std::cout << "hookbus " << running.string << '\n';  // "hookbus 0.2.0"
//   if (running < hookbus::Version{.major = 0, .minor = 3}) ...

#include <compare>
#include <string_view>

namespace hookbus {

// Compared by number (major, then minor, then patch); `string` is their text.
struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::string_view string{};  // "MAJOR.MINOR.PATCH", e.g. "0.2.0"

  friend constexpr bool operator==(const Version& a, const Version& b) noexcept {
    return a.major == b.major && a.minor == b.minor && a.patch == b.patch;
  }
  friend constexpr std::strong_ordering operator<=>(const Version& a, const Version& b) noexcept {
    if (const auto order = a.major <=> b.major; order != 0) return order;
    if (const auto order = a.minor <=> b.minor; order != 0) return order;
    return a.patch <=> b.patch;
  }
};

// The version of the hookbus library this program is linked with (for a
// shared libhookbus: the one loaded at run time).
[[nodiscard]] Version version() noexcept;

}  // namespace hookbus
