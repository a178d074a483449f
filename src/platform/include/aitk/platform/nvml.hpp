#pragma once
// NVML (the library behind nvidia-smi), loaded with dlopen / LoadLibraryExW: driver version,
// CUDA driver version, and every GPU's name, memory and compute capability.
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/platform/probe_attempt.hpp"
#include "aitk/platform/types.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::platform {

struct NvmlReport {
    std::string library;  // the candidate that loaded
    DriverVersion driver;
    std::optional<CudaVersion> cuda;
    std::vector<GpuDevice> gpus;
    std::vector<std::string> device_errors;  // per-device calls that failed, in words
};

// Where NVML is looked for, in order. Linux: libnvidia-ml.so.1 (the loader's search), then
// /usr/lib/wsl/lib/libnvidia-ml.so.1 (WSL2). Windows: %SystemRoot%\System32\nvml.dll, then
// %ProgramFiles%\NVIDIA Corporation\NVSMI\nvml.dll (older drivers). macOS: none.
// `override_library` (AITK_ENV_NVML_LIBRARY) comes first.
std::vector<std::string> nvml_candidates(OsKind os, const util::Environment& env,
                                         const std::optional<std::string>& override_library);

// The name of an nvmlReturn_t ("NVML_ERROR_DRIVER_NOT_LOADED") for messages.
std::string nvml_error_name(int code);

// Tries each candidate in turn; the first that loads answers or fails. The calls run on a
// separate thread: past `timeout` the probe reports timed_out and leaves that thread behind
// (the library stays loaded), so a wedged driver cannot hang aitk-env.
SourceResult<NvmlReport> probe_nvml(const std::vector<std::string>& candidates,
                                    std::chrono::milliseconds timeout);

}  // namespace aitk::platform
