#pragma once
// Making a prefix hold exactly one lock target: plan (what the prefix has vs what the target
// lists: install / reinstall / remove / keep), prepare (parallel downloads into the cache, each
// wheel unpacked and checked against its RECORD once per sha256), install (link from the
// cache), then the receipt in <prefix>/.aitk-env/. Used by `setup` and `sync`.
//
// The prefix changes in one install::PrefixTransaction: its lock is taken (and an interrupted
// earlier run finished or undone) before planning, so the plan sees a whole prefix; new files,
// the receipt and the lock copy are staged and moved into place at commit.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/app/artifact_locations.hpp"
#include "aitk/app/session.hpp"
#include "aitk/app/timeline.hpp"
#include "aitk/fs/lock.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/install/layout.hpp"
#include "aitk/install/receipt.hpp"
#include "aitk/install/wheel_install.hpp"
#include "aitk/lock/lockfile.hpp"

namespace aitk::app {

using install::Receipt;

struct SyncPlan {
    // Copies, not pointers: a plan outlives the lockfile it was made from.
    std::vector<lock::LockedPackage> install;            // not in the prefix
    std::vector<lock::LockedPackage> reinstall;          // another version or another wheel
    std::vector<install::InstalledDistribution> remove;  // not in the target (sync only)
    std::vector<std::string> keep;                       // names
    std::vector<lock::LockedPackage> unbuildable;        // source nodes: need a build
    bool empty() const { return install.empty() && reinstall.empty() && remove.empty(); }
    nlohmann::json to_json() const;
    std::string describe() const;  // one line per action, for --dry-run
};

// The lock target's packages as install::plan_install sees them (install::plan.hpp says how a
// package that looks current but has damaged files is reinstalled).
SyncPlan plan_sync(const lock::LockedTarget& target,
                   const std::vector<install::InstalledDistribution>& installed,
                   const std::optional<Receipt>& receipt, bool remove_extraneous,
                   const install::PrefixLayout* layout = nullptr, bool build_sources = true);

struct SyncRequest {
    const lock::Lockfile* lock = nullptr;
    const lock::LockedTarget* target = nullptr;
    install::PrefixLayout layout;
    install::LinkMode link_mode = install::LinkMode::automatic;
    bool remove_extraneous = true;
    bool dry_run = false;
    bool compile_bytecode = false;  // compileall on the installed .py files after commit
    // Source nodes (git commits, sdists, folders) are built with PEP 517 and installed; false
    // (`--no-build`): they are skipped with a note, as before.
    bool build_sources = true;
    std::size_t jobs = 0;  // unpack/install threads; 0: one per core, at least 2
    // Where the locked wheels are downloaded from (--rewrite-url; index URLs given with a
    // lock). Empty: the lock's URLs. The prefix's lock copy keeps the lock's URLs either way.
    ArtifactSources artifact_sources;
    // Told once when another aitk-env holds the prefix and this one waits for it, and once for
    // each unpacked tree in the cache found changed and rebuilt from its wheel (from the unpack
    // threads); empty: a line on stderr.
    std::function<void(const std::string&)> notice;
    // The prefix lock, when the caller holds it (setup keeps it from making the venv to the
    // smoke test, see lock_prefix_for_change); null: sync takes it for its own change.
    const fs::FileLock* prefix_lock = nullptr;
};

// The prefix's exclusive lock; when another aitk-env holds it, `notice` (empty: stderr) is told
// "waiting for another aitk-env (pid N) using PREFIX..." once, and this one waits.
fs::FileLock lock_prefix_for_change(const install::PrefixLayout& layout,
                                    const std::function<void(const std::string&)>& notice);

struct SyncOutcome {
    SyncPlan plan;
    std::size_t downloaded = 0;
    std::optional<install::LinkMode> link_mode;
    SyncTimeline timeline;  // where the time went (`-v`)
    nlohmann::json to_json() const;
};

// Throws util::Error (download/hash failures, a wheel that fails its RECORD check).
// The session's cache and downloader fetch the wheels and the build requirements.
SyncOutcome sync_prefix(Session& session, const SyncRequest& request);

}  // namespace aitk::app
