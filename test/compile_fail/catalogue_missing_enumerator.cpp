// Must not compile: the library's check of the whole catalogue, over events
// that hold (in a nested struct) an enum whose description leaves out
// `bored`. With -DCOMPILES it describes every enumerator and must compile
// (the control).
#include "catalogue/descriptions.hpp"

enum class Mood { calm, bored, angry };
#ifdef COMPILES
BOOST_DESCRIBE_ENUM(Mood, calm, bored, angry)
#else
BOOST_DESCRIBE_ENUM(Mood, calm, angry)
#endif

struct Weather {
  std::optional<Mood> mood{};
};
BOOST_DESCRIBE_STRUCT(Weather, (), (mood))

struct ScratchEvent {
  static constexpr std::string_view type = "scratch";
  hookbus::EventContext context = hookbus::EventContext();
  Weather weather{};
};
BOOST_DESCRIBE_STRUCT(ScratchEvent, (), (context, weather))

static_assert(hookbus::detail::catalogue_is_fully_described<std::variant<hookbus::ToolCallEvent, ScratchEvent>>());
