#pragma once
// Internal: VS Code's agent hooks (formats/hook_format.hpp), and its payload
// and answer where they differ from Claude Code's (vscode/format.cpp).

#include "formats/hook_format.hpp"

namespace hookbus::detail {

const HookFormat& vscode_format();

}  // namespace hookbus::detail
