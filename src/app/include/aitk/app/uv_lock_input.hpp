#pragma once
// A teammate's uv.lock as a lockfile: `setup -l uv.lock`, `sync -l uv.lock` and
// `lock --from uv.lock` read it through app::read_any_lock (app/any_lock.hpp), which calls this
// reader: it reads the lock (lock/uv_lock.hpp), picks what `uv sync --frozen` would install
// for each target with the chosen extras and groups (lock/uv_lock_install.hpp), and turns it into
// lock::Lockfile targets, so every later stage (target choice, sync, verify, export, bundle)
// works on it as on our own lock. Nothing is resolved again.
//
// Targets. A lock whose project puts its torch backends behind extras or groups in `conflicts`
// (fish-speech's cpu/cu126/cu128/cu129, nanochat's cpu/gpu, InvokeAI's cpu/cuda/rocm/xpu)
// gives one target per such extra, its backend read from the torch it installs: the index it
// comes from (…/whl/cu128 → cu128, on any host), else its local version label, else PyPI's
// build (Linux: the CUDA runtime its nvidia-* wheels bring; Windows and Intel macOS: cpu; Apple
// silicon: mps). Otherwise each OS-arch gets one target with the backend of its torch (cpu when
// it has none). setup then picks the target this machine runs by driver and compute capability
// (app/torch_choice.hpp), as for any lock.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aitk/app/machine.hpp"
#include "aitk/lock/lockfile.hpp"

namespace aitk::app {

// This reader's options: uv sync's --extra, --all-extras, --group, --no-default-groups and
// --locked, as app::read_any_lock (app/any_lock.hpp) fills them from the command line's
// InputSelection.
struct UvLockOptions {
    std::vector<std::string> extras;
    bool all_extras = false;
    std::vector<std::string> groups;
    bool no_default_groups = false;
    bool locked = false;  // a lock that no longer matches pyproject.toml is exit 1, not a warning
};

struct UvLockRequest {
    std::filesystem::path path;  // the uv.lock (absolute)
    UvLockOptions options;
    // Target ids to convert for; empty: `machine`'s OS and architecture, one target per backend
    // extra (or the one the lock gives).
    std::vector<std::string> targets;
    const Machine* machine = nullptr;
    // "3.12" or "3.12.3": the Python the markers are evaluated for; nullopt: the project's
    // .python-version beside the lock, else 3.12 when requires-python allows it, else the newest
    // CPython it allows.
    std::optional<std::string> python;
};

struct UvLockInput {
    lock::Lockfile lockfile;
    std::vector<std::string> notes;  // a stale lock (a warning), targets left out and why
    // Per target id: what selects its backend ("extra 'cu128'", "group 'cuda12'"); absent when
    // the lock has no backend extras.
    std::map<std::string, std::string> chosen_by;
    std::optional<std::string> stale;  // why the lock no longer matches pyproject.toml
};

// Reads and converts. Throws util::InputError (a bad lock: file:line:column; an unknown extra or
// group; a named target the lock cannot give, or none of the machine's) and util::Error (exit 1:
// --locked and a stale lock). A candidate of the machine's that cannot be converted (its torch
// wheel has no hash, say) is left out with a note when others can.
UvLockInput read_uv_lock(const UvLockRequest& request);

// For `--project DIR`: the folder's uv.lock, and whether it still matches the pyproject.toml
// beside it (uv's `--locked` check). `present` is false without a uv.lock; `current` is false
// with the reason when the lock is stale or cannot be read.
struct UvLockStatus {
    bool present = false;
    bool current = false;
    bool unreadable = false;  // it cannot be read or parsed: `reason` says why
    std::filesystem::path path;
    std::string reason;
};
UvLockStatus uv_lock_status(const std::filesystem::path& project_dir);

}  // namespace aitk::app
