#pragma once
// This machine as the backend choice sees it: OS and architecture as targets spell them, the
// hardware probe (driver, GPUs, compute capabilities), the built-in tables, and what the user
// asked for by name (--backend / AITK_ENV_TORCH_BACKEND, --force). Probed once per command;
// tests build one from facts.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/platform/host.hpp"
#include "aitk/platform/probe.hpp"
#include "aitk/platform/tables.hpp"

namespace aitk::app {

struct DoctorOptions;

struct Machine {
    std::string os;           // "linux", "windows", "macos"; empty: this OS cannot be a target
    std::string arch;         // "x86_64", "aarch64", "arm64" (macOS)
    std::string unsupported;  // why `os` is empty
    platform::HostInfo host;
    platform::HardwareProbe hardware;
    bool probe_from_cache = false;
    platform::Tables tables;
    std::optional<std::string> forced_backend;  // validated backend name
    std::string forced_by = "--backend";        // or "AITK_ENV_TORCH_BACKEND"
    bool force = false;                         // --force
    std::vector<std::string> overrides_active;  // detection overrides in effect, for doctor

    // "linux-x86_64-" + backend.
    std::string target_id(std::string_view backend) const;
    // Throws util::Error (exit 3) when this OS cannot be a target.
    void require_target_os() const;
};

// Probes as doctor does: the probe cache in options.cache_dir, the detection overrides, and
// --backend from options.backend ("auto" defers to AITK_ENV_TORCH_BACKEND). `effective`
// receives the probe environment with the override's timeouts applied. Throws
// util::InputError for an invalid override or --backend value.
Machine probe_machine(const DoctorOptions& options,
                      platform::ProbeEnvironment* effective = nullptr);

// A machine from facts (tests, and a target named for another machine), with the built-in
// tables.
Machine machine_of(platform::HostInfo host, platform::HardwareProbe hardware);

}  // namespace aitk::app
