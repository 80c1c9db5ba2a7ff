// A shell command's words as sh and bash read them (lib/support/shell_lexer.hpp):
// what the readers of commands (the trust resolver, Claude Code's permission
// rules and env files) see. The resolver's own tests cover the words in use.
#include "support/shell_lexer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hookbus::detail::shell {
namespace {

std::vector<Token> read(std::string_view text, Dialect dialect = Dialect::sh) {
  bool truncated = false;
  auto found = tokens(text, truncated, dialect);
  EXPECT_FALSE(truncated);
  return found;
}

// The one word of `text`, as bash reads it: its text when every part is text.
std::string bash_word(std::string_view text) {
  const auto found = read(text, Dialect::bash);
  EXPECT_EQ(found.size(), 1u) << text;
  std::string value;
  for (const auto& part : found.at(0).word.parts) {
    EXPECT_EQ(part.kind, Part::Kind::text) << text << ": " << part.source << " " << part.why;
    value += part.text;
  }
  return value;
}

TEST(ShellLexer, TokensKnowWhereTheyStartInTheText) {
  const auto found = read("a=1 cmd 'x y'\n2>err && b");
  std::vector<std::size_t> offsets;
  for (const auto& token : found) offsets.push_back(token.offset);
  EXPECT_EQ(offsets, (std::vector<std::size_t>{0, 4, 8, 13, 15, 16, 20, 23}));
  EXPECT_EQ(found[4].op, ">");
  EXPECT_EQ(found[4].fd, 2);
}

TEST(ShellLexer, BashReadsDollarQuotesWithTheirCEscapes) {
  EXPECT_EQ(bash_word(R"($'a\nb\tc')"), "a\nb\tc");
  EXPECT_EQ(bash_word(R"($'\x41\101\u00e9\U0001F600')"), "AA\u00e9\U0001F600");
  EXPECT_EQ(bash_word(R"($'\e[0m\a\\\'\"\?')"), "\x1b[0m\a\\'\"?");
  EXPECT_EQ(bash_word(R"($'\cA')"), "\x01");
  EXPECT_EQ(bash_word(R"(x$'y'"z")"), "xyz");
  EXPECT_EQ(bash_word(R"($'')"), "");
}

TEST(ShellLexer, BashKeepsAnEscapeItDoesNotKnowAsWritten) {
  EXPECT_EQ(bash_word(R"($'\q\x')"), R"(\q\x)");
}

TEST(ShellLexer, ANulEndsTheStringADollarQuoteMakes) {
  EXPECT_EQ(bash_word(R"($'ab\0cd'ef)"), "abef");
  EXPECT_EQ(bash_word(R"($'ab\x00cd')"), "ab");
}

TEST(ShellLexer, InDoubleQuotesBashReadsDollarQuoteAsItIs) {
  EXPECT_EQ(bash_word(R"("$'x'")"), "$'x'");
}

TEST(ShellLexer, AnUnterminatedDollarQuoteIsUnknown) {
  const auto found = read("$'abc", Dialect::bash);
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].word.parts.size(), 1u);
  EXPECT_EQ(found[0].word.parts[0].kind, Part::Kind::unknown);
  EXPECT_EQ(found[0].word.parts[0].why, "an unterminated $', which bash refuses");
}

TEST(ShellLexer, ShReadsDollarQuotesAsUnknownForDashAndBashDiffer) {
  const auto found = read("$'a\\nb'");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].word.parts.at(0).kind, Part::Kind::unknown);
}

// A word of 300 000 `$$` would be 150 000 parts: the parts count against the
// limit with the tokens, and the word the limit cuts short is left out.
TEST(ShellLexer, PartsOfWordsCountAgainstTheLimitAndAWordCutShortIsLeftOut) {
  for (const std::string quote : {"", "\""}) {
    const std::string text = "echo " + quote + std::string(300'000, '$') + quote + " next";
    bool truncated = false;
    const auto found = tokens(text, truncated);
    EXPECT_TRUE(truncated) << quote;
    ASSERT_EQ(found.size(), 1u) << quote;
    EXPECT_TRUE(found[0].word.is("echo"));
  }
}

TEST(ShellLexer, TextUpToTheLimitIsReadWhole) {
  std::string text;
  for (std::size_t i = 0; i < kMaxTokens / 2 - 1; ++i) text += "$a ";
  const auto found = read(text);
  ASSERT_EQ(found.size(), kMaxTokens / 2 - 1);
  EXPECT_EQ(found.back().word.parts.at(0).kind, Part::Kind::variable);
}

}  // namespace
}  // namespace hookbus::detail::shell
