#include "aitk/index/artifacts.hpp"

#include <system_error>

#include "aitk/util/error.hpp"
#include "aitk/util/redact.hpp"

namespace aitk::index {

ArtifactFetch fetch_artifacts(cache::Cache& cache, net::Downloader& downloader,
                              const std::vector<cache::ArtifactRef>& artifacts, bool offline,
                              net::TransferObserver* observer) {
    ArtifactFetch out;
    out.results.resize(artifacts.size());
    std::vector<net::FileRequest> requests;
    std::vector<std::size_t> request_owner;  // requests[i] fetches artifacts[request_owner[i]]
    std::vector<cache::ArtifactRef> missing;
    for (std::size_t i = 0; i < artifacts.size(); ++i) {
        const cache::ArtifactRef& ref = artifacts[i];
        out.results[i].ref = ref;
        out.results[i].ref.url = util::redact_url(ref.url);
        if (auto found = cache.find_artifact(ref.sha256, ref.filename)) {
            out.results[i].path = *found;
            continue;
        }
        if (offline) {
            missing.push_back(ref);
            continue;
        }
        net::FileRequest request;
        request.url = ref.url;
        request.destination = cache.staging_path(ref.filename);
        request.expected_sha256 = ref.sha256;
        requests.push_back(std::move(request));
        request_owner.push_back(i);
    }
    if (!missing.empty()) {
        cache::OfflineReport report = cache::check_offline(cache, missing);
        std::string message = report.describe(cache, artifacts.size(), 0);
        for (std::size_t i = 0; i < artifacts.size(); ++i) {
            if (out.results[i].path.empty()) out.results[i].error = message;
        }
    }
    if (!requests.empty()) {
        auto hold = cache.hold();  // prune/clean must not pull staging files from under us
        auto outcomes = downloader.download(requests, observer);
        for (std::size_t r = 0; r < outcomes.size(); ++r) {
            ArtifactResult& result = out.results[request_owner[r]];
            if (!outcomes[r]) {
                result.error = outcomes[r].error().message;
                continue;
            }
            try {
                // The downloader already hashed the body while it streamed.
                result.path =
                    cache.insert_artifact(outcomes[r]->destination, result.ref.sha256,
                                          result.ref.filename, outcomes[r]->sha256, result.ref.url);
                result.downloaded = true;
            } catch (const util::Error& e) {
                result.error = e.what();
                std::error_code ignored;
                std::filesystem::remove(outcomes[r]->destination, ignored);
            }
        }
    }
    for (const ArtifactResult& r : out.results) {
        if (r.path.empty()) ++out.failed;
    }
    return out;
}

}  // namespace aitk::index
