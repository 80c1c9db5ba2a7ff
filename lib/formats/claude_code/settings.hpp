#pragma once
// Internal: the settings files of a format that declares its hooks as Claude
// Code does (formats/hook_format.hpp): their `hooks` block read as commands.

#include <hookbus/claude_code.hpp>

#include "formats/hook_format.hpp"

#include <filesystem>

namespace hookbus::detail {

// read_claude_code_settings (claude_code.hpp) for any such format: its event
// names, its timeout unit, its name in what is skipped. A handler's own
// directory (HookFormat::working_directory_key) is checked against
// `project_dir` (empty: the working directory).
ClaudeCodeSettings read_format_settings(const HookFormat& format, const std::filesystem::path& file, Layer layer,
                                        const std::filesystem::path& plugin_root = {},
                                        const std::filesystem::path& project_dir = {});

}  // namespace hookbus::detail
