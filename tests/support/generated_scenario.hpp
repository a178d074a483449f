#pragma once
// Seeded universes of packages for resolver comparisons (against pip) and the lock benchmark:
// projects "pkg-000" … on a PyPI-style main index, each with several versions (prereleases,
// post releases, a yanked one now and then, rising Requires-Python floors, CPython wheels for
// some Pythons and platforms or pure wheels), dependencies between them (specifiers with >=, <,
// ==, ~=, !=, environment markers, extras on both sides), plus an optional torch-like family on
// PyTorch-style backend indexes (+cu130 locals, exact pins between the members, nvidia-*
// runtime wheels on the main index) and the root requirement list.
//
// Generated universes are satisfiable on linux-x86_64 for CPython 3.10 (or the oldest of
// python_minors, if newer) up to the newest of python_minors, with any of the backends: every
// project that can be installed there has a witness version, and every specifier written into
// a witness's dependencies or into the roots admits the witness of the project it names, so the
// witnesses (torch 2.9.0 for the family) form a solution. Dependencies form a DAG over the
// project indexes (a project only depends on projects after it), and every other specifier
// admits at least one release. Conflicts still arise where a newer version's dependencies bound
// a project differently: that is what the resolvers must sort out, and where two correct
// resolvers may choose different (equally valid) solutions.
//
// Deterministic: the same options (seed included) give the same universe on every platform
// (own PRNG, no std distributions).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mirror_builder.hpp"

namespace aitk::test {

struct UniverseOptions {
    std::uint64_t seed = 1;
    std::size_t projects = 30;  // generated projects on the main index
    std::size_t min_versions = 2;
    std::size_t max_versions = 6;
    std::size_t max_dependencies = 3;  // per version, besides the extras' dependencies
    std::size_t roots = 6;             // root requirements besides the torch family's
    // CPython 3.X minors that wheels are built for (older versions stop at older minors).
    std::vector<int> python_minors = {8, 9, 10, 11, 12, 13};
    // Shares (0…1): of projects with CPython wheels, extras, prereleases, a yanked version and
    // a Requires-Python; of dependencies with a marker, with an upper bound (<, ~=, ==).
    double native_share = 0.35;
    double extras_share = 0.25;
    double prerelease_share = 0.2;
    double yank_share = 0.12;
    double requires_python_share = 0.5;
    double marker_share = 0.15;
    double upper_bound_share = 0.3;
    // Of projects whose witness (the version of the guaranteed solution, see above) is
    // their newest installable release; near 1 the newest versions mostly fit together and a
    // resolver meets few conflicts.
    double newest_witness_share = 0.6;
    bool windows = true;  // win_amd64 wheels besides the Linux ones
    bool macos = true;    // macosx arm64 wheels
    bool torch_family = true;
    // Backend indexes "whl/<backend>" ("cpu", "cu126", "cu130"), each with its torch family.
    std::vector<std::string> backends = {"cu126", "cu130"};
    // Main index: PEP 691 JSON pages and PEP 658 metadata files.
    bool json = true;
    bool pep658 = true;
};

// About 170 packages in the resolution for linux-x86_64-cu130 and Python 3.12 (AI Toolkit's
// resolved environment has ~170): ~57 root requirements over ~270 projects with long version
// histories (3–14 releases) and ~7,500 wheels, few conflicts (as in a working environment), the
// torch family on "whl/cu130" only, JSON pages and PEP 658 files on the main index.
UniverseOptions ai_toolkit_sized_universe(std::uint64_t seed = 1);

struct GeneratedVersion {
    std::string version;  // normalised PEP 440 text
    std::string requires_python;
    std::vector<std::string> tags;  // one wheel per (compressed) tag
    std::vector<std::string> requires_dist;
    std::vector<std::string> provides_extra;
    std::optional<std::string> yanked;  // the reason ("" = none given)
};

struct GeneratedProject {
    std::string name;                        // normalised ("pkg-017")
    std::string published;                   // as in the files' metadata ("Pkg_017")
    std::string index;                       // "simple", "whl/cu130"
    std::vector<GeneratedVersion> versions;  // ascending
};

struct GeneratedUniverse {
    UniverseOptions options;
    std::vector<GeneratedProject> projects;
    std::vector<std::string> requirements;  // root requirement lines (pip syntax)
    std::string main_index = "simple";      // served at "/simple/"
    std::string torch_index_base = "whl";   // backend B at "/whl/B/"

    // build_mirror's input (mirror_builder.hpp).
    nlohmann::json mirror_description() const;
    // The root requirements, one per line.
    std::string requirements_text() const;
    // A project on `index` ("" = any index); null when absent.
    const GeneratedProject* find(std::string_view name, std::string_view index = {}) const;
    // Every version of `name` on every index, one line each (Requires-Python, yanked, extras,
    // Requires-Dist), for failure messages and reproductions.
    std::string describe(std::string_view name) const;
    std::size_t wheel_count() const;
};

GeneratedUniverse generate_universe(const UniverseOptions& options);

// Writes the universe's files and pages under `root` (serve it at "/").
MirrorBuilder build_universe_mirror(const std::filesystem::path& root,
                                    const GeneratedUniverse& universe);

}  // namespace aitk::test
