#pragma once
// What an --offline run needs and the cache lacks, said precisely enough to fix it.
#include <string>
#include <vector>

#include "aitk/cache/cache.hpp"

namespace aitk::cache {

struct ArtifactRef {
    std::string sha256;
    std::string filename;
    std::string url;  // where it would be downloaded from (shown redacted)
};

struct OfflineReport {
    std::vector<ArtifactRef> missing_artifacts;
    std::vector<std::string> missing_pages;  // index URLs with no cached response

    bool complete() const noexcept { return missing_artifacts.empty() && missing_pages.empty(); }
    // "offline: 2 of 5 artifacts and 1 index page are not in the cache at <root>:" and one
    // line per item (filename, sha256, URL), then how to fill the cache.
    std::string describe(const Cache& cache, std::size_t artifacts_wanted,
                         std::size_t pages_wanted) const;
};

OfflineReport check_offline(const Cache& cache, const std::vector<ArtifactRef>& artifacts,
                            const std::vector<std::string>& page_urls = {});

}  // namespace aitk::cache
