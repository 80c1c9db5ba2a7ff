#pragma once
// Internal: Qwen Code's hook format (formats/hook_format.hpp).

#include "formats/hook_format.hpp"

namespace hookbus::detail {

const HookFormat& qwen_code_format();

}  // namespace hookbus::detail
