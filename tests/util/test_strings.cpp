#include "aitk/util/strings.hpp"

#include <gtest/gtest.h>

#include "aitk/util/error.hpp"
#include "aitk/util/expected.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk::util;

TEST(Strings, TrimUsesPythonWhitespace) {
    EXPECT_EQ(trim(" \t\r\n\f\vx y\v "), "x y");
    EXPECT_EQ(trim(""), "");
    EXPECT_EQ(trim("   "), "");
    EXPECT_EQ(trim("\u202f1.0\t\u2029\n "), "1.0");
    EXPECT_EQ(trim("\xc2\xa0x\xe3\x80\x80"), "x");  // U+00A0 and U+3000
    EXPECT_EQ(trim("\x1fx"), "x");
    EXPECT_EQ(trim("\xe2\x82\xacx"), "\xe2\x82\xacx");  // U+20AC is not a space
}

TEST(Strings, CaseHelpersAreAsciiOnly) {
    EXPECT_EQ(to_lower("TorCH-É"), "torch-É");
    EXPECT_TRUE(iequals("Torch", "tORCH"));
    EXPECT_FALSE(iequals("torch", "torc"));
    EXPECT_TRUE(istarts_with("Manylinux_2_17", "manylinux"));
}

TEST(Strings, SplitKeepsEmptyParts) {
    auto parts = split("a,,b,", ',');
    ASSERT_EQ(parts.size(), 4u);
    EXPECT_EQ(parts[1], "");
    EXPECT_EQ(parts[2], "b");
    EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
}

TEST(Strings, HtmlEscapeCoversContentAndQuotedAttributes) {
    EXPECT_EQ(html_escape("a<b>&\"c'd"), "a&lt;b&gt;&amp;&quot;c&#39;d");
    EXPECT_EQ(html_escape("torch-2.4.1+cu124.whl"), "torch-2.4.1+cu124.whl");
    EXPECT_EQ(html_escape(""), "");
}

TEST(Expected, HoldsValueOrError) {
    Expected<int, ParseError> ok = 3;
    ASSERT_TRUE(ok);
    EXPECT_EQ(*ok, 3);
    Expected<int, ParseError> bad = Unexpected(ParseError{"bad thing", "x=y", 1});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().describe(), "bad thing (at column 2 of 'x=y')");
    EXPECT_EQ(bad.value_or(7), 7);
}

TEST(Strings, QuotedFormsEncloseTheTextAsItIs) {
    EXPECT_EQ(aitk::util::single_quoted("torch==2.7"), "'torch==2.7'");
    EXPECT_EQ(aitk::util::double_quoted("cu128"), "\"cu128\"");
    EXPECT_EQ(aitk::util::backquoted("requires-python"), "`requires-python`");
    EXPECT_EQ(aitk::util::single_quoted(""), "''");
    EXPECT_EQ(aitk::util::backquoted("a`b"),
              "`a`b`");  // no escaping: messages show the text as given
}

}  // namespace AITK_FILE_LOCAL
