#pragma once
// A lock/install target, "OS-ARCH-BACKEND" (CLI-CONTRACT.md "Targets"): linux|windows|macos,
// x86_64|aarch64|arm64, cpu|cuXYZ|rocmX.Y|xpu|mps. With a Python version it gives the PEP 508
// marker environment and the wheel tags of that target, so a lock made on Linux can hold a
// Windows target.
#include <string>
#include <string_view>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::project {

struct Target {
    std::string os;       // "linux", "windows", "macos"
    std::string arch;     // "x86_64", "aarch64", "arm64"
    std::string backend;  // "cpu", "cu130", "rocm7.1", "xpu", "mps"

    // "linux-x86_64-cu130". Errors say which part is wrong and list the accepted values.
    static util::Expected<Target, std::string> parse(std::string_view id);
    std::string id() const;
    bool is_cuda() const;  // cuXYZ
    bool is_rocm() const;
    friend auto operator<=>(const Target&, const Target&) = default;
};

// What a target assumes about the machine beyond OS/arch: the oldest glibc / macOS it must
// run on (the wheels' platform tags are chosen for it).
struct TargetAssumptions {
    pep::OsVersion glibc{2, 28};   // torch's manylinux_2_28 wheels
    pep::OsVersion macos{14, 0};
};

// CPython `python` (a full version, "3.12.3") on `target`: the values pip would see there
// (platform_machine "x86_64"/"AMD64"/"arm64", sys_platform "linux"/"win32"/"darwin",
// platform_system, os_name, implementation_*). platform_release/platform_version are empty.
pep::MarkerEnvironment marker_environment(const Target& target, const pep::Version& python);

pep::TargetPlatform tag_platform(const Target& target, const pep::Version& python,
                                 const TargetAssumptions& assumptions = {});

}  // namespace aitk::project
