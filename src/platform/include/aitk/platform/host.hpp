#pragma once
// Host facts: OS, architecture, libc, OS version, memory, WSL, free disk.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/platform/probe_environment.hpp"
#include "aitk/platform/types.hpp"

namespace aitk::platform {

struct LibcInfo {
    std::string family;             // "glibc", "musl"; empty off Linux
    std::string version;            // "2.36"; empty when unknown
    std::string to_string() const;  // "glibc 2.36", "musl 1.2.4", "musl", ""
    friend bool operator==(const LibcInfo&, const LibcInfo&) = default;
};

// A Jetson board (Linux for Tegra): its model and L4T release. JetPack 7 (L4T R38, Thor) runs
// the aarch64 server (SBSA) CUDA builds of download.pytorch.org; older JetPacks (R35, R36: Orin,
// Xavier) need NVIDIA's own torch for their integrated GPU.
struct JetsonBoard {
    std::string model;       // "NVIDIA Jetson AGX Orin Developer Kit"; may be empty
    unsigned l4t_major = 0;  // 36; 0 when /etc/nv_tegra_release is unreadable
    std::string l4t;         // "36.4.3"
    bool runs_sbsa_builds() const { return l4t_major >= 38; }
    std::string jetpack() const;  // "JetPack 6" for R36, "" when unknown
    friend bool operator==(const JetsonBoard&, const JetsonBoard&) = default;
};

struct HostInfo {
    OsKind os = OsKind::other;
    std::string arch;  // normalised: x86_64, aarch64 (arm64 on macOS)
    LibcInfo libc;
    std::string os_version;  // macOS product version, Windows build, Linux kernel release
    std::optional<std::uint64_t> memory_bytes;
    bool wsl = false;                   // Linux under WSL2 (GPU libraries live in /usr/lib/wsl/lib)
    std::optional<JetsonBoard> jetson;  // Linux on a Jetson board
    friend bool operator==(const HostInfo&, const HostInfo&) = default;

    std::optional<double> memory_gib() const;
};

// Reads the host (memory and WSL from the environment's root on Linux).
HostInfo probe_host(const ProbeEnvironment& env);

// AITK_ENV_GLIBC_VERSION (DetectionOverrides::glibc_version): a Linux host's C library becomes
// that glibc; other hosts have none, and nothing changes without a value.
void apply_glibc_override(HostInfo& host, const std::optional<std::string>& glibc);

// A Jetson from /etc/nv_tegra_release ("# R36 (release), REVISION: 4.3, GCID: …") and
// /proc/device-tree/model ("NVIDIA Jetson AGX Orin Developer Kit\0"); either may be empty.
// nullopt: not a Jetson (no release file, and no model naming Jetson).
std::optional<JetsonBoard> parse_jetson(std::string_view tegra_release, std::string_view model);

// "MemTotal:       24511044 kB" → bytes.
Parsed<std::uint64_t> parse_meminfo_total(std::string_view meminfo);
// /proc/sys/kernel/osrelease of WSL kernels names Microsoft ("5.15.153.1-microsoft-standard-WSL2").
bool is_wsl_kernel(std::string_view osrelease);
// The banner the musl dynamic loader prints when run without arguments ("musl libc (x86_64)\n
// Version 1.2.4\n...") → "1.2.4".
Parsed<std::string> parse_musl_loader_banner(std::string_view banner);
// confstr(_CS_GNU_LIBC_VERSION) text ("glibc 2.36") → {glibc, 2.36}.
Parsed<LibcInfo> parse_gnu_libc_version(std::string_view text);

// Free bytes for an unprivileged user at `at`, or at its nearest existing ancestor (the prefix
// may not exist yet).
std::optional<std::uint64_t> free_disk_bytes(const std::filesystem::path& at);

}  // namespace aitk::platform
