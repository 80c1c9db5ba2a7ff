// The lines a Claude Code hook writes to CLAUDE_ENV_FILE
// (formats/claude_code/env_file.hpp): the input is the file. Nothing is
// thrown; each warning names a line of the file, in valid UTF-8; each
// variable comes once, with a name and a value a variable can have; and the
// variables written back as `export NAME='value'` lines read back the same,
// without a warning.
#include "oracle.hpp"

#include "formats/claude_code/env_file.hpp"
#include "support/shell_lexer.hpp"
#include "support/text.hpp"

#include <algorithm>
#include <set>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hookbus;
  static const std::map<std::string, std::string> environment{{"PATH", "/usr/bin:/bin"}, {"HOME", "/home/dev"}};
  const std::string_view text = fuzz::text_of(data, size);
  const detail::EnvFile file = detail::parse_env_file(text, environment);
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  for (const auto& warning : file.warnings) {
    fuzz::expect_valid_utf8(warning.message, "a warning");
    if (warning.line < 1 || warning.line > lines) fuzz::broken("a warning names no line of the file", warning.message);
  }
  std::set<std::string> names;
  std::string written;
  for (const auto& [name, value] : file.variables) {
    if (!detail::shell::is_name(name) || !names.insert(name).second) fuzz::broken("a name twice or no name", name);
    if (value.find('\0') != std::string::npos) fuzz::broken("a value with a NUL byte", name);
    written += "export " + name + "=" + detail::shell_quoted(value) + "\n";
  }
  const detail::EnvFile again = detail::parse_env_file(written, environment);
  if (!again.warnings.empty() || again.variables != file.variables)
    fuzz::broken("the variables written back read differently", written);
  return 0;
}
