#pragma once
// What `uv sync --frozen` installs from a uv.lock for one environment, and those packages as
// lockfile packages (lockfile.hpp) for one target.
//
// The walk is uv's (crates/uv-resolver/src/lock/installable.rs): from the workspace roots, with
// the chosen extras and dependency groups, every edge whose marker holds in the environment. A
// lock with `conflicts` writes conflict items into its markers as `extra` values
// ("extra == 'extra-8-nanochat-cpu'", uv_conflict_extra); they are evaluated with the items
// active here: the roots (project-…), their chosen extras and groups, and every extra an edge
// enables, collected by a first walk before the second one decides (an extra enabled deep in the
// graph can switch an edge near the root). Two active extras of one conflict set are an error,
// as in uv.
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/lock/lockfile.hpp"
#include "aitk/lock/uv_lock.hpp"
#include "aitk/pep/marker.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/util/expected.hpp"
#include "aitk/util/input_problem.hpp"

namespace aitk::lock {

// uv sync's `--extra`, `--all-extras`, `--group`, `--no-default-groups`. Names are normalised.
struct UvSelection {
    std::vector<std::string> extras;
    bool all_extras = false;
    std::vector<std::string> groups;
    // The project's `[tool.uv] default-groups` (uv's default: "dev"); `all_default_groups` for
    // `default-groups = "all"`.
    std::vector<std::string> default_groups = {"dev"};
    bool all_default_groups = false;
    bool no_default_groups = false;
    bool install_project = true;  // false: the roots' own packages are left out
};

struct UvSelectedPackage {
    std::size_t package = 0;                // into UvLock::packages
    std::vector<std::string> extras;        // the package's extras in use, sorted
    std::vector<std::size_t> dependencies;  // selected packages it depends on here, sorted
    bool root = false;                      // a workspace root
    bool direct = false;                    // a dependency of a root
};

struct UvInstallSet {
    std::vector<UvSelectedPackage> packages;  // in the lock's order
    std::vector<std::string> active;          // the conflict items in effect (encoded), sorted
};

// The walk for `environment` (every variable but `extra` set). Errors: an extra or group the
// roots do not have, two extras of one conflict set, two versions of one package.
util::Expected<UvInstallSet, std::string> select_uv_packages(const UvLock& lock,
                                                             const pep::MarkerEnvironment& env,
                                                             const UvSelection& selection);

struct UvConversionOptions {
    const pep::TagPriority* tags = nullptr;  // the target's wheel tags
    // The lockfile index name of a registry (its location as uv.lock writes it); a registry not
    // listed is named by its location.
    std::map<std::string, std::string> index_names;
    // A path of the lock (relative to its folder, as uv writes it) as an absolute file: URL.
    std::function<std::string(std::string_view)> local_url;
    std::string target_id;  // for messages
    // The target's OS and architecture ("linux", "x86_64"): of a package's wheels, those that
    // keep the floor the selected versions force (pep::unavoidable_floor) come first, so that a
    // compiled wheel does not raise the target's glibc floor where a pure one would do. Empty:
    // no floor rule.
    std::string os;
    std::string arch;
};

// The selected packages as lockfile packages, sorted by name: a registry package by its best
// wheel for `tags` (uv's choice: the best tag, then the highest build tag; among the wheels
// within the target's floor, see UvConversionOptions::os), else its sdist; a
// direct URL by its wheel or archive; git, path, directory and editable sources as source nodes
// the build layer turns into wheels. Virtual packages are left out. Every registry and URL file
// must have a sha256 in the lock (a problem at the file's line otherwise), and a registry
// package needs a wheel for these tags or an sdist.
util::Loaded<std::vector<LockedPackage>> uv_locked_packages(const UvLock& lock,
                                                            const UvInstallSet& selected,
                                                            const UvConversionOptions& options);

}  // namespace aitk::lock
