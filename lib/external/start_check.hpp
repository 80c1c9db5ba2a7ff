#pragma once
// The check of a hook file right before each run (and each request to a
// persistent hook): the file checks of docs/security.md again (its '#!' line
// among them), and, for a trusted project's file, that it is still what was
// trusted.

#include <hookbus/trust.hpp>

#include "support/file_safety.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>

namespace hookbus::detail {

// Why the hook file `file` must not be started now: it fails the checks of
// unsafe_path_reason or relative_interpreter_reason, or, for a trusted
// project's file (`trusted` given), it is no longer what was trusted
// (TrustedFiles::why_not_run). A file that is gone is left to fail its start
// with its own error (or trust's "disappeared"). nullopt: it may run.
inline std::optional<std::string> why_not_start(const std::filesystem::path& file, const TrustedFiles* trusted) {
  // What is not there cannot be replaced by others: it fails to start, saying so, unless trust says more.
  struct stat st {};
  const bool missing = ::lstat(file.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
  if (!missing) {
    if (auto why = unsafe_path_reason(file)) return "refused: " + *why;
    if (auto why = relative_interpreter_reason(file)) return "refused: " + *why;
  }
  if (trusted != nullptr) return trusted->why_not_run(file);
  return std::nullopt;
}

}  // namespace hookbus::detail
