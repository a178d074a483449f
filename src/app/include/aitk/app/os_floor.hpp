#pragma once
// Whether this machine is new enough for a lock target's wheels: its glibc (Linux; the platform
// probe's, or AITK_ENV_GLIBC_VERSION) or its macOS version against what the target's wheels need
// (lock/lock_floor.hpp, read from the wheels themselves, so that another tool's lock file and a
// lock older than the floor fields are checked alike). For `setup`, `sync` and `doctor -l`.
#include <optional>
#include <string>

#include "aitk/lock/lockfile.hpp"
#include "aitk/platform/host.hpp"

namespace aitk::app {

struct FloorProblem {
    // "vllm 0.19.1 needs glibc ≥ 2.31 (manylinux_2_31_x86_64), this machine has glibc 2.28"
    std::string why;
    // "use a machine with glibc ≥ 2.31 (a newer OS), or take older versions that run here:
    // aitk-env lock --glibc 2.28"
    std::string fix;
};

// nullopt when the machine runs every wheel of `target`, when the target is for another OS,
// or when the machine's version is unknown (nothing to judge by).
std::optional<FloorProblem> floor_problem(const lock::LockedTarget& target,
                                          const platform::HostInfo& host);

}  // namespace aitk::app
