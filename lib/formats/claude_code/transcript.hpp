#pragma once
// Internal: the transcript files hookbus keeps for Claude Code hooks that
// read `transcript_path` (include/hookbus/claude_code.hpp,
// record_claude_code_transcript).

#include <filesystem>
#include <string_view>

namespace hookbus::detail {

// Appends `text` to a transcript file of `directory` (made 0700 when it is
// created), creating the file (0600) when it is missing, also for no text: a
// hook that opens transcript_path finds a file, empty before the session's
// first message.
void append_to_transcript(const std::filesystem::path& directory, const std::filesystem::path& file,
                          std::string_view text);

}  // namespace hookbus::detail
