#pragma once
// AMD GPUs for ROCm: the kfd topology in sysfs (no program to run) or rocm_agent_enumerator.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/platform/probe_attempt.hpp"
#include "aitk/platform/probe_environment.hpp"
#include "aitk/platform/types.hpp"

namespace aitk::platform {

// gfx_target_version is major*10000 + minor*100 + stepping; minor and stepping are written in
// hex: 110000 → gfx1100, 90010 → gfx90a, 90402 → gfx942.
Parsed<std::string> gfx_name_from_target_version(std::uint64_t value);

struct KfdNode {
    std::string gfx_target;  // empty for CPU nodes (gfx_target_version 0)
    std::uint32_t vendor_id = 0;
    std::uint32_t simd_count = 0;
};
// /sys/class/kfd/kfd/topology/nodes/<n>/properties: "key value" lines.
Parsed<KfdNode> parse_kfd_properties(std::string_view text);

// rocm_agent_enumerator prints one gfx name per line; gfx000 is the CPU agent and is dropped.
Parsed<std::vector<std::string>> parse_rocm_agent_enumerator(std::string_view text);

// GPUs from <root>/sys/class/kfd/kfd/topology/nodes (memory from mem_banks/*/properties), else
// from `rocm_agent_enumerator` on PATH. Linux only.
SourceResult<std::vector<GpuDevice>> probe_amd_gpus(const ProbeEnvironment& env);

}  // namespace aitk::platform
