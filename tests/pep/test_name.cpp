#include "aitk/pep/name.hpp"

#include <gtest/gtest.h>

#include "test_data.hpp"

namespace AITK_FILE_LOCAL {

using aitk::pep::canonicalize_name;
using aitk::pep::is_normalized_name;
using aitk::pep::is_valid_name;

TEST(NameConformance, AllCases) {
    auto cases = aitk::test::conformance("names");
    ASSERT_FALSE(cases.empty());
    std::size_t checked = 0;
    for (const auto& c : cases) {
        std::string name = c["name"];
        SCOPED_TRACE(name);
        EXPECT_EQ(canonicalize_name(name), c["canonical"].get<std::string>());
        EXPECT_EQ(is_valid_name(name), c["valid"].get<bool>());
        EXPECT_EQ(is_normalized_name(name), c["is_normalized"].get<bool>());
        ++checked;
    }
    EXPECT_EQ(checked, cases.size());
}

TEST(Name, CanonicalizeCollapsesSeparatorRunsAndLowerCases) {
    EXPECT_EQ(canonicalize_name("Foo.Bar"), "foo-bar");
    EXPECT_EQ(canonicalize_name("foo----bar"), "foo-bar");
    EXPECT_EQ(canonicalize_name("A-_.-B"), "a-b");
    EXPECT_EQ(canonicalize_name("._-"), "-");
    EXPECT_EQ(canonicalize_name("trailing._"), "trailing-");
    EXPECT_EQ(canonicalize_name(""), "");
    EXPECT_EQ(canonicalize_name("NVIDIA_CUDNN_CU12"), "nvidia-cudnn-cu12");
}

TEST(Name, CanonicalizeLowerCasesLatin1Letters) {
    EXPECT_EQ(canonicalize_name("Foo_B\xC3\x81R"), "foo-b\xC3\xA1r");  // BÁR -> bár
    // U+00D7 (multiplication sign) has no lower case.
    EXPECT_EQ(canonicalize_name("a\xC3\x97"
                                "b"),
              "a\xC3\x97"
              "b");
    // A truncated sequence is copied as it is.
    EXPECT_EQ(canonicalize_name("A\xC3"), "a\xC3");
}

TEST(Name, CanonicalFormIsNormalizedAndIdempotent) {
    for (const char* raw : {"Django", "ruamel.yaml.clib", "a_-.b", "Foo.....Bar", "torch", "x"}) {
        SCOPED_TRACE(raw);
        std::string canonical = canonicalize_name(raw);
        EXPECT_EQ(canonicalize_name(canonical), canonical);
        EXPECT_TRUE(is_normalized_name(canonical));
    }
}

TEST(Name, ValidityFollowsPep508) {
    EXPECT_TRUE(is_valid_name("a"));
    EXPECT_TRUE(is_valid_name("Z9"));
    EXPECT_TRUE(is_valid_name("a.b_c-d"));
    EXPECT_FALSE(is_valid_name("hi\n"));
    EXPECT_FALSE(is_valid_name("\rhi"));
    EXPECT_FALSE(is_valid_name(".a"));
    EXPECT_FALSE(is_valid_name("a_"));
    EXPECT_FALSE(is_valid_name("caf\xC3\xA9"));
    EXPECT_FALSE(is_valid_name("a/b"));
}

TEST(Name, NormalizedMeansCanonicalAndValid) {
    EXPECT_TRUE(is_normalized_name("foo-bar"));
    EXPECT_TRUE(is_normalized_name("1-1"));
    EXPECT_FALSE(is_normalized_name("foo--bar"));
    EXPECT_FALSE(is_normalized_name("a--b"));
    EXPECT_FALSE(is_normalized_name("foo_bar"));
    EXPECT_FALSE(is_normalized_name("foo.bar"));
    EXPECT_FALSE(is_normalized_name("Foo"));
    EXPECT_FALSE(is_normalized_name("-foo"));
    EXPECT_FALSE(is_normalized_name("foo-"));
    EXPECT_FALSE(is_normalized_name("foo\n"));
    EXPECT_FALSE(is_normalized_name(""));
}

}  // namespace AITK_FILE_LOCAL
