// The config reader: the input is a config file, read by load_config as the
// file of each layer (each may set other keys), and its built-ins' settings
// checked by install_builtins. The document written again by write_json must
// read back equal and load the same Config in every layer (Config's
// operator==, which compares every member, new ones too), or fail with the
// same error.
#include "oracle.hpp"
#include "scratch_directory.hpp"

#include <hookbus/builtins.hpp>
#include <hookbus/config.hpp>
#include <hookbus/hooks.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <variant>

namespace {

using namespace hookbus;

constexpr std::array kLayers = {Layer::managed, Layer::user, Layer::project, Layer::local};

// The config as loaded (with its built-ins installed), or the error message.
using Loaded = std::variant<Config, std::string>;

Loaded load(std::string_view text, Layer layer) {
  static const fuzz::ScratchDirectory scratch;
  try {
    Config config = load_config(scratch.write(".hookbus/config.json", text), layer);
    // The audit built-in and the tracer would write any file the input names: not here.
    const bool writes_files = config.trace || std::any_of(config.builtins.begin(), config.builtins.end(),
                                                          [](const auto& builtin) { return builtin.name == "audit"; });
    if (!writes_files) {
      Hooks hooks;
      const ConnectionGroup installed = install_builtins(hooks, config);
    }
    config.sha256.clear();  // of the bytes read: the input's and the written document's differ
    return config;
  } catch (const ConfigError& error) {
    fuzz::expect_valid_utf8(error.what(), "a config error");
    return error.what();
  }
}

std::string shown(const Loaded& loaded) {
  return std::holds_alternative<Config>(loaded) ? "loaded" : "error: " + std::get<std::string>(loaded);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  std::array<Loaded, kLayers.size()> first;
  for (std::size_t i = 0; i < kLayers.size(); ++i) first[i] = load(text, kLayers[i]);
  boost::json::value document;
  try {
    document = parse_json(text, "fuzz");
  } catch (const JsonError&) {
    if (std::any_of(first.begin(), first.end(), [](const Loaded& l) { return std::holds_alternative<Config>(l); }))
      fuzz::broken("load_config took text parse_json refuses", text);
    return 0;
  }
  const std::string written = fuzz::expect_written_reads_back(document);
  for (std::size_t i = 0; i < kLayers.size(); ++i)
    if (const Loaded again = load(written, kLayers[i]); again != first[i])
      fuzz::broken("the config written again loads differently in layer " + std::to_string(i),
                   shown(first[i]) + "\n" + shown(again) + "\n" + written);
  return 0;
}
