// Must not compile: format_line of a type that is not in the catalogue (the
// library instantiates it for catalogue types only, so it could never link).
// With -DCOMPILES it renders a catalogue type and must compile (the control).
#include <hookbus/format.hpp>

struct NotInTheCatalogue {
  int value = 0;
};

std::string render() {
#ifdef COMPILES
  return hookbus::format_line(hookbus::Message{});
#else
  return hookbus::format_line(NotInTheCatalogue{});
#endif
}
