// The config reader: the input is a config file (.hookbus/config.json), read
// by load_config and its built-ins' settings checked by install_builtins. The
// document written again by write_json must read back equal and load the same.
#include "oracle.hpp"

#include <hookbus/builtins.hpp>
#include <hookbus/config.hpp>
#include <hookbus/hooks.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
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

// What loading `text` as the project's config gives: "" when it loads (and
// its built-ins install), else the error message.
std::string load(std::string_view text) {
  std::ofstream(config_file(), std::ios::binary | std::ios::trunc) << text;
  try {
    const Config config = load_config(config_file(), Layer::project);
    // The audit built-in would append to any file the input names: not here.
    const bool writes_files = std::any_of(config.builtins.begin(), config.builtins.end(),
                                          [](const auto& builtin) { return builtin.name == "audit"; });
    if (!writes_files) {
      Hooks hooks;
      const ConnectionGroup installed = install_builtins(hooks, config);
    }
    return "";
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
    if (first.empty()) fuzz::broken("load_config took text parse_json refuses", text);
    return 0;
  }
  const std::string written = fuzz::expect_written_reads_back(document);
  if (load(written) != first) fuzz::broken("the config written again loads differently", first + "\n" + written);
  return 0;
}
