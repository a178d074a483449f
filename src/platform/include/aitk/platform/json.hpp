#pragma once
// JSON forms of the probe results: the keys of `doctor --json` (docs/cli.md), and a round
// trip for the probe cache.
#include <nlohmann/json.hpp>

#include "aitk/platform/host.hpp"
#include "aitk/platform/probe.hpp"

namespace aitk::platform {

// {"vendor","name","memory_mib","compute_capability"} plus "gfx_target"/"pci_address"/
// "integrated" where set. Unknown values are null.
nlohmann::json to_json(const GpuDevice& gpu);
// null, or {"driver_version","cuda_version","source"}.
nlohmann::json to_json(const std::optional<NvidiaDriver>& nvidia);
nlohmann::json to_json(const ProbeAttempt& attempt);
nlohmann::json to_json(const HardwareProbe& probe);
// {"os","arch","libc","os_version","memory_gib","wsl"}.
nlohmann::json to_json(const HostInfo& host);

Parsed<GpuDevice> gpu_from_json(const nlohmann::json& j);
Parsed<HardwareProbe> probe_from_json(const nlohmann::json& j);

}  // namespace aitk::platform
