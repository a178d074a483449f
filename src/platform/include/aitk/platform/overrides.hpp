#pragma once
// Detection overrides from the environment (docs/cli.md "Detection overrides"): they win
// over every probe, in the spirit of uv's UV_CUDA_DRIVER_VERSION and conda's CONDA_OVERRIDE_CUDA.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/platform/types.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::platform {

inline constexpr std::string_view kEnvDriverVersion = "AITK_ENV_CUDA_DRIVER_VERSION";
inline constexpr std::string_view kEnvCudaVersion = "AITK_ENV_CUDA_VERSION";
inline constexpr std::string_view kEnvComputeCapability = "AITK_ENV_GPU_COMPUTE_CAPABILITY";
inline constexpr std::string_view kEnvNoGpu = "AITK_ENV_NO_GPU";
inline constexpr std::string_view kEnvNvmlLibrary = "AITK_ENV_NVML_LIBRARY";
inline constexpr std::string_view kEnvLibcudaLibrary = "AITK_ENV_LIBCUDA_LIBRARY";
inline constexpr std::string_view kEnvNvidiaSmi = "AITK_ENV_NVIDIA_SMI";
inline constexpr std::string_view kEnvTorchBackend = "AITK_ENV_TORCH_BACKEND";
inline constexpr std::string_view kEnvProbeTimeout = "AITK_ENV_PROBE_TIMEOUT";
inline constexpr std::string_view kEnvNvidiaSources = "AITK_ENV_NVIDIA_SOURCES";
inline constexpr std::string_view kEnvGlibcVersion = "AITK_ENV_GLIBC_VERSION";

struct DetectionOverrides {
    std::optional<DriverVersion> driver_version;
    std::optional<CudaVersion> cuda_version;
    std::optional<std::vector<ComputeCapability>> compute_capabilities;
    bool no_gpu = false;
    std::optional<std::string> nvml_library;
    std::optional<std::string> libcuda_library;
    std::optional<std::string> nvidia_smi;
    std::optional<std::string> torch_backend;  // validated backend name; "auto" reads as nullopt
    std::optional<double> probe_timeout_seconds;
    // The NVIDIA sources to try (nvml, libcuda, sysfs, procfs, nvidia-smi), always in the
    // best-first order; nullopt: all. For a source that misbehaves on a machine, and for tests.
    std::optional<std::vector<std::string>> nvidia_sources;
    // The machine's glibc ("2.28") instead of the one the probe reads (Linux only): a lock
    // target's glibc floor is checked against it.
    std::optional<std::string> glibc_version;

    // "NAME=value" for every override that changes what is detected, for reports.
    std::vector<std::string> active;
};

// Reads and validates every override. An invalid value is an error naming the variable, e.g.
// "AITK_ENV_GPU_COMPUTE_CAPABILITY: expected '.' after the major compute capability (write 8.6,
// not 86) (at column 1 of '86')". Empty values count as unset.
Parsed<DetectionOverrides> read_overrides(const util::Environment& env,
                                          bool case_insensitive = false);

// A torch backend name as the indexes spell it: cpu, cuXYZ (cu126), rocmX.Y[.Z] (rocm6.2.4),
// xpu, mps. Case is folded. "auto" is not a backend; callers handle it first.
Parsed<std::string> parse_backend_name(std::string_view text);

}  // namespace aitk::platform
