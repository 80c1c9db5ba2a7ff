// Must not compile: the library's check of the whole catalogue, over events
// that hold a struct whose description names `kept` twice and leaves out
// `dropped` (as many names as members). With -DCOMPILES it describes each
// member once and must compile (the control).
#include "catalogue/descriptions.hpp"

struct Doubled {
  int kept = 0;
  int dropped = 0;
};
#ifdef COMPILES
BOOST_DESCRIBE_STRUCT(Doubled, (), (kept, dropped))
#else
BOOST_DESCRIBE_STRUCT(Doubled, (), (kept, kept))
#endif

struct ScratchEvent {
  static constexpr std::string_view type = "scratch";
  hookbus::EventContext context = hookbus::EventContext();
  Doubled nested{};
};
BOOST_DESCRIBE_STRUCT(ScratchEvent, (), (context, nested))

static_assert(hookbus::detail::catalogue_is_fully_described<std::variant<hookbus::ToolCallEvent, ScratchEvent>>());
