// Must not compile: the library's check of the whole catalogue, over events
// that hold (through an optional and a vector) a struct whose description
// leaves out `dropped`. With -DCOMPILES it describes both members and must
// compile (the control).
#include "catalogue/descriptions.hpp"

struct Forgotten {
  int kept = 0;
  int dropped = 0;
};
#ifdef COMPILES
BOOST_DESCRIBE_STRUCT(Forgotten, (), (kept, dropped))
#else
BOOST_DESCRIBE_STRUCT(Forgotten, (), (kept))
#endif

struct ScratchEvent {
  static constexpr std::string_view type = "scratch";
  hookbus::EventContext context = hookbus::EventContext();
  std::optional<std::vector<Forgotten>> nested{};
};
BOOST_DESCRIBE_STRUCT(ScratchEvent, (), (context, nested))

static_assert(hookbus::detail::catalogue_is_fully_described<std::variant<hookbus::ToolCallEvent, ScratchEvent>>());
