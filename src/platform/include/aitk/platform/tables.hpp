#pragma once
// The data behind backend choice and doctor's readiness checks, loaded from the YAML tables in
// manifests/ (compiled into the binary): driver → CUDA family, torch release → backends,
// backend → compute capabilities, hardware profiles. Loaders never throw; an error names the
// table, line and column.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/platform/types.hpp"

namespace aitk::platform {

// "2.13" as numbers; torch versions are matched on major.minor.
struct ReleaseKey {
    unsigned major = 0;
    unsigned minor = 0;
    static Parsed<ReleaseKey> parse(std::string_view text);  // "2.13"
    std::string to_string() const;
    friend auto operator<=>(const ReleaseKey&, const ReleaseKey&) = default;
};

struct CudaFamily {
    unsigned cuda_major = 0;
    DriverVersion linux_min_driver;
    DriverVersion windows_min_driver;
    std::vector<std::string> unverified;
    std::string source;
    const DriverVersion& min_driver(OsKind os) const {
        return os == OsKind::windows ? windows_min_driver : linux_min_driver;
    }
};

struct ToolkitDriver {
    CudaVersion cuda;
    std::optional<DriverVersion> linux_driver;
    std::optional<DriverVersion> windows_driver;
};

// The oldest driver that knows a GPU architecture (Blackwell: R570). Below it no CUDA build runs
// on such a GPU, whatever the build's family allows. A row names either whole majors (10, 12)
// or exact capabilities (12.1: GB10); an exact row wins over its major's row.
struct ArchDriverFloor {
    std::string name;                             // "Blackwell"
    std::vector<unsigned> capability_majors;      // 10, 12
    std::vector<ComputeCapability> capabilities;  // exact: 12.1
    // Builds made with an older CUDA toolkit do not run on such a GPU even where their kernels
    // would (DGX Spark's GB10 is supported from CUDA 13.0); nullopt: no such limit.
    std::optional<CudaVersion> min_build_cuda;
    DriverVersion linux_min_driver;
    DriverVersion windows_min_driver;
    std::optional<CudaVersion> cuda;  // the CUDA level that driver reports (12.8)
    std::string source;
    const DriverVersion& min_driver(OsKind os) const {
        return os == OsKind::windows ? windows_min_driver : linux_min_driver;
    }
};

struct DriverTable {
    std::vector<CudaFamily> families;  // newest first
    std::vector<ToolkitDriver> toolkit_drivers;
    std::vector<ArchDriverFloor> arch_floors;

    const CudaFamily* family(unsigned cuda_major) const;
    // The driver CUDA toolkit `cuda` shipped with on `os` (nullptr: not in the table).
    const DriverVersion* toolkit_driver(const CudaVersion& cuda, OsKind os) const;
    // The driver floor of a GPU of capability `cc` (nullptr: none is listed).
    const ArchDriverFloor* arch_floor(const ComputeCapability& cc) const;
    // The newest CUDA major family the driver runs (nullopt: older than every family).
    std::optional<unsigned> newest_family(const DriverVersion& driver, OsKind os) const;
};

struct TorchRelease {
    ReleaseKey torch;
    std::vector<std::string> cuda;               // stable, as listed
    std::vector<std::string> cuda_experimental;  // offered, preferred last
    std::vector<std::string> rocm;               // "7.2" → backend "rocm7.2"
    bool xpu = false;
    std::vector<std::string> unverified;
    std::string source;

    bool offers(std::string_view backend) const;
};

struct ArchRow {
    std::string variant;  // "cu126"
    // The CPU architecture of the builds: "" for x86_64 (Linux and Windows), "aarch64" for the
    // Linux aarch64 (SBSA) wheels, whose kernel lists differ.
    std::string arch;
    ReleaseKey torch_from;
    std::optional<ReleaseKey> torch_to;  // inclusive; nullopt: open-ended
    std::vector<ComputeCapability> sass;
    std::vector<ComputeCapability> ptx;
    std::string source;
    std::string unverified;

    bool applies_to(const ReleaseKey& torch) const;
};

// How a backend's kernels reach a device of a given compute capability.
enum class Coverage : std::uint8_t { none, sass, ptx };

struct ArchTable {
    std::vector<ArchRow> rows;
    // The row for `variant`'s builds of `torch` on `arch` (the machine's: "x86_64", "aarch64").
    const ArchRow* find(std::string_view variant, const ReleaseKey& torch,
                        std::string_view arch = "x86_64") const;
};

// SASS for X.y runs on X.z (z >= y); PTX for X.y JIT-compiles on any capability >= X.y.
Coverage coverage(const ArchRow& row, const ComputeCapability& device);

struct HardwareProfile {
    std::string id;
    std::string description;
    double min_ram_gib = 0;
    double min_vram_gib = 0;
    std::string source;
    std::vector<std::string> unverified;
};

struct PlatformSupport {
    std::string status;  // "ok" or "warn"
    std::string message;
};

struct HardwareProfiles {
    std::vector<HardwareProfile> profiles;
    std::map<std::string, PlatformSupport> platforms;  // keyed by os_name()
    double disk_warn_below_gib = 20;
    double disk_fail_below_gib = 5;
};

struct Tables {
    DriverTable drivers;
    std::vector<TorchRelease> releases;  // ascending
    std::string torch_index_url;
    ArchTable archs;
    HardwareProfiles hardware;

    const TorchRelease* release(const ReleaseKey& key) const;
};

// Parsers for each table's text; `name` is used in error messages ("cuda-drivers.yaml").
Parsed<DriverTable> parse_driver_table(std::string_view yaml, std::string_view name);
Parsed<std::vector<TorchRelease>> parse_torch_releases(std::string_view yaml, std::string_view name,
                                                       std::string* index_url = nullptr);
Parsed<ArchTable> parse_arch_table(std::string_view yaml, std::string_view name);
Parsed<HardwareProfiles> parse_hardware_profiles(std::string_view yaml, std::string_view name);

// The tables compiled into the binary from manifests/. Parsed once per call.
Parsed<Tables> builtin_tables();

// What a manifest says about hardware: its torch version, backend preference and hardware
// profiles. Only these keys are read; the manifest layer validates the rest. Absent keys stay
// empty.
struct ManifestHardware {
    std::optional<std::string> torch_version;     // "2.13.0" (a leading "==" is dropped)
    std::vector<std::string> preferred_backends;  // "cu130", "cu126", ...
    std::optional<std::vector<HardwareProfile>> profiles;
};
Parsed<ManifestHardware> parse_manifest_hardware(std::string_view yaml, std::string_view name);

}  // namespace aitk::platform
