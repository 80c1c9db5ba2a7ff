// Must not compile: to_json of a type that is not in the catalogue (the
// library instantiates its JSON and format templates for catalogue types
// only, so it could never link). With -DCOMPILES it converts a catalogue type
// and must compile (the control).
#include <hookbus/json.hpp>

struct NotInTheCatalogue {
  int value = 0;
};

boost::json::value convert() {
#ifdef COMPILES
  return hookbus::to_json(hookbus::Message{});
#else
  return hookbus::to_json(NotInTheCatalogue{});
#endif
}
