// Whether a machine is new enough for a lock target's wheels, as data: the machine's glibc or
// macOS against the versions the target's wheel tags name, and the fix each problem offers.
#include "aitk/app/os_floor.hpp"

#include <gtest/gtest.h>

namespace aitk::app {
namespace AITK_FILE_LOCAL {

lock::LockedPackage package_with_wheel(const std::string& name, const std::string& version,
                                       const std::string& tag) {
    lock::LockedPackage package;
    package.name = name;
    package.version = version;
    package.wheel = lock::LockedFile{name + "-" + version + "-" + tag + ".whl",
                                     "https://example.org/" + name, std::string(64, 'a'), 1};
    return package;
}

lock::LockedTarget macos_target() {
    lock::LockedTarget target;
    target.id = "macos-arm64-mps";
    target.os = "macos";
    target.arch = "arm64";
    target.packages = {package_with_wheel("macpkg", "2.0", "cp312-cp312-macosx_15_0_arm64"),
                       package_with_wheel("oldmac", "1.0", "cp312-cp312-macosx_11_0_arm64")};
    return target;
}

platform::HostInfo mac(const std::string& version) {
    platform::HostInfo host;
    host.os = platform::OsKind::macos;
    host.arch = "arm64";
    host.os_version = version;
    return host;
}

TEST(OsFloor, AnOlderMacosNamesThePackageTheVersionsAndBothFixes) {
    const auto problem = floor_problem(macos_target(), mac("13.6.1"));
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->why,
              "macpkg 2.0 needs macOS ≥ 15.0 (macosx_15_0_arm64), this machine has macOS 13.6");
    EXPECT_EQ(problem->fix,
              "run it on macOS 15.0 or newer, or lock older versions that run here: aitk-env "
              "lock --macos 13.6");
}

TEST(OsFloor, ANewEnoughMacosOrAnotherOsHasNoProblem) {
    EXPECT_FALSE(floor_problem(macos_target(), mac("15.1")).has_value());
    platform::HostInfo linux_host;
    linux_host.os = platform::OsKind::linux_os;
    linux_host.libc.family = "glibc";
    linux_host.libc.version = "2.17";
    EXPECT_FALSE(floor_problem(macos_target(), linux_host).has_value());
    EXPECT_FALSE(floor_problem(macos_target(), mac("")).has_value());  // unknown: nothing to judge
}

TEST(OsFloor, AnOlderGlibcOffersTheGlibcCap) {
    lock::LockedTarget target;
    target.id = "linux-x86_64-cpu";
    target.os = "linux";
    target.arch = "x86_64";
    target.packages = {package_with_wheel("vllm", "0.19.1", "cp38-abi3-manylinux_2_31_x86_64")};
    platform::HostInfo host;
    host.os = platform::OsKind::linux_os;
    host.libc.family = "glibc";
    host.libc.version = "2.28";
    const auto problem = floor_problem(target, host);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->why,
              "vllm 0.19.1 needs glibc ≥ 2.31 (manylinux_2_31_x86_64), this machine "
              "has glibc 2.28");
    EXPECT_EQ(problem->fix,
              "run it on a newer OS (glibc ≥ 2.31), or lock older versions that "
              "run here: aitk-env lock --glibc 2.28");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
