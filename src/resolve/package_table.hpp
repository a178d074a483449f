#pragma once
// Everything the resolver knows about packages: ids for names (extras are virtual packages
// "name[extra]" sharing their package's candidates), candidate lists and metadata read from the
// PackageSource once each, and the candidate sets requirements stand for.
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "aitk/pep/specifier.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/resolve/source.hpp"
#include "term.hpp"
#include "version_set.hpp"

namespace aitk::resolve {

struct Candidate {
    pep::Version version;
    bool yanked = false;
    std::string yanked_reason;
    // A direct reference whose version is only known once it is built: it matches requirements
    // without a specifier and nothing else.
    bool unknown_version = false;
    std::size_t index_rank = 0;  // CandidateVersion::index_rank
};

// A version the source offers that the backend rule (local_group / local_label) removed.
struct ExcludedCandidate {
    pep::Version version;
    std::string reason;  // "built for cpu, not cu130"
};

struct PackageInfo {
    std::string name;               // "foo", "foo[bar]"; "" for the root
    PackageId base = root_package;  // the package itself unless it is an extra
    std::string extra;              // "" unless an extra
    std::vector<PackageId> extras;  // on a base package: the ids of its extras

    // For pip's decision order (Solver::decide): the position of the first root requirement
    // naming it, and the depth it was decided at (1 under a root requirement, else one below
    // its shallowest depender).
    std::size_t requested = unknown_rank;
    std::size_t depth = unknown_rank;

    static constexpr std::size_t unknown_rank = static_cast<std::size_t>(-1);

    // The rest is filled in on the base package only.
    bool loaded = false;
    std::vector<Candidate> candidates;  // oldest first, distinct versions
    std::vector<ExcludedCandidate> excluded;
    std::optional<std::string> url;                       // a direct reference
    std::string url_origin;                               // who asked for the URL, for messages
    std::vector<std::optional<DependencyInfo>> metadata;  // per candidate, read once
    std::unordered_map<std::string, VersionSet> requirement_sets;  // by specifier text
    bool constraint_added = false;
};

class PackageTable {
  public:
    PackageTable(PackageSource& source, const ResolveOptions& options);

    // The id of `name` (normalised), or of its extra; creates them on first use.
    PackageId intern(const std::string& name, const std::string& extra = {});
    std::optional<PackageId> find(const std::string& name) const {
        auto it = ids_.find(name);
        return it == ids_.end() ? std::nullopt : std::optional<PackageId>(it->second);
    }
    const PackageInfo& info(PackageId id) const { return packages_[id]; }
    PackageInfo& info(PackageId id) { return packages_[id]; }
    PackageInfo& base_info(PackageId id) { return packages_[packages_[id].base]; }
    const PackageInfo& base_info(PackageId id) const { return packages_[packages_[id].base]; }
    std::size_t size() const noexcept { return packages_.size(); }

    // What the root requirements and constraints say about admitting prereleases and yanked
    // versions of `name`; recorded before the first candidate list is read.
    void note_root_specifier(const std::string& name, const pep::SpecifierSet& specifier);

    // Makes `id`'s base package a direct reference; false when it already is one with another
    // URL or was already read from the indexes (then `conflict` says which).
    bool set_url(PackageId id, const std::string& url, const std::string& origin,
                 std::string& conflict);

    // Reads the candidates (versions() or direct()) unless done; throws SourceFailure.
    // Returns true on the first read.
    bool load(PackageId id);
    const std::vector<Candidate>& candidates(PackageId id);
    std::size_t universe(PackageId id) { return candidates(id).size(); }

    // The candidates a requirement with `specifier` admits, under the prerelease, yanked and
    // direct-reference rules (see package_table.cpp).
    const VersionSet& requirement_set(PackageId id, const pep::SpecifierSet& specifier);
    // The candidates a constraint admits: plain PEP 440 matching, prereleases included (a
    // constraint limits versions; whether prereleases are wanted is the requirements' say).
    VersionSet constraint_set(PackageId id, const pep::SpecifierSet& specifier);

    // The metadata of candidate `index` (of the base package); throws SourceFailure.
    const DependencyInfo& metadata(PackageId id, std::size_t index);

    void prefetch(std::span<const pep::Requirement> upcoming) { source_.prefetch(upcoming); }
    PackageSource& source() noexcept { return source_; }

  private:
    struct RootPolicy {
        bool names_prerelease = false;
        std::vector<pep::SpecifierSet> pins;  // specifiers with an == / === clause
    };

    bool in_local_group(const std::string& name) const;
    void read_candidates(PackageInfo& base);

    PackageSource& source_;
    const ResolveOptions& options_;
    // A deque: interning a package must not move the others, whose metadata the solver points
    // into.
    std::deque<PackageInfo> packages_;
    std::map<std::string, PackageId> ids_;
    std::map<std::string, RootPolicy> root_policy_;
};

// "foo[bar]" for the extra's virtual package.
std::string extra_package_name(const std::string& name, const std::string& extra);

}  // namespace aitk::resolve
