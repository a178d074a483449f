// The forgiving HTML scan and character references.
#include <gtest/gtest.h>

#include "aitk/index/html.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk::index;

namespace {

TEST(HtmlEntities, DecodesNamedNumericAndLegacyReferences) {
    EXPECT_EQ(decode_html_entities("&gt;=3.9,&lt;4"), ">=3.9,<4");
    EXPECT_EQ(decode_html_entities("&#62;=3.9&#x2C;&#X3c;4"), ">=3.9,<4");
    EXPECT_EQ(decode_html_entities("a &amp; b &quot;c&quot; &apos;d&#39;"), "a & b \"c\" 'd'");
    EXPECT_EQ(decode_html_entities("&LT;&GT;&AMP;&QUOT;"), "<>&\"");
    EXPECT_EQ(decode_html_entities("&gt=3.9"), "&gt=3.9");  // '=' follows: left alone
    EXPECT_EQ(decode_html_entities("&gt 3"), "> 3");        // legacy without ';'
    EXPECT_EQ(decode_html_entities("&ltx"), "&ltx");
    EXPECT_EQ(decode_html_entities("&nbsp;"), "\xC2\xA0");
    EXPECT_EQ(decode_html_entities("&#x1F525;"), "\xF0\x9F\x94\xA5");
}

TEST(HtmlEntities, BrokenReferencesStayOrBecomeReplacementCharacters) {
    EXPECT_EQ(decode_html_entities("&unknown;"), "&unknown;");
    EXPECT_EQ(decode_html_entities("&"), "&");
    EXPECT_EQ(decode_html_entities("&&;"), "&&;");
    EXPECT_EQ(decode_html_entities("&#;"), "&#;");
    EXPECT_EQ(decode_html_entities("&#x;"), "&#x;");
    EXPECT_EQ(decode_html_entities("&#0;"), "\xEF\xBF\xBD");
    EXPECT_EQ(decode_html_entities("&#xD800;"), "\xEF\xBF\xBD");
    EXPECT_EQ(decode_html_entities("&#99999999999999999999999;"), "\xEF\xBF\xBD");
    EXPECT_EQ(decode_html_entities("&#60"), "<");
    EXPECT_EQ(decode_html_entities(std::string(100, '&') + "lt;"), std::string(99, '&') + "<");
}

TEST(HtmlScan, FindsAnchorsInAnyCaseAndQuoting) {
    const std::string html =
        "<!DOCTYPE html><HTML><BODY>\n"
        "<A HREF=\"one.whl\">1</A>\n"
        "<a href='two.whl' data-yanked>2</a>\n"
        "<a href=three.whl data-requires-python=&gt;=3.8>3</a>\n"
        "<a\nhref = \"four.whl\"\n/>\n"
        "</BODY></HTML>";
    const auto tags = scan_start_tags(html, {"a"});
    ASSERT_EQ(tags.size(), 4u);
    EXPECT_EQ(tags[0].attribute("href")->value, "one.whl");
    EXPECT_EQ(tags[1].attribute("href")->value, "two.whl");
    ASSERT_NE(tags[1].attribute("data-yanked"), nullptr);
    EXPECT_EQ(tags[1].attribute("data-yanked")->value, "");
    EXPECT_EQ(tags[2].attribute("href")->value, "three.whl");
    EXPECT_EQ(tags[2].attribute("data-requires-python")->value, ">=3.8");
    EXPECT_EQ(tags[3].attribute("href")->value, "four.whl");
    EXPECT_EQ(tags[0].offset, html.find("<A HREF"));
}

TEST(HtmlScan, SkipsCommentsScriptsAndOtherTags) {
    const std::string html =
        "<!-- <a href=\"commented.whl\"> -->"
        "<!--><a href=\"after-empty-comment.whl\">"
        "<script>var s = '<a href=\"script.whl\">';</script>"
        "<STYLE>a { x: '<a href=x.whl>' }</style>"
        "<title><a href=\"title.whl\"></title>"
        "<p class=\"<a href=bad>\">text < 3 and 4 > 2</p>"
        "<a href=\"real.whl\">";
    const auto tags = scan_start_tags(html, {"a"});
    ASSERT_EQ(tags.size(), 2u);
    EXPECT_EQ(tags[0].attribute("href")->value, "after-empty-comment.whl");
    EXPECT_EQ(tags[1].attribute("href")->value, "real.whl");
}

TEST(HtmlScan, DuplicateAttributesKeepTheFirst) {
    const auto tags = scan_start_tags("<a href=\"a.whl\" HREF=\"b.whl\">", {"a"});
    ASSERT_EQ(tags.size(), 1u);
    EXPECT_EQ(tags[0].attribute("href")->value, "a.whl");
    EXPECT_EQ(tags[0].attributes.size(), 2u);
}

TEST(HtmlScan, TruncatedMarkupDropsOnlyTheBrokenTag) {
    EXPECT_EQ(scan_start_tags("<a href=\"x.whl\">x</a><a href=\"y.whl", {"a"}).size(), 1u);
    EXPECT_EQ(scan_start_tags("<a href=\"x.whl\">x</a><a href=y.whl", {"a"}).size(), 1u);
    EXPECT_EQ(scan_start_tags("<!-- never closed <a href=x.whl>", {"a"}).size(), 0u);
    EXPECT_EQ(scan_start_tags("<", {"a"}).size(), 0u);
    EXPECT_EQ(scan_start_tags("<a", {"a"}).size(), 0u);
    EXPECT_EQ(scan_start_tags("<script><a href=x>", {"a"}).size(), 0u);
    EXPECT_EQ(scan_start_tags("", {"a"}).size(), 0u);
}

TEST(HtmlScan, ManyTagsAreLinear) {
    std::string html;
    for (int i = 0; i < 100'000; ++i)
        html += "<a href=\"f" + std::to_string(i) + ".whl\">x</a>\n";
    EXPECT_EQ(scan_start_tags(html, {"a"}).size(), 100'000u);
    // Unclosed quotes and lone '<' everywhere: still one pass.
    EXPECT_TRUE(scan_start_tags(std::string(1'000'000, '<'), {"a"}).empty());
    EXPECT_TRUE(scan_start_tags("<a x='" + std::string(1'000'000, 'y'), {"a"}).empty());
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
