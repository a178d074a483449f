// AITK_ENV_GLIBC_VERSION: the machine's glibc as the platform probe would report it, for tests
// and for machines whose C library the probe cannot ask; validated like the other overrides.
#include <gtest/gtest.h>

#include "aitk/platform/host.hpp"
#include "aitk/platform/overrides.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;

TEST(GlibcOverride, ReadAndReportedAsTheOthers) {
    auto o = read_overrides({{"AITK_ENV_GLIBC_VERSION", "2.28"}});
    ASSERT_TRUE(o) << o.error().describe();
    EXPECT_EQ(o->glibc_version, "2.28");
    EXPECT_EQ(o->active, std::vector<std::string>{"AITK_ENV_GLIBC_VERSION=2.28"});
    EXPECT_FALSE(read_overrides({})->glibc_version);
    EXPECT_FALSE(read_overrides({{"AITK_ENV_GLIBC_VERSION", " "}})->glibc_version);
}

TEST(GlibcOverride, ABadValueNamesTheVariable) {
    for (const char* bad : {"3", "abc", "2.28.1", "glibc 2.28"}) {
        auto o = read_overrides({{"AITK_ENV_GLIBC_VERSION", bad}});
        ASSERT_FALSE(o) << bad;
        EXPECT_NE(o.error().describe().find("AITK_ENV_GLIBC_VERSION: expected MAJOR.MINOR such as "
                                            "2.36"),
                  std::string::npos)
            << o.error().describe();
    }
}

// The override replaces what the probe read, on Linux only (Windows and macOS have no glibc).
TEST(GlibcOverride, AppliesToALinuxHost) {
    HostInfo linux_host;
    linux_host.os = OsKind::linux_os;
    linux_host.libc = {"glibc", "2.36"};
    apply_glibc_override(linux_host, std::string("2.28"));
    EXPECT_EQ(linux_host.libc.to_string(), "glibc 2.28");
    apply_glibc_override(linux_host, std::nullopt);
    EXPECT_EQ(linux_host.libc.to_string(), "glibc 2.28");

    HostInfo windows;
    windows.os = OsKind::windows;
    apply_glibc_override(windows, std::string("2.28"));
    EXPECT_EQ(windows.libc.to_string(), "");
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
