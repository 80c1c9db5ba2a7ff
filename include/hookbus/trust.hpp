#pragma once
// Trust in a project: what a repository brings (its hook trees, plugins,
// config, Claude Code project settings and what their commands reach) runs
// only after the user trusted the project, and only while those files are
// exactly what was trusted; what the trust cannot cover is said. Like
// direnv's `allow`, trust is recorded with a content fingerprint; any change
// needs a new trust. docs/security.md is the model; setup.hpp applies it;
// `hookctl trust` is the command.
//
//   hookbus::TrustStore store = hookbus::TrustStore::at(locations);
//   hookbus::TrustReport report = hookbus::check_trust(store, files, policy);
//   if (report.state == hookbus::TrustState::changed)
//     for (const auto& change : report.changes) ...  // show them, ask the user
//   store.trust(files.project, report.now);          // after the engine's own prompt

#include <hookbus/config.hpp>
#include <hookbus/errors.hpp>
#include <hookbus/layers.hpp>

#include <boost/describe/enum.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus {

// A file outside the project that one of its Claude Code commands runs or
// names: not the project's to change, so not fingerprinted.
struct OutsideFile {
  std::filesystem::path path{};
  std::string source{};  // the command's entry: "<project>/.claude/settings.json: hooks.PreToolUse[0].hooks[0]"
  bool operator==(const OutsideFile&) const = default;
};

// A construct of a project's Claude Code command that trust could not
// resolve before the command runs: what the command runs through it is not
// covered by the fingerprint.
struct UnresolvedCommand {
  std::string source{};     // the command's entry, as OutsideFile::source
  std::string command{};    // the command as written
  std::string construct{};  // the construct as written: "$(cat .hookrc)", "tools/*.sh", "npx prettier"
  std::string why{};        // "a glob pattern: the files it matches are known only when the command runs"
  bool operator==(const UnresolvedCommand&) const = default;
};

// What a project brings that hookbus would read or run: the inputs of its
// fingerprint (docs/security.md, "Trust"), and what its fingerprint cannot cover.
struct ProjectFiles {
  std::filesystem::path project{};                   // absolute
  std::vector<std::filesystem::path> files{};        // config and settings files, files commands name: covered whatever they hold
  std::vector<std::filesystem::path> directories{};  // hook trees: every file below them counts, except data
  std::string kind = "project";                      // what messages call it: "project" or "workspace"
  // Directories whose own files count, not their subdirectories' (except
  // data): the project's top directory, when a script a command runs is there.
  std::vector<std::filesystem::path> top_level_directories{};
  std::vector<OutsideFile> outside{};            // for what trust says it does not cover
  std::vector<UnresolvedCommand> unresolved{};   // likewise
};

// One file of a fingerprint.
struct FingerprintedFile {
  std::string path{};         // relative to the project when inside it, else absolute
  std::uint32_t mode = 0;   // permission bits (07777) of what the path resolves to
  // of the content, or "unreadable: <why>" (no regular file, or one that
  // cannot be read), or "refused: <why>" for a path through /proc, which
  // names another file in each process (it never runs)
  std::string sha256{};
  bool operator==(const FingerprintedFile&) const = default;
};

struct ProjectFingerprint {
  std::string digest{};                     // fingerprint_digest(files)
  std::vector<FingerprintedFile> files{};   // sorted by path
  bool operator==(const ProjectFingerprint&) const = default;
};

// The SHA-256 of `files` (sorted by path, as ProjectFingerprint holds them) in
// an encoding with one reading only: a version tag, then each file's path,
// mode (four octal digits) and content hash, each field preceded by its
// length. Different lists never give the same bytes to hash, whatever the
// paths hold (a newline, text that looks like another file's record).
std::string fingerprint_digest(const std::vector<FingerprintedFile>& files);

// Limits that keep fingerprinting a hostile project bounded (the file count
// bounds the directories entered too).
inline constexpr std::size_t max_fingerprinted_files = 10'000;
inline constexpr std::uintmax_t max_fingerprinted_bytes = std::uintmax_t{256} << 20;

// Hashes every file of `files` (symlinks followed; missing files are left
// out, and what is there but is no regular file, a FIFO, a device, a
// directory or a dangling symlink, counts as "unreadable: <what it is>",
// never opened). Directories are walked the way discovery and plugin loading
// list them, symlinked subdirectories entered, so everything they could run
// is covered; their data files are left out: a file whose name ends in a data
// extension (.md, .txt, .json, .log, .yaml, ...; docs/security.md lists
// them), other than those that decide what code loads (package.json,
// tsconfig.json, pyproject.toml, ...), that nothing can run (not executable,
// no "#!", no ELF object), so that a hook may keep its state beside it.
// Throws TrustError past the limits above or for a directory that cannot be
// listed, naming the project.
ProjectFingerprint fingerprint(const ProjectFiles& files);

class TrustError : public Error {
 public:
  using Error::Error;
};

enum class TrustState {
  nothing_to_trust,   // the project brings nothing hookbus would run
  trusted,            // trusted, and nothing changed since
  untrusted,          // never trusted (or revoked)
  changed,            // trusted once, but its files changed since: see `changes`
  trusted_by_policy,  // ProjectTrustPolicy::trust_all
  ignored_by_policy,  // ProjectTrustPolicy::ignore
  store_unusable,     // trust.json cannot be read or is not safe: nothing is trusted
};

std::string_view trust_state_name(TrustState state) noexcept;

struct FileChange {
  enum class Kind { added, removed, modified };
  BOOST_DESCRIBE_NESTED_ENUM(Kind, added, removed, modified)
  Kind kind = Kind::modified;
  std::string path{};
  std::string detail{};  // "content", "mode 0755 -> 0775", "content and mode 0755 -> 0775"
  bool operator==(const FileChange&) const = default;
};

struct TrustReport {
  TrustState state = TrustState::untrusted;
  std::filesystem::path project{};
  ProjectFingerprint now{};           // the project's files as they are
  ProjectFingerprint trusted{};       // for `trusted` and `changed`: the files as the store recorded them
  std::vector<FileChange> changes{};  // for `changed`: what differs from the trusted fingerprint
  std::string message{};              // for people: what is the case and the command to review and trust
  // What the fingerprint does not cover, for the user to hear before trusting:
  std::vector<std::string> data_files{};        // files of the hook trees left out as data (paths as recorded)
  std::vector<OutsideFile> outside{};           // ProjectFiles::outside
  std::vector<UnresolvedCommand> unresolved{};  // ProjectFiles::unresolved

  // True when the project and local layers may run.
  [[nodiscard]] bool project_may_run() const noexcept {
    return state == TrustState::nothing_to_trust || state == TrustState::trusted ||
           state == TrustState::trusted_by_policy;
  }
};

// The user's record of trusted projects: a JSON file, mode 0600, replaced
// atomically (and under a lock) on every change. A store that is writable by
// others or cannot be read trusts nothing. A project is trusted while its
// files are exactly those recorded, each with its path, mode and content
// hash: the recorded list decides, not a digest (docs/security.md, "The trust
// store" has the format and its versions).
class TrustStore {
 public:
  struct Record {
    std::filesystem::path project{};
    ProjectFingerprint fingerprint{};
    std::string trusted_at{};  // UTC, ISO 8601
  };

  explicit TrustStore(std::filesystem::path file) : file_(std::move(file)) {}
  // `<locations.state>/trust.json`; throws TrustError when there is no state directory (no HOME).
  static TrustStore at(const Locations& locations);

  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }

  // Throws TrustError when the store cannot be read, is malformed or is writable by others.
  [[nodiscard]] std::optional<Record> find(const std::filesystem::path& project) const;
  [[nodiscard]] std::vector<Record> list() const;
  // Records the project as trusted with the fingerprint's files (its digest
  // computed again from them), replacing an earlier record.
  void trust(const std::filesystem::path& project, const ProjectFingerprint& fingerprint);
  // Forgets the project; false when it was not trusted.
  bool revoke(const std::filesystem::path& project);

 private:
  std::filesystem::path file_{};
};

// Whether the project's layers may run: fingerprints `files` and compares the
// files with those the store recorded, under `policy`. Never throws for what
// it finds: an unusable store is TrustState::store_unusable, with the reason
// in the message.
TrustReport check_trust(const TrustStore& store, const ProjectFiles& files, ProjectTrustPolicy policy);

// A trusted project's files as they were trusted (TrustReport::trusted: the
// store's record), checked again right before one of them runs (a hook's
// query and each run, a Claude Code command's script, a plugin's load): a
// file changed after setup() must not run until
// the project is trusted again. Checking costs a stat per run; the content is
// hashed again only when the file's size, modification or change time, inode
// or mode differ from when it last matched. Thread-safe.
class TrustedFiles {
 public:
  TrustedFiles(const ProjectFiles& files, ProjectFingerprint trusted);
  TrustedFiles(const TrustedFiles&) = delete;
  TrustedFiles& operator=(const TrustedFiles&) = delete;

  // Why `file` must not run now: it was not among the trusted files, or its
  // content or mode changed since, with the command to review and trust;
  // nullopt when it is as trusted.
  [[nodiscard]] std::optional<std::string> why_not_run(const std::filesystem::path& file) const;
  // Why content read from `file`, whose SHA-256 is `sha256`, must not be
  // applied (a config or settings file, read before or after it was hashed):
  // it is not the content trusted; nullopt when it is.
  [[nodiscard]] std::optional<std::string> why_not_apply(const std::filesystem::path& file,
                                                         std::string_view sha256) const;

 private:
  struct Seen {  // a stat of a file whose content matched
    std::uintmax_t dev = 0, ino = 0, size = 0;
    std::int64_t mtime_ns = 0, ctime_ns = 0;
    std::uint32_t mode = 0;
    bool operator==(const Seen&) const = default;
  };
  // Why `file` may not `use` ("run", "apply"): `what` happened to it since the project was trusted.
  [[nodiscard]] std::string refusal(const std::filesystem::path& file, std::string_view what, std::string_view use) const;

  std::filesystem::path project_{};
  std::string kind_{};
  std::map<std::string, FingerprintedFile> trusted_{};  // by recorded path
  mutable std::mutex mutex_{};
  mutable std::map<std::string, Seen> matched_{};       // guarded by mutex_
};

// What trusting the project would record, whatever the policy: its files as
// they are (`now`) and, against the store, `nothing_to_trust`, `untrusted`,
// `trusted` or `changed` (with the changes). What `hookctl trust` shows, and
// records with TrustStore::trust(files.project, report.now). Throws
// TrustError past the fingerprint limits or for an unusable store: a partial
// fingerprint must never be recorded.
TrustReport review_trust(const TrustStore& store, const ProjectFiles& files);

}  // namespace hookbus
