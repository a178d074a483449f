#pragma once
// The NVIDIA kernel module's own files: /sys/module/nvidia/version, /proc/driver/nvidia/version
// (absent on WSL2) and /proc/driver/nvidia/gpus/<bus>/information; plus the PCI display devices
// under /sys/bus/pci/devices, which tell how many GPUs of each vendor there are.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/platform/probe_attempt.hpp"
#include "aitk/platform/probe_environment.hpp"
#include "aitk/platform/types.hpp"

namespace aitk::platform {

// "580.65.06\n" → 580.65.06.
Parsed<DriverVersion> parse_sysfs_driver_version(std::string_view text);

// The "NVRM version:" line of /proc/driver/nvidia/version, e.g.
// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.154.05  Thu Dec 28 15:37:48 UTC 2023" or
// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  (...)":
// the first word that is a whole driver version.
Parsed<DriverVersion> parse_proc_driver_version(std::string_view text);

struct ProcGpuInformation {
    std::string model;         // "NVIDIA GeForce RTX 3090"
    std::string bus_location;  // "0000:01:00.0"
};
// /proc/driver/nvidia/gpus/<bus>/information ("Model: \t\t NVIDIA GeForce RTX 3090" lines).
Parsed<ProcGpuInformation> parse_proc_gpu_information(std::string_view text);

struct PciDisplayDevice {
    std::string address;  // "0000:01:00.0"
    std::uint16_t vendor = 0;
    std::uint16_t device = 0;
    std::uint32_t class_code = 0;  // 0x030000 VGA, 0x030200 3D controller, 0x038000 other display
    friend bool operator==(const PciDisplayDevice&, const PciDisplayDevice&) = default;
};

inline constexpr std::uint16_t kPciVendorNvidia = 0x10de;
inline constexpr std::uint16_t kPciVendorAmd = 0x1002;
inline constexpr std::uint16_t kPciVendorIntel = 0x8086;

// Display-class (0x03xxxx) devices under <root>/sys/bus/pci/devices, sorted by address.
std::vector<PciDisplayDevice> scan_pci_display_devices(const ProbeEnvironment& env);

// Intel's integrated GPUs sit on the root bus (0000:00:02.0); discrete Arc cards sit behind a
// bridge on another bus. Only discrete devices count as XPU targets.
bool is_intel_discrete(const PciDisplayDevice& device);

struct DriverFileReport {
    DriverVersion driver;
    std::vector<GpuDevice> gpus;  // NVIDIA devices from PCI, named from /proc where possible
};

// /sys/module/nvidia/version (source sysfs) and /proc/driver/nvidia/version (source procfs).
// Both list GPUs from PCI and names from /proc/driver/nvidia/gpus; neither knows compute
// capabilities.
SourceResult<DriverFileReport> probe_sysfs_driver(const ProbeEnvironment& env);
SourceResult<DriverFileReport> probe_procfs_driver(const ProbeEnvironment& env);

}  // namespace aitk::platform
