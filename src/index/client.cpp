#include "aitk/index/client.hpp"

#include <algorithm>
#include <ctime>
#include <optional>
#include <set>
#include <stdexcept>

#include "aitk/fs/input_file.hpp"
#include "aitk/index/simple_page.hpp"
#include "aitk/index/url.hpp"
#include "aitk/net/redact.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/utf8.hpp"
#include "write_behind.hpp"

namespace aitk::index {

namespace {

// The content type of a cached "this index has no such project" answer, so that an offline
// run can take the same route through the indexes as the online run did.
constexpr std::string_view absent_marker = "application/x-aitk-env-absent";

std::optional<std::filesystem::path> local_path(std::string_view location) {
    if (has_url_scheme(location)) return file_url_to_path(location);
    return std::filesystem::path(std::string(location));
}

// After a redirect the downloader reports the final URL redacted; relative links on the page
// resolve against it, so the credentials of the request go back in for the same origin.
std::string page_base(const std::string& request_url, const net::FetchResult& result) {
    const std::string& effective = result.effective_url;
    if (effective.empty() || effective == net::redact_url(request_url)) return request_url;
    if (!net::has_credentials(request_url) || url_origin(effective) != url_origin(request_url)) {
        return effective;
    }
    const UrlParts original = split_url(request_url);
    const UrlParts now = split_url(effective);
    if (!original.authority || !now.authority) return effective;
    const std::string_view userinfo =
        original.authority->substr(0, original.authority->rfind('@') + 1);
    std::string_view host = *now.authority;
    host.remove_prefix(host.rfind('@') + 1);
    const std::size_t rest = now.scheme.size() + 3 + now.authority->size();
    return std::string(now.scheme) + "://" + std::string(userinfo) + std::string(host) +
           effective.substr(std::min(rest, effective.size()));
}

std::string describe_candidates(const std::vector<IndexLocation>& candidates) {
    std::string out;
    for (const auto& c : candidates) {
        if (!out.empty()) out += ", ";
        out += c.name + " " + net::redact_url(c.url);
    }
    return out;
}

}  // namespace

std::string_view to_string(PageOrigin origin) noexcept {
    switch (origin) {
        case PageOrigin::network:
            return "network";
        case PageOrigin::revalidated:
            return "revalidated";
        case PageOrigin::cache:
            return "cache";
        case PageOrigin::local:
            return "local";
    }
    return "network";
}

bool is_local_location(std::string_view location) {
    return !has_url_scheme(location) || file_url_to_path(location).has_value();
}

struct IndexClient::Page {
    enum class Status { found, absent, failed };
    Status status = Status::failed;
    std::shared_ptr<const ProjectPage> page;
    PageOrigin origin = PageOrigin::network;
    IndexError error;
};

namespace {

// The metadata fetcher downloads from the same place as the pages: through the rewrite.
MetadataOptions metadata_options(const ClientOptions& options) {
    MetadataOptions metadata = options.metadata;
    metadata.rewrite.append(options.rewrite);
    return metadata;
}

// A page whose every file entry is broken (fields of the wrong type, no url) is a broken page,
// not a project without releases: the user is told that instead of "no version available".
std::optional<std::string> broken_entries(const ProjectPage& page) {
    if (!page.files.empty()) return std::nullopt;
    constexpr std::size_t shown = 3;
    std::string reasons;
    std::size_t count = 0;
    for (const auto& skipped : page.skipped) {
        if (!skipped.malformed) continue;
        if (++count <= shown) reasons += (reasons.empty() ? "" : "; ") + skipped.reason;
    }
    if (count == 0) return std::nullopt;
    if (count > shown) reasons += " (and " + std::to_string(count - shown) + " more)";
    return "no file it lists is usable: " + reasons;
}

}  // namespace

IndexClient::IndexClient(net::Downloader& downloader, cache::Cache* cache, IndexRouting routing,
                         ClientOptions options)
    : downloader_(downloader),
      cache_(cache),
      routing_(std::move(routing)),
      options_(std::move(options)),
      metadata_(downloader, cache, metadata_options(options_), options_.offline, options_.clock),
      writer_(std::make_unique<WriteBehind>()) {}

IndexClient::~IndexClient() = default;

const IndexClient::Page* IndexClient::known_page(const std::string& url) const {
    const auto it = pages_.find(url);
    return it == pages_.end() ? nullptr : it->second.get();
}

void IndexClient::load_local(const IndexLocation& location) {
    if (pages_.count(location.url)) return;
    auto page = std::make_shared<Page>();
    pages_[location.url] = page;
    const auto path = local_path(location.url);
    std::error_code ec;
    if (!path || !std::filesystem::exists(*path, ec)) {
        page->error =
            IndexError{IndexError::Kind::local_io,
                       "the find-links location " + location.url + " does not exist", location.url};
        return;
    }
    page->origin = PageOrigin::local;
    try {
        if (std::filesystem::is_directory(*path, ec)) {
            auto listing = std::make_shared<ProjectPage>();
            listing->url = path_to_file_url(*path);
            listing->format = PageFormat::directory;
            std::vector<std::filesystem::path> entries;
            for (const auto& entry : std::filesystem::directory_iterator(*path)) {
                if (entry.is_regular_file()) entries.push_back(entry.path());
            }
            std::sort(entries.begin(), entries.end());
            for (const auto& file : entries) {
                DistributionFile draft;
                draft.filename = util::utf8_of(file.filename());
                draft.url = path_to_file_url(file);
                auto classified = classify_file(std::move(draft), "");
                if (auto* f = std::get_if<DistributionFile>(&classified)) {
                    listing->files.push_back(std::move(*f));
                } else {
                    listing->skipped.push_back(std::move(std::get<SkippedFile>(classified)));
                }
            }
            page->page = std::move(listing);
            page->status = Page::Status::found;
            return;
        }
        // A page the user named: a regular file within the page limit (a FIFO never blocks).
        auto read = fs::read_input_file(
            *path, fs::InputFileKind{"a find-links page", options_.page_limits.max_bytes});
        if (!read) throw std::runtime_error(read.error());
        const std::string body = std::move(*read);
        auto parsed = parse_html_page(body, path_to_file_url(*path), "", options_.page_limits);
        if (!parsed) {
            page->error =
                IndexError{IndexError::Kind::bad_page, parsed.error().describe(), location.url};
            return;
        }
        page->page = std::make_shared<ProjectPage>(std::move(*parsed));
        page->status = Page::Status::found;
    } catch (const std::exception& e) {
        page->error = IndexError{
            IndexError::Kind::local_io,
            "cannot read the find-links location " + location.url + ": " + e.what(), location.url};
    }
}

void IndexClient::settle_from_cache(const PageTask& task, const cache::HttpEntry& entry,
                                    PageOrigin origin) {
    auto page = std::make_shared<Page>();
    pages_[task.url] = page;
    page->origin = origin;
    if (entry.content_type == absent_marker) {
        page->status = Page::Status::absent;
        return;
    }
    auto parsed = parse_project_page(entry.body, entry.content_type, task.url, task.project,
                                     options_.page_limits);
    if (!parsed) {
        page->error =
            IndexError{IndexError::Kind::bad_page,
                       "the cached copy is not a usable page: " + parsed.error().describe(),
                       net::redact_url(task.url)};
        return;
    }
    page->page = std::make_shared<ProjectPage>(std::move(*parsed));
    page->status = Page::Status::found;
}

void IndexClient::settle_local_page(const PageTask& task, const std::filesystem::path& path) {
    // A simple index on disk ("file:///srv/mirror/simple/"): a project is a folder with an
    // index.html (or a file), and a missing one is absent like a 404.
    auto page = std::make_shared<Page>();
    pages_[task.url] = page;
    page->origin = PageOrigin::local;
    std::error_code ec;
    std::filesystem::path file = path;
    if (std::filesystem::is_directory(file, ec)) file /= "index.html";
    if (!std::filesystem::is_regular_file(file, ec)) {
        page->status = Page::Status::absent;
        return;
    }
    try {
        auto read = fs::read_input_file(
            file, fs::InputFileKind{"an index page", options_.page_limits.max_bytes});
        if (!read) throw std::runtime_error(read.error());
        const std::string body = std::move(*read);
        auto parsed = parse_project_page(body, "", task.url, task.project, options_.page_limits);
        if (!parsed) {
            page->error =
                IndexError{IndexError::Kind::bad_page, parsed.error().describe(), task.url};
            return;
        }
        page->page = std::make_shared<ProjectPage>(std::move(*parsed));
        page->status = Page::Status::found;
    } catch (const std::exception& e) {
        page->error = IndexError{IndexError::Kind::local_io,
                                 "cannot read " + util::utf8_of(file) + ": " + e.what(), task.url};
    }
}

void IndexClient::fetch_pages(const std::vector<PageTask>& tasks) {
    std::vector<const PageTask*> pending;
    std::vector<std::optional<cache::HttpEntry>> cached_of_pending;
    std::vector<net::FetchRequest> requests;
    const auto now = static_cast<std::int64_t>(std::time(nullptr));
    for (const auto& task : tasks) {
        if (pages_.count(task.url)) continue;
        std::optional<cache::HttpEntry> cached;
        if (cache_) {
            try {
                cached = cache_->find_http(task.url);
            } catch (const std::exception&) {
                cached.reset();
            }
        }
        if (const auto local = file_url_to_path(task.url)) {
            settle_local_page(task, *local);
            continue;
        }
        if (options_.offline) {
            if (cached) {
                settle_from_cache(task, *cached, PageOrigin::cache);
                continue;
            }
            const std::string shown = net::redact_url(task.url);
            missing_pages_.push_back(shown);
            auto page = std::make_shared<Page>();
            page->error =
                IndexError{IndexError::Kind::offline_missing,
                           "offline: the index page " + shown + " is not in the cache" +
                               (cache_ ? " at " + util::utf8_of(cache_->root()) : std::string()) +
                               "; run once without --offline to fill it",
                           shown};
            pages_[task.url] = std::move(page);
            continue;
        }
        if (cached && options_.trust_cached_for.count() > 0 &&
            now - cached->stored_at < options_.trust_cached_for.count()) {
            settle_from_cache(task, *cached, PageOrigin::cache);
            continue;
        }
        net::FetchRequest request;
        request.url = options_.rewrite.apply(task.url);
        request.headers.emplace_back("Accept", std::string(simple_accept));
        if (cached && cached->content_type != absent_marker) {
            if (!cached->etag.empty()) request.if_none_match = cached->etag;
            if (!cached->last_modified.empty()) request.if_modified_since = cached->last_modified;
        }
        pending.push_back(&task);
        cached_of_pending.push_back(std::move(cached));
        requests.push_back(std::move(request));
    }
    if (requests.empty()) return;

    auto outcomes = downloader_.fetch(requests);
    for (std::size_t i = 0; i < pending.size(); ++i) {
        const PageTask& task = *pending[i];
        auto& cached = cached_of_pending[i];
        auto& outcome = outcomes[i];
        const std::string shown = net::redact_url(task.url);
        auto store = [&](cache::HttpEntry entry) {
            if (!cache_ || file_url_to_path(task.url)) return;
            writer_->post([cache = cache_, entry = std::move(entry)]() mutable {
                try {
                    cache->put_http(std::move(entry));
                } catch (const std::exception&) {
                    // An unwritable cache only costs a full fetch next time.
                }
            });
        };
        if (!outcome) {
            const auto& e = outcome.error();
            if (e.kind == net::TransferError::Kind::http_status &&
                (e.http_status == 404 || e.http_status == 410)) {
                auto page = std::make_shared<Page>();
                page->status = Page::Status::absent;
                pages_[task.url] = std::move(page);
                cache::HttpEntry absent;
                absent.url = task.url;
                absent.content_type = std::string(absent_marker);
                store(std::move(absent));
                continue;
            }
            auto page = std::make_shared<Page>();
            page->error = IndexError{IndexError::Kind::network, e.message, shown};
            pages_[task.url] = std::move(page);
            continue;
        }
        net::FetchResult& result = *outcome;
        if (result.not_modified) {
            if (cached) {
                cached->stored_at = 0;  // revalidated now
                store(*cached);
                settle_from_cache(task, *cached, PageOrigin::revalidated);
                continue;
            }
            auto page = std::make_shared<Page>();
            page->error = IndexError{IndexError::Kind::bad_page,
                                     "the server answered 304 Not Modified to " + shown +
                                         " without being asked conditionally",
                                     shown};
            pages_[task.url] = std::move(page);
            continue;
        }
        const std::string content_type = result.content_type.value_or("");
        const std::string fetched = options_.rewrite.apply(task.url);
        const std::string base =
            fetched != task.url && result.effective_url == net::redact_url(fetched)
                ? task.url
                : page_base(fetched, result);
        auto parsed =
            parse_project_page(result.body, content_type, base, task.project, options_.page_limits);
        auto page = std::make_shared<Page>();
        if (!parsed) {
            page->error = IndexError{IndexError::Kind::bad_page, parsed.error().describe(), shown};
            pages_[task.url] = std::move(page);
            continue;
        }
        if (auto broken = broken_entries(*parsed)) {
            page->error = IndexError{IndexError::Kind::bad_page, shown + ": " + *broken, shown};
            pages_[task.url] = std::move(page);
            continue;
        }
        page->status = Page::Status::found;
        page->origin = PageOrigin::network;
        page->page = std::make_shared<ProjectPage>(std::move(*parsed));
        pages_[task.url] = std::move(page);
        cache::HttpEntry entry;
        entry.url = task.url;
        entry.etag = result.etag.value_or("");
        entry.last_modified = result.last_modified.value_or("");
        entry.content_type = content_type;
        entry.body = std::move(result.body);
        store(std::move(entry));
    }
}

std::vector<ProjectOutcome> IndexClient::projects(std::span<const std::string> names) {
    return lookup(names, false);
}

ProjectOutcome IndexClient::project_beyond_backend(std::string_view name) {
    std::string one(name);
    return std::move(lookup(std::span<const std::string>(&one, 1), true).front());
}

std::vector<ProjectFiles> IndexClient::passed_over(std::string_view name) {
    std::string one(name);
    auto gathered = std::move(gather(std::span<const std::string>(&one, 1), false, Walk::all)[0]);
    auto& listings = gathered.listings;
    if (!listings.empty()) listings.erase(listings.begin());  // the one project() takes
    return std::move(listings);
}

std::optional<ProjectFiles> IndexClient::listing_on(const IndexLocation& location,
                                                    const std::string& project,
                                                    const Page& page) const {
    if (page.status != Page::Status::found) return std::nullopt;
    ProjectFiles found;
    found.project = project;
    found.index = location;
    found.page_url = net::redact_url(project_page_url(location, project));
    found.origin = page.origin;
    found.format = page.page->format;
    found.api_version = page.page->api_version;
    found.files.reserve(page.page->files.size());
    for (const auto& f : page.page->files) {
        if (f.project() == project) found.files.push_back(f);
    }
    found.skipped = page.page->skipped;
    // A flat page or folder "has" a project only through its files; a project page that exists
    // lists it even when empty (under first-index that stops the search: no dependency
    // confusion).
    if (location.kind == IndexKind::find_links && found.files.empty()) return std::nullopt;
    return found;
}

std::vector<IndexClient::Gathered> IndexClient::gather(std::span<const std::string> names,
                                                       bool beyond_backend,
                                                       std::optional<Walk> walk) {
    struct Lookup {
        std::string project;
        Walk walk = Walk::first;
        std::size_t next = 0;  // Walk::first: the candidate asked now; Walk::all: the first one
        bool done = false;
        Gathered gathered;
    };
    std::vector<Lookup> lookups;
    lookups.reserve(names.size());
    for (const auto& name : names) {
        Lookup lookup;
        lookup.project = pep::canonicalize_name(name);
        lookup.gathered.candidates = beyond_backend
                                         ? routing_.candidates_beyond_backend(lookup.project)
                                         : routing_.candidates(lookup.project);
        // Beyond the backend index a family member is looked up as any other project is:
        // under an unsafe-* strategy on every index (prime-rl's torchao+git… on an extra one).
        const bool unsafe = routing_.strategy != IndexStrategy::first_index;
        const bool family_beyond_core = routing_.torch_backend_index &&
                                        routing_.is_torch_family(lookup.project) &&
                                        !routing_.is_torch_core(lookup.project);
        if (walk) {
            lookup.walk = *walk;
        } else if (beyond_backend ? unsafe : routing_.merges(lookup.project)) {
            lookup.walk = Walk::all;
        } else if (!beyond_backend && unsafe && family_beyond_core) {
            lookup.walk = Walk::backend_then_all;
        }
        lookups.push_back(std::move(lookup));
    }

    // Rounds: every page still unknown to any lookup is fetched together (in parallel), until
    // each lookup has what it needs.
    for (;;) {
        std::vector<PageTask> wanted;
        std::set<std::string> wanted_urls;
        auto page_of = [&](const IndexLocation& location, const std::string& project) {
            const bool flat = location.kind == IndexKind::find_links;
            if (flat && is_local_location(location.url)) load_local(location);
            const std::string url = project_page_url(location, project);
            const Page* page = known_page(url);
            if (!page && wanted_urls.insert(url).second) {
                wanted.push_back({url, flat ? std::string() : project});
            }
            return page;
        };
        for (auto& lookup : lookups) {
            if (lookup.done) continue;
            auto& gathered = lookup.gathered;
            const auto& candidates = gathered.candidates;
            if (lookup.walk == Walk::backend_then_all) {
                // The backend index (the first candidate) decides alone when it lists the
                // project; else the indexes after it are merged.
                const Page* page = page_of(candidates.front(), lookup.project);
                if (!page) continue;
                if (page->status == Page::Status::failed) {
                    gathered.error = page->error;
                    lookup.done = true;
                    continue;
                }
                if (auto found = listing_on(candidates.front(), lookup.project, *page)) {
                    gathered.listings.push_back(std::move(*found));
                    lookup.done = true;
                    continue;
                }
                lookup.walk = Walk::all;
                lookup.next = 1;
            }
            if (lookup.walk == Walk::first) {
                for (; lookup.next < candidates.size(); ++lookup.next) {
                    const IndexLocation& location = candidates[lookup.next];
                    const Page* page = page_of(location, lookup.project);
                    if (!page) break;
                    if (page->status == Page::Status::failed) {
                        gathered.error = page->error;
                        lookup.done = true;
                        break;
                    }
                    if (auto found = listing_on(location, lookup.project, *page)) {
                        gathered.listings.push_back(std::move(*found));
                        lookup.done = true;
                        break;
                    }
                }
                if (lookup.next >= candidates.size()) lookup.done = true;
                continue;
            }
            bool known = true;
            for (std::size_t i = lookup.next; i < candidates.size(); ++i)
                known = page_of(candidates[i], lookup.project) != nullptr && known;
            if (!known) continue;
            for (std::size_t i = lookup.next; i < candidates.size(); ++i) {
                const IndexLocation& location = candidates[i];
                const Page& page = *known_page(project_page_url(location, lookup.project));
                if (page.status == Page::Status::failed) {
                    if (!gathered.error) gathered.error = page.error;
                } else if (auto found = listing_on(location, lookup.project, page)) {
                    gathered.listings.push_back(std::move(*found));
                }
            }
            lookup.done = true;
        }
        if (wanted.empty()) break;
        fetch_pages(wanted);
    }
    std::vector<Gathered> out;
    out.reserve(lookups.size());
    for (auto& lookup : lookups)
        out.push_back(std::move(lookup.gathered));
    return out;
}

ProjectOutcome IndexClient::outcome_of(const std::string& project, Gathered gathered) const {
    // A failing index (not a 404) is an error, never a reason to take another index's answer.
    if (gathered.error) return ProjectOutcome(util::Unexpected(std::move(*gathered.error)));
    if (!gathered.listings.empty()) {
        return merge_listings(std::move(gathered.listings),
                              routing_.version_files_from_every_index);
    }
    const auto& candidates = gathered.candidates;
    std::string message;
    if (routing_.torch_backend_index && routing_.is_torch_core(project)) {
        message = "'" + project +
                  "' is a core torch package, which is taken only from the torch backend index (" +
                  describe_candidates(candidates) + "), and it is not there";
    } else if (candidates.empty()) {
        message = "no index is configured to look up '" + project + "' on";
    } else {
        message = "no index lists a project named '" + project +
                  "' (looked at: " + describe_candidates(candidates) + ")";
    }
    return ProjectOutcome(util::Unexpected(IndexError{IndexError::Kind::not_found, message, {}}));
}

std::vector<ProjectOutcome> IndexClient::lookup(std::span<const std::string> names,
                                                bool beyond_backend) {
    auto gathered = gather(names, beyond_backend);
    std::vector<ProjectOutcome> out;
    out.reserve(gathered.size());
    for (std::size_t i = 0; i < gathered.size(); ++i)
        out.push_back(outcome_of(pep::canonicalize_name(names[i]), std::move(gathered[i])));
    return out;
}

ProjectOutcome IndexClient::project(std::string_view name) {
    const std::string one(name);
    return std::move(projects(std::span<const std::string>(&one, 1)).front());
}

MetadataOutcome IndexClient::metadata(const DistributionFile& file) {
    return metadata_.fetch(file);
}

std::vector<MetadataOutcome> IndexClient::metadata(std::span<const DistributionFile> files) {
    return metadata_.fetch(files);
}

}  // namespace aitk::index
