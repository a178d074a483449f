#pragma once
// A machine from facts, as the backend choice sees it (app::Machine): the same value a probe
// gives, for tests that drive app functions without probing (the CLI tests use the stand-in
// NVML and the override variables instead).
#include <optional>
#include <string>
#include <vector>

#include "aitk/app/machine.hpp"
#include "aitk/platform/types.hpp"

namespace aitk::test {

struct MachineFacts {
    platform::OsKind os = platform::OsKind::linux_os;
    std::string arch = "x86_64";
    std::optional<std::string> driver;      // NVIDIA driver ("580.65.06"); nullopt: none
    std::vector<std::string> capabilities;  // one NVIDIA GPU per compute capability ("8.6")
    std::vector<std::string> amd;           // one AMD GPU per gfx target
    bool apple = false;
    std::optional<std::string> forced_backend;
    bool force = false;
};

inline app::Machine machine(const MachineFacts& f) {
    platform::HostInfo host;
    host.os = f.os;
    host.arch = f.arch;
    platform::HardwareProbe probe;
    if (f.driver) {
        platform::NvidiaDriver d;
        d.driver_version = *platform::DriverVersion::parse(*f.driver);
        d.source = platform::NvidiaSource::nvml;
        probe.nvidia = d;
    }
    for (const auto& cc : f.capabilities) {
        platform::GpuDevice g;
        g.vendor = platform::GpuVendor::nvidia;
        g.name = "NVIDIA GPU sm_" + cc;
        g.compute_capability = *platform::ComputeCapability::parse(cc);
        probe.gpus.push_back(g);
    }
    for (const auto& gfx : f.amd) {
        platform::GpuDevice g;
        g.vendor = platform::GpuVendor::amd;
        g.gfx_target = gfx;
        g.name = "AMD " + gfx;
        probe.gpus.push_back(g);
    }
    if (f.apple) {
        platform::GpuDevice g;
        g.vendor = platform::GpuVendor::apple;
        probe.gpus.push_back(g);
    }
    auto m = app::machine_of(host, probe);
    m.forced_backend = f.forced_backend;
    m.force = f.force;
    return m;
}

// A Linux x86_64 machine without a GPU.
inline app::Machine cpu_machine() {
    return machine({});
}

// A Linux x86_64 machine with one NVIDIA GPU per capability.
inline app::Machine nvidia_machine(std::string driver, std::vector<std::string> capabilities) {
    MachineFacts f;
    f.driver = std::move(driver);
    f.capabilities = std::move(capabilities);
    return machine(f);
}

}  // namespace aitk::test
