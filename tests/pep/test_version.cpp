#include "aitk/pep/version.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_set>

#include "test_data.hpp"

namespace AITK_FILE_LOCAL {

using aitk::pep::canonicalize_version;
using aitk::pep::PreKind;
using aitk::pep::Version;

namespace {

Version v(std::string_view s) {
    auto parsed = Version::parse(s);
    if (!parsed) throw std::runtime_error("test version does not parse: " + std::string(s));
    return *parsed;
}

std::string pre_letter(PreKind k) {
    return std::string(aitk::pep::pre_kind_string(k));
}

}  // namespace

TEST(VersionConformance, ValidVersionsParseAndNormalise) {
    auto cases = aitk::test::conformance("versions_valid");
    ASSERT_GT(cases.size(), 700u);
    for (const auto& c : cases) {
        std::string input = c["input"];
        SCOPED_TRACE(input);
        auto parsed = Version::parse(input);
        ASSERT_TRUE(parsed) << parsed.error().describe();
        const Version& ver = *parsed;
        EXPECT_EQ(ver.to_string(), c["normalized"].get<std::string>());
        EXPECT_EQ(ver.public_string(), c["public"].get<std::string>());
        EXPECT_EQ(ver.base_version(), c["base_version"].get<std::string>());
        EXPECT_EQ(ver.epoch(), c["epoch"].get<std::uint64_t>());
        std::vector<std::uint64_t> release(ver.release().begin(), ver.release().end());
        EXPECT_EQ(release, c["release"].get<std::vector<std::uint64_t>>());
        if (c["pre"].is_null()) {
            EXPECT_FALSE(ver.pre());
        } else {
            ASSERT_TRUE(ver.pre());
            EXPECT_EQ(pre_letter(ver.pre()->kind), c["pre"][0].get<std::string>());
            EXPECT_EQ(ver.pre()->number, c["pre"][1].get<std::uint64_t>());
        }
        if (c["post"].is_null()) {
            EXPECT_FALSE(ver.post());
        } else {
            EXPECT_EQ(ver.post(), c["post"].get<std::uint64_t>());
        }
        if (c["dev"].is_null()) {
            EXPECT_FALSE(ver.dev());
        } else {
            EXPECT_EQ(ver.dev(), c["dev"].get<std::uint64_t>());
        }
        EXPECT_EQ(ver.local(), c["local"].is_null() ? "" : c["local"].get<std::string>());
        EXPECT_EQ(ver.is_prerelease(), c["is_prerelease"].get<bool>());
        EXPECT_EQ(ver.is_postrelease(), c["is_postrelease"].get<bool>());
        EXPECT_EQ(ver.is_devrelease(), c["is_devrelease"].get<bool>());
        EXPECT_EQ(ver.major(), c["major"].get<std::uint64_t>());
        EXPECT_EQ(ver.minor(), c["minor"].get<std::uint64_t>());
        EXPECT_EQ(ver.micro(), c["micro"].get<std::uint64_t>());
        // Round trip: the normalised form parses to an equal version with the same string.
        auto again = Version::parse(ver.to_string());
        ASSERT_TRUE(again);
        EXPECT_EQ(*again, ver);
        EXPECT_EQ(again->to_string(), ver.to_string());
    }
}

TEST(VersionConformance, InvalidVersionsAreRejected) {
    for (const auto& c : aitk::test::conformance("versions_invalid")) {
        std::string input = c;
        auto parsed = Version::parse(input);
        EXPECT_FALSE(parsed) << "accepted: '" << input << "' as " << parsed->to_string();
        if (!parsed) {
            EXPECT_NE(parsed.error().message.find("invalid version"), std::string::npos);
        }
    }
}

TEST(VersionConformance, OrderingIsStrictAndTotal) {
    auto data = aitk::test::conformance("versions_order");
    std::vector<Version> ordered;
    for (const auto& s : data["ordered"])
        ordered.push_back(v(s.get<std::string>()));
    ASSERT_GT(ordered.size(), 90u);
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        for (std::size_t j = 0; j < ordered.size(); ++j) {
            SCOPED_TRACE(ordered[i].to_string() + " vs " + ordered[j].to_string());
            EXPECT_EQ(ordered[i] <=> ordered[j], i <=> j);
        }
    }
    for (const auto& pair : data["equal"]) {
        Version a = v(pair[0].get<std::string>());
        Version b = v(pair[1].get<std::string>());
        SCOPED_TRACE(a.to_string() + " == " + b.to_string());
        EXPECT_EQ(a, b);
        EXPECT_EQ(a.hash(), b.hash());
    }
}

TEST(VersionConformance, CanonicalizeVersion) {
    for (const auto& c : aitk::test::conformance("canonicalize_version")) {
        std::string input = c["version"];
        SCOPED_TRACE(input);
        EXPECT_EQ(canonicalize_version(input, c["strip_trailing_zero"].get<bool>()),
                  c["canonical"].get<std::string>());
    }
}

TEST(Version, ErrorsNameTheColumn) {
    auto parsed = Version::parse("1.0+foo&bar");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().position, 7u);
    EXPECT_NE(parsed.error().describe().find("unexpected character '&'"), std::string::npos);
    EXPECT_NE(parsed.error().describe().find("column 8"), std::string::npos);

    auto empty = Version::parse("   ");
    ASSERT_FALSE(empty);
    EXPECT_NE(empty.error().message.find("empty"), std::string::npos);

    auto huge = Version::parse("1.99999999999999999999999");
    ASSERT_FALSE(huge);
    EXPECT_NE(huge.error().message.find("too large"), std::string::npos);
}

TEST(Version, SeparatorAfterAKeywordNeedsNoNumber) {
    // packaging 24 accepts these: the separator after a/b/c/rc/post/dev may stand alone.
    EXPECT_EQ(v("1.0a.").to_string(), "1.0a0");
    EXPECT_EQ(v("1.0.rc.").to_string(), "1.0rc0");
    EXPECT_EQ(v("1.0.post.").to_string(), "1.0.post0");
    EXPECT_EQ(v("1.0.dev.").to_string(), "1.0.dev0");
    EXPECT_EQ(v("3dev.").to_string(), "3.dev0");
    EXPECT_EQ(v("1.0a.post1").to_string(), "1.0a0.post1");
    EXPECT_EQ(v("1.0a.-1").to_string(), "1.0a0.post1");
    EXPECT_FALSE(Version::parse("1.0a.."));
    EXPECT_FALSE(Version::parse("1.0.post.+"));
}

TEST(Version, LongReleasesAndLocalLabelsSurviveCopies) {
    // More than four release numbers live on the heap; copies must be deep and equal.
    Version a = v("1.2.3.4.5.6.7+Local.9");
    Version b = a;
    Version c;
    c = b;
    EXPECT_EQ(c.to_string(), "1.2.3.4.5.6.7+local.9");
    EXPECT_EQ(c, a);
    EXPECT_EQ(c.release().size(), 7u);
    Version moved = std::move(b);
    EXPECT_EQ(moved.to_string(), "1.2.3.4.5.6.7+local.9");
    EXPECT_LT(v("1.2.3.4.5.6"), a);
    EXPECT_EQ(v("1.2.3.4.5.0.0"), v("1.2.3.4.5"));
    EXPECT_EQ(a.public_version().to_string(), "1.2.3.4.5.6.7");
    EXPECT_EQ(a.base().to_string(), "1.2.3.4.5.6.7");
    EXPECT_EQ(Version().to_string(), "0");
}

TEST(Version, TorchLocalVersionsOrder) {
    // The torch family's backend builds differ only in their local label.
    EXPECT_LT(v("2.7.0+cpu"), v("2.7.0+cu128"));
    EXPECT_LT(v("2.7.0"), v("2.7.0+cu118"));
    EXPECT_LT(v("2.7.0+cu118"), v("2.7.1"));
    EXPECT_EQ(v("2.7.0+cu128").public_version(), v("2.7.0"));
    EXPECT_EQ(v("2.7.0+CU128").local(), "cu128");
    // Numeric local segments sort after alphanumeric ones, and numerically.
    EXPECT_LT(v("1.0+abc"), v("1.0+1"));
    EXPECT_LT(v("1.0+2"), v("1.0+10"));
    EXPECT_LT(v("1.0+ubuntu"), v("1.0+ubuntu.1"));
}

TEST(Version, SortsAndHashesConsistently) {
    std::vector<Version> vs{v("1.0.post1"), v("1.0"),   v("1.0rc1"), v("1.0.dev0"),
                            v("1.0a1"),     v("1!0.1"), v("1.0.0")};
    std::sort(vs.begin(), vs.end());
    std::vector<std::string> out;
    for (const auto& x : vs)
        out.push_back(x.to_string());
    EXPECT_EQ(out, (std::vector<std::string>{"1.0.dev0", "1.0a1", "1.0rc1", "1.0", "1.0.0",
                                             "1.0.post1", "1!0.1"}));
    std::unordered_set<Version, aitk::pep::VersionHash> set(vs.begin(), vs.end());
    EXPECT_EQ(set.size(), 6u);  // 1.0 and 1.0.0 are one version
}

TEST(Version, OrderingHoldsAcrossThePackedKeyLimits) {
    // Numbers around the packed key's 20-bit fields, large epochs and long releases must order
    // exactly as the full comparison does.
    std::vector<std::string> ordered{
        "1.1048574",  "1.1048575",    "1.1048575.1", "1.1048576", "1.1048576.0.1", "1.1048577",
        "1.20231212", "1.20231212.1", "2",           "2.0.0.0.1", "2.0.1",         "1048575",
        "1048576",    "99999999999",  "1!0",         "1!1048576", "2!0.1"};
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        for (std::size_t j = 0; j < ordered.size(); ++j) {
            SCOPED_TRACE(ordered[i] + " vs " + ordered[j]);
            EXPECT_EQ(v(ordered[i]) <=> v(ordered[j]), i <=> j);
        }
    }
    EXPECT_EQ(v("1048576.0"), v("1048576"));
    EXPECT_EQ(v("1.2.0").base(), v("1.2"));
}

}  // namespace AITK_FILE_LOCAL
