#pragma once
// Files on this machine that a lockfile may name. A lock says where each file comes from, and
// a URL on this machine (`file:///…`, or a plain path) is read when the lock is installed,
// mirrored or bundled. A lock from someone else would then read any file this user can
// (`file:///etc/shadow`), and the hash check would print its sha256. So a lock's local URL is
// followed only into a folder the user vouches for:
//   - the folder holding the lockfile (and, for a lock in the default `lockfiles/` folder, the
//     project folder above it, where `-e .` and `./pkg` requirements live);
//   - each folder passed with --find-links, and the folder of a file: --index-url,
//     --extra-index-url or --torch-index-url (with its parent when it is a mirror's `simple/`).
// Symbolic links are resolved first, so a link beside the lock does not lead out either.
// A URL the user's own --rewrite-url rules or index URLs replace is not the lock's: not checked.
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/app/settings.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/net/url_rewrite.hpp"

namespace aitk::app {

struct LocalFileRule {
    std::filesystem::path lock_file;             // as the user named it (for messages)
    std::filesystem::path lock_path;             // absolute
    std::vector<std::filesystem::path> folders;  // absolute, symbolic links resolved

    // The folders for a lock read from `lock_file` (relative to `cwd`) with the locations the
    // user passed.
    static LocalFileRule for_lock(const std::filesystem::path& cwd,
                                  const std::filesystem::path& lock_file,
                                  const IndexSettings& passed);

    // Whether `url` (the lock's) names a file on this machine outside every folder.
    bool refuses(std::string_view url) const;
};

// The URLs of `packages` a download or build opens as the lock wrote them: every wheel (unless
// `wheels_located` — index URLs given with the lock find the wheels there) and every source
// that is not a repository, less those `rewrite` sends elsewhere.
std::vector<std::string> lock_urls_opened(const std::vector<const lock::LockedPackage*>& packages,
                                          bool wheels_located, const net::UrlRewriteRules& rewrite);

// Throws util::InputError (exit 2) for `urls` that `rule` refuses: each as
// `LOCK:LINE:COLUMN: URL`, the rule, and the fix (--find-links DIR, or the file beside the lock).
void refuse_foreign_local_files(const LocalFileRule& rule, const std::vector<std::string>& urls);

}  // namespace aitk::app
