// The Claude Code settings reader: the input is a settings file
// (.claude/settings.json, or a plugin's hooks/hooks.json), read by
// read_claude_code_settings. hookbus does not write these files; the document
// written again by write_json must read back equal and give the same
// settings (every command, every skipped key), or fail with the same error.
#include "oracle.hpp"
#include "scratch_directory.hpp"

#include <hookbus/claude_code.hpp>
#include <hookbus/config.hpp>

#include <string>
#include <variant>

namespace {

using namespace hookbus;

// The settings read, or the error message.
using Read = std::variant<ClaudeCodeSettings, std::string>;

Read read(std::string_view text) {
  static const fuzz::ScratchDirectory scratch;
  try {
    ClaudeCodeSettings settings = read_claude_code_settings(scratch.write(".claude/settings.json", text), Layer::project);
    for (const std::string& skipped : settings.skipped) fuzz::expect_valid_utf8(skipped, "a skipped entry's note");
    for (const ClaudeCodeCommand& command : settings.commands) {
      fuzz::expect_valid_utf8(command.label, "a command's label");
      fuzz::expect_valid_utf8(command.source, "a command's source");
    }
    settings.sha256.clear();  // of the bytes read: the input's and the written document's differ
    return settings;
  } catch (const ConfigError& error) {
    fuzz::expect_valid_utf8(error.what(), "a settings error");
    return error.what();
  }
}

std::string shown(const Read& read) {
  if (const auto* error = std::get_if<std::string>(&read)) return "error: " + *error;
  return std::to_string(std::get<ClaudeCodeSettings>(read).commands.size()) + " commands";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  const Read first = read(text);
  boost::json::value document;
  try {
    document = parse_json(text, "fuzz");
  } catch (const JsonError&) {
    if (std::holds_alternative<ClaudeCodeSettings>(first))
      fuzz::broken("read_claude_code_settings took text parse_json refuses", text);
    return 0;
  }
  const std::string written = fuzz::expect_written_reads_back(document);
  if (const Read again = read(written); again != first)
    fuzz::broken("the settings written again read differently", shown(first) + "\n" + shown(again) + "\n" + written);
  return 0;
}
