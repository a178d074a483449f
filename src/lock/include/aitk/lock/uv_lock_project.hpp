#pragma once
// Whether a uv.lock still matches the pyproject.toml beside it, as `uv sync --locked` asks, and
// the project settings `uv sync` takes from pyproject.toml rather than from the lock (its
// default dependency groups).
//
// uv's check (crates/uv-resolver/src/lock/mod.rs, `satisfies`) compares what the lock recorded
// of the project (`[package.metadata]`: requires-dist, requires-dev, provides-extras; the
// package's version; the lock's requires-python) with the project as it is now. This one compares
// the same fields by meaning: names, extras and version specifiers exactly; markers by what they
// select (each marker is evaluated on every supported OS and architecture and on Python 3.8 to
// 3.14, with each extra of the project); and for a name that `[tool.uv.sources]` redirects, only
// which extras and specifiers ask for it (uv splits such a requirement into one entry per source,
// each with the source's marker, index and conflict).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/lock/uv_lock.hpp"
#include "aitk/util/input_problem.hpp"

namespace aitk::lock {

struct UvProject {
    std::string name;     // normalised; "" for a workspace root without `[project]`
    std::string version;  // "" when dynamic or absent
    std::string requires_python;
    std::vector<std::string> dependencies;                     // PEP 508 texts
    std::map<std::string, std::vector<std::string>> optional;  // by extra (normalised)
    std::map<std::string, std::vector<std::string>> groups;    // include-group expanded
    std::vector<std::string> sourced;                          // [tool.uv.sources] keys
    std::vector<std::string> default_groups = {"dev"};         // [tool.uv] default-groups
    bool all_default_groups = false;                           // default-groups = "all"
};

// Reads the parts of pyproject.toml named above; `file` names it in problems (file:line:column).
util::Loaded<UvProject> parse_uv_project(std::string_view text, std::string_view file);

// Why `lock` no longer matches `project` ("the project's dependencies add numpy>=2"), or nullopt
// when it matches.
std::optional<std::string> uv_lock_mismatch(const UvLock& lock, const UvProject& project);

}  // namespace aitk::lock
