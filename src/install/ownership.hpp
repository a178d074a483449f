#pragma once
// Which files of the prefix belong to an installed distribution, seen from a transaction: its
// RECORD entries (checked to stay inside the prefix, as remove_distribution checks them), what
// its .dist-info folder holds, and the __pycache__ bytecode of its modules; and the folders a
// removal leaves empty. Private to the install layer.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "aitk/install/installed.hpp"
#include "aitk/install/layout.hpp"
#include "journal.hpp"

namespace aitk::install::detail {

struct OwnedFiles {
    std::filesystem::path dist_info;  // absolute, lexically normal
    std::vector<std::string> record;  // RECORD entries as journal paths (relative to the prefix)
};

// Throws util::Error (nothing is changed) when the RECORD is missing or names a file outside
// the prefix. Files of the prefix's skeleton (skeleton.hpp: pyvenv.cfg, the interpreter, the
// shims, .aitk-env/) are left out: no distribution owns them, whatever its RECORD says.
OwnedFiles owned_files(const TxnPaths& paths, const PrefixLayout& layout,
                       const InstalledDistribution& dist);

// The files of `owned` present now (no folders): sorted, unique journal paths.
std::vector<std::string> existing_owned_files(const TxnPaths& paths,
                                              const std::vector<OwnedFiles>& owned);

// Removes each of `folders` that is empty, then its parents while they are empty; never the
// prefix, the layout's folders (site-packages, bin, state, ...) or the folders above them.
void prune_empty_folders(const PrefixLayout& layout, const TxnPaths& paths,
                         const std::set<std::filesystem::path>& folders);

}  // namespace aitk::install::detail
