#pragma once
// The resolver: PubGrub (Natalie Weizenbaum's algorithm, as in pub, uv and poetry) over a
// PackageSource, one resolution per target. Incompatibilities are learned from conflicts, so it
// is complete (finds a solution when one exists) and, when none does, explains why in words:
// "Because torch==2.13.0 depends on setuptools>=77 and setuptools==69.5.1 is required
// (requirements_base.txt:38), torch==2.13.0 is forbidden. …"
//
// Markers are evaluated for the target's environment (never the host's), with the extras each
// requirement activates; extras are virtual packages "name[extra]" tied to the base version.
// PEP 440 prerelease policy: prereleases only when allowed globally, when the specifier itself
// names one, or when nothing else matches. Yanked versions only when pinned with ==/===.
#include <cstddef>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "aitk/pep/marker.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/resolve/source.hpp"
#include "aitk/util/error.hpp"

namespace aitk::resolve {

// A top-level requirement and where the user wrote it ("requirements_base.txt:38",
// "manifest ai-toolkit.yaml:12:5", "torch family pin").
struct RootRequirement {
    pep::Requirement requirement;
    std::string origin;
};

struct ResolveOptions {
    // The target's marker environment (`extra` is ignored: the resolver sets it).
    pep::MarkerEnvironment environment;
    bool allow_prereleases = false;  // --pre
    // Versions to keep when still allowed (from an existing lockfile): tried first.
    std::map<std::string, pep::Version> preferences;
    // Packages whose preference is ignored (--upgrade-package); `upgrade_all` ignores them all.
    std::set<std::string> upgrade;
    bool upgrade_all = false;
    // Constraints (-c files): they limit versions but do not add packages.
    std::vector<RootRequirement> constraints;
    // Overrides (uv's override-dependencies): wherever a root or a dependency requires a package
    // named here, the overrides whose markers hold replace that requirement (none holding drops
    // it). They add no package by themselves.
    std::vector<RootRequirement> overrides;
    // Torch family held to one backend: a version of a package in `local_group` (normalised
    // names, or prefixes ending in '*') whose local label is set and differs from
    // `local_label` ("cu130") is not a candidate. Empty label: no rule.
    std::vector<std::string> local_group;
    std::string local_label;
    // Safety net against pathological inputs: the number of decisions + conflicts.
    std::size_t max_steps = 200000;
};

struct ResolvedPackage {
    std::string name;  // normalised
    pep::Version version;
    std::optional<std::string> url;         // for direct references
    std::vector<std::string> extras;        // activated extras, sorted
    std::vector<std::string> dependencies;  // names of resolved packages it needs, sorted
    bool requested = false;                 // named by a root requirement
};

struct Resolution {
    std::vector<ResolvedPackage> packages;  // sorted by name
    std::size_t decisions = 0;              // statistics, for -v and benchmarks
    std::size_t conflicts = 0;
    // Things pip would warn about and go on: an extra the package does not provide, a marker
    // that cannot be evaluated (the requirement is left out). In the order they came up.
    std::vector<std::string> warnings;
};

// No solution: exit 3. what() is the derivation in words, one "Because …" sentence per line,
// ending with the conclusion ("… so the requirements cannot be satisfied").
class Unsatisfiable : public util::Error {
  public:
    explicit Unsatisfiable(std::string explanation, std::string hint = {})
        : util::Error(util::ExitCode::unsatisfiable, std::move(explanation), std::move(hint)) {}
};

// A PackageSource failure (network, corrupt metadata): exit 1.
class SourceFailure : public util::Error {
  public:
    explicit SourceFailure(std::string message)
        : util::Error(util::ExitCode::failure, std::move(message)) {}
};

// Throws Unsatisfiable or SourceFailure.
Resolution resolve(PackageSource& source, std::span<const RootRequirement> roots,
                   const ResolveOptions& options);

}  // namespace aitk::resolve
