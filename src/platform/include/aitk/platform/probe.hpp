#pragma once
// The whole hardware probe: overrides first, then NVIDIA sources best first (NVML → libcuda →
// sysfs → procfs → nvidia-smi, docs/data-sources.md §4), AMD (kfd / rocm_agent_enumerator), Intel
// discrete GPUs (PCI), Apple Silicon. Every step is recorded, with its outcome, for doctor.
#include <vector>

#include "aitk/platform/host.hpp"
#include "aitk/platform/overrides.hpp"
#include "aitk/platform/probe_attempt.hpp"
#include "aitk/platform/probe_environment.hpp"
#include "aitk/platform/types.hpp"

namespace aitk::platform {

struct HardwareProbe {
    std::optional<NvidiaDriver> nvidia;  // nullopt: no NVIDIA driver found (or GPUs ignored)
    std::vector<GpuDevice> gpus;         // NVIDIA first (in driver order), then AMD, Intel, Apple
    std::vector<ProbeAttempt> attempts;
    bool gpus_ignored = false;  // AITK_ENV_NO_GPU
    friend bool operator==(const HardwareProbe&, const HardwareProbe&) = default;

    std::vector<GpuDevice> gpus_of(GpuVendor vendor) const;
    bool has(GpuVendor vendor) const;
};

HardwareProbe probe_hardware(const ProbeEnvironment& env, const HostInfo& host,
                             const DetectionOverrides& overrides);

}  // namespace aitk::platform
