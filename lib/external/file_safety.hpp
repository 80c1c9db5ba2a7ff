#pragma once
// Whether a file or directory may be trusted to hold code that hookbus runs:
// the ownership and write checks of docs/security.md, as sshd's StrictModes
// makes them for key files.

#include <hookbus/trust.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace hookbus::detail {

// Why `path` must not be trusted to hold hook code, or nullopt when it may.
// The path (a file or a directory) and every directory on its way from the
// root must be owned by the user running hookbus or by root, and must not be
// writable by group or others; a root-owned directory with the sticky bit
// (/tmp) is accepted, since others cannot replace what is in it. Symlinks are
// followed one hop at a time, on the path and at its end: the directory
// holding each link of a chain is checked (whoever can write it can repoint
// the link), each link must be yours or root's, and each target with every
// directory on its way.
std::optional<std::string> unsafe_path_reason(const std::filesystem::path& path);

// Why the hook file `file` must not be started now, checked right before
// each run (and a persistent hook's each request): it fails the checks above,
// or, for a trusted project's file (`trusted` given), it is no longer what was
// trusted (TrustedFiles::why_not_run). A file that is gone is left to fail
// its start with its own error (or trust's "disappeared"). nullopt: it may run.
std::optional<std::string> why_not_start(const std::filesystem::path& file, const TrustedFiles* trusted);

}  // namespace hookbus::detail
