// How hookbus shows text from outside (hookbus::printable, log.hpp) and keeps
// what it writes valid UTF-8 (lib/support/utf8.hpp).
#include <hookbus/log.hpp>

#include "support/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hookbus {
namespace {

TEST(Printable, PlainTextAndValidUtf8StayAsTheyAre) {
  EXPECT_EQ(printable("hook 'guard' on tool_call"), "hook 'guard' on tool_call");
  EXPECT_EQ(printable("caf\u00e9 \u65e5\u672c \U0001F600"), "caf\u00e9 \u65e5\u672c \U0001F600");
}

TEST(Printable, NewlinesTabsAndBackslashesCannotForgeALine) {
  EXPECT_EQ(printable("oops\n[hookbus] [info] all good\r\t\\"), "oops\\n[hookbus] [info] all good\\r\\t\\\\");
}

TEST(Printable, EscapeSequencesAndOtherControlCharactersAreShownAsHex) {
  EXPECT_EQ(printable("\x1b[2J\x07\x7f"), "\\x1b[2J\\x07\\x7f");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
}

TEST(Printable, C1ControlsAreShownAsCodePoints) {
  EXPECT_EQ(printable("\u009b2J"), "\\u009b2J");  // the 8-bit CSI
}

TEST(Printable, BidirectionalOverridesAndLineSeparatorsAreShownAsCodePoints) {
  EXPECT_EQ(printable("safe\u202eexe.txt"), "safe\\u202eexe.txt");
  EXPECT_EQ(printable("a\u2028b\u2066c"), "a\\u2028b\\u2066c");
}

TEST(Printable, BytesThatAreNotUtf8AreShownAsHex) {
  EXPECT_EQ(printable("reason \xff\xfe here"), "reason \\xff\\xfe here");
  EXPECT_EQ(printable("\xc3"), "\\xc3");            // a sequence cut short
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");   // an overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
}

TEST(Utf8, WellFormedSequencesAreRecognisedWithTheirLength) {
  const std::string text = "a\u00e9\u20ac\U0010FFFF";
  EXPECT_EQ(detail::utf8_sequence_length(text, 0), 1u);
  EXPECT_EQ(detail::utf8_sequence_length(text, 1), 2u);
  EXPECT_EQ(detail::utf8_sequence_length(text, 3), 3u);
  EXPECT_EQ(detail::utf8_sequence_length(text, 6), 4u);
  EXPECT_EQ(detail::utf8_code_point(text, 6, 4), U'\U0010FFFF');
}

TEST(Utf8, IllFormedSequencesAreRejected) {
  for (const std::string bad : {"\x80", "\xc1\xbf", "\xe0\x9f\xbf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80",
                                "\xe2\x82", "\xf0\x9f\x98"})
    EXPECT_EQ(detail::utf8_sequence_length(bad, 0), 0u) << printable(bad);
}

TEST(Utf8, ValidUtf8ReplacesEachMaximalIllFormedSubpartWithTheReplacementCharacter) {
  EXPECT_EQ(detail::valid_utf8("ok \xff\xfe \u00e9"), "ok \uFFFD\uFFFD \u00e9");
  EXPECT_EQ(detail::valid_utf8("cut \xe2\x82"), "cut \uFFFD");  // as Python's errors="replace"
  EXPECT_EQ(detail::valid_utf8("all fine"), "all fine");
}

TEST(Utf8, EncodedCodePointsTakeOneToFourBytesAndWhatIsNoScalarValueIsTheReplacementCharacter) {
  EXPECT_EQ(detail::utf8_encoded(U'A'), "A");
  EXPECT_EQ(detail::utf8_encoded(U'\u00e9'), "\u00e9");
  EXPECT_EQ(detail::utf8_encoded(U'\u20ac'), "\u20ac");
  EXPECT_EQ(detail::utf8_encoded(U'\U0010FFFF'), "\U0010FFFF");
  EXPECT_EQ(detail::utf8_encoded(0xD800), "\uFFFD");  // a surrogate
  EXPECT_EQ(detail::utf8_encoded(0x110000), "\uFFFD");
}

}  // namespace
}  // namespace hookbus
