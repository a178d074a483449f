#pragma once
// Planning a prefix change: the distributions wanted (a neutral list: the caller says where they
// come from) against what the prefix holds and what the receipt says was installed, giving
// install / reinstall / keep / remove / skip. And the grouping that lets unpacked wheels be
// installed in parallel without two of them writing one top-level folder at once.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aitk/install/installed.hpp"
#include "aitk/install/layout.hpp"
#include "aitk/install/receipt.hpp"

namespace aitk::install {

struct WantedDistribution {
    std::string name;     // normalised
    std::string version;  // empty: not known before a build (a source locked uninspected)
    std::string key;      // what the receipt records for it: a wheel's sha256, a source's identity
    bool from_wheel = true;   // false: built from a source first
    bool installable = true;  // false: a source this run does not build (left as it is)
};

struct InstallPlan {
    // Indexes into the wanted list, in its order.
    std::vector<std::size_t> install;           // not in the prefix
    std::vector<std::size_t> reinstall;         // another version, another key, or damaged files
    std::vector<std::size_t> keep;              // installed and current
    std::vector<std::size_t> skipped;           // not installable; whatever the prefix has stays
    std::vector<InstalledDistribution> remove;  // installed, not wanted (when asked)
};

// With `layout`, a distribution that looks current but has a file missing, of another size than
// its RECORD says, or modified after its RECORD was written (an interrupted install, a hand
// edit, a rewrite in place of the same size; a file that a distribution installed later put
// there is not counted) is reinstalled: a stat per file, no hashing, so that a no-op plan stays
// fast (`verify` hashes). Installers write RECORD after every file, and unpacking dates no file
// later than itself (archive::ExtractOptions::latest_mtime), so an untouched file is never newer
// than its RECORD; a change that puts an older time back is left to `verify`.
InstallPlan plan_install(const std::vector<WantedDistribution>& wanted,
                         const std::vector<InstalledDistribution>& installed,
                         const std::optional<Receipt>& receipt, bool remove_extraneous,
                         const PrefixLayout* layout = nullptr);

}  // namespace aitk::install
