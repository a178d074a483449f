#pragma once
// Artifacts (wheels, sdists) into the shared cache: what is there already is used as is, the
// rest is downloaded in parallel straight into the cache's staging area, hash-checked while it
// streams, and published by an atomic rename. Offline, nothing is fetched and the report says
// exactly which artifacts are missing.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "aitk/cache/cache.hpp"
#include "aitk/cache/offline.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/net/observer.hpp"

namespace aitk::index {

struct ArtifactResult {
    cache::ArtifactRef ref;
    std::filesystem::path path;  // in the cache; empty when the artifact could not be had
    bool downloaded = false;     // false: it was in the cache already
    std::string error;           // why it could not be had (URL redacted)
};

struct ArtifactFetch {
    std::vector<ArtifactResult> results;  // in request order
    std::size_t failed = 0;
};

// Told that artifacts[index] is in the cache at `path`, so that a caller can unpack it while
// the other downloads go on. Artifacts found in the cache are told at once, on the calling
// thread; a download as soon as it is stored, on the thread running the transfers: hand the
// work elsewhere and return quickly, and throw nothing.
using ArtifactReady = std::function<void(std::size_t index, const std::filesystem::path& path)>;

// Brings every artifact into `cache`. One failed download does not stop the others; the caller
// decides what a failure means. `offline` never touches the network: missing artifacts fail
// with the cache's offline report. Takes a hold on the cache while staging files exist.
// `on_ready`, when given, is called once for each artifact that ends up with a path.
ArtifactFetch fetch_artifacts(cache::Cache& cache, net::Downloader& downloader,
                              const std::vector<cache::ArtifactRef>& artifacts, bool offline,
                              net::TransferObserver* observer = nullptr,
                              const ArtifactReady& on_ready = {});

}  // namespace aitk::index
