// Must not compile: the library's check of the whole catalogue, over events
// that hold an enum whose description names `calm` twice. With -DCOMPILES it
// names each enumerator once and must compile (the control).
#include "catalogue/descriptions.hpp"

enum class Mood { calm, angry };
#ifdef COMPILES
BOOST_DESCRIBE_ENUM(Mood, calm, angry)
#else
BOOST_DESCRIBE_ENUM(Mood, calm, angry, calm)
#endif

struct ScratchEvent {
  static constexpr std::string_view type = "scratch";
  hookbus::EventContext context = hookbus::EventContext();
  Mood mood = Mood::calm;
};
BOOST_DESCRIBE_STRUCT(ScratchEvent, (), (context, mood))

static_assert(hookbus::detail::catalogue_is_fully_described<std::variant<hookbus::ToolCallEvent, ScratchEvent>>());
