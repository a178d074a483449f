// URL rewrite rules: parsing "FROM=TO" and applying the first rule whose FROM starts the URL.
#include "aitk/net/url_rewrite.hpp"

#include <gtest/gtest.h>

namespace aitk::net {
namespace AITK_FILE_LOCAL {

TEST(UrlRewriteRule, SplitsAtTheFirstEquals) {
    auto rule = UrlRewriteRule::parse("https://files.example.org/=https://m.example/f?a=b");
    ASSERT_TRUE(rule);
    EXPECT_EQ(rule->from, "https://files.example.org/");
    EXPECT_EQ(rule->to, "https://m.example/f?a=b");
    EXPECT_EQ(rule->to_string(), "https://files.example.org/=https://m.example/f?a=b");
}

TEST(UrlRewriteRule, EmptyToIsAllowed) {
    auto rule = UrlRewriteRule::parse("https://proxy.example/fetch?=");
    ASSERT_TRUE(rule);
    EXPECT_EQ(rule->from, "https://proxy.example/fetch?");
    EXPECT_EQ(rule->to, "");
}

TEST(UrlRewriteRule, RejectsMissingEqualsAndEmptyFrom) {
    auto no_eq = UrlRewriteRule::parse("https://files.example.org/");
    ASSERT_FALSE(no_eq);
    EXPECT_EQ(no_eq.error().message, "a URL rewrite rule is FROM=TO (no '=' found)");
    EXPECT_EQ(no_eq.error().position, 26u);
    auto empty_from = UrlRewriteRule::parse("=https://mirror/");
    ASSERT_FALSE(empty_from);
    EXPECT_EQ(empty_from.error().message, "a URL rewrite rule needs a non-empty FROM before '='");
    EXPECT_EQ(empty_from.error().position, 0u);
    EXPECT_FALSE(UrlRewriteRule::parse(""));
}

TEST(UrlRewriteRules, FirstMatchingRuleWins) {
    auto rules = UrlRewriteRules::parse({"https://files.example.org/packages/=http://a/",
                                         "https://files.example.org/=http://b/",
                                         "https://files.example.org/packages/x=http://never/"});
    ASSERT_TRUE(rules);
    EXPECT_EQ(rules->apply("https://files.example.org/packages/x/y.whl"), "http://a/x/y.whl");
    EXPECT_EQ(rules->apply("https://files.example.org/other/z.whl"), "http://b/other/z.whl");
    EXPECT_EQ(rules->apply("https://download.example/whl/t.whl"),
              "https://download.example/whl/t.whl");
    EXPECT_EQ(rules->match("https://download.example/"), nullptr);
    EXPECT_EQ(rules->match("https://files.example.org/q")->to, "http://b/");
}

TEST(UrlRewriteRules, MatchIsAPlainPrefixCaseSensitive) {
    auto rules = UrlRewriteRules::parse({"https://Host/a=https://m/"});
    ASSERT_TRUE(rules);
    EXPECT_EQ(rules->apply("https://Host/abc"), "https://m/bc");
    EXPECT_EQ(rules->apply("https://host/abc"), "https://host/abc");
}

TEST(UrlRewriteRules, ParseReportsTheFirstBadRule) {
    auto rules = UrlRewriteRules::parse({"a=b", "nope", "=c"});
    ASSERT_FALSE(rules);
    EXPECT_EQ(rules.error().input, "nope");
    auto empty = UrlRewriteRules::parse({});
    ASSERT_TRUE(empty);
    EXPECT_TRUE(empty->empty());
}

TEST(UrlRewriteRules, ParseListSplitsOnWhitespaceAndPositionsPointIntoTheList) {
    auto rules = UrlRewriteRules::parse_list("  a=b\tc=d\n e=  ");
    ASSERT_TRUE(rules);
    ASSERT_EQ(rules->rules().size(), 3u);
    EXPECT_EQ(rules->rules()[1], (UrlRewriteRule{"c", "d"}));
    EXPECT_EQ(rules->rules()[2], (UrlRewriteRule{"e", ""}));
    auto bad = UrlRewriteRules::parse_list("a=b =x");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().input, "a=b =x");
    EXPECT_EQ(bad.error().position, 4u);
    EXPECT_TRUE(UrlRewriteRules::parse_list("   ")->empty());
}

TEST(UrlRewriteRules, AppendKeepsPriority) {
    UrlRewriteRules first(std::vector<UrlRewriteRule>{{"https://x/", "http://cli/"}});
    first.append(UrlRewriteRules(
        std::vector<UrlRewriteRule>{{"https://x/", "http://env/"}, {"https://y/", "http://env/"}}));
    EXPECT_EQ(first.apply("https://x/f"), "http://cli/f");
    EXPECT_EQ(first.apply("https://y/f"), "http://env/f");
    EXPECT_EQ(first.rules().size(), 3u);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::net
