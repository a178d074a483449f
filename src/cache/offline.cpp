#include "aitk/cache/offline.hpp"

#include "aitk/util/redact.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::cache {
namespace {

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
    return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

OfflineReport check_offline(const Cache& cache, const std::vector<ArtifactRef>& artifacts,
                            const std::vector<std::string>& page_urls) {
    OfflineReport report;
    for (const auto& a : artifacts) {
        if (!cache.find_artifact(a.sha256, a.filename)) report.missing_artifacts.push_back(a);
    }
    for (const auto& url : page_urls) {
        if (!cache.find_http(url)) report.missing_pages.push_back(util::strip_credentials(url));
    }
    return report;
}

std::string OfflineReport::describe(const Cache& cache, std::size_t artifacts_wanted,
                                    std::size_t pages_wanted) const {
    if (complete())
        return "offline: everything needed is in the cache at " + util::utf8_of(cache.root());
    std::string out = "offline: ";
    if (!missing_artifacts.empty()) {
        out += std::to_string(missing_artifacts.size()) + " of " +
               plural(artifacts_wanted, "artifact", "artifacts");
    }
    if (!missing_pages.empty()) {
        if (!missing_artifacts.empty()) out += " and ";
        out += std::to_string(missing_pages.size()) + " of " +
               plural(pages_wanted, "index page", "index pages");
    }
    out += (missing_artifacts.size() + missing_pages.size() == 1 ? " is" : " are");
    out += " not in the cache at " + util::utf8_of(cache.root()) + ":\n";
    for (const auto& a : missing_artifacts) {
        out += "  " + a.filename + " (sha256 " + a.sha256 + ")";
        if (!a.url.empty()) out += " from " + util::strip_credentials(a.url);
        out += '\n';
    }
    for (const auto& url : missing_pages)
        out += "  index page " + url + '\n';
    out += "run the same command once without --offline (or import a bundle) to fill the cache";
    return out;
}

}  // namespace aitk::cache
