#include "aitk/project/target.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <map>

#include "aitk/pep/marker.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using aitk::project::marker_environment;
using aitk::project::Target;
namespace pep = aitk::pep;

Target parsed(std::string_view id) {
    auto t = Target::parse(id);
    EXPECT_TRUE(t) << id << ": " << (t ? "" : t.error());
    return t ? *t : Target{};
}

std::string error_of(std::string_view id) {
    auto t = Target::parse(id);
    EXPECT_FALSE(t) << id << " parsed";
    return t ? std::string() : t.error();
}

pep::Version version(std::string_view v) {
    return *pep::Version::parse(v);
}

TEST(Target, ParsesTheContractExamples) {
    Target t = parsed("linux-x86_64-cu128");
    EXPECT_EQ(t.os, "linux");
    EXPECT_EQ(t.arch, "x86_64");
    EXPECT_EQ(t.backend, "cu128");
    EXPECT_TRUE(t.is_cuda());
    EXPECT_FALSE(t.is_rocm());
    EXPECT_EQ(t.id(), "linux-x86_64-cu128");

    EXPECT_EQ(parsed("windows-x86_64-cu126").id(), "windows-x86_64-cu126");
    EXPECT_EQ(parsed("macos-arm64-mps").backend, "mps");
    EXPECT_EQ(parsed("linux-aarch64-cu130").arch, "aarch64");
    EXPECT_EQ(parsed("macos-x86_64-cpu").arch, "x86_64");
    EXPECT_EQ(parsed("windows-aarch64-cpu").arch, "aarch64");
    EXPECT_EQ(parsed("linux-x86_64-xpu").backend, "xpu");
    Target rocm = parsed("linux-x86_64-rocm7.1");
    EXPECT_TRUE(rocm.is_rocm());
    EXPECT_FALSE(rocm.is_cuda());
    EXPECT_TRUE(parsed("linux-x86_64-rocm6.2.4").is_rocm());
    EXPECT_TRUE(parsed("linux-x86_64-cu92").is_cuda());
}

TEST(Target, OrdersAndComparesByParts) {
    EXPECT_EQ(parsed("linux-x86_64-cpu"), (Target{"linux", "x86_64", "cpu"}));
    EXPECT_LT(parsed("linux-x86_64-cpu"), parsed("windows-x86_64-cpu"));
}

TEST(Target, NamesTheWrongPartAndSuggestsTheUsualSpelling) {
    EXPECT_EQ(error_of("linux-x86_64"),
              "target \"linux-x86_64\": expected three parts OS-ARCH-BACKEND; write it as "
              "OS-ARCH-BACKEND, such as linux-x86_64-cu130, windows-x86_64-cu126 or "
              "macos-arm64-mps");
    EXPECT_EQ(error_of("linux-x86-64-cpu"),
              "target \"linux-x86-64-cpu\": expected three parts OS-ARCH-BACKEND; write x86_64 "
              "with an underscore");
    EXPECT_EQ(error_of("win-x86_64-cpu"),
              "target \"win-x86_64-cpu\": unknown OS \"win\" (expected linux, windows or macos); "
              "did you mean \"windows\"?");
    EXPECT_EQ(error_of("darwin-arm64-mps"),
              "target \"darwin-arm64-mps\": unknown OS \"darwin\" (expected linux, windows or "
              "macos); did you mean \"macos\"?");
    EXPECT_EQ(error_of("Linux-x86_64-cpu"),
              "target \"Linux-x86_64-cpu\": unknown OS \"Linux\" (expected linux, windows or "
              "macos); did you mean \"linux\"?");
    EXPECT_EQ(error_of("freebsd-x86_64-cpu"),
              "target \"freebsd-x86_64-cpu\": unknown OS \"freebsd\" (expected linux, windows or "
              "macos)");
    EXPECT_EQ(error_of("windows-amd64-cu130"),
              "target \"windows-amd64-cu130\": unknown architecture \"amd64\" (expected x86_64 or "
              "aarch64); did you mean \"x86_64\"?");
    EXPECT_EQ(error_of("linux-arm64-cpu"),
              "target \"linux-arm64-cpu\": \"arm64\" is not a linux architecture (expected "
              "x86_64 or aarch64); did you mean \"aarch64\"? linux calls 64-bit ARM aarch64");
    EXPECT_EQ(error_of("macos-aarch64-mps"),
              "target \"macos-aarch64-mps\": \"aarch64\" is not a macos architecture (expected "
              "x86_64 or arm64); did you mean \"arm64\"? macOS calls 64-bit ARM arm64");
    EXPECT_EQ(error_of("linux-x86_64-cuda"),
              "target \"linux-x86_64-cuda\": unknown backend \"cuda\" (expected cpu, cuXYZ such "
              "as cu130, rocmX.Y such as rocm7.1, xpu or mps); name one CUDA build of the torch "
              "index, such as cu130 or cu126");
    EXPECT_EQ(error_of("linux-x86_64-cu12.6"),
              "target \"linux-x86_64-cu12.6\": unknown backend \"cu12.6\" (expected cpu, cuXYZ "
              "such as cu130, rocmX.Y such as rocm7.1, xpu or mps); did you mean \"cu126\"?");
    EXPECT_EQ(error_of("linux-x86_64-CPU"),
              "target \"linux-x86_64-CPU\": unknown backend \"CPU\" (expected cpu, cuXYZ such as "
              "cu130, rocmX.Y such as rocm7.1, xpu or mps); did you mean \"cpu\"?");
    EXPECT_EQ(error_of("linux-x86_64-rocm"),
              "target \"linux-x86_64-rocm\": unknown backend \"rocm\" (expected cpu, cuXYZ such "
              "as cu130, rocmX.Y such as rocm7.1, xpu or mps); name one ROCm build of the torch "
              "index, such as rocm7.1");
    EXPECT_EQ(error_of("linux-x86_64-cu1300"),
              "target \"linux-x86_64-cu1300\": unknown backend \"cu1300\" (expected cpu, cuXYZ "
              "such as cu130, rocmX.Y such as rocm7.1, xpu or mps); name one CUDA build of the "
              "torch index, such as cu130 or cu126");
    EXPECT_EQ(error_of(""),
              "target \"\": expected three parts OS-ARCH-BACKEND; write it as "
              "OS-ARCH-BACKEND, such as linux-x86_64-cu130, windows-x86_64-cu126 "
              "or macos-arm64-mps");
}

TEST(Target, RefusesCombinationsTorchDoesNotBuild) {
    EXPECT_EQ(error_of("linux-x86_64-mps"),
              "target \"linux-x86_64-mps\": backend mps exists only on macos-arm64, not on "
              "linux-x86_64; use cpu or a GPU build of linux");
    EXPECT_EQ(error_of("macos-arm64-cu130"),
              "target \"macos-arm64-cu130\": torch has no cu130 builds for macOS; use mps or cpu");
    EXPECT_EQ(error_of("macos-x86_64-mps"),
              "target \"macos-x86_64-mps\": backend mps exists only on macos-arm64, not on "
              "macos-x86_64; use cpu or a GPU build of macos");
    EXPECT_EQ(error_of("windows-aarch64-cu130"),
              "target \"windows-aarch64-cu130\": torch has no CUDA builds for windows-aarch64; "
              "use cpu");
    EXPECT_EQ(error_of("windows-x86_64-rocm7.1"),
              "target \"windows-x86_64-rocm7.1\": torch's ROCm builds exist only for "
              "linux-x86_64, not windows-x86_64; use cpu");
    EXPECT_EQ(error_of("linux-aarch64-xpu"),
              "target \"linux-aarch64-xpu\": torch's XPU builds exist only for x86_64, not "
              "linux-aarch64; use cpu");
}

TEST(Target, BackendKinds) {
    using aitk::project::backend_kind;
    EXPECT_EQ(backend_kind("cu130"), "cuda");
    EXPECT_EQ(backend_kind("cu92"), "cuda");
    EXPECT_EQ(backend_kind("rocm7.1"), "rocm");
    EXPECT_EQ(backend_kind("cpu"), "cpu");
    EXPECT_EQ(backend_kind("mps"), "mps");
    EXPECT_EQ(backend_kind("xpu"), "xpu");
    EXPECT_EQ(backend_kind("cuda"), "");
    EXPECT_EQ(backend_kind("cu"), "");
    EXPECT_EQ(backend_kind(""), "");
}

TEST(Target, ArchProblemWithoutAnOsAcceptsEverySpelling) {
    using aitk::project::arch_problem;
    EXPECT_FALSE(arch_problem("arm64"));
    EXPECT_FALSE(arch_problem("aarch64"));
    EXPECT_FALSE(arch_problem("x86_64"));
    auto p = arch_problem("x64");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->message, "unknown architecture \"x64\" (expected x86_64, aarch64 or arm64)");
    EXPECT_EQ(p->hint, "did you mean \"x86_64\"?");
}

// The values packaging.markers.default_environment() gives on each OS with CPython.
std::map<std::string, std::string> marker_values(const Target& t, std::string_view python) {
    pep::MarkerEnvironment env = aitk::project::marker_environment(t, version(python));
    std::map<std::string, std::string> out;
    for (std::size_t i = 0; i < pep::marker_variable_count; ++i) {
        auto v = static_cast<pep::MarkerVariable>(i);
        out[std::string(pep::marker_variable_name(v))] = env.get(v);
    }
    return out;
}

TEST(Target, MarkerEnvironmentOnLinux) {
    std::map<std::string, std::string> expected{
        {"implementation_name", "cpython"},
        {"implementation_version", "3.12.3"},
        {"os_name", "posix"},
        {"platform_machine", "x86_64"},
        {"platform_release", ""},
        {"platform_system", "Linux"},
        {"platform_version", ""},
        {"python_full_version", "3.12.3"},
        {"platform_python_implementation", "CPython"},
        {"python_version", "3.12"},
        {"sys_platform", "linux"},
        {"extra", ""},
    };
    EXPECT_EQ(marker_values(parsed("linux-x86_64-cu130"), "3.12.3"), expected);
    EXPECT_EQ(marker_values(parsed("linux-aarch64-cpu"), "3.12.3")["platform_machine"], "aarch64");
}

TEST(Target, MarkerEnvironmentOnWindows) {
    auto v = marker_values(parsed("windows-x86_64-cu126"), "3.11.9");
    EXPECT_EQ(v["os_name"], "nt");
    EXPECT_EQ(v["sys_platform"], "win32");
    EXPECT_EQ(v["platform_system"], "Windows");
    EXPECT_EQ(v["platform_machine"], "AMD64");
    EXPECT_EQ(v["python_version"], "3.11");
    EXPECT_EQ(v["python_full_version"], "3.11.9");
    EXPECT_EQ(marker_values(parsed("windows-aarch64-cpu"), "3.12.0")["platform_machine"], "ARM64");
}

TEST(Target, MarkerEnvironmentOnMacos) {
    auto v = marker_values(parsed("macos-arm64-mps"), "3.13.0rc1");
    EXPECT_EQ(v["os_name"], "posix");
    EXPECT_EQ(v["sys_platform"], "darwin");
    EXPECT_EQ(v["platform_system"], "Darwin");
    EXPECT_EQ(v["platform_machine"], "arm64");
    EXPECT_EQ(v["python_version"], "3.13");
    EXPECT_EQ(v["python_full_version"], "3.13.0rc1");
    EXPECT_EQ(v["implementation_version"], "3.13.0rc1");
    EXPECT_EQ(marker_values(parsed("macos-arm64-mps"), "3.12")["python_full_version"], "3.12.0");
}

TEST(Target, MarkersEvaluateAgainstTheTarget) {
    auto marker = pep::Marker::parse("sys_platform == 'win32' and platform_machine == 'AMD64'");
    ASSERT_TRUE(marker);
    auto python = version("3.12.3");
    auto on_windows = marker->evaluate(marker_environment(parsed("windows-x86_64-cu130"), python));
    ASSERT_TRUE(on_windows);
    EXPECT_TRUE(*on_windows);
    auto on_linux = marker->evaluate(marker_environment(parsed("linux-x86_64-cu130"), python));
    ASSERT_TRUE(on_linux);
    EXPECT_FALSE(*on_linux);
}

TEST(Target, TagPlatformFollowsTheTarget) {
    using aitk::project::tag_platform;
    auto python = version("3.12.3");
    // Uncapped, a Linux target takes every manylinux level, the oldest glibc first (a lock runs
    // on the most machines); it used to stop at an assumed 2.28.
    auto linux_tags = pep::platform_tags(tag_platform(parsed("linux-x86_64-cu130"), python));
    ASSERT_FALSE(linux_tags.empty());
    EXPECT_EQ(linux_tags.front(), "manylinux_2_5_x86_64");
    EXPECT_EQ(linux_tags.back(), "linux_x86_64");
    EXPECT_NE(std::find(linux_tags.begin(), linux_tags.end(), "manylinux_2_35_x86_64"),
              linux_tags.end());

    aitk::project::TargetAssumptions capped;
    capped.glibc = pep::OsVersion{2, 34};
    capped.oldest_os_first = false;
    auto t = tag_platform(parsed("linux-aarch64-cpu"), python, capped);
    EXPECT_EQ(t.os, pep::TargetOs::linux_glibc);
    EXPECT_EQ(t.python_major, 3u);
    EXPECT_EQ(t.python_minor, 12u);
    EXPECT_EQ(pep::platform_tags(t).front(), "manylinux_2_34_aarch64");
    capped.oldest_os_first = true;
    auto oldest = pep::platform_tags(tag_platform(parsed("linux-aarch64-cpu"), python, capped));
    EXPECT_EQ(oldest.front(), "manylinux_2_17_aarch64");
    EXPECT_EQ(std::find(oldest.begin(), oldest.end(), "manylinux_2_35_aarch64"), oldest.end());

    auto win = pep::platform_tags(tag_platform(parsed("windows-x86_64-cu126"), python));
    EXPECT_EQ(win, std::vector<std::string>{"win_amd64"});

    auto mac = tag_platform(parsed("macos-arm64-mps"), version("3.11.4"));
    EXPECT_EQ(mac.os, pep::TargetOs::macos);
    EXPECT_EQ(mac.python_minor, 11u);
    auto mac_tags = pep::platform_tags(mac);
    ASSERT_FALSE(mac_tags.empty());
    EXPECT_EQ(mac_tags.front(), "macosx_11_0_arm64");
    EXPECT_NE(std::find(mac_tags.begin(), mac_tags.end(), "macosx_14_0_arm64"), mac_tags.end());
    EXPECT_EQ(std::find(mac_tags.begin(), mac_tags.end(), "macosx_15_0_arm64"), mac_tags.end());
    auto cp = pep::compatible_tags(mac);
    ASSERT_FALSE(cp.empty());
    EXPECT_EQ(cp.front().to_string(), "cp311-cp311-macosx_11_0_arm64");
}

TEST(Target, GlibcCapsAreMajorMinorOfARealGlibc) {
    using aitk::project::parse_glibc_cap;
    EXPECT_EQ(*parse_glibc_cap("2.28"), (pep::OsVersion{2, 28}));
    EXPECT_EQ(*parse_glibc_cap("2.5"), (pep::OsVersion{2, 5}));
    auto no_minor = parse_glibc_cap("3");
    ASSERT_FALSE(no_minor);
    EXPECT_EQ(no_minor.error(), "glibc \"3\": expected MAJOR.MINOR such as 2.28");
    EXPECT_FALSE(parse_glibc_cap("abc"));
    EXPECT_FALSE(parse_glibc_cap(""));
    EXPECT_FALSE(parse_glibc_cap("2.28.1"));
    auto three = parse_glibc_cap("3.0");
    ASSERT_FALSE(three);
    EXPECT_NE(three.error().find("every glibc is 2.x"), std::string::npos);
    auto ancient = parse_glibc_cap("2.3");
    ASSERT_FALSE(ancient);
    EXPECT_NE(ancient.error().find("2.5"), std::string::npos);
    EXPECT_FALSE(parse_glibc_cap("2.150"));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
