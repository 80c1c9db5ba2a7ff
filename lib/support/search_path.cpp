#include "support/search_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace hookbus::detail {

std::vector<SearchPathEntry> search_path(std::string_view entries, const std::optional<std::filesystem::path>& from) {
  std::vector<SearchPathEntry> listed;
  for (bool more = true; more;) {
    const std::size_t colon = std::min(entries.find(':'), entries.size());
    const std::filesystem::path entry(entries.substr(0, colon).empty() ? "." : std::string(entries.substr(0, colon)));
    more = colon < entries.size();
    entries.remove_prefix(std::min(colon + 1, entries.size()));
    if (entry.is_absolute()) listed.push_back({entry, false});
    else if (from) listed.push_back({*from / entry, true});
  }
  return listed;
}

bool is_executable_file(const std::filesystem::path& file) {
  struct stat st {};
  return ::stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(file.c_str(), X_OK) == 0;
}

}  // namespace hookbus::detail
