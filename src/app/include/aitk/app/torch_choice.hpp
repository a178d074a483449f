#pragma once
// The torch build for this machine, decided from the project's own torch: the releases its
// pins allow, the build a pin or an index option names, the manifest's preference, and what
// the user forces. The answer is a list of lock attempts, best first (setup and lock resolve
// with the first and go on to the next when the indexes cannot satisfy it), or a refusal
// (exit 3) with the reason and the fix. The same decision for a lockfile picks the best of its
// targets whose locked torch runs here.
#include <optional>
#include <string>
#include <vector>

#include "aitk/app/lock_targets.hpp"
#include "aitk/app/machine.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/platform/backend.hpp"
#include "aitk/project/project_input.hpp"
#include "aitk/project/torch_pins.hpp"

namespace aitk::app {

// The request the backend choice answers for `input` (throws util::InputError for torch pins
// that name two builds). The forced backend is the machine's.
platform::BackendRequest backend_request(const project::ProjectInput& input,
                                         const project::TorchPins& pins, const Machine& machine);

// One resolution to try: lock `target` with torch held to `releases` (the releases for which
// the target's backend runs here) by `torch_constraint` ("torch>=2.7,<2.12,!=2.9.*").
struct LockAttempt {
    std::string target;
    std::string backend;
    std::vector<platform::ReleaseKey> releases;
    std::string torch_constraint;  // empty: no torch release is known to hold it (no limit)
};

struct HostChoice {
    platform::BackendChoice choice;
    std::vector<LockAttempt> attempts;  // best first; empty when refused
};

// The attempts for `input` on `machine`. Throws resolve::Unsatisfiable (exit 3) with the
// reason and the fix when no build of the torch the input allows runs here, or when the input
// is not for this machine's platform (uv's `environments`).
HostChoice choose_host_builds(const project::ProjectInput& input, const Machine& machine);

// `machine` as the input's selection sees it: the backend the user chose through the input
// (--extra cu128 of a project whose cu128 extra takes torch from the cu128 index) counts as
// --backend. Throws util::InputError when --backend names another one.
Machine machine_for(const project::ProjectInput& input, const Machine& machine);

// An input that lists every build it can use (project::ProjectInput::only_listed_backends):
// where it lists any for this machine's OS/arch, `choice` keeps only those (on macOS the cpu
// index's torch stands for PyPI's, which runs MPS), and is refused, with the input's builds in
// the fix, when the build chosen is none of them.
void keep_listed_backends(const project::ProjectInput& input, const Machine& machine,
                          platform::BackendChoice& choice);

// "torch>=2.7,<2.12,!=2.9.*": exactly `releases` (any order) among the releases of `tables`.
std::string release_constraint(const std::vector<platform::ReleaseKey>& releases,
                               const platform::Tables& tables);

// Every target of `lock` judged here, and the best that runs (the machine's CUDA builds newest
// first, stable before experimental, ordered by platform::rank_by_driver_fit (native builds
// before those that run through minor-version compatibility, those oldest first), then ROCm,
// XPU, MPS; CPU only where no GPU would be left idle, or when forced). `wanted`: --target, which is
// honoured or refused, never replaced; a forced backend likewise.
LockTargetJudgement judge_lock_targets(const lock::Lockfile& lock, const Machine& machine,
                                       const std::optional<std::string>& wanted = std::nullopt);

// judge_lock_targets' choice; throws resolve::Unsatisfiable (exit 3) with every target's
// verdict and the fix when none runs here.
const lock::LockedTarget& choose_lock_target(
    const lock::Lockfile& lock, const Machine& machine, std::string& reason,
    const std::optional<std::string>& wanted = std::nullopt);

// The target `sync` installs: --target (`wanted`, honoured or refused), else the one the prefix
// was set up for (`prefix_target`), else the lock's only target, else the best that runs here.
// A target that does not run here is refused (exit 3) unless --force: CPU torch on a GPU
// machine included, which only --backend cpu or --target allows.
const lock::LockedTarget& choose_sync_target(const lock::Lockfile& lock, const Machine& machine,
                                             const std::optional<std::string>& wanted,
                                             const std::optional<std::string>& prefix_target,
                                             std::string& reason);

}  // namespace aitk::app
