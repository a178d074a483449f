#include "hash_downloads.hpp"

#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::app {

std::vector<FileHash> download_to_hash(Session& session, const std::vector<UnhashedFile>& files,
                                       std::string_view unknown) {
    std::vector<FileHash> hashes;
    if (files.empty()) return hashes;
    if (session.offline()) {
        std::vector<std::string> names;
        for (const auto& f : files)
            names.push_back(f.filename);
        throw util::Error(util::ExitCode::failure,
                          "offline: " + std::string(unknown) + " " + util::join(names, ", ") +
                              ", and hashing them needs a download",
                          "run once without --offline");
    }
    auto& cache = session.cache();
    auto hold = cache.hold();
    std::vector<net::FileRequest> requests;
    for (const auto& f : files) {
        net::FileRequest r;
        r.url = f.url;
        r.destination = cache.staging_path(f.filename);
        requests.push_back(std::move(r));
    }
    auto outcomes = session.downloader().download(requests, session.observer());
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (!outcomes[i]) {
            throw util::Error(util::ExitCode::failure, "cannot hash " + files[i].filename + ": " +
                                                           outcomes[i].error().message);
        }
        cache.insert_artifact(requests[i].destination, outcomes[i]->sha256, files[i].filename,
                              outcomes[i]->sha256, files[i].url);
        hashes.push_back({outcomes[i]->sha256, outcomes[i]->size});
    }
    return hashes;
}

}  // namespace aitk::app
