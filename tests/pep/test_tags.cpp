#include "aitk/pep/tags.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "test_data.hpp"

namespace AITK_FILE_LOCAL {

using aitk::pep::compatible_tags;
using aitk::pep::OsVersion;
using aitk::pep::parse_tag;
using aitk::pep::platform_tags;
using aitk::pep::Tag;
using aitk::pep::TagParseOptions;
using aitk::pep::TagPriority;
using aitk::pep::TargetOs;
using aitk::pep::TargetPlatform;

namespace {

std::vector<std::string> strings(const std::vector<Tag>& tags) {
    std::vector<std::string> out;
    for (const Tag& t : tags)
        out.push_back(t.to_string());
    return out;
}

TargetPlatform target(TargetOs os, std::string arch, OsVersion os_version, unsigned minor) {
    TargetPlatform t;
    t.os = os;
    t.arch = std::move(arch);
    t.os_version = os_version;
    t.python_minor = minor;
    return t;
}

// The order pip's packaging produces, written out group by group: each (interpreter, abi) pair
// on every platform in turn, then the "-none-any" interpreters.
std::vector<std::string> expected_order(
    const std::vector<std::pair<std::string, std::string>>& groups,
    const std::vector<std::string>& platforms, const std::vector<std::string>& any_interpreters) {
    std::vector<std::string> out;
    for (const auto& [interpreter, abi] : groups) {
        for (const std::string& platform : platforms) {
            out.push_back(interpreter + "-" + abi + "-" + platform);
        }
    }
    for (const std::string& interpreter : any_interpreters) {
        out.push_back(interpreter + "-none-any");
    }
    return out;
}

const std::vector<std::pair<std::string, std::string>> kCp312Groups = {
    {"cp312", "cp312"}, {"cp312", "abi3"}, {"cp312", "none"}, {"cp311", "abi3"}, {"cp310", "abi3"},
    {"cp39", "abi3"},   {"cp38", "abi3"},  {"cp37", "abi3"},  {"cp36", "abi3"},  {"cp35", "abi3"},
    {"cp34", "abi3"},   {"cp33", "abi3"},  {"cp32", "abi3"},  {"py312", "none"}, {"py3", "none"},
    {"py311", "none"},  {"py310", "none"}, {"py39", "none"},  {"py38", "none"},  {"py37", "none"},
    {"py36", "none"},   {"py35", "none"},  {"py34", "none"},  {"py33", "none"},  {"py32", "none"},
    {"py31", "none"},   {"py30", "none"},
};
const std::vector<std::string> kCp312Any = {"cp312", "py312", "py3",  "py311", "py310",
                                            "py39",  "py38",  "py37", "py36",  "py35",
                                            "py34",  "py33",  "py32", "py31",  "py30"};

const std::vector<std::pair<std::string, std::string>> kCp311Groups = {
    {"cp311", "cp311"}, {"cp311", "abi3"}, {"cp311", "none"}, {"cp310", "abi3"}, {"cp39", "abi3"},
    {"cp38", "abi3"},   {"cp37", "abi3"},  {"cp36", "abi3"},  {"cp35", "abi3"},  {"cp34", "abi3"},
    {"cp33", "abi3"},   {"cp32", "abi3"},  {"py311", "none"}, {"py3", "none"},   {"py310", "none"},
    {"py39", "none"},   {"py38", "none"},  {"py37", "none"},  {"py36", "none"},  {"py35", "none"},
    {"py34", "none"},   {"py33", "none"},  {"py32", "none"},  {"py31", "none"},  {"py30", "none"},
};
const std::vector<std::string> kCp311Any = {"cp311", "py311", "py3",  "py310", "py39",
                                            "py38",  "py37",  "py36", "py35",  "py34",
                                            "py33",  "py32",  "py31", "py30"};

}  // namespace

// --- parse_tag -------------------------------------------------------------------------------

TEST(ParseTagConformance, AllCases) {
    auto cases = aitk::test::conformance("parse_tag");
    ASSERT_FALSE(cases.empty());
    std::size_t checked = 0;
    for (const auto& c : cases) {
        std::string input = c["tag"];
        SCOPED_TRACE(input);
        auto parsed = parse_tag(input);
        if (c["valid"].get<bool>()) {
            ASSERT_TRUE(parsed) << parsed.error().describe();
            EXPECT_EQ(strings(*parsed), c["tags"].get<std::vector<std::string>>());
        } else {
            EXPECT_FALSE(parsed);
        }
        ++checked;
    }
    EXPECT_EQ(checked, cases.size());
}

TEST(ParseTag, ExpandsEveryComponentLowerCasedSortedAndUnique) {
    auto parsed = parse_tag("CP312.cp311-ABI3.none-manylinux_2_17_X86_64.linux_x86_64");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(strings(*parsed), (std::vector<std::string>{
                                    "cp311-abi3-linux_x86_64",
                                    "cp311-abi3-manylinux_2_17_x86_64",
                                    "cp311-none-linux_x86_64",
                                    "cp311-none-manylinux_2_17_x86_64",
                                    "cp312-abi3-linux_x86_64",
                                    "cp312-abi3-manylinux_2_17_x86_64",
                                    "cp312-none-linux_x86_64",
                                    "cp312-none-manylinux_2_17_x86_64",
                                }));
    auto dup = parse_tag("py3.PY3-none-any");
    ASSERT_TRUE(dup);
    EXPECT_EQ(strings(*dup), std::vector<std::string>{"py3-none-any"});
}

TEST(ParseTag, ErrorsSayWhatIsWrongAndWhere) {
    auto two = parse_tag("py3-none");
    ASSERT_FALSE(two);
    EXPECT_NE(two.error().message.find("expected three"), std::string::npos) << two.error().message;

    auto four = parse_tag("py3-none-any-extra");
    ASSERT_FALSE(four);
    EXPECT_NE(four.error().message.find("more than three"), std::string::npos);
    EXPECT_EQ(four.error().position, 12u);

    auto empty = parse_tag("py3..py2-none-any");
    ASSERT_FALSE(empty);
    EXPECT_EQ(empty.error().message, "empty interpreter in tag 'py3..py2-none-any'");
    EXPECT_EQ(empty.error().position, 4u);

    auto empty_abi = parse_tag("py3--any");
    ASSERT_FALSE(empty_abi);
    EXPECT_EQ(empty_abi.error().message, "empty abi in tag 'py3--any'");

    auto digit = parse_tag("3py-none-any");
    ASSERT_FALSE(digit);
    EXPECT_NE(digit.error().message.find("'3py' is not an identifier"), std::string::npos);

    EXPECT_FALSE(parse_tag(""));
    EXPECT_FALSE(parse_tag("--"));
}

TEST(ParseTag, OrderValidationIsOptIn) {
    TagParseOptions strict;
    strict.validate_order = true;
    EXPECT_TRUE(parse_tag("py3.py2-none-any"));
    auto unsorted = parse_tag("py3.py2-none-any", strict);
    ASSERT_FALSE(unsorted);
    EXPECT_NE(unsorted.error().message.find("not in sorted order"), std::string::npos);
    EXPECT_TRUE(parse_tag("py2.py3-none-any", strict));
    EXPECT_FALSE(parse_tag("cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64", strict));
}

TEST(ParseTag, RefusesExplosiveProducts) {
    std::string many;
    for (int i = 0; i < 20; ++i)
        many += (i ? ".a" : "a") + std::to_string(i);
    std::string tag = many + "-" + many + "-" + many;  // 8000 tags
    auto parsed = parse_tag(tag);
    ASSERT_FALSE(parsed);
    EXPECT_NE(parsed.error().message.find("more than 4096 tags"), std::string::npos);
    TagParseOptions roomy;
    roomy.max_tags = 10000;
    auto ok = parse_tag(tag, roomy);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->size(), 8000u);
}

TEST(Tag, OrdersLikeItsStringForm) {
    // '#' sorts before '-', so "py3-n#e-any" < "py3-n-any" as strings even though "n" < "n#e".
    EXPECT_LT((Tag{"py3", "n#e", "any"}), (Tag{"py3", "n", "any"}));
    EXPECT_LT((Tag{"cp310", "cp310", "manylinux2014_x86_64"}),
              (Tag{"cp310", "cp310", "manylinux_2_17_x86_64"}));
    EXPECT_LT((Tag{"py3", "none", "any"}), (Tag{"py3", "none", "any2"}));
    EXPECT_LT((Tag{"py3", "none", "any"}), (Tag{"py30", "none", "any"}));
    EXPECT_EQ((Tag{"py3", "none", "any"}) <=> (Tag{"py3", "none", "any"}),
              std::strong_ordering::equal);
    auto parsed = parse_tag("py3-n.n#e-any");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(strings(*parsed), (std::vector<std::string>{"py3-n#e-any", "py3-n-any"}));
}

TEST(ParseTag, RoundTripsThroughToString) {
    auto parsed = parse_tag("cp313-cp313t-musllinux_1_2_aarch64");
    ASSERT_TRUE(parsed);
    ASSERT_EQ(parsed->size(), 1u);
    auto again = parse_tag((*parsed)[0].to_string());
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *parsed);
}

// --- platform tags ---------------------------------------------------------------------------

TEST(PlatformTags, LinuxGlibcX86_64LadderWithLegacyAliases) {
    auto plats = platform_tags(target(TargetOs::linux_glibc, "x86_64", {2, 36}, 12));
    std::vector<std::string> expected;
    for (unsigned minor = 36; minor >= 5; --minor) {
        expected.push_back("manylinux_2_" + std::to_string(minor) + "_x86_64");
        if (minor == 17) expected.push_back("manylinux2014_x86_64");
        if (minor == 12) expected.push_back("manylinux2010_x86_64");
        if (minor == 5) expected.push_back("manylinux1_x86_64");
    }
    expected.push_back("linux_x86_64");
    EXPECT_EQ(plats, expected);
    EXPECT_EQ(plats.size(), 36u);
    EXPECT_EQ(plats[19], "manylinux_2_17_x86_64");
    EXPECT_EQ(plats[20], "manylinux2014_x86_64");
}

TEST(PlatformTags, LinuxAarch64StopsAt2_17) {
    auto plats = platform_tags(target(TargetOs::linux_glibc, "aarch64", {2, 28}, 11));
    EXPECT_EQ(plats,
              (std::vector<std::string>{
                  "manylinux_2_28_aarch64", "manylinux_2_27_aarch64", "manylinux_2_26_aarch64",
                  "manylinux_2_25_aarch64", "manylinux_2_24_aarch64", "manylinux_2_23_aarch64",
                  "manylinux_2_22_aarch64", "manylinux_2_21_aarch64", "manylinux_2_20_aarch64",
                  "manylinux_2_19_aarch64", "manylinux_2_18_aarch64", "manylinux_2_17_aarch64",
                  "manylinux2014_aarch64", "linux_aarch64"}));
    // "arm64" is the same machine under its Apple/Windows name.
    EXPECT_EQ(platform_tags(target(TargetOs::linux_glibc, "arm64", {2, 28}, 11)), plats);
}

TEST(PlatformTags, MacArm64Ladder) {
    auto plats = platform_tags(target(TargetOs::macos, "arm64", {14, 0}, 12));
    EXPECT_EQ(plats,
              (std::vector<std::string>{
                  "macosx_14_0_arm64",       "macosx_14_0_universal2",  "macosx_13_0_arm64",
                  "macosx_13_0_universal2",  "macosx_12_0_arm64",       "macosx_12_0_universal2",
                  "macosx_11_0_arm64",       "macosx_11_0_universal2",  "macosx_10_16_universal2",
                  "macosx_10_15_universal2", "macosx_10_14_universal2", "macosx_10_13_universal2",
                  "macosx_10_12_universal2", "macosx_10_11_universal2", "macosx_10_10_universal2",
                  "macosx_10_9_universal2",  "macosx_10_8_universal2",  "macosx_10_7_universal2",
                  "macosx_10_6_universal2",  "macosx_10_5_universal2",  "macosx_10_4_universal2"}));
    EXPECT_EQ(platform_tags(target(TargetOs::macos, "aarch64", {14, 0}, 12)), plats);
}

TEST(PlatformTags, MacX86_64KeepsTheIntelFormatsOn10x) {
    auto plats = platform_tags(target(TargetOs::macos, "x86_64", {10, 15}, 12));
    ASSERT_GE(plats.size(), 6u);
    EXPECT_EQ(std::vector<std::string>(plats.begin(), plats.begin() + 6),
              (std::vector<std::string>{"macosx_10_15_x86_64", "macosx_10_15_intel",
                                        "macosx_10_15_fat64", "macosx_10_15_fat32",
                                        "macosx_10_15_universal2", "macosx_10_15_universal"}));
    EXPECT_EQ(plats.back(), "macosx_10_4_universal");
    // 12 minors (10.15 .. 10.4) with 6 formats each; nothing below 10.4 for x86_64.
    EXPECT_EQ(plats.size(), 12u * 6u);

    auto big_sur_on = platform_tags(target(TargetOs::macos, "x86_64", {13, 0}, 12));
    EXPECT_EQ(big_sur_on.front(), "macosx_13_0_x86_64");
    EXPECT_EQ(big_sur_on[6], "macosx_12_0_x86_64");
    EXPECT_NE(std::find(big_sur_on.begin(), big_sur_on.end(), "macosx_10_16_intel"),
              big_sur_on.end());
}

TEST(PlatformTags, WindowsHasOneTagPerArch) {
    EXPECT_EQ(platform_tags(target(TargetOs::windows, "x86_64", {}, 12)),
              std::vector<std::string>{"win_amd64"});
    EXPECT_EQ(platform_tags(target(TargetOs::windows, "AMD64", {}, 12)),
              std::vector<std::string>{"win_amd64"});
    EXPECT_EQ(platform_tags(target(TargetOs::windows, "arm64", {}, 12)),
              std::vector<std::string>{"win_arm64"});
    EXPECT_EQ(platform_tags(target(TargetOs::windows, "x86", {}, 12)),
              std::vector<std::string>{"win32"});
}

TEST(PlatformTags, MusllinuxLadder) {
    EXPECT_EQ(platform_tags(target(TargetOs::linux_musl, "x86_64", {1, 2}, 12)),
              (std::vector<std::string>{"musllinux_1_2_x86_64", "musllinux_1_1_x86_64",
                                        "musllinux_1_0_x86_64", "linux_x86_64"}));
}

TEST(PlatformTags, LinuxCornerCases) {
    // Unknown glibc: only the plain linux tag.
    EXPECT_EQ(platform_tags(target(TargetOs::linux_glibc, "x86_64", {0, 0}, 12)),
              std::vector<std::string>{"linux_x86_64"});
    // Machines without manylinux tags.
    EXPECT_EQ(platform_tags(target(TargetOs::linux_glibc, "sparc64", {2, 36}, 12)),
              std::vector<std::string>{"linux_sparc64"});
    // glibc 2.10 on s390x predates manylinux there.
    EXPECT_EQ(platform_tags(target(TargetOs::linux_glibc, "s390x", {2, 10}, 12)),
              std::vector<std::string>{"linux_s390x"});
    // 32-bit x86 under any of its names.
    auto i686 = platform_tags(target(TargetOs::linux_glibc, "x86", {2, 17}, 12));
    EXPECT_EQ(i686.front(), "manylinux_2_17_i686");
    EXPECT_EQ(i686[1], "manylinux2014_i686");
    EXPECT_EQ(i686.back(), "linux_i686");
    // A 32-bit ARM userland on a 64-bit kernel also runs armv7l wheels.
    auto armv8l = platform_tags(target(TargetOs::linux_glibc, "armv8l", {2, 17}, 12));
    EXPECT_EQ(armv8l, (std::vector<std::string>{"manylinux_2_17_armv8l", "manylinux2014_armv8l",
                                                "manylinux_2_17_armv7l", "manylinux2014_armv7l",
                                                "linux_armv8l", "linux_armv7l"}));
    // A future glibc 3.x also accepts every 2.x tag.
    auto glibc3 = platform_tags(target(TargetOs::linux_glibc, "aarch64", {3, 1}, 12));
    EXPECT_EQ(glibc3[0], "manylinux_3_1_aarch64");
    EXPECT_EQ(glibc3[1], "manylinux_3_0_aarch64");
    EXPECT_EQ(glibc3[2], "manylinux_2_50_aarch64");
    EXPECT_EQ(glibc3.size(), 2u + 34u + 1u + 1u);  // 3_1, 3_0, 2_50..2_17, manylinux2014, linux
}

// --- compatible tags: pinned against pip's packaging ------------------------------------------

TEST(CompatibleTags, LinuxX86_64Glibc2_36Cp312) {
    auto t = target(TargetOs::linux_glibc, "x86_64", {2, 36}, 12);
    auto tags = strings(compatible_tags(t));
    EXPECT_EQ(tags, expected_order(kCp312Groups, platform_tags(t), kCp312Any));
    ASSERT_EQ(tags.size(), 987u);
    EXPECT_EQ(tags[0], "cp312-cp312-manylinux_2_36_x86_64");
    EXPECT_EQ(tags[35], "cp312-cp312-linux_x86_64");
    EXPECT_EQ(tags[36], "cp312-abi3-manylinux_2_36_x86_64");
    EXPECT_EQ(tags[72], "cp312-none-manylinux_2_36_x86_64");
    EXPECT_EQ(tags[108], "cp311-abi3-manylinux_2_36_x86_64");
    EXPECT_EQ(tags[467], "cp32-abi3-linux_x86_64");
    EXPECT_EQ(tags[468], "py312-none-manylinux_2_36_x86_64");
    EXPECT_EQ(tags[504], "py3-none-manylinux_2_36_x86_64");
    EXPECT_EQ(tags[972], "cp312-none-any");
    EXPECT_EQ(tags[973], "py312-none-any");
    EXPECT_EQ(tags[974], "py3-none-any");
    EXPECT_EQ(tags.back(), "py30-none-any");
}

TEST(CompatibleTags, LinuxAarch64Glibc2_28Cp311) {
    auto t = target(TargetOs::linux_glibc, "aarch64", {2, 28}, 11);
    auto tags = strings(compatible_tags(t));
    EXPECT_EQ(tags, expected_order(kCp311Groups, platform_tags(t), kCp311Any));
    ASSERT_EQ(tags.size(), 364u);
    EXPECT_EQ(tags[12], "cp311-cp311-manylinux2014_aarch64");
    EXPECT_EQ(tags[13], "cp311-cp311-linux_aarch64");
    EXPECT_EQ(tags[14], "cp311-abi3-manylinux_2_28_aarch64");
    EXPECT_EQ(tags[350], "cp311-none-any");
}

TEST(CompatibleTags, MacArm64_14Cp312) {
    auto t = target(TargetOs::macos, "arm64", {14, 0}, 12);
    auto tags = strings(compatible_tags(t));
    EXPECT_EQ(tags, expected_order(kCp312Groups, platform_tags(t), kCp312Any));
    ASSERT_EQ(tags.size(), 582u);
    EXPECT_EQ(tags[0], "cp312-cp312-macosx_14_0_arm64");
    EXPECT_EQ(tags[1], "cp312-cp312-macosx_14_0_universal2");
    EXPECT_EQ(tags[20], "cp312-cp312-macosx_10_4_universal2");
    EXPECT_EQ(tags[567], "cp312-none-any");
}

TEST(CompatibleTags, WindowsAmd64Cp312) {
    auto tags = strings(compatible_tags(target(TargetOs::windows, "amd64", {}, 12)));
    EXPECT_EQ(tags, expected_order(kCp312Groups, {"win_amd64"}, kCp312Any));
    ASSERT_EQ(tags.size(), 42u);
    EXPECT_EQ(std::vector<std::string>(tags.begin(), tags.begin() + 4),
              (std::vector<std::string>{"cp312-cp312-win_amd64", "cp312-abi3-win_amd64",
                                        "cp312-none-win_amd64", "cp311-abi3-win_amd64"}));
    EXPECT_EQ(tags[12], "cp32-abi3-win_amd64");
    EXPECT_EQ(tags[13], "py312-none-win_amd64");
    EXPECT_EQ(tags[27], "cp312-none-any");
}

TEST(CompatibleTags, Musllinux1_2X86_64Cp312) {
    auto t = target(TargetOs::linux_musl, "x86_64", {1, 2}, 12);
    auto tags = strings(compatible_tags(t));
    EXPECT_EQ(tags, expected_order(kCp312Groups,
                                   {"musllinux_1_2_x86_64", "musllinux_1_1_x86_64",
                                    "musllinux_1_0_x86_64", "linux_x86_64"},
                                   kCp312Any));
    ASSERT_EQ(tags.size(), 123u);
    EXPECT_EQ(tags[0], "cp312-cp312-musllinux_1_2_x86_64");
    EXPECT_EQ(tags[3], "cp312-cp312-linux_x86_64");
}

TEST(CompatibleTags, FreeThreadedUsesItsOwnAbiAndNoAbi3) {
    auto t = target(TargetOs::linux_glibc, "x86_64", {2, 17}, 13);
    t.abi_flags = "t";
    auto tags = strings(compatible_tags(t));
    EXPECT_EQ(tags[0], "cp313-cp313t-manylinux_2_17_x86_64");
    EXPECT_EQ(std::count(tags.begin(), tags.end(), "cp313-abi3-manylinux_2_17_x86_64"), 0);
    EXPECT_EQ(std::count(tags.begin(), tags.end(), "cp313-cp313-manylinux_2_17_x86_64"), 0);
    EXPECT_EQ(std::count(tags.begin(), tags.end(), "cp313-none-manylinux_2_17_x86_64"), 1);
    // PEP 803's free-threaded stable ABI takes abi3's place.
    EXPECT_EQ(std::count(tags.begin(), tags.end(), "cp39-abi3t-manylinux_2_17_x86_64"), 1);
}

TEST(CompatibleTags, DebugBuildAlsoLoadsRegularExtensions) {
    auto t = target(TargetOs::windows, "x86_64", {}, 12);
    t.abi_flags = "d";
    auto tags = strings(compatible_tags(t));
    EXPECT_EQ(tags[0], "cp312-cp312d-win_amd64");
    EXPECT_EQ(tags[1], "cp312-cp312-win_amd64");
    EXPECT_EQ(tags[2], "cp312-abi3-win_amd64");
}

TEST(CompatibleTags, PyPyUsesItsAbiAndPp3) {
    auto t = target(TargetOs::linux_glibc, "x86_64", {2, 35}, 10);
    t.implementation = "pp";
    auto tags = strings(compatible_tags(t));
    EXPECT_EQ(tags[0], "pp310-pypy310_pp73-manylinux_2_35_x86_64");
    std::size_t plats = platform_tags(t).size();
    EXPECT_EQ(tags[plats], "pp310-none-manylinux_2_35_x86_64");
    EXPECT_EQ(tags[2 * plats], "py310-none-manylinux_2_35_x86_64");
    auto pp3 = std::find(tags.begin(), tags.end(), "pp3-none-any");
    ASSERT_NE(pp3, tags.end());
    EXPECT_EQ(*(pp3 + 1), "py310-none-any");
    EXPECT_EQ(std::count_if(tags.begin(), tags.end(),
                            [](const std::string& s) { return s.find("abi3") != s.npos; }),
              0);
}

// --- TagPriority -----------------------------------------------------------------------------

TEST(TagPriority, RanksMatchTheOrderedList) {
    auto t = target(TargetOs::linux_glibc, "x86_64", {2, 36}, 12);
    auto ordered = compatible_tags(t);
    auto priority = TagPriority::for_target(t);
    ASSERT_EQ(priority.size(), ordered.size());
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        ASSERT_EQ(priority.rank(ordered[i]), i) << ordered[i].to_string();
    }
    EXPECT_EQ(priority.rank("py3", "none", "any"), 974u);
    EXPECT_FALSE(priority.rank("cp312", "cp312", "win_amd64"));
    EXPECT_FALSE(priority.rank("cp312", "cp312", "manylinux_2_37_x86_64"));
    EXPECT_FALSE(priority.rank("cp313", "cp313", "manylinux_2_17_x86_64"));
    EXPECT_FALSE(priority.supports(Tag{"py3", "none", "an"}));
    EXPECT_FALSE(priority.supports(Tag{"py3-none", "", "any"}));
}

TEST(TagPriority, BestRankOfAWheelsTags) {
    auto priority = TagPriority::for_target(target(TargetOs::linux_glibc, "x86_64", {2, 36}, 12));
    auto manylinux = parse_tag("cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64");
    ASSERT_TRUE(manylinux);
    auto abi3 = parse_tag("cp39-abi3-manylinux_2_28_x86_64");
    ASSERT_TRUE(abi3);
    auto pure = parse_tag("py2.py3-none-any");
    ASSERT_TRUE(pure);
    auto windows = parse_tag("cp312-cp312-win_amd64");
    ASSERT_TRUE(windows);

    auto r_manylinux = priority.best_rank(*manylinux);
    auto r_abi3 = priority.best_rank(*abi3);
    auto r_pure = priority.best_rank(*pure);
    ASSERT_TRUE(r_manylinux && r_abi3 && r_pure);
    EXPECT_EQ(*r_manylinux, 19u);  // manylinux_2_17 beats its manylinux2014 alias (20)
    EXPECT_LT(*r_manylinux, *r_abi3);
    EXPECT_LT(*r_abi3, *r_pure);
    EXPECT_FALSE(priority.best_rank(*windows));
    EXPECT_FALSE(priority.best_rank(std::span<const Tag>{}));
}

TEST(TagPriority, RanksACompressedSetWithoutExpandingIt) {
    auto priority = TagPriority::for_target(target(TargetOs::linux_glibc, "x86_64", {2, 36}, 12));
    for (const char* set : {"cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64",
                            "cp39-abi3-manylinux_2_28_x86_64", "py2.py3-none-any",
                            "cp312-cp312-win_amd64", "cp311.cp312-abi3.cp312-linux_x86_64"}) {
        SCOPED_TRACE(set);
        auto tags = parse_tag(set);
        ASSERT_TRUE(tags);
        EXPECT_EQ(priority.best_rank(std::string_view(set)), priority.best_rank(*tags));
    }
    EXPECT_EQ(priority.best_rank(std::string_view("PY3-None-ANY")), 974u);
    EXPECT_FALSE(priority.best_rank(std::string_view("py3-none")));
    EXPECT_FALSE(priority.best_rank(std::string_view("py3-none-any-x")));
    EXPECT_FALSE(priority.best_rank(std::string_view("")));
    EXPECT_FALSE(priority.best_rank(std::string_view("py3..-none-any")));
}

TEST(TagPriority, FirstOccurrenceWins) {
    std::vector<Tag> ordered{
        {"py3", "none", "any"}, {"cp312", "none", "any"}, {"py3", "none", "any"}};
    TagPriority priority(ordered);
    EXPECT_EQ(priority.size(), 2u);
    EXPECT_EQ(priority.rank(ordered[0]), 0u);
    EXPECT_EQ(priority.rank(ordered[1]), 1u);
    TagPriority empty;
    EXPECT_FALSE(empty.rank(ordered[0]));
}

TEST(TagsBounds, AbsurdVersionsAreClampedNotLoopedOver) {
    aitk::pep::TargetPlatform t;
    t.os = aitk::pep::TargetOs::macos;
    t.arch = "arm64";
    t.os_version = {4000000000u, 4000000000u};
    t.python_minor = 4000000000u;
    auto tags = aitk::pep::compatible_tags(t);
    EXPECT_FALSE(tags.empty());
    EXPECT_LT(tags.size(), 2000000u);
    EXPECT_EQ(aitk::pep::bounded(t).os_version.major, aitk::pep::max_target_version_part);
}

}  // namespace AITK_FILE_LOCAL
