#pragma once
// Internal: a shell command's words and operators, split as sh's lexer splits
// them: quotes and backslashes, `$NAME`, `${...}`, `$(...)` and backticks,
// comments, here-documents (their bodies are skipped: text, not commands).
// Read by what must know what a command runs or sets without running it: the
// trust resolver (trust/shell_command.hpp), and Claude Code's Bash permission
// rules and CLAUDE_ENV_FILE lines (formats/claude_code/).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus::detail::shell {

// A piece of a word as written.
struct Part {
  enum class Kind {
    text,          // characters
    variable,      // $NAME, ${NAME}, $1, $@, ${NAME:-word}
    substitution,  // $(...) or `...`: the command it runs; its output is known only when it runs
    unknown,       // what is never known before the command runs, with why
  };
  Kind kind = Kind::text;
  std::string text{};         // the characters, the variable's name, the command substituted
  bool quoted = false;        // text and variables: quoted or escaped (no field splitting, no glob)
  bool with_default = false;  // ${NAME:-word}: NAME's value when it is known and not empty
  std::string source{};       // as written
  std::string why{};          // unknown: why
};

struct Word {
  std::vector<Part> parts{};
  std::string source{};  // as written

  // An unquoted word that is exactly `text`: a reserved word (`if`, `{`), a builtin's option.
  [[nodiscard]] bool is(std::string_view text) const {
    return parts.size() == 1 && parts[0].kind == Part::Kind::text && !parts[0].quoted && parts[0].text == text;
  }
};

struct Token {
  enum class Kind { word, op, newline };
  Kind kind = Kind::word;
  std::string op{};  // an operator: "&&", "<", "("
  Word word{};
  int fd = -1;              // a redirection's file descriptor, when written (`2>`)
  std::size_t offset = 0;   // where it starts in the text
};

bool is_name_start(char c);
bool is_name_char(char c);
// A variable's name: a letter or `_`, then letters, digits and `_`.
bool is_name(std::string_view text);

// What reads the text. /bin/sh (dash) reads `$'...'` as a `$` and a quoted
// string; bash reads it as one string with C escapes (`\n`, `\x41`, `\101`),
// which is how bash's `export -p` writes a value holding control characters.
enum class Dialect { sh, bash };

// At most this many tokens and parts of words, all told, are read from one
// text.
inline constexpr std::size_t kMaxTokens = 100'000;

// Every token of `text`, up to kMaxTokens tokens and parts; `truncated` tells
// when there were more (a word cut short by the limit is left out). What cannot be read (an unterminated quote) becomes an unknown part,
// for the reader to report where it is used.
std::vector<Token> tokens(std::string_view text, bool& truncated, Dialect dialect = Dialect::sh);

}  // namespace hookbus::detail::shell
