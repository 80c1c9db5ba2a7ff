// The config reader: the input is a config file (.hookbus/config.json), read
// by load_config and its built-ins' settings checked by install_builtins. The
// document written again by write_json must read back equal and load the same
// Config (every member compared), or fail with the same error.
#include "oracle.hpp"

#include <hookbus/builtins.hpp>
#include <hookbus/config.hpp>
#include <hookbus/hooks.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace hookbus;

// A directory of this process's own for the file load_config reads.
const fs::path& config_file() {
  static const fs::path file = [] {
    std::string pattern = (fs::temp_directory_path() / "hookbus-fuzz-config-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    fs::create_directory(fs::path(pattern) / ".hookbus");
    return fs::path(pattern) / ".hookbus" / "config.json";
  }();
  return file;
}

template <class T>
std::string shown(const std::optional<T>& value) {
  if (!value) return "unset";
  if constexpr (std::is_same_v<T, Duration>) return std::to_string(value->count()) + "ms";
  else if constexpr (std::is_enum_v<T>) return std::to_string(static_cast<int>(*value));
  else return std::to_string(*value);
}

// Everything a loaded config holds, one member a line: two loads gave the
// same Config when these texts are equal.
std::string contents(const Config& config) {
  std::string text;
  const auto line = [&](std::string_view member, const std::string& value) {
    text.append(member).append(": ").append(value).append("\n");
  };
  for (const auto& builtin : config.builtins) line("builtin " + builtin.name, write_json(builtin.settings));
  for (const auto& dir : config.hook_directories) line("hook_directory", dir.string());
  line("default_timeout", shown(config.default_timeout));
  for (const auto& [name, hook] : config.hooks) {
    std::string events;
    for (const auto& event : hook.events) events += event + ",";
    line("hook " + name, shown(hook.timeout) + " " + shown(hook.failure) + " " + shown(hook.disabled) + " " +
                             shown(hook.protocol) + " [" + events + "] " + hook.matcher + " | " + hook.tools);
  }
  if (config.claude_code) {
    for (const Layer layer : config.claude_code->settings) line("claude_code.settings", shown(std::optional(layer)));
    for (const auto& plugin : config.claude_code->plugins) line("claude_code.plugin", plugin.string());
    for (const auto& [engine, theirs] : config.claude_code->tool_names) line("claude_code.tool " + engine, theirs);
  }
  line("disable_all_hooks", shown(config.disable_all_hooks));
  line("allow_managed_hooks_only", shown(config.allow_managed_hooks_only));
  line("project_trust", shown(config.project_trust));
  if (config.trace) line("trace", write_json(*config.trace));
  line("layer", shown(std::optional(config.layer)));
  line("file", config.file.string());
  line("project_dir", config.project_dir.string());
  return text;
}

// What loading `text` as the project's config gives: the loaded Config (its
// contents) when it loads and its built-ins install, else the error message.
std::string load(std::string_view text) {
  std::ofstream(config_file(), std::ios::binary | std::ios::trunc) << text;
  try {
    const Config config = load_config(config_file(), Layer::project);
    // The audit built-in and the tracer would write any file the input names: not here.
    const bool writes_files = config.trace || std::any_of(config.builtins.begin(), config.builtins.end(),
                                                          [](const auto& builtin) { return builtin.name == "audit"; });
    if (!writes_files) {
      Hooks hooks;
      const ConnectionGroup installed = install_builtins(hooks, config);
    }
    return "loaded:\n" + contents(config);
  } catch (const ConfigError& error) {
    fuzz::expect_valid_utf8(error.what(), "a config error");
    return error.what();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  const std::string first = load(text);
  boost::json::value document;
  try {
    document = parse_json(text, "fuzz");
  } catch (const JsonError&) {
    if (first.starts_with("loaded:\n")) fuzz::broken("load_config took text parse_json refuses", text);
    return 0;
  }
  const std::string written = fuzz::expect_written_reads_back(document);
  if (load(written) != first) fuzz::broken("the config written again loads differently", first + "\n" + written);
  return 0;
}
