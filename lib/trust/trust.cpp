// Project fingerprints and the trust store (include/hookbus/trust.hpp).
#include <hookbus/json.hpp>
#include <hookbus/trust.hpp>

#include "support/directory_tree.hpp"
#include "support/file_safety.hpp"
#include "support/files.hpp"
#include "support/logging.hpp"
#include "support/sha256.hpp"
#include "support/text.hpp"
#include "support/utc_time.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <chrono>
#include <map>
#include <set>
#include <span>
#include <system_error>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

constexpr std::uintmax_t kMaxStoreSize = std::uintmax_t{64} << 20;

// The name a file is recorded under: relative inside the project, else absolute.
std::string recorded_path(const fs::path& project, const fs::path& file) {
  const fs::path relative = file.lexically_relative(project);
  if (!relative.empty() && *relative.begin() != "..") return relative.generic_string();
  return file.generic_string();
}

// Extensions of files that are data: text, structured data, logs, state,
// images (docs/security.md, "Trust").
constexpr std::string_view kDataExtensions[] = {
    ".md",  ".markdown", ".rst",  ".txt", ".log", ".json", ".jsonl", ".ndjson", ".yaml", ".yml",  ".toml",
    ".csv", ".tsv",      ".lock", ".pid", ".tmp", ".bak",  ".swp",   ".png",    ".jpg",  ".jpeg", ".gif",
    ".svg", ".webp",     ".ico",  ".pdf"};
// Files with a data extension that decide what code runs or loads: a
// package's entry points and import maps, a TypeScript loader's paths, what
// `uv run` installs.
constexpr std::string_view kCodeNames[] = {"package.json", "tsconfig.json",  "jsconfig.json",
                                           "deno.json",    "pyproject.toml", "uv.lock"};

// A file of a hook tree is data when its name says so and nothing can run
// it: not executable, no "#!", no ELF object. One that cannot be read is
// code (and fingerprinted as unreadable).
bool is_data(const fs::path& file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string name = file.filename().string();
  if (std::find(std::begin(kDataExtensions), std::end(kDataExtensions), extension) == std::end(kDataExtensions) ||
      std::find(std::begin(kCodeNames), std::end(kCodeNames), name) != std::end(kCodeNames))
    return false;
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  std::array<char, 4> start{};
  const bool read = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::read(fd, start.data(), start.size()) >= 0;
  ::close(fd);
  if (!read || (st.st_mode & 0111) != 0) return false;
  return std::string_view(start.data(), 2) != "#!" && std::string_view(start.data(), 4) != "\x7f" "ELF";
}

class Fingerprinter {
 public:
  explicit Fingerprinter(const fs::path& project) : project_(project) {}

  // A directory entered: walking is bounded like hashing.
  void count_directory() {
    if (++directories_ > max_fingerprinted_files)
      throw TrustError(fmt::format("{}: more than {} directories to fingerprint; hook directories should hold hooks",
                                   project_.string(), max_fingerprinted_files));
  }

  void add_file(const fs::path& file) {
    struct stat link {};
    if (::lstat(file.c_str(), &link) != 0 && (errno == ENOENT || errno == ENOTDIR)) return;  // nothing there
    // Whatever else is there counts, a regular file or not: a config that is
    // a FIFO, a device, a directory or a dangling link stops the engine once
    // its project may run, so its appearing after trust must be a change.
    // read_regular_file refuses what is not a regular file without opening it.
    struct stat st {};
    const bool resolved = ::stat(file.c_str(), &st) == 0;
    const std::string name = recorded_path(project_, file.lexically_normal());
    if (files_.contains(name)) return;
    if (files_.size() == max_fingerprinted_files)
      throw TrustError(fmt::format("{}: more than {} files to fingerprint; hook directories should hold hooks",
                                   project_.string(), max_fingerprinted_files));
    // Reached through /proc (/proc/self/cwd, /dev/fd), it is another file in
    // each process: recorded as refused, never hashed as the file it is here.
    if (auto per_process = detail::per_process_path_reason(file)) {
      files_.emplace(name, FingerprintedFile{name, 0, "refused: " + *per_process});
      return;
    }
    if (resolved && S_ISREG(st.st_mode)) bytes_ += static_cast<std::uintmax_t>(st.st_size);
    if (bytes_ > max_fingerprinted_bytes)
      throw TrustError(fmt::format("{}: more than {} bytes to fingerprint; hook directories should hold hooks",
                                   project_.string(), max_fingerprinted_bytes));
    std::string digest;
    try {
      digest = detail::sha256_hex(detail::read_regular_file(file, max_fingerprinted_bytes));
    } catch (const detail::FileReadError& error) {
      digest = std::string("unreadable: ") + error.what();
    }
    files_.emplace(name, FingerprintedFile{name, static_cast<std::uint32_t>((resolved ? st : link).st_mode & 07777),
                                           std::move(digest)});
  }

  // Every regular file below `directory` but data, walked as discovery and
  // plugin loading list directories (symlinked directories entered):
  // whatever they could find and run is in the fingerprint. A directory that
  // cannot be listed cannot be covered, so it fails the fingerprint. A
  // dangling link, and a link or directory reached through procfs (recorded
  // as refused, not entered), count as what they are: one that comes to name
  // a file is a change.
  void add_directory(const fs::path& directory) {
    detail::walk_below(directory, [&](const detail::DirectoryEntry& entry) {
      switch (entry.kind) {
        case detail::EntryKind::file: return add_code(entry.path);
        case detail::EntryKind::directory: return count_directory();
        case detail::EntryKind::unreadable: return cannot_read(entry.path);
        case detail::EntryKind::dangling:
        case detail::EntryKind::per_process: return add_file(entry.path);
        case detail::EntryKind::other: return;  // a FIFO, a socket, a device: nothing runs from these
      }
    });
  }

  // The files directly in `directory` but data: the project's top directory,
  // where a script a command runs lies, whose subdirectories are not its helpers.
  void add_top_level(const fs::path& directory) {
    std::error_code error;
    for (const auto& entry : detail::directory_entries(directory, error))
      if (entry.kind == detail::EntryKind::file) add_code(entry.path);
    if (error) cannot_read(directory);
  }

  // The trees' data files, as recorded, but those covered otherwise (a file a command names).
  [[nodiscard]] std::vector<std::string> data_files() const {
    std::vector<std::string> data;
    for (const auto& file : data_)
      if (std::string name = recorded_path(project_, file.lexically_normal());
          !files_.contains(name) && std::find(data.begin(), data.end(), name) == data.end())
        data.push_back(std::move(name));
    std::sort(data.begin(), data.end());
    return data;
  }

  // A file of a tree: fingerprinted unless it is data.
  void add_code(const fs::path& file) {
    if (is_data(file)) data_.push_back(file);
    else add_file(file);
  }

  [[noreturn]] void cannot_read(const fs::path& path) const {
    throw TrustError(fmt::format("{}: cannot read {}, so it cannot be fingerprinted; make it readable or remove it",
                                 project_.string(), path.string()));
  }

  ProjectFingerprint take() && {
    ProjectFingerprint result;
    for (auto& [name, file] : files_) result.files.push_back(std::move(file));
    result.digest = fingerprint_digest(result.files);
    return result;
  }

 private:
  fs::path project_;
  std::map<std::string, FingerprintedFile> files_;  // sorted by recorded path
  std::uintmax_t bytes_ = 0;
  std::size_t directories_ = 0;
  std::vector<fs::path> data_;  // the trees' data files, left out
};

// ---------------------------------------------------------------- store

// trust.json's format (docs/security.md, "The trust store"). Version 1
// recorded a digest of an encoding with more than one reading
// (fingerprint_digest) and wrote a path's bytes that are not UTF-8 as
// U+FFFD. Trust is decided by the recorded files, which a version 1 record
// holds as they were trusted: it is read as it is, its digest computed again,
// and the whole store is written as version 2 at its next change.
constexpr std::int64_t kStoreVersion = 2;

// A path as trust.json writes it. JSON text is UTF-8 and a path may hold any
// byte but NUL: '%' and each byte of what is not well-formed UTF-8 are written
// %XX, the rest as it is, so no two paths share a name in the store.
std::string stored_name(std::string_view path) {
  std::string name;
  while (!path.empty()) {
    const detail::Utf8Sequence next = detail::first_utf8_sequence(path);
    if (next.well_formed && path.front() != '%') {
      name.append(path.substr(0, next.size));
    } else {
      for (const char c : path.substr(0, next.size)) name += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
    path.remove_prefix(next.size);
  }
  return name;
}

// The path a stored name stands for; nullopt when a '%' is not followed by two hex digits.
std::optional<std::string> path_of_stored_name(std::string_view name) {
  std::string path;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '%') {
      path += name[i];
      continue;
    }
    unsigned byte = 0;
    const char* const digits = name.data() + i + 1;
    if (name.size() - i < 3 || std::from_chars(digits, digits + 2, byte, 16).ptr != digits + 2) return std::nullopt;
    path += static_cast<char>(byte);
    i += 2;
  }
  return path;
}

json::object to_json(const TrustStore::Record& record) {
  json::object files;
  for (const auto& file : record.fingerprint.files)
    files.emplace(stored_name(file.path), json::object{{"mode", fmt::format("{:04o}", file.mode)}, {"sha256", file.sha256}});
  return {{"fingerprint", record.fingerprint.digest}, {"trusted_at", record.trusted_at}, {"files", std::move(files)}};
}

[[noreturn]] void malformed(const fs::path& store, std::string_view where, std::string_view what) {
  throw TrustError(fmt::format("{}: {}: {}; fix or remove the file (every project is then untrusted)",
                               store.string(), where, what));
}

const json::string& string_at(const json::object& object, std::string_view key, const fs::path& store,
                              std::string_view where) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || !value->is_string()) malformed(store, where, fmt::format("'{}' must be a string", key));
  return value->get_string();
}

// A path as a store of `version` writes it: version 1 wrote paths as they are.
std::string path_in_store(const fs::path& store, std::int64_t version, std::string_view name, std::string_view where) {
  if (version == 1) return std::string(name);
  auto path = path_of_stored_name(name);
  if (!path) malformed(store, where, "a '%' must be followed by two hex digits (a byte of the path)");
  return std::move(*path);
}

TrustStore::Record record_from_json(const fs::path& store, std::int64_t version, const std::string& project,
                                    const json::value& value) {
  if (!value.is_object()) malformed(store, project, "expected an object");
  const json::object& object = value.get_object();
  TrustStore::Record record{project, {}, std::string(string_at(object, "trusted_at", store, project))};
  const std::string digest(string_at(object, "fingerprint", store, project));
  const json::value* files = object.if_contains("files");
  if (files == nullptr || !files->is_object()) malformed(store, project, "'files' must be an object");
  for (const auto& [name, file] : files->get_object()) {
    const std::string where = project + ": " + std::string(name);
    if (!file.is_object()) malformed(store, where, "expected an object");
    const std::string mode(string_at(file.get_object(), "mode", store, where));
    std::uint32_t bits = 0;
    for (const char c : mode) {
      if (c < '0' || c > '7' || mode.size() > 4) malformed(store, where, "'mode' must be octal, like \"0755\"");
      bits = bits * 8 + static_cast<std::uint32_t>(c - '0');
    }
    record.fingerprint.files.push_back({path_in_store(store, version, name, where), bits,
                                        std::string(string_at(file.get_object(), "sha256", store, where))});
  }
  std::ranges::sort(record.fingerprint.files, {}, &FingerprintedFile::path);
  record.fingerprint.digest = fingerprint_digest(record.fingerprint.files);
  // Version 2's digest is of its files: one that is not was edited, or is damaged.
  if (version == kStoreVersion && digest != record.fingerprint.digest)
    malformed(store, project, "'fingerprint' is not the digest of its 'files'");
  return record;
}

using Records = std::map<std::string, TrustStore::Record>;

Records read_store(const fs::path& store) {
  std::optional<std::string> text;
  try {
    text = detail::read_regular_file_if_exists(store, kMaxStoreSize);
  } catch (const detail::FileReadError& error) {
    throw TrustError(store.string() + ": " + error.what());
  }
  if (!text) return {};
  // Anyone who can write the store could trust a project for you.
  if (auto why = detail::unsafe_path_reason(store)) throw TrustError(store.string() + " is not safe: " + *why);
  json::value document;
  try {
    document = parse_json(*text, store.string());
  } catch (const JsonError& error) {
    throw TrustError(std::string(error.what()) + "; fix or remove the file (every project is then untrusted)");
  }
  if (!document.is_object()) malformed(store, "the document", "expected an object");
  const json::value* version = document.get_object().if_contains("version");
  if (version == nullptr || !version->is_int64() || version->get_int64() < 1 || version->get_int64() > kStoreVersion)
    malformed(store, "the document",
              fmt::format("'version' must be 1 or {} (a newer hookbus may have written it)", kStoreVersion));
  const json::value* projects = document.get_object().if_contains("projects");
  if (projects == nullptr || !projects->is_object()) malformed(store, "the document", "'projects' must be an object");
  Records records;
  for (const auto& [name, value] : projects->get_object()) {
    std::string project = path_in_store(store, version->get_int64(), name, name);
    TrustStore::Record record = record_from_json(store, version->get_int64(), project, value);
    records.insert_or_assign(std::move(project), std::move(record));
  }
  return records;
}

void write_store(const fs::path& store, const Records& records) {
  json::object projects;
  for (const auto& [project, record] : records) projects.emplace(stored_name(project), to_json(record));
  const json::object document{{"version", kStoreVersion}, {"projects", std::move(projects)}};
  detail::write_file_atomically(store, write_json(document) + "\n", 0600);
}

// An exclusive lock on `<store>.lock` for a read-modify-write of the store.
class StoreLock {
 public:
  explicit StoreLock(const fs::path& store) {
    try {
      detail::create_private_directory(store.parent_path());
    } catch (const Error& error) {
      throw TrustError(error.what());
    }
    const fs::path lock = fs::path(store).concat(".lock");
    fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0)
      throw TrustError(fmt::format("{}: cannot lock: {}", lock.string(), std::generic_category().message(errno)));
  }
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;
  ~StoreLock() { ::close(fd_); }

 private:
  int fd_ = -1;
};

std::string key_of(const fs::path& project) { return fs::absolute(project).lexically_normal().string(); }

std::vector<FileChange> changes_between(const ProjectFingerprint& trusted, const ProjectFingerprint& now) {
  std::map<std::string, const FingerprintedFile*> before;
  for (const auto& file : trusted.files) before.emplace(file.path, &file);
  std::vector<FileChange> changes;
  for (const auto& file : now.files) {
    const auto found = before.find(file.path);
    if (found == before.end()) {
      changes.push_back({FileChange::Kind::added, file.path, ""});
      continue;
    }
    const FingerprintedFile& old = *found->second;
    std::vector<std::string> what;
    if (old.sha256 != file.sha256) what.emplace_back("content");
    if (old.mode != file.mode) what.push_back(fmt::format("mode {:04o} -> {:04o}", old.mode, file.mode));
    if (!what.empty()) changes.push_back({FileChange::Kind::modified, file.path, fmt::format("{}", fmt::join(what, " and "))});
    before.erase(found);
  }
  for (const auto& [path, file] : before) changes.push_back({FileChange::Kind::removed, path, ""});
  std::sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return changes;
}

// The first changes a warning lists; the rest are counted (`hookctl trust --dry-run` lists them all).
constexpr std::size_t kChangesListed = 10;

std::string change_summary(const std::vector<FileChange>& changes) {
  std::vector<std::string> parts;
  for (const auto& change : std::span(changes).first(std::min(changes.size(), kChangesListed))) {
    switch (change.kind) {
      case FileChange::Kind::added: parts.push_back("added " + change.path); break;
      case FileChange::Kind::removed: parts.push_back("removed " + change.path); break;
      case FileChange::Kind::modified: parts.push_back(fmt::format("modified {} ({})", change.path, change.detail)); break;
    }
  }
  if (changes.size() > kChangesListed)
    parts.push_back(fmt::format("and {} more (hookctl trust --dry-run lists them all)", changes.size() - kChangesListed));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The project's state against its record (or the lack of one): untrusted,
// trusted or changed, with the changes and the message.
void compare_with_record(TrustReport& report, const std::optional<TrustStore::Record>& record, const ProjectFiles& files) {
  const std::string review =
      fmt::format("review them, then run: hookctl trust --{} {}", files.kind, detail::shell_quoted(files.project.string()));
  if (!record) {
    report.state = TrustState::untrusted;
    report.message = fmt::format("the {} {} is not trusted, so its {} file(s) with hooks and config do not run; {}",
                                 files.kind, files.project.string(), report.now.files.size(), review);
    return;
  }
  report.trusted = record->fingerprint;
  // The recorded files decide, each with its path, mode and content hash, not
  // a digest: a version 1 record's digest can be matched by other files.
  if (record->fingerprint.files == report.now.files) {
    report.state = TrustState::trusted;
    return;
  }
  report.state = TrustState::changed;
  report.changes = changes_between(record->fingerprint, report.now);
  report.message = fmt::format("the {} {} changed since it was trusted on {} ({}), so its hooks and config do "
                               "not run; {}",
                               files.kind, files.project.string(), record->trusted_at, change_summary(report.changes),
                               review);
}

// The fingerprint of `files`, and in `report` what it does not cover.
ProjectFingerprint fingerprint_for(const ProjectFiles& files, TrustReport& report) {
  Fingerprinter fingerprinter(files.project);
  for (const auto& file : files.files) fingerprinter.add_file(file);
  for (const auto& directory : files.directories) fingerprinter.add_directory(directory);
  for (const auto& directory : files.top_level_directories) fingerprinter.add_top_level(directory);
  report.data_files = fingerprinter.data_files();
  report.outside = files.outside;
  report.unresolved = files.unresolved;
  return std::move(fingerprinter).take();
}

}  // namespace

// The bytes hashed have one reading only: paths may hold any byte but NUL (a
// newline too, which git carries), so fields joined by a separator could be
// read two ways. The first encoding, "{path}\n{mode}\n{sha256}\n" for each
// file, gave one file named "a\n0755\n<sha256>\nb" the digest of the two
// files "a" and "b": a harmless file trusted could carry the record of a hook
// pulled later. Each field is preceded by its length, after a tag naming the
// encoding.
std::string fingerprint_digest(const std::vector<FingerprintedFile>& files) {
  detail::Sha256 hash;
  hash.update("hookbus fingerprint 2\n");
  const auto field = [&](std::string_view bytes) {
    hash.update(fmt::format("{}:", bytes.size()));
    hash.update(bytes);
  };
  for (const auto& file : files) {
    field(file.path);
    field(fmt::format("{:04o}", file.mode));
    field(file.sha256);
  }
  return hash.hex_digest();
}

ProjectFingerprint fingerprint(const ProjectFiles& files) {
  TrustReport unused;
  return fingerprint_for(files, unused);
}

std::string_view trust_state_name(TrustState state) noexcept {
  switch (state) {
    case TrustState::nothing_to_trust: return "nothing to trust";
    case TrustState::trusted: return "trusted";
    case TrustState::untrusted: return "untrusted";
    case TrustState::changed: return "changed since trusted";
    case TrustState::trusted_by_policy: return "trusted by policy (trust_all)";
    case TrustState::ignored_by_policy: return "ignored by policy (ignore)";
    case TrustState::store_unusable: return "untrusted (trust store unusable)";
  }
  return "unknown";
}

TrustStore TrustStore::at(const Locations& locations) {
  if (locations.state.empty())
    throw TrustError("no state directory for trust.json: set HOME or XDG_STATE_HOME");
  return TrustStore(locations.state / "trust.json");
}

std::optional<TrustStore::Record> TrustStore::find(const std::filesystem::path& project) const {
  Records records = read_store(file_);
  const auto found = records.find(key_of(project));
  if (found == records.end()) return std::nullopt;
  return std::move(found->second);
}

std::vector<TrustStore::Record> TrustStore::list() const {
  std::vector<Record> all;
  for (auto& [project, record] : read_store(file_)) all.push_back(std::move(record));
  return all;
}

void TrustStore::trust(const std::filesystem::path& project, const ProjectFingerprint& fingerprint) {
  const StoreLock lock(file_);
  Records records = read_store(file_);
  const std::string key = key_of(project);
  // The digest is of the files, as the store reads them back (sorted by path).
  ProjectFingerprint recorded{{}, fingerprint.files};
  std::ranges::sort(recorded.files, {}, &FingerprintedFile::path);
  recorded.digest = fingerprint_digest(recorded.files);
  records.insert_or_assign(key, Record{key, std::move(recorded), detail::utc_now_text(detail::TimePrecision::seconds)});
  write_store(file_, records);
}

bool TrustStore::revoke(const std::filesystem::path& project) {
  const StoreLock lock(file_);
  Records records = read_store(file_);
  if (records.erase(key_of(project)) == 0) return false;
  write_store(file_, records);
  return true;
}

TrustReport check_trust(const TrustStore& store, const ProjectFiles& files, ProjectTrustPolicy policy) {
  TrustReport report;
  report.project = files.project;
  if (policy == ProjectTrustPolicy::ignore) {
    report.state = TrustState::ignored_by_policy;
    report.message = "the project's hooks and config are ignored (project_trust is \"ignore\")";
    return report;
  }
  try {
    report.now = fingerprint_for(files, report);
  } catch (const TrustError& error) {
    report.state = TrustState::untrusted;
    report.message = error.what();
    return report;
  }
  if (report.now.files.empty()) {
    report.state = TrustState::nothing_to_trust;
    return report;
  }
  if (policy == ProjectTrustPolicy::trust_all) {
    report.state = TrustState::trusted_by_policy;
    report.message = "every project is trusted (project_trust is \"trust_all\")";
    return report;
  }
  std::optional<TrustStore::Record> record;
  try {
    record = store.find(files.project);
  } catch (const TrustError& error) {
    report.state = TrustState::store_unusable;
    report.message = fmt::format("the project's hooks do not run: {}", error.what());
    return report;
  }
  compare_with_record(report, record, files);
  return report;
}

TrustedFiles::TrustedFiles(const ProjectFiles& files, ProjectFingerprint trusted)
    : project_(files.project), kind_(files.kind) {
  for (auto& file : trusted.files) {
    std::string name = file.path;
    trusted_.emplace(std::move(name), std::move(file));
  }
}

std::string TrustedFiles::refusal(const std::filesystem::path& file, std::string_view what, std::string_view use) const {
  return fmt::format("{} {} since the {} {} was trusted, so it does not {}; review it, then run: hookctl trust "
                     "--{} {}",
                     file.string(), what, kind_, project_.string(), use, kind_, detail::shell_quoted(project_.string()));
}

std::optional<std::string> TrustedFiles::why_not_apply(const std::filesystem::path& file, std::string_view sha256) const {
  const auto trusted = trusted_.find(recorded_path(project_, file.lexically_normal()));
  if (trusted == trusted_.end()) return refusal(file, "appeared", "apply");
  if (trusted->second.sha256 != sha256) return refusal(file, "changed content", "apply");
  return std::nullopt;
}

std::optional<std::string> TrustedFiles::why_not_run(const std::filesystem::path& file) const {
  const std::string name = recorded_path(project_, file.lexically_normal());
  const auto refuse = [&](std::string_view what) { return refusal(file, what, "run"); };
  const auto trusted = trusted_.find(name);
  if (trusted == trusted_.end()) return refuse("appeared");
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return refuse("disappeared");
  const Seen now{static_cast<std::uintmax_t>(st.st_dev),
                 static_cast<std::uintmax_t>(st.st_ino),
                 static_cast<std::uintmax_t>(st.st_size),
                 std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec,
                 std::int64_t{st.st_ctim.tv_sec} * 1'000'000'000 + st.st_ctim.tv_nsec,
                 static_cast<std::uint32_t>(st.st_mode & 07777)};
  {
    const std::lock_guard lock(mutex_);
    if (const auto seen = matched_.find(name); seen != matched_.end() && seen->second == now) return std::nullopt;
  }
  if (now.mode != trusted->second.mode)
    return refuse(fmt::format("changed mode ({:04o} -> {:04o})", trusted->second.mode, now.mode));
  detail::log(spdlog::level::debug, "{}: hashed to check it against the trusted {} (no earlier check matches its stat)",
              file.string(), kind_);
  std::string digest;
  try {
    digest = detail::sha256_hex(detail::read_regular_file(file, max_fingerprinted_bytes));
  } catch (const detail::FileReadError& error) {
    return refuse(fmt::format("cannot be read ({})", error.what()));
  }
  if (digest != trusted->second.sha256) return refuse("changed content");
  // A file changed within the last second could change again without its
  // times moving (they tick coarsely): it is hashed again next time, as git
  // treats "racily clean" files.
  const auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count();
  if (std::max(now.mtime_ns, now.ctime_ns) > wall - 1'000'000'000) return std::nullopt;
  const std::lock_guard lock(mutex_);
  matched_.insert_or_assign(name, now);
  return std::nullopt;
}

TrustReport review_trust(const TrustStore& store, const ProjectFiles& files) {
  TrustReport report;
  report.project = files.project;
  report.now = fingerprint_for(files, report);
  if (report.now.files.empty()) {
    report.state = TrustState::nothing_to_trust;
    return report;
  }
  compare_with_record(report, store.find(files.project), files);
  return report;
}

}  // namespace hookbus
