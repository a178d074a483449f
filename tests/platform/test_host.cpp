// Host facts: parsers for /proc and loader output, the real host, and a fake /proc.
#include "aitk/platform/host.hpp"

#include <gtest/gtest.h>

#include "fake_machine.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::platform;
using aitk::test::TempDir;
using aitk::test::write_file;

TEST(Meminfo, ParsesMemTotal) {
    EXPECT_EQ(*parse_meminfo_total("MemTotal:       24511044 kB\nMemFree:  1 kB\n"),
              24511044ull * 1024);
    EXPECT_EQ(*parse_meminfo_total("MemFree: 1 kB\nMemTotal: 1024 kB"), 1024ull * 1024);
    auto e = parse_meminfo_total("MemFree: 1 kB\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "no MemTotal line in /proc/meminfo");
    e = parse_meminfo_total("MemTotal: lots\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "MemTotal is not followed by a number");
    EXPECT_EQ(e.error().position, 10u);
    e = parse_meminfo_total("MemTotal: 12 MB\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "unknown MemTotal unit \"MB\" (expected kB)");
    EXPECT_FALSE(parse_meminfo_total("MemTotal: 99999999999999999999 kB\n"));
}

TEST(Wsl, RecognisesMicrosoftKernels) {
    EXPECT_TRUE(is_wsl_kernel("5.15.153.1-microsoft-standard-WSL2\n"));
    EXPECT_TRUE(is_wsl_kernel("4.4.0-19041-Microsoft"));
    EXPECT_FALSE(is_wsl_kernel("6.1.0-18-amd64"));
}

TEST(Libc, ParsesGlibcAndMuslBanners) {
    EXPECT_EQ(*parse_gnu_libc_version("glibc 2.36"), (LibcInfo{"glibc", "2.36"}));
    EXPECT_EQ(*parse_gnu_libc_version("2.17"), (LibcInfo{"glibc", "2.17"}));
    EXPECT_EQ(parse_gnu_libc_version("2.36").value().to_string(), "glibc 2.36");
    EXPECT_FALSE(parse_gnu_libc_version("glibc two"));
    EXPECT_EQ(
        *parse_musl_loader_banner("musl libc (x86_64)\nVersion 1.2.4\nDynamic Program Loader\n"),
        "1.2.4");
    auto e = parse_musl_loader_banner("musl libc (aarch64)\nDynamic Program Loader\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "musl banner has no \"Version\" line");
    EXPECT_FALSE(parse_musl_loader_banner("ld.so: usage"));
    EXPECT_EQ((LibcInfo{"musl", ""}).to_string(), "musl");
}

#ifdef _WIN32
TEST(ProbeHost, ThisMachineIsWindowsWithItsVersionAndMemory) {
    auto host = probe_host(ProbeEnvironment::current());
    EXPECT_EQ(host.os, OsKind::windows);
    EXPECT_EQ(host.arch, "x86_64");
    EXPECT_TRUE(host.libc.family.empty());
    ASSERT_TRUE(host.memory_bytes);
    EXPECT_GT(*host.memory_bytes, 100ull << 20);
    EXPECT_FALSE(host.os_version.empty());
    EXPECT_FALSE(host.wsl);
}
#endif

TEST(ProbeHost, ThisMachineIsLinuxX86WithGlibc) {
    auto host = probe_host(ProbeEnvironment::current());
    EXPECT_EQ(host.os, OsKind::linux_os);
    EXPECT_FALSE(host.arch.empty());
    EXPECT_EQ(host.libc.family, "glibc");
    EXPECT_FALSE(host.libc.version.empty());
    ASSERT_TRUE(host.memory_bytes);
    EXPECT_GT(*host.memory_bytes, 100ull << 20);
    EXPECT_FALSE(host.os_version.empty());
}

TEST(ProbeHost, ReadsMemoryAndWslFromTheRoot) {
    TempDir root;
    write_file(root.path / "proc/meminfo", "MemTotal:       33554432 kB\n");
    write_file(root.path / "proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n");
    ProbeEnvironment env;
    env.root = root.path;
    auto host = probe_host(env);
    EXPECT_EQ(host.memory_bytes, 32ull << 30);
    EXPECT_EQ(host.memory_gib(), 32.0);
    EXPECT_TRUE(host.wsl);
}

TEST(FreeDisk, UsesTheNearestExistingFolder) {
    TempDir dir;
    auto here = free_disk_bytes(dir.path);
    auto below = free_disk_bytes(dir.path / "not" / "yet" / "created");
    ASSERT_TRUE(here);
    ASSERT_TRUE(below);
    EXPECT_GT(*here, 0u);
    EXPECT_NEAR(static_cast<double>(*here), static_cast<double>(*below), 64.0 * 1024 * 1024);
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
