// What platform tags need of a machine (glibc, musl, macOS), the order a lock takes a version's
// files in (the oldest glibc first), and why a target takes none of a wheel's tags.
#include "aitk/pep/tag_fit.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aitk/pep/tags.hpp"

namespace aitk::pep {
namespace AITK_FILE_LOCAL {

std::vector<Tag> tags_of(std::string_view compressed) {
    auto parsed = parse_tag(compressed);
    EXPECT_TRUE(parsed) << compressed;
    return parsed ? *parsed : std::vector<Tag>{};
}

TargetPlatform linux_target(OsVersion glibc, bool oldest_first) {
    TargetPlatform t;
    t.os = TargetOs::linux_glibc;
    t.arch = "x86_64";
    t.python_minor = 12;
    t.os_version = glibc;
    t.oldest_os_first = oldest_first;
    return t;
}

TEST(PlatformNeed, ManylinuxMusllinuxAndMacosTagsNameTheirVersion) {
    auto need = platform_need("manylinux_2_31_x86_64");
    ASSERT_TRUE(need);
    EXPECT_EQ(need->library, OsLibrary::glibc);
    EXPECT_EQ(need->version, (OsVersion{2, 31}));
    EXPECT_EQ(need->arch, "x86_64");

    EXPECT_EQ(platform_need("manylinux2014_aarch64")->version, (OsVersion{2, 17}));
    EXPECT_EQ(platform_need("manylinux2014_aarch64")->arch, "aarch64");
    EXPECT_EQ(platform_need("manylinux2010_x86_64")->version, (OsVersion{2, 12}));
    EXPECT_EQ(platform_need("manylinux1_i686")->version, (OsVersion{2, 5}));
    EXPECT_EQ(platform_need("manylinux_2_17_armv7l")->arch, "armv7l");

    auto musl = platform_need("musllinux_1_2_aarch64");
    ASSERT_TRUE(musl);
    EXPECT_EQ(musl->library, OsLibrary::musl);
    EXPECT_EQ(musl->version, (OsVersion{1, 2}));

    auto mac = platform_need("macosx_11_0_universal2");
    ASSERT_TRUE(mac);
    EXPECT_EQ(mac->library, OsLibrary::macos);
    EXPECT_EQ(mac->version, (OsVersion{11, 0}));
    EXPECT_EQ(mac->arch, "universal2");

    for (const char* none : {"any", "win_amd64", "linux_x86_64", "manylinux_x_31_x86_64",
                             "manylinux_2_31", "macosx_11_arm64", "manylinux2015_x86_64"}) {
        EXPECT_FALSE(platform_need(none)) << none;
    }
}

TEST(PlatformNeed, VersionsReadAndPrint) {
    EXPECT_EQ(to_string(OsVersion{2, 31}), "2.31");
    EXPECT_EQ(parse_os_version("2.28"), (OsVersion{2, 28}));
    EXPECT_EQ(parse_os_version("14.0"), (OsVersion{14, 0}));
    for (const char* bad : {"", "3", "2.", ".28", "2.28.1", "abc", "2.x", "2.999", " 2.28"})
        EXPECT_FALSE(parse_os_version(bad)) << bad;
}

// A wheel with tags for two architectures needs, on each, what its own tag says; the tags a
// target cannot run count for nothing.
TEST(PlatformNeed, AWheelNeedsTheOldestOfItsTagsForTheTargetsArchitecture) {
    auto tags = tags_of("cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64");
    auto need = wheel_need(TargetOs::linux_glibc, "x86_64", tags);
    ASSERT_TRUE(need);
    EXPECT_EQ(need->version, (OsVersion{2, 17}));

    auto mixed = tags_of("cp312-cp312-manylinux_2_35_aarch64.manylinux_2_28_x86_64");
    EXPECT_EQ(wheel_need(TargetOs::linux_glibc, "x86_64", mixed)->version, (OsVersion{2, 28}));
    EXPECT_EQ(wheel_need(TargetOs::linux_glibc, "aarch64", mixed)->version, (OsVersion{2, 35}));
    EXPECT_EQ(wheel_need(TargetOs::linux_glibc, "arm64", mixed)->version, (OsVersion{2, 35}));

    auto mac = tags_of("cp312-cp312-macosx_10_9_x86_64.macosx_11_0_arm64");
    EXPECT_EQ(wheel_need(TargetOs::macos, "arm64", mac)->version, (OsVersion{11, 0}));
    EXPECT_EQ(wheel_need(TargetOs::macos, "x86_64", mac)->version, (OsVersion{10, 9}));
    auto universal = tags_of("cp312-cp312-macosx_10_13_universal2");
    EXPECT_EQ(wheel_need(TargetOs::macos, "arm64", universal)->version, (OsVersion{10, 13}));

    EXPECT_FALSE(wheel_need(TargetOs::linux_glibc, "x86_64", tags_of("py3-none-any")));
    EXPECT_FALSE(wheel_need(TargetOs::linux_glibc, "x86_64", tags_of("cp312-cp312-linux_x86_64")));
    EXPECT_FALSE(wheel_need(TargetOs::windows, "x86_64", tags_of("cp312-cp312-win_amd64")));
    // musl wheels say nothing about glibc.
    EXPECT_FALSE(
        wheel_need(TargetOs::linux_glibc, "x86_64", tags_of("cp312-cp312-musllinux_1_2_x86_64")));
}

// pip on the machine it runs on takes the newest glibc it can; a lock takes the oldest, so that
// it runs on the most machines. Compiled wheels still come before pure ones.
TEST(TagOrder, ALockPrefersTheWheelThatNeedsTheOldestGlibc) {
    const auto newest = TagPriority::for_target(linux_target({2, 35}, false));
    const auto oldest = TagPriority::for_target(linux_target({2, 35}, true));
    const Tag m231{"cp312", "cp312", "manylinux_2_31_x86_64"};
    const Tag m217{"cp312", "cp312", "manylinux_2_17_x86_64"};
    const Tag m2014{"cp312", "cp312", "manylinux2014_x86_64"};
    const Tag abi3_m228{"cp38", "abi3", "manylinux_2_28_x86_64"};
    const Tag pure{"py3", "none", "any"};
    const Tag plain{"cp312", "cp312", "linux_x86_64"};

    EXPECT_LT(*newest.rank(m231), *newest.rank(m217));
    EXPECT_LT(*oldest.rank(m217), *oldest.rank(m231));
    // The legacy alias stays beside the tag it equals.
    EXPECT_EQ(*oldest.rank(m2014), *oldest.rank(m217) + 1);
    // glibc first, the interpreter's own ABI before abi3 only among equal glibc needs.
    EXPECT_LT(*oldest.rank(abi3_m228), *oldest.rank(m231));
    EXPECT_LT(*oldest.rank(m217), *oldest.rank(abi3_m228));
    // Every manylinux wheel before linux_<arch>, and every platform wheel before a pure one.
    EXPECT_LT(*oldest.rank(m231), *oldest.rank(plain));
    EXPECT_LT(*oldest.rank(plain), *oldest.rank(pure));
    EXPECT_EQ(oldest.size(), newest.size());
}

TEST(TagOrder, MacosWheelsTooTheOldestFirst) {
    TargetPlatform mac;
    mac.os = TargetOs::macos;
    mac.arch = "arm64";
    mac.os_version = {14, 0};
    mac.oldest_os_first = true;
    const auto priority = TagPriority::for_target(mac);
    EXPECT_LT(*priority.rank({"cp312", "cp312", "macosx_11_0_arm64"}),
              *priority.rank({"cp312", "cp312", "macosx_14_0_arm64"}));
    EXPECT_FALSE(priority.rank({"cp312", "cp312", "macosx_15_0_arm64"}));
    // No arm64 Mac is older than 11.0: a universal2 wheel for 10.9 is no older there, and the
    // arm64 one (half the size) stays first.
    EXPECT_LT(*priority.rank({"cp312", "cp312", "macosx_11_0_arm64"}),
              *priority.rank({"cp312", "cp312", "macosx_10_9_universal2"}));
}

// tensorboard-data-server 0.7.2 ships a manylinux_2_31 wheel and a pure one; torch needs 2.28
// whatever file it takes. Taking the compiled wheel would raise the target's floor to 2.31 for
// nothing: the floor the versions force is 2.28, and the pure wheel keeps within it.
TEST(UnavoidableFloor, TheHighestOfEachPackagesLeastNeed) {
    using Needs = std::vector<std::optional<OsVersion>>;
    const Needs torch{OsVersion{2, 28}};
    const Needs tensorboard{OsVersion{2, 31}, std::nullopt};
    const Needs fastpkg{OsVersion{2, 17}, OsVersion{2, 28}};
    const Needs pure{std::nullopt};
    EXPECT_EQ(unavoidable_floor({torch, tensorboard, fastpkg, pure}), (OsVersion{2, 28}));
    EXPECT_EQ(unavoidable_floor({tensorboard, pure}), std::nullopt);
    const Needs vllm{OsVersion{2, 31}};
    EXPECT_EQ(unavoidable_floor({torch, tensorboard, vllm}), (OsVersion{2, 31}));
    EXPECT_EQ(unavoidable_floor({}), std::nullopt);

    EXPECT_TRUE(within_floor(std::nullopt, std::nullopt));
    EXPECT_TRUE(within_floor(OsVersion{2, 28}, OsVersion{2, 28}));
    EXPECT_FALSE(within_floor(OsVersion{2, 31}, OsVersion{2, 28}));
    EXPECT_FALSE(within_floor(OsVersion{2, 17}, std::nullopt));
}

TEST(TagRefusal, SaysWhichPartOfTheTagFailsAndWhy) {
    const TargetPlatform capped = linux_target({2, 28}, true);
    auto too_new = tag_refusal(capped, tags_of("cp38-abi3-manylinux_2_31_x86_64"));
    ASSERT_TRUE(too_new);
    EXPECT_EQ(too_new->why, TagMismatch::os_too_new);
    ASSERT_TRUE(too_new->need);
    EXPECT_EQ(too_new->need->version, (OsVersion{2, 31}));
    EXPECT_EQ(too_new->describe(capped),
              "manylinux_2_31_x86_64: needs glibc ≥ 2.31 (this target: ≤ 2.28)");

    auto arch = tag_refusal(capped, tags_of("cp312-cp312-manylinux_2_17_aarch64"));
    ASSERT_TRUE(arch);
    EXPECT_EQ(arch->why, TagMismatch::architecture);
    EXPECT_EQ(arch->describe(capped),
              "manylinux_2_17_aarch64: another architecture (this target: x86_64)");

    auto musl = tag_refusal(capped, tags_of("cp312-cp312-musllinux_1_2_x86_64"));
    ASSERT_TRUE(musl);
    EXPECT_EQ(musl->why, TagMismatch::libc);
    EXPECT_EQ(musl->describe(capped), "musllinux_1_2_x86_64: for musl, not glibc");

    auto windows = tag_refusal(capped, tags_of("cp312-cp312-win_amd64"));
    ASSERT_TRUE(windows);
    EXPECT_EQ(windows->why, TagMismatch::os);
    EXPECT_EQ(windows->describe(capped), "win_amd64: another OS (this target: Linux)");

    auto python = tag_refusal(capped, tags_of("cp311-cp311-manylinux_2_17_x86_64"));
    ASSERT_TRUE(python);
    EXPECT_EQ(python->why, TagMismatch::python);
    EXPECT_EQ(python->describe(capped),
              "cp311-cp311: another Python or ABI (this target: CPython 3.12)");

    // Of a wheel's tags the closest is named: a glibc too new before another architecture.
    auto closest = tag_refusal(capped, tags_of("cp312-cp312-manylinux_2_31_aarch64."
                                               "manylinux_2_31_x86_64"));
    ASSERT_TRUE(closest);
    EXPECT_EQ(closest->why, TagMismatch::os_too_new);
    EXPECT_EQ(closest->tag.platform, "manylinux_2_31_x86_64");

    EXPECT_FALSE(tag_refusal(capped, tags_of("cp312-cp312-manylinux_2_28_x86_64")));
    EXPECT_FALSE(tag_refusal(capped, tags_of("py3-none-any")));

    TargetPlatform mac;
    mac.os = TargetOs::macos;
    mac.arch = "arm64";
    mac.os_version = {14, 0};
    auto mac_new = tag_refusal(mac, tags_of("cp312-cp312-macosx_15_0_arm64"));
    ASSERT_TRUE(mac_new);
    EXPECT_EQ(mac_new->describe(mac),
              "macosx_15_0_arm64: needs macOS ≥ 15.0 (this target: ≤ 14.0)");
    auto mac_intel = tag_refusal(mac, tags_of("cp312-cp312-macosx_10_9_x86_64"));
    ASSERT_TRUE(mac_intel);
    EXPECT_EQ(mac_intel->why, TagMismatch::architecture);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::pep
