#pragma once
// IndexPackageSource's view of one project (private to src/app): its files by version and what
// was left out, shared by the source (index_source.cpp) and its explanations
// (index_source_explain.cpp).
#include <optional>
#include <string>
#include <vector>

#include "aitk/app/index_source.hpp"

namespace aitk::app {

struct IndexPackageSource::Project {
    struct VersionFiles {
        pep::Version version;
        std::vector<std::size_t> files;  // usable files (indexes into listing.files)
        std::size_t best = 0;            // index into listing.files
        bool yanked = false;
        std::string yanked_reason;
        std::size_t index_rank = 0;  // unsafe-first-match: the position of its index
    };
    bool loaded = false;
    bool found = false;
    std::optional<index::IndexError> error;
    index::ProjectFiles listing;
    std::vector<VersionFiles> versions;  // ascending
    // What was left out, for explain().
    std::vector<std::size_t> incompatible;  // the wheels no tag of which fits (listing.files)
    std::size_t python_excluded = 0;
    std::size_t sdists_refused = 0;
    std::vector<HashRefusal> hash_refused;  // files of pinned versions whose digests differ

    const VersionFiles* find(const pep::Version& version) const {
        for (const auto& v : versions) {
            if (v.version == version) return &v;
        }
        return nullptr;
    }
};

}  // namespace aitk::app
