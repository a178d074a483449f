#pragma once
// Value types for what the probes find: OS, driver and CUDA versions, compute capabilities, GPUs.
// All parsers return Expected with a precise error and never throw.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/util/error.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::platform {

using util::ParseError;
template <class T>
using Parsed = util::Expected<T, ParseError>;

// The OS a decision is about. Probes report the host's; decisions (backend, search paths, the
// MSVC runtime) take it as an argument so Windows rules are tested on Linux as data.
enum class OsKind : std::uint8_t { linux_os, windows, macos, other };

std::string_view os_name(OsKind os) noexcept;  // "linux", "windows", "macos", "other"
Parsed<OsKind> parse_os_name(std::string_view text);
OsKind host_os() noexcept;  // what this binary was built for

// "amd64"/"x64"/"x86_64" → "x86_64"; "arm64"/"aarch64" → "aarch64" on Linux and Windows,
// "arm64" on macOS (the names wheel tags and the contract's targets use); other names pass
// through in lower case.
std::string normalize_arch(std::string_view machine, OsKind os);

// A CUDA compute capability such as 8.6 (sm_86).
struct ComputeCapability {
    unsigned major = 0;
    unsigned minor = 0;

    // "8.6", "12.0"; surrounding whitespace allowed. Each part is 1-2 digits.
    static Parsed<ComputeCapability> parse(std::string_view text);
    std::string to_string() const;  // "8.6"
    std::string sm() const;         // "sm_86"
    friend auto operator<=>(const ComputeCapability&, const ComputeCapability&) = default;
};

// An NVIDIA kernel driver version: 1-4 dot-separated numbers ("580", "535.154.05"). The text is
// kept as written for display ("06" stays "06"); comparison is numeric per component, missing
// components counting as 0.
class DriverVersion {
  public:
    static Parsed<DriverVersion> parse(std::string_view text);
    const std::string& text() const noexcept { return text_; }
    const std::vector<std::uint32_t>& components() const noexcept { return components_; }
    unsigned major() const noexcept { return components_.empty() ? 0 : components_[0]; }

    friend std::strong_ordering operator<=>(const DriverVersion& a,
                                            const DriverVersion& b) noexcept;
    friend bool operator==(const DriverVersion& a, const DriverVersion& b) noexcept {
        return (a <=> b) == 0;
    }

  private:
    std::string text_;
    std::vector<std::uint32_t> components_;
};

// The CUDA driver API version (what cuDriverGetVersion / NVML report): 13.0, 12.4.
struct CudaVersion {
    unsigned major = 0;
    unsigned minor = 0;

    // 1000*major + 10*minor, as cuDriverGetVersion returns it (12040 → 12.4).
    static Parsed<CudaVersion> from_api_number(long long value);
    // "12.4", "13.0", "12" (minor 0).
    static Parsed<CudaVersion> parse(std::string_view text);
    std::string to_string() const;  // "12.4"
    friend auto operator<=>(const CudaVersion&, const CudaVersion&) = default;
};

enum class GpuVendor : std::uint8_t { nvidia, amd, intel, apple };
std::string_view vendor_name(GpuVendor vendor) noexcept;  // "nvidia", "amd", "intel", "apple"
Parsed<GpuVendor> parse_vendor_name(std::string_view text);

// Where a GPU's compute capability came from: reported by the source that listed the GPU
// (NVML, libcuda, nvidia-smi) or set by an override, or looked up by the GPU's name in
// manifests/gpu-models.yaml because no source could say (gpu_models.hpp).
enum class CapabilitySource : std::uint8_t { reported, model_name_table };
// "reported", "model-name-table"
std::string_view capability_source_name(CapabilitySource source) noexcept;

struct GpuDevice {
    GpuVendor vendor = GpuVendor::nvidia;
    std::string name;                                     // "NVIDIA H200"; may be empty
    std::optional<std::uint64_t> memory_mib;              // total device memory
    std::optional<ComputeCapability> compute_capability;  // NVIDIA only
    std::string gfx_target;                               // AMD only: "gfx1100"
    std::string pci_address;                              // "0000:01:00.0" where known
    bool integrated = false;                              // Intel iGPU, AMD APU
    // Meaningful only when compute_capability is set.
    CapabilitySource compute_capability_source = CapabilitySource::reported;
    friend bool operator==(const GpuDevice&, const GpuDevice&) = default;
};

// Where the NVIDIA facts came from (`nvidia.source` in docs/cli.md).
enum class NvidiaSource : std::uint8_t { override_env, nvml, libcuda, sysfs, procfs, nvidia_smi };
std::string_view source_name(NvidiaSource source) noexcept;  // "override", "nvml", ...
Parsed<NvidiaSource> parse_source_name(std::string_view text);

struct NvidiaDriver {
    std::optional<DriverVersion> driver_version;  // absent when only a CUDA version is known
    std::optional<CudaVersion> cuda_version;      // absent when the source does not say
    NvidiaSource source = NvidiaSource::nvml;
    friend bool operator==(const NvidiaDriver&, const NvidiaDriver&) = default;
};

// Helper for parsers in this layer.
inline util::Unexpected<ParseError> parse_error(std::string message, std::string_view input,
                                                std::size_t position = ParseError::no_position) {
    return util::Unexpected<ParseError>(
        ParseError{std::move(message), std::string(input), position});
}

}  // namespace aitk::platform
