#pragma once
// A search path's directories (PATH, CDPATH), and the program /bin/sh finds
// in them: shared by what trust resolves a command to run and by the run of
// a program named without a '/' (Copilot's exec), so both find the same file.

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace hookbus::detail {

// A directory a search path lists, in order.
struct SearchPathEntry {
  std::filesystem::path directory;
  bool relative;  // found from the working directory (an empty entry is ".")
};

// The directories of `entries` (colon-separated); a relative one only when
// the working directory `from` is known.
std::vector<SearchPathEntry> search_path(std::string_view entries, const std::optional<std::filesystem::path>& from);

// Whether `file` is a regular file this process may execute.
bool is_executable_file(const std::filesystem::path& file);

}  // namespace hookbus::detail
