// Must not compile: Forgotten's description leaves out `dropped`. With
// -DCOMPILES it describes both members and must compile (the control).
#include "catalogue/described_members.hpp"

#include <boost/describe/class.hpp>

struct Forgotten {
  int kept = 0;
  int dropped = 0;
};
#ifdef COMPILES
BOOST_DESCRIBE_STRUCT(Forgotten, (), (kept, dropped))
#else
BOOST_DESCRIBE_STRUCT(Forgotten, (), (kept))
#endif

static_assert(hookbus::detail::describes_every_member<Forgotten>());
