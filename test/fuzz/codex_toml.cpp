// Codex's [hooks] tables (formats/codex/codex_toml.hpp): the input is a
// config.toml. Only ConfigError is thrown, its message valid UTF-8; the hooks
// and the state read are JSON that write_json writes and reads back equal.
#include "oracle.hpp"

#include "formats/codex/codex_toml.hpp"

#include <hookbus/config.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hookbus;
  detail::CodexTomlHooks read;
  try {
    read = detail::parse_codex_toml_hooks(fuzz::text_of(data, size), "config.toml");
  } catch (const ConfigError& error) {
    fuzz::expect_valid_utf8(error.what(), "a config.toml error");
    return 0;
  }
  fuzz::expect_written_reads_back(read.hooks);
  fuzz::expect_written_reads_back(read.state);
  return 0;
}
