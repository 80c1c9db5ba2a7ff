// hookbus::version(): the CMake project's version, which lib/CMakeLists.txt
// gives this file alone as compile definitions (a new version recompiles one
// file). The text is made from the same three numbers, so it cannot differ.
#include <hookbus/version.hpp>

#if !defined(HOOKBUS_VERSION_MAJOR) || !defined(HOOKBUS_VERSION_MINOR) || !defined(HOOKBUS_VERSION_PATCH)
#error "HOOKBUS_VERSION_MAJOR, _MINOR and _PATCH are defined for this file by lib/CMakeLists.txt"
#endif

#define HOOKBUS_TEXT_OF(x) #x
#define HOOKBUS_TEXT(x) HOOKBUS_TEXT_OF(x)

namespace hookbus {

Version version() noexcept {
  return {HOOKBUS_VERSION_MAJOR, HOOKBUS_VERSION_MINOR, HOOKBUS_VERSION_PATCH,
          HOOKBUS_TEXT(HOOKBUS_VERSION_MAJOR) "." HOOKBUS_TEXT(HOOKBUS_VERSION_MINOR) "." HOOKBUS_TEXT(
              HOOKBUS_VERSION_PATCH)};
}

}  // namespace hookbus
