#pragma once
// The time now as text, in UTC and ISO 8601: the form the agents' payloads,
// hookbus's transcripts and its trust store write it in.

#include <string>

namespace hookbus::detail {

enum class TimePrecision { seconds, milliseconds };

// "2026-11-29T18:42:45Z", or with milliseconds "2026-11-29T18:42:45.123Z".
std::string utc_now_text(TimePrecision precision);

}  // namespace hookbus::detail
