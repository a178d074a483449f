#pragma once
// The hardware probe cached on disk, so repeated commands skip a cold NVML initialisation
// (~1.5 s on Windows) and the child processes. The key changes whenever what the probe would
// see may have changed: a reboot, a driver update (module version, library files), a GPU added
// or removed (PCI list), or any AITK_ENV_* variable.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/platform/probe.hpp"
#include "aitk/platform/probe_environment.hpp"

namespace aitk::platform {

// The material the key is made of, readable for debugging; probe_cache_key() hashes it.
std::string probe_cache_key_material(const ProbeEnvironment& env, std::string_view tool_version);
std::string probe_cache_key(const ProbeEnvironment& env, std::string_view tool_version);

// <cache_dir>/probe/hardware.json
std::filesystem::path probe_cache_file(const std::filesystem::path& cache_dir);

// The cached probe when the file exists, parses and carries `key`; else nullopt. The returned
// probe's attempts start with a "cache" entry naming the file.
std::optional<HardwareProbe> load_cached_probe(const std::filesystem::path& file,
                                               std::string_view key);
// Writes atomically; returns false (and leaves no partial file) when it cannot.
bool store_cached_probe(const std::filesystem::path& file, std::string_view key,
                        const HardwareProbe& probe);

}  // namespace aitk::platform
