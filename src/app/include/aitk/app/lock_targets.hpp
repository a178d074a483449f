#pragma once
// Which target of a lockfile runs on this machine, judged by each target's locked torch build
// (its version, local label and backend), for `setup -l`, `sync` and `doctor -l`.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace aitk::app {

struct LockTargetVerdict {
    std::string id;     // "linux-x86_64-cu128"
    std::string torch;  // the locked torch ("2.7.0+cu128"); empty: the target holds no torch
    bool runs = false;
    bool chosen = false;
    std::string why;  // "runs", "needs driver ≥ 580 (CUDA 13.x)", "for windows-x86_64"
    // What makes it run here when that is not another lock target or build: a newer OS, or a
    // lock that takes older versions (os_floor.hpp); empty otherwise.
    std::string fix;
};

struct LockTargetJudgement {
    std::vector<LockTargetVerdict> targets;  // every target of the lock, in the lock's order
    std::optional<std::size_t> chosen;       // index into targets (and the lock's targets)
    std::string reason;                      // why that one, or why none
    std::string fix;                         // when none: what to do
    nlohmann::json to_json() const;
};

}  // namespace aitk::app
