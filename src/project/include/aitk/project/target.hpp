#pragma once
// A lock/install target, "OS-ARCH-BACKEND" (docs/cli.md "Targets"): linux|windows|macos,
// x86_64|aarch64|arm64, cpu|cuXYZ|rocmX.Y|xpu|mps. With a Python version it gives the PEP 508
// marker environment and the wheel tags of that target, so a lock made on Linux can hold a
// Windows target.
#include <optional>
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

// One part of a target id that is not accepted: what is wrong and how to fix it.
struct TargetPartProblem {
    std::string message;  // "unknown OS \"win\" (expected linux, windows or macos)"
    std::string hint;     // "did you mean \"windows\"?"; may be empty
};

// Checks of the single parts, shared by Target::parse and the manifest's `os:`/`arch:`/
// `backends:` lists. Names are strict (lower case, the contract's spellings); the hints name
// the usual alias ("amd64" → "x86_64", "arm64" on Linux → "aarch64", "darwin" → "macos").
std::optional<TargetPartProblem> os_problem(std::string_view os);
// `os` (may be empty) refines the hint: aarch64 is spelled arm64 on macOS only.
std::optional<TargetPartProblem> arch_problem(std::string_view arch, std::string_view os = {});
std::optional<TargetPartProblem> backend_problem(std::string_view backend);
// Whether torch ships wheels for this combination of valid parts (mps only on macos-arm64,
// CUDA on linux x86_64/aarch64 and windows x86_64, ROCm on linux-x86_64, XPU on x86_64 Linux
// and Windows, cpu everywhere).
std::optional<TargetPartProblem> combination_problem(std::string_view os, std::string_view arch,
                                                     std::string_view backend);

// "cuda" for cuXYZ, "rocm" for rocmX.Y, the name itself for cpu/mps/xpu; "" for anything else.
std::string_view backend_kind(std::string_view backend) noexcept;

// The newest glibc an uncapped Linux target takes wheels for: every manylinux level there is
// (2.41 is 2025's glibc), as `uv lock` and pip on a current machine take them.
inline constexpr pep::OsVersion newest_glibc{2, 99};
// The macOS a macOS target's wheels may need when the lock names none (--macos).
inline constexpr pep::OsVersion default_macos{14, 0};

// What a target assumes about the machine beyond OS/arch: the newest glibc / macOS the
// machines it is for have (the wheels' platform tags are chosen for it).
struct TargetAssumptions {
    // --glibc, a manifest's `glibc:`, [tool.aitk-env] glibc; unset: newest_glibc.
    std::optional<pep::OsVersion> glibc;
    // --macos; by default default_macos.
    pep::OsVersion macos = default_macos;
    // Among a version's files, the one that needs the oldest glibc / macOS first (a lock, so
    // that it runs on the most machines); off: pip's order on the machine it runs on.
    bool oldest_os_first = true;
};

// A glibc cap as --glibc, a manifest's `glibc:` and [tool.aitk-env] glibc write it: "2.28".
// Errors say what is wrong ("expected MAJOR.MINOR such as 2.28", "no glibc 3.0 exists: every
// glibc is 2.x", "older than the oldest manylinux glibc, 2.5").
util::Expected<pep::OsVersion, std::string> parse_glibc_cap(std::string_view text);

// A macOS cap as --macos writes it: "13.0", "10.15". Errors say what is wrong ("expected
// MAJOR.MINOR such as 13.0", "older than the oldest macOS wheels name, 10.9").
util::Expected<pep::OsVersion, std::string> parse_macos_cap(std::string_view text);

// CPython `python` (a full version, "3.12.3") on `target`: the values pip would see there
// (platform_machine "x86_64"/"AMD64"/"arm64", sys_platform "linux"/"win32"/"darwin",
// platform_system, os_name, implementation_*). platform_release/platform_version are empty.
pep::MarkerEnvironment marker_environment(const Target& target, const pep::Version& python);

pep::TargetPlatform tag_platform(const Target& target, const pep::Version& python,
                                 const TargetAssumptions& assumptions = {});

}  // namespace aitk::project
