#pragma once
// A uv.lock as a local index, and uv's choice from it for one platform: what
// bench/real_graph.py does for the lock benchmark, here for the tests (the uv.lock and
// pyproject.toml readers check that aitk-env picks what uv picked).
//
// uv_lock_scenario(): every wheel the lock names (same project, version and file name) on the
// index it came from: "simple" for PyPI, "whl/<backend>" for a PyTorch backend index
// (…/whl/cu126 on any host). Each wheel's METADATA carries the lock's edges as Requires-Dist,
// with their markers (an optional dependency as `extra == "x"`), pinned with == where the lock
// holds several versions of the target (uv's forks), and the lock's optional dependencies as
// extras. A package published only as an sdist gets a pure wheel of the same name and version.
//
// uv_lock_choice(): the packages `uv sync --frozen` installs on one platform and Python, walked
// from the root project's dependencies (and the dependency groups asked for) with every marker
// evaluated there, as "name==version" (normalised names), the root itself left out.
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace aitk::test {

struct UvLockScenario {
    nlohmann::json scenario;            // for build_mirror()
    std::vector<std::string> backends;  // the "whl/<backend>" indexes, sorted
    std::string root;                   // the root project's name (editable or virtual)
};

// Throws std::runtime_error when the lock cannot be read or names a source other than a
// registry (PyPI or a PyTorch backend index).
UvLockScenario uv_lock_scenario(const std::string& uv_lock_text);

struct UvLockPlatform {
    std::string sys_platform = "linux";  // "linux", "win32", "darwin"
    std::string machine = "x86_64";      // platform_machine as the OS spells it ("AMD64" on
                                         // Windows, "arm64" on macOS)
    std::string python = "3.12.1";       // the full version
};

std::set<std::string> uv_lock_choice(const std::string& uv_lock_text,
                                     const UvLockPlatform& platform,
                                     const std::vector<std::string>& groups = {});

}  // namespace aitk::test
