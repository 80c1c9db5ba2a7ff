// Must not compile: from_json of a type that is not in the catalogue (the
// library instantiates it for catalogue types only, so it could never link).
// With -DCOMPILES it reads a catalogue type and must compile (the control).
#include <hookbus/json.hpp>

#include <boost/describe/class.hpp>

// Described, as a catalogue struct is: that alone does not make it one.
struct NotInTheCatalogue {
  int value = 0;
};
BOOST_DESCRIBE_STRUCT(NotInTheCatalogue, (), (value))

void read(const boost::json::value& json) {
#ifdef COMPILES
  (void)hookbus::from_json<hookbus::Message>(json);
#else
  (void)hookbus::from_json<NotInTheCatalogue>(json);
#endif
}
