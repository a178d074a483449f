#pragma once
// The package-source side of aitk-env: project pages from the indexes the routing allows
// (content negotiation JSON → HTML, cached in the cache's HTTP store and revalidated with
// If-None-Match / If-Modified-Since, --offline from the cache only), and core metadata of the
// files they list (see metadata_fetcher.hpp). Pages of many projects are fetched in parallel.
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/cache/cache.hpp"
#include "aitk/index/distribution.hpp"
#include "aitk/index/index_error.hpp"
#include "aitk/index/metadata_fetcher.hpp"
#include "aitk/index/page_error.hpp"
#include "aitk/index/routing.hpp"
#include "aitk/net/clock.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/net/url_rewrite.hpp"
#include "aitk/util/expected.hpp"

namespace aitk::index {

struct ClientOptions {
    // Only the cache: a page or metadata it lacks is an offline_missing error, and
    // missing_pages() lists the pages.
    bool offline = false;
    // A cached page younger than this is used without asking the server (0: always revalidate,
    // once per client).
    std::chrono::seconds trust_cached_for{0};
    PageLimits page_limits;
    MetadataOptions metadata;
    // Clock of the metadata fetcher's own downloader (retry waits); null: the system clock.
    std::shared_ptr<net::Clock> clock;
    // Where pages are really fetched from (a pull-through cache). Applied at fetch time only:
    // the HTTP cache, page URLs and relative links keep the index's own URL.
    net::UrlRewriteRules rewrite;
};

enum class PageOrigin {
    network,      // fetched now (200)
    revalidated,  // the cached copy, confirmed by a 304
    cache,        // the cached copy without asking (offline, or trusted as fresh)
    local,        // a find-links folder or file on this machine
};

std::string_view to_string(PageOrigin origin) noexcept;

// The files of one project: from the one index that provides it, or (under an unsafe-*
// strategy) from every index that lists it, merged by merge_listings().
struct ProjectFiles {
    std::string project;   // PEP 503-normalised
    IndexLocation index;   // the first index (in the routing's order) that lists it
    std::string page_url;  // redacted; of `index`
    PageOrigin origin = PageOrigin::network;
    PageFormat format = PageFormat::html;
    std::string api_version;
    std::vector<DistributionFile> files;
    std::vector<SkippedFile> skipped;
    // Merged listings: every index that lists the project, in order (the first is `index`),
    // and for each of `files` the position in `listed_on` of the index it came from. Both
    // empty when every file is `index`'s.
    std::vector<IndexLocation> listed_on;
    std::vector<std::size_t> file_source;

    // The position in `listed_on` of the index `files[file]` came from (0 when not merged),
    // and that index.
    std::size_t source_of(std::size_t file) const noexcept;
    const IndexLocation& index_of(std::size_t file) const noexcept;
};

// The listings of one project on several indexes (non-empty, in the routing's order) as one:
// every file of the first, and of each later one the files of versions no earlier one lists
// (a version on several indexes is the first index's entry, as uv's unsafe-* strategies take
// it: its files elsewhere are never considered, compatible or not). With
// `version_files_from_every_index` (pip's way) a later index adds every file whose name no
// earlier one lists, versions already listed included.
ProjectFiles merge_listings(std::vector<ProjectFiles> listings,
                            bool version_files_from_every_index = false);

using ProjectOutcome = util::Expected<ProjectFiles, IndexError>;

class IndexClient {
  public:
    // `downloader` and `cache` (may be null: nothing is cached) must outlive the client.
    IndexClient(net::Downloader& downloader, cache::Cache* cache, IndexRouting routing,
                ClientOptions options = {});
    ~IndexClient();
    IndexClient(const IndexClient&) = delete;
    IndexClient& operator=(const IndexClient&) = delete;

    // The files of `project` (any spelling) from the first index of its candidates that lists
    // it. A failing index (not a 404) is an error, never a reason to ask the next one.
    ProjectOutcome project(std::string_view name);
    // The same for many projects at once; each round fetches the pages of all of them in
    // parallel. One outcome per name, in order.
    std::vector<ProjectOutcome> projects(std::span<const std::string> names);
    // `name` looked up beyond the torch backend index (IndexRouting::candidates_beyond_backend),
    // as under first-index.
    ProjectOutcome project_beyond_backend(std::string_view name);
    // For messages, where project() took the first index that lists `name` (first-index, the
    // torch family): the listings of the candidate indexes after that one, which it passed
    // over. Indexes that fail or do not list it are left out.
    std::vector<ProjectFiles> passed_over(std::string_view name);

    MetadataOutcome metadata(const DistributionFile& file);
    std::vector<MetadataOutcome> metadata(std::span<const DistributionFile> files);

    const IndexRouting& routing() const noexcept { return routing_; }
    const ClientOptions& options() const noexcept { return options_; }
    // Offline: the (redacted) page URLs that were needed and not cached, in order of need.
    const std::vector<std::string>& missing_pages() const noexcept { return missing_pages_; }
    MetadataFetcher& metadata_fetcher() noexcept { return metadata_; }

  private:
    struct Page;
    struct PageTask {
        std::string url;
        std::string project;  // parse filter: "" for find-links pages
    };
    // How a lookup walks its candidates: up to the first index that lists the project, or
    // through every one (the listings of all that list it, the first failure remembered), or
    // the torch backend index alone when it lists the project and every other one when not (a
    // family member beyond its core under an unsafe-* strategy).
    enum class Walk { first, all, backend_then_all };
    struct Gathered {
        std::vector<IndexLocation> candidates;
        std::vector<ProjectFiles> listings;  // in the candidates' order
        std::optional<IndexError> error;
    };
    std::vector<Gathered> gather(std::span<const std::string> names, bool beyond_backend,
                                 std::optional<Walk> walk = std::nullopt);
    std::vector<ProjectOutcome> lookup(std::span<const std::string> names, bool beyond_backend);
    ProjectOutcome outcome_of(const std::string& project, Gathered gathered) const;
    std::optional<ProjectFiles> listing_on(const IndexLocation& location,
                                           const std::string& project, const Page& page) const;
    void fetch_pages(const std::vector<PageTask>& tasks);
    void load_local(const IndexLocation& location);
    void settle_local_page(const PageTask& task, const std::filesystem::path& path);
    void settle_from_cache(const PageTask& task, const cache::HttpEntry& entry, PageOrigin origin);
    const Page* known_page(const std::string& url) const;

    net::Downloader& downloader_;
    cache::Cache* cache_;
    IndexRouting routing_;
    ClientOptions options_;
    MetadataFetcher metadata_;
    std::map<std::string, std::shared_ptr<Page>> pages_;  // by page URL
    std::vector<std::string> missing_pages_;
    // Page cache writes, off the critical path (write_behind.hpp); declared last, so it is
    // drained before the rest goes away.
    std::unique_ptr<WriteBehind> writer_;
};

// Whether a find-links location is on this machine (a path or a file: URL).
bool is_local_location(std::string_view location);

}  // namespace aitk::index
