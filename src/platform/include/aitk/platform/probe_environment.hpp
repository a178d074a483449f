#pragma once
// Everything a probe reads from the outside world, passed in rather than taken from globals, so
// tests point probes at fake /sys and /proc trees, fake libraries and fake executables.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/platform/types.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::platform {

struct ProbeTimeouts {
    // Cold NVML initialisation can take ~1.5 s on Windows; a wedged driver never answers.
    std::chrono::milliseconds nvml{10'000};
    std::chrono::milliseconds libcuda{15'000};
    std::chrono::milliseconds nvidia_smi{10'000};
    std::chrono::milliseconds rocm{5'000};
    std::chrono::milliseconds small_tool{3'000};  // e.g. the musl loader's version banner

    // Every limit set to `limit` (AITK_ENV_PROBE_TIMEOUT).
    static ProbeTimeouts all(std::chrono::milliseconds limit);
};

struct ProbeEnvironment {
    // The environment the probes read (overrides, PATH) and hand to the programs they run.
    util::Environment env;
    // /sys and /proc are read under this root ("/" on a real machine).
    std::filesystem::path root = "/";
    OsKind os = host_os();
    ProbeTimeouts timeouts;
    // Command prefix that runs libcuda_child_main (e.g. {"/usr/bin/aitk-env", "doctor",
    // "--libcuda-probe-child"}); the library candidates are appended. Empty: libcuda is skipped.
    std::vector<std::string> libcuda_helper;
    // Library candidates; nullopt means the OS defaults (see nvml.hpp, libcuda.hpp).
    std::optional<std::vector<std::string>> nvml_candidates;
    std::optional<std::vector<std::string>> libcuda_candidates;

    // The running process's environment and the real root.
    static ProbeEnvironment current();

    std::optional<std::string> get(std::string_view name) const;
    // `absolute` ("/sys/module/nvidia/version") re-rooted under `root`.
    std::filesystem::path path(std::string_view absolute) const;
};

// Reads a small text file (at most `limit` bytes); nullopt when it cannot be read. For sysfs and
// procfs, whose files report a size of 0 or 4096 whatever they hold.
std::optional<std::string> read_small_file(const std::filesystem::path& path,
                                           std::size_t limit = 1u << 16);

}  // namespace aitk::platform
