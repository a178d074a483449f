#pragma once
// The resolver's PackageSource over the real indexes: project pages and core metadata through
// an index::IndexClient (parallel, cached, offline-aware), files filtered for one target (its
// wheel tags, its Python for Requires-Python, the binary-only rules). It also remembers which
// file each chosen version stands for, so the lockfile records exactly what was resolved.
// Source nodes (VCS and archive URLs, versions offered only as sdists) are looked into through
// a SourceInspector when one is given; without one they stay opaque (version and dependencies
// unknown until they are built).
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "aitk/index/client.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/marker.hpp"
#include "aitk/pep/metadata.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/pep/tag_fit.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/project/hash_pins.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/resolve/source.hpp"

namespace aitk::app {

struct SourceTarget {
    pep::TargetPlatform platform;
    // Where the platform's glibc cap comes from ("--glibc 2.28", "ai.yaml:3:8 (glibc)"), for
    // messages about wheels that need a newer one; empty: uncapped.
    std::string os_cap_by;
    pep::Version python;  // full interpreter version, for Requires-Python
    // pip's --only-binary / --no-binary: normalised names or ":all:".
    std::set<std::string> only_binary;
    std::set<std::string> no_binary;
    // pip's hash-checking mode (null: off): a pinned project's files whose index digests match
    // none of its pins are left out, as pip's finder leaves them out (filter_unallowed_hashes).
    // Must outlive the source.
    const project::HashChecking* hash_checking = nullptr;
};

// A file left out because its index digest matched none of its project's pins.
struct HashRefusal {
    std::string name;
    pep::Version version;
    std::string filename;
    std::string url;
    index::Hashes digests;  // as the index gives them
    const project::HashPin* pin = nullptr;
};

// What looking into a source node told: its core metadata and the exact source it came from.
struct InspectedSource {
    pep::CoreMetadata metadata;
    std::string commit;  // VCS: the full commit id the revision named
    // Archives: the file's digest and size (from the index, or hashed on download).
    std::string sha256;
    std::uint64_t size = 0;
    // The metadata came from the build backend (prepare_metadata_for_build_wheel, or a wheel
    // built for it) run by this machine's interpreter, not from a static PKG-INFO: for another
    // target it is what this machine's build says.
    bool built = false;
    std::string built_with;  // "Python 3.12.1" when `built`
};

// Looks into source nodes for the resolver. Failures throw (util::Error, build::BuildError
// with the backend's output): the lock stops there, as pip does.
class SourceInspector {
  public:
    virtual ~SourceInspector() = default;
    // A git requirement of project `name`. `locked_commit` (a full id, or empty) is the commit
    // an earlier lock chose for the same URL and revision: kept instead of asking the
    // repository where its branch is now.
    virtual InspectedSource vcs(const std::string& name, const pep::VcsUrl& url,
                                const std::string& locked_commit) = 0;
    // An sdist from an index, or an archive named by URL (`file.sha256()` when known).
    virtual InspectedSource archive(const std::string& name,
                                    const index::DistributionFile& file) = 0;
    // A local project folder ("name @ file:///path", "-e ./path").
    virtual InspectedSource directory(const std::string& name,
                                      const std::filesystem::path& project) = 0;
};

// The key under which a git requirement's commit is remembered between locks: the repository
// URL without credentials, the revision as written and the subdirectory.
std::string vcs_pin_key(const pep::VcsUrl& url);

// The file a resolved version installs from, and the index that served it.
struct ChosenFile {
    const index::DistributionFile* file = nullptr;  // null for direct references
    index::IndexLocation index;
};

class IndexPackageSource : public resolve::PackageSource {
  public:
    // `inspector` (may be null: source nodes stay opaque) must outlive the source.
    IndexPackageSource(index::IndexClient& client, SourceTarget target,
                       SourceInspector* inspector = nullptr);
    ~IndexPackageSource() override;

    resolve::SourceResult versions(const std::string& name) override;
    resolve::DependencyResult dependencies(const std::string& name,
                                           const pep::Version& version) override;
    resolve::DirectResult direct(const std::string& name, const std::string& url) override;
    // The pages of `upcoming` and the metadata of each one's likely choice, then (once
    // lookahead() gave the target's markers) the same for the dependencies those choices
    // declare, and so on until nothing new turns up: one parallel batch of pages and one of
    // metadata per level of the graph, instead of a round trip per decision.
    void prefetch(std::span<const pep::Requirement> upcoming) override;
    void lookahead(const resolve::ResolveOptions& options) override;
    std::string explain(const std::string& name, const std::string& specifier) override;

    // The best file of `name` at `version` for the target (a wheel by tag priority, else the
    // sdist); nullopt when versions() never listed it.
    std::optional<ChosenFile> chosen_file(const std::string& name,
                                          const pep::Version& version) const;
    // After the resolution: each resolved version's file is the best one that keeps the
    // target's glibc (macOS) floor where the versions force it (pep::unavoidable_floor), so that
    // a compiled wheel needing a newer glibc gives way to a pure one of the same version.
    void keep_within_floor(std::span<const resolve::ResolvedPackage> packages);
    // Commits of git requirements to keep (by vcs_pin_key), from an earlier lock.
    void set_locked_commits(std::map<std::string, std::string> commits) {
        locked_commits_ = std::move(commits);
    }
    // The specifiers the inputs give torch-family projects (name → specifier): a family
    // member outside the core whose backend-index versions satisfy none of them (or that has
    // no usable file there) is taken from the other indexes, with a note.
    void set_family_specifiers(std::map<std::string, pep::SpecifierSet> specifiers) {
        family_specifiers_ = std::move(specifiers);
    }
    // What the inspector found for a direct reference (by its URL as the requirement wrote it)
    // or for an sdist file (by its URL); null when nothing was inspected.
    const InspectedSource* inspected(const std::string& url) const;

    // Notes for the user gathered while resolving ("sdist-only-pkg 1.0: no wheel; its
    // dependencies come from PKG-INFO").
    const std::vector<std::string>& notes() const noexcept { return notes_; }
    // Files of pinned versions left out for their digests (hash-checking mode), in the order
    // their projects were read.
    std::vector<HashRefusal> hash_refusals() const;

  private:
    struct Project;
    Project& load(const std::string& name);
    void load_many(const std::vector<std::string>& names);
    void index_project(Project& project, index::ProjectOutcome outcome);
    // Past the backend index for a family member it has no fitting version of.
    void look_beyond_backend(const std::string& name, Project& project);
    bool fits(const std::string& name, const Project& project) const;
    // explain()'s words for who offers a listing's versions: "primary offers", or under an
    // unsafe-* strategy "primary, extra-index 1 offer".
    static std::string offered_by(const index::ProjectFiles& listing);
    // Under first-index: which later index has versions of `name` that match `specifier`
    // (for this target), and the flag that reaches them; nullopt when none has.
    std::optional<std::string> passed_over(const std::string& name, const std::string& specifier,
                                           const std::vector<std::string>& offered);
    // Why the target takes no wheel of the newest versions `specifier` admits that have none
    // it takes (per wheel, the part of its tags that fails); nullopt when there are none.
    std::optional<std::string> refused_wheels(const std::string& name, const Project& project,
                                              const std::string& specifier);
    bool binary_only(const std::string& name) const;
    // The version (index into project.versions) the resolver will most likely take for
    // `name`, given every specifier the crawl has seen asked of it and the resolver's rules.
    std::optional<std::size_t> likely_version(const std::string& name,
                                              const Project& project) const;

    // What prefetch() has seen asked of each project (its specifiers and extras), and the
    // resolver's rules (from lookahead()).
    struct Wanted {
        std::vector<pep::SpecifierSet> specifiers;
        std::set<std::string> extras;
        std::string guessed_url;  // the file whose metadata was guessed ("" = none yet)
    };
    std::map<std::string, Wanted> wanted_;
    std::set<std::string> crawled_;  // names whose likely choice's dependencies were followed
    std::optional<resolve::ResolveOptions> rules_;

    resolve::DependencyResult sdist_dependencies(const std::string& name,
                                                 const pep::Version& version,
                                                 const index::DistributionFile& file);
    const InspectedSource& remember(const std::string& url, const std::string& name,
                                    InspectedSource inspected,
                                    const std::optional<pep::Version>& expected);

    index::IndexClient& client_;
    SourceTarget target_;
    SourceInspector* inspector_ = nullptr;
    std::map<std::string, std::string> locked_commits_;
    std::map<std::string, pep::SpecifierSet> family_specifiers_;
    std::map<std::string, InspectedSource> inspected_;  // by URL
    pep::TagPriority priority_;
    std::unique_ptr<pep::TagFit> tag_fit_;  // made when a message first needs it
    std::map<std::string, std::unique_ptr<Project>> projects_;
    std::map<std::string, resolve::DependencyInfo> metadata_;  // by file URL
    std::vector<std::string> notes_;
};

}  // namespace aitk::app
