#pragma once
// The answers hook files gave to `HOOK hook`, remembered per exact file
// content, so that `hookctl list` and each engine start do not run an
// unchanged hook again. A JSON file under $XDG_CACHE_HOME/hookbus/; losing it
// only costs the queries.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hookbus::detail {

// What makes a cached answer valid: the file's size, modification time and content hash.
struct FileIdentity {
  std::uintmax_t size = 0;
  std::int64_t mtime_ns = 0;
  std::string sha256;
  bool operator==(const FileIdentity&) const = default;
};

// The identity of a regular file, or nullopt when it cannot be read.
std::optional<FileIdentity> identify(const std::filesystem::path& file);

class QueryCache {
 public:
  // An empty path: a cache that remembers nothing. A cache file that is
  // unreadable, malformed or writable by others is ignored (and rewritten).
  explicit QueryCache(std::filesystem::path file);

  [[nodiscard]] std::optional<std::vector<std::string>> find(const std::filesystem::path& hook,
                                                             const FileIdentity& identity) const;
  void store(const std::filesystem::path& hook, FileIdentity identity, std::vector<std::string> answer);
  // Writes the cache back if anything was stored; a failure is logged, never thrown.
  void save() const;

 private:
  struct Entry {
    FileIdentity identity;
    std::vector<std::string> answer;
  };
  std::filesystem::path file_;
  std::map<std::string, Entry> entries_;
  bool dirty_ = false;
};

}  // namespace hookbus::detail
