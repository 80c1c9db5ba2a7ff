#include "support/logging.hpp"
#include "discovery/query_cache.hpp"

#include "support/file_safety.hpp"
#include "support/files.hpp"
#include "support/sha256.hpp"

#include <hookbus/json.hpp>
#include <hookbus/log.hpp>

#include <spdlog/spdlog.h>

#include <sys/stat.h>

namespace hookbus::detail {
namespace {

namespace json = boost::json;

constexpr std::uintmax_t kMaxCacheSize = std::uintmax_t{16} << 20;
constexpr std::uintmax_t kMaxHookSize = std::uintmax_t{256} << 20;

}  // namespace

std::optional<FileIdentity> identify(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  try {
    return FileIdentity{static_cast<std::uintmax_t>(st.st_size),
                        std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec,
                        sha256_hex(read_regular_file(file, kMaxHookSize))};
  } catch (const FileReadError&) {
    return std::nullopt;
  }
}

QueryCache::QueryCache(std::filesystem::path file) : file_(std::move(file)) {
  if (file_.empty()) return;
  try {
    const auto text = read_regular_file_if_exists(file_, kMaxCacheSize);
    if (!text) return;
    if (auto why = unsafe_path_reason(file_)) {
      detail::log(spdlog::level::warn, "hook query cache {} ignored: {}", file_.string(), *why);
      return;
    }
    const json::value document = parse_json(*text, file_.string());
    for (const auto& [path, value] : document.at("hooks").as_object()) {
      const json::object& entry = value.as_object();
      Entry cached{{entry.at("size").to_number<std::uintmax_t>(), entry.at("mtime_ns").to_number<std::int64_t>(),
                    std::string(entry.at("sha256").as_string())},
                   {}};
      for (const auto& name : entry.at("answer").as_array()) cached.answer.emplace_back(name.as_string());
      entries_.emplace(std::string(path), std::move(cached));
    }
  } catch (const std::exception& error) {
    entries_.clear();
    detail::log(spdlog::level::debug, "hook query cache {} ignored: {}", file_.string(), error.what());
  }
}

std::optional<std::vector<std::string>> QueryCache::find(const std::filesystem::path& hook,
                                                        const FileIdentity& identity) const {
  const auto found = entries_.find(hook.string());
  if (found == entries_.end() || found->second.identity != identity) return std::nullopt;
  return found->second.answer;
}

void QueryCache::store(const std::filesystem::path& hook, FileIdentity identity, std::vector<std::string> answer) {
  if (file_.empty()) return;
  entries_.insert_or_assign(hook.string(), Entry{std::move(identity), std::move(answer)});
  dirty_ = true;
}

void QueryCache::save() const {
  if (!dirty_) return;
  json::object hooks;
  for (const auto& [path, entry] : entries_) {
    json::array answer;
    for (const auto& name : entry.answer) answer.emplace_back(name);
    hooks.emplace(path, json::object{{"size", entry.identity.size},
                                     {"mtime_ns", entry.identity.mtime_ns},
                                     {"sha256", entry.identity.sha256},
                                     {"answer", std::move(answer)}});
  }
  try {
    write_file_atomically(file_, write_json(json::object{{"version", 1}, {"hooks", std::move(hooks)}}) + "\n", 0600);
  } catch (const std::exception& error) {
    detail::log(spdlog::level::warn, "hook query cache not saved: {}", error.what());
  }
}

}  // namespace hookbus::detail
