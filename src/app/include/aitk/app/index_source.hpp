#pragma once
// The resolver's PackageSource over the real indexes: project pages and core metadata through
// an index::IndexClient (parallel, cached, offline-aware), files filtered for one target (its
// wheel tags, its Python for Requires-Python, the binary-only rules). It also remembers which
// file each chosen version stands for, so the lockfile records exactly what was resolved.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "aitk/index/client.hpp"
#include "aitk/pep/tags.hpp"
#include "aitk/pep/version.hpp"
#include "aitk/resolve/source.hpp"

namespace aitk::app {

struct SourceTarget {
    pep::TargetPlatform platform;
    pep::Version python;  // full interpreter version, for Requires-Python
    // pip's --only-binary / --no-binary: normalised names or ":all:".
    std::set<std::string> only_binary;
    std::set<std::string> no_binary;
};

// The file a resolved version installs from, and the index that served it.
struct ChosenFile {
    const index::DistributionFile* file = nullptr;  // null for direct references
    index::IndexLocation index;
};

class IndexPackageSource : public resolve::PackageSource {
  public:
    IndexPackageSource(index::IndexClient& client, SourceTarget target);
    ~IndexPackageSource() override;

    resolve::SourceResult versions(const std::string& name) override;
    resolve::DependencyResult dependencies(const std::string& name,
                                           const pep::Version& version) override;
    resolve::DirectResult direct(const std::string& name, const std::string& url) override;
    void prefetch(std::span<const pep::Requirement> upcoming) override;
    std::string explain(const std::string& name, const std::string& specifier) override;

    // The best file of `name` at `version` for the target (a wheel by tag priority, else the
    // sdist); nullopt when versions() never listed it.
    std::optional<ChosenFile> chosen_file(const std::string& name,
                                          const pep::Version& version) const;
    // Notes for the user gathered while resolving ("sdist-only-pkg 1.0: no wheel; its
    // dependencies come from PKG-INFO").
    const std::vector<std::string>& notes() const noexcept { return notes_; }

  private:
    struct Project;
    Project& load(const std::string& name);
    void load_many(const std::vector<std::string>& names);
    void index_project(Project& project, index::ProjectOutcome outcome);
    bool binary_only(const std::string& name) const;

    index::IndexClient& client_;
    SourceTarget target_;
    pep::TagPriority priority_;
    std::map<std::string, std::unique_ptr<Project>> projects_;
    std::map<std::string, resolve::DependencyInfo> metadata_;  // by file URL
    std::vector<std::string> notes_;
};

}  // namespace aitk::app
