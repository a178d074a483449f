#pragma once
// Core metadata of remote wheels without downloading them (uv's remote_metadata idea): the
// cache by artifact hash, else the PEP 658 "<url>.metadata" file (its hash checked), else HTTP
// range requests that read only the zip's end records, central directory and the METADATA
// member, else, as the last resort, the whole wheel (kept in the cache for the install).
// Each file is a small state machine; a batch runs its requests in parallel, step by step.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "aitk/cache/cache.hpp"
#include "aitk/index/distribution.hpp"
#include "aitk/index/index_error.hpp"
#include "aitk/net/clock.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/net/observer.hpp"
#include "aitk/net/url_rewrite.hpp"
#include "aitk/pep/metadata.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::index {

class WriteBehind;  // write_behind.hpp (private to the layer)

struct MetadataOptions {
    // The first range request asks for this many bytes from the end of the wheel: enough for
    // the central directory of most wheels (and often METADATA itself, written last).
    std::uint64_t tail_bytes = 64u << 10;
    std::uint64_t max_metadata_bytes = 16u << 20;
    std::uint64_t max_directory_bytes = 64u << 20;
    // The largest body one range request may bring. A server that ignores Range and sends a
    // big wheel whole is cut off here (and the wheel is downloaded to a file instead).
    std::uint64_t range_request_limit = 16u << 20;
    bool use_pep658 = true;
    bool use_range_requests = true;
    bool allow_full_download = true;
    // Where the bytes really come from (a pull-through cache): applied to the .metadata file,
    // range and full-download requests only; hashes and the file's own URL stay as listed.
    net::UrlRewriteRules rewrite;
};

enum class MetadataSource {
    metadata_cache,  // the cache's metadata store, by artifact hash
    artifact_cache,  // read from the wheel already in the cache
    local_file,      // a file: URL (find-links folder)
    pep658,
    range_requests,
    full_download,
};

std::string_view to_string(MetadataSource source) noexcept;

struct RemoteMetadata {
    pep::CoreMetadata metadata;
    std::string text;  // the METADATA file as served
    MetadataSource source = MetadataSource::pep658;
    std::uint64_t bytes_transferred = 0;  // body bytes received for this file
    int requests = 0;                     // HTTP requests sent for it
    // Where the wheel is when it was downloaded (full download) or found in the cache.
    std::optional<std::filesystem::path> artifact;
};

using MetadataOutcome = util::Expected<RemoteMetadata, IndexError>;

class MetadataFetcher {
  public:
    // `downloader` carries whole wheels (the last resort); small bodies (PEP 658 files, zip
    // ranges) go through a second downloader with the same options and a body limit of
    // options.range_request_limit. `cache` may be null. Offline, only the cache (and file:
    // URLs) are used.
    MetadataFetcher(net::Downloader& downloader, cache::Cache* cache, MetadataOptions options = {},
                    bool offline = false, std::shared_ptr<net::Clock> clock = nullptr);
    ~MetadataFetcher();
    MetadataFetcher(const MetadataFetcher&) = delete;
    MetadataFetcher& operator=(const MetadataFetcher&) = delete;

    MetadataOutcome fetch(const DistributionFile& file);
    // One outcome per file, in order; the files' requests run in parallel.
    std::vector<MetadataOutcome> fetch(std::span<const DistributionFile> files);

    // Origins ("http://host:port") seen answering a range request with the whole body: later
    // wheels from there skip straight to a full download.
    const std::set<std::string>& hosts_without_ranges() const noexcept { return no_range_hosts_; }

    // Watches the whole-wheel downloads (the last resort), which can be large enough to need a
    // progress bar. Null: nobody watches. Must outlive the fetches.
    void set_observer(net::TransferObserver* observer) noexcept { observer_ = observer; }

    struct Job;  // one file's state machine (defined in the .cpp)

  private:
    void start(Job& job);
    void read_wheel_itself(Job& job);
    void run_fetch_rounds(std::vector<Job*>& jobs);
    void run_full_downloads(std::vector<Job*>& jobs);
    net::Downloader& small_downloader();

    net::Downloader& downloader_;
    cache::Cache* cache_;
    MetadataOptions options_;
    bool offline_;
    std::shared_ptr<net::Clock> clock_;
    std::unique_ptr<net::Downloader> small_;
    std::set<std::string> no_range_hosts_;
    // Cache writes, off the critical path (write_behind.hpp); declared last, so it is drained
    // before the rest goes away.
    std::unique_ptr<WriteBehind> writer_;
    net::TransferObserver* observer_ = nullptr;
};

}  // namespace aitk::index
