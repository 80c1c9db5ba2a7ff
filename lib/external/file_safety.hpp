#pragma once
// Whether a file or directory may be trusted to hold code that hookbus runs:
// the ownership and write checks of docs/security.md, as sshd's StrictModes
// makes them for key files.

#include <filesystem>
#include <optional>
#include <string>

namespace hookbus::detail {

// Why `path` must not be trusted to hold hook code, or nullopt when it may.
// The path (a file or a directory) and every directory on its way from the
// root must be owned by the user running hookbus or by root, and must not be
// writable by group or others; a root-owned directory with the sticky bit
// (/tmp) is accepted, since others cannot replace what is in it. A symlink is
// judged by its target: the target and every directory on the target's path,
// as well as the directories holding the link itself.
std::optional<std::string> unsafe_path_reason(const std::filesystem::path& path);

}  // namespace hookbus::detail
