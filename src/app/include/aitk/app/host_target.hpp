#pragma once
// This machine as a lock target ("linux-x86_64-cu130"): OS and architecture from the host
// probe, the backend from the same choice doctor makes (driver, CUDA, compute capability,
// overrides, --backend).
#include <string>
#include <vector>

#include "aitk/app/doctor.hpp"

namespace aitk::app {

struct HostTarget {
    std::string id;      // empty when this OS cannot be a target
    std::string reason;  // why that backend (doctor's reason), or why no target
    std::string os;      // "linux", "windows", "macos"
    std::string arch;    // as targets spell it: "x86_64", "aarch64", "arm64" (macOS)
    // Backends this machine runs, best first ("cu130", "cu126", "cpu"): a lockfile's targets
    // are tried in this order.
    std::vector<std::string> backends;
};

// `options` as for doctor; pythons are not discovered. A refused backend falls back to "cpu"
// (the reason says so): a lock can still be made, and doctor explains the refusal.
HostTarget detect_host_target(DoctorOptions options);

}  // namespace aitk::app
