#pragma once
// Internal: Cline's hooks (formats/hook_format.hpp; docs.cline.bot/customization/hooks,
// as the 3.x extension runs them): one executable per event, named by its
// file, in the project's .clinerules/hooks and the user's Cline hooks
// directory (cline/imports.cpp finds them as discovery finds hook files);
// Cline's camelCase payload (cline/payload.cpp) and its answer {cancel,
// contextModification, errorMessage} (cline/answer.cpp).

#include "formats/hook_format.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>

namespace hookbus::detail {

const HookFormat& cline_format();

// The directory of Cline hook files of a scope: the project's
// .clinerules/hooks, the user's Cline hooks directory (Locations::cline);
// empty for the other scopes.
std::filesystem::path cline_hooks_directory(const Locations& locations, Layer scope);

// Why a file named `name` is not run: a name Cline does not know. nullopt
// for its events.
std::optional<std::string> cline_file_not_run(std::string_view name);

// What setup() imports of Cline (cline/imports.cpp).
std::unique_ptr<FormatImports> cline_imports(const HookFormat& format, const Locations& locations);

// Cline's payload and answer for E. Instantiated for every event.
template <class E>
boost::json::object cline_payload(const E& event, std::string_view format_event, const ClaudeCodeToolNames& tool_names,
                                  std::string_view transcript_path, const std::filesystem::path& project_dir);
template <class E>
HookAnswer<E> cline_answer(const ClaudeCodeCommand& command, const E& event, const ProcessResult& run,
                           const ClaudeCodeToolNames& tool_names);

}  // namespace hookbus::detail
