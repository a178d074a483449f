#pragma once
// What the resolver asks about packages, and nothing else: which versions of a project can be
// installed on the target, and what a version depends on. The app layer answers from the
// indexes (and caches); tests answer from memory. The resolver never sees HTTP.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/pep/requirement.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::resolve {

struct ResolveOptions;

struct CandidateVersion {
    pep::Version version;
    bool yanked = false;  // PEP 592: chosen only when pinned with == / ===
    std::string yanked_reason;
    // uv's unsafe-first-match: the position of the index the version comes from. The solver
    // takes the newest allowed version of the lowest rank, so the first index's versions are
    // exhausted before the next index's are tried. 0 for every version otherwise.
    std::size_t index_rank = 0;
};

struct DependencyInfo {
    // Requires-Dist as written (markers not yet evaluated; the resolver evaluates them for the
    // target, with the extras it needs).
    std::vector<pep::Requirement> requires_dist;
    std::vector<std::string> provides_extra;  // normalised
};

// A direct reference ("name @ url", a VCS URL): one version, known once its metadata is read.
struct DirectPackage {
    std::optional<pep::Version> version;  // nullopt: unknown until built (a source node)
    DependencyInfo dependencies;
};

// Failures here (network, a corrupt page) abort the resolution with this message; "no such
// project" is not a failure, it is an empty list.
using SourceResult = util::Expected<std::vector<CandidateVersion>, std::string>;
using DependencyResult = util::Expected<DependencyInfo, std::string>;
using DirectResult = util::Expected<DirectPackage, std::string>;

class PackageSource {
  public:
    virtual ~PackageSource() = default;

    // Every version of `name` (normalised) that has a file usable on the target (a compatible
    // wheel, or an sdist when allowed, with Requires-Python admitting the target's Python).
    // Any order. Versions excluded for the target are not listed; explain() says why.
    virtual SourceResult versions(const std::string& name) = 0;

    // The metadata of `name` at `version` (one of versions()).
    virtual DependencyResult dependencies(const std::string& name, const pep::Version& version) = 0;

    // A direct URL requirement of `name`.
    virtual DirectResult direct(const std::string& name, const std::string& url) {
        (void)name;
        return util::Unexpected<std::string>("direct URL requirements are not supported: " + url);
    }

    // A hint: these projects (and the metadata of their likely choices) will be asked for soon;
    // a networked source fetches them in parallel. Pairs of name and specifier text.
    virtual void prefetch(std::span<const pep::Requirement> upcoming) { (void)upcoming; }

    // Told once, before the first prefetch: the rules the resolver applies (the target's
    // marker environment, preferences, constraints, the backend's local label), so a
    // networked source can guess further ahead than the requirements it is given (the
    // likely choices' own dependencies, and theirs). `options` outlives the resolution.
    virtual void lookahead(const ResolveOptions& options) { (void)options; }

    // Why `name` has no version matching `specifier` on this target, in a few words for
    // messages ("only wheels for Windows", "every version needs Python >=3.13",
    // "not on any index"); "" when there is nothing to add.
    virtual std::string explain(const std::string& name, const std::string& specifier) {
        (void)name;
        (void)specifier;
        return {};
    }
};

}  // namespace aitk::resolve
