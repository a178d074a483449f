#include "aitk/python/standalone.hpp"

#include <gtest/gtest.h>

namespace aitk::python {
namespace AITK_FILE_LOCAL {

TEST(StandaloneBuilds, TheCompiledInTableListsLinuxAndWindowsBuilds) {
    const auto& builds = standalone_builds();
    ASSERT_FALSE(builds.empty());
    bool linux_x86 = false, windows = false;
    for (const auto& b : builds) {
        EXPECT_EQ(b.sha256.size(), 64u) << b.url;
        linux_x86 |= b.os == "linux" && b.arch == "x86_64";
        windows |= b.os == "windows";
    }
    EXPECT_TRUE(linux_x86);
    EXPECT_TRUE(windows);
}

TEST(StandaloneBuilds, FullVersionPicksTheNewestPatchOfAMinor) {
    std::vector<StandaloneBuild> builds(3);
    builds[0].version = "3.12.9";
    builds[1].version = "3.12.11";
    builds[2].version = "3.13.2";
    EXPECT_EQ(full_python_version("3.12", builds), "3.12.11");
    EXPECT_EQ(full_python_version("3.13", builds), "3.13.2");
    EXPECT_EQ(full_python_version("3.12.1", builds), "3.12.1");
    EXPECT_EQ(full_python_version("3.11", builds), std::nullopt);
    EXPECT_EQ(full_python_version("3", builds), std::nullopt);
    EXPECT_EQ(full_python_version("3.x", builds), std::nullopt);
}

TEST(StandaloneBuilds, ParseErrorsNameTheEntryAndField) {
    auto bad = parse_standalone_builds(R"([{"implementation":"cpython","version":"3.12"}])");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error(), "python-builds.json: entry 1 lacks the string 'build'");
    EXPECT_FALSE(parse_standalone_builds("{}"));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::python
