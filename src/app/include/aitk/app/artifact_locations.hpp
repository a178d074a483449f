#pragma once
// Where the locked artifacts are fetched from. A lock names each file's URL and sha256; the
// user may send the downloads elsewhere without touching the lock: `--rewrite-url FROM=TO`
// swaps a URL prefix, and index URLs given with a lock (`setup -l LOCK --index-url MIRROR`)
// move every file to the same filename on those indexes' project pages (a mirror made by
// `aitk-env mirror`, a proxy such as devpi or Artifactory). Hashes never change: a file an
// index lists with another sha256 is refused here, and the bytes are checked while they stream.
#include <optional>
#include <string>
#include <vector>

#include "aitk/app/lock_local_files.hpp"
#include "aitk/app/session.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/cache/offline.hpp"
#include "aitk/index/artifacts.hpp"
#include "aitk/index/client.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/net/url_rewrite.hpp"

namespace aitk::app {

struct ArtifactSources {
    net::UrlRewriteRules rewrite;  // applied last, to whatever URL was chosen
    // Look every locked file up on these indexes instead of using the lock's URL.
    std::optional<IndexSettings> indexes;
    // For a lock read from a file: where its URLs on this machine may lead (lock_local_files.hpp).
    // Unset for a lock made in this run, which names only what the user's inputs named.
    std::optional<LocalFileRule> local_files;
    bool empty() const noexcept { return rewrite.empty() && !indexes; }
};

// Throws util::InputError (exit 2) when `target`'s locked URLs, as `sources` leaves them, lead
// to a file on this machine outside the folders `sources.local_files` allows.
void check_local_files(const lock::LockedTarget& target, const ArtifactSources& sources);

// `--rewrite-url` values → rules. Throws util::InputError (exit 2) naming the bad value.
net::UrlRewriteRules parse_rewrite_options(const std::vector<std::string>& values);

// The URL of `filename` on a project page, when the page lists it with the lock's sha256 (or
// without a sha256: the download is checked anyway). An error message otherwise, naming the
// file and the page.
util::Expected<std::string, std::string> find_locked_file(const index::ProjectFiles& page,
                                                          const std::string& filename,
                                                          const std::string& sha256);

struct LocateRequest {
    const ArtifactSources* sources = nullptr;
    std::string backend;  // the lock target's, for "<torch-index-url>/<backend>/"
};

// Sets refs[i].url to where refs[i] is fetched from; projects[i] is its (normalised) project.
// Artifacts the session's cache holds are never looked up; offline, nothing is.
// Throws util::Error (exit 1) listing every file that no index has, or has with another hash.
void locate_artifacts(Session& session, std::vector<cache::ArtifactRef>& refs,
                      const std::vector<std::string>& projects, const LocateRequest& request);

// How many of `fetched` were downloaded (not found in the cache) when every artifact was had;
// else util::Error (exit 1) "N of M <what> could not be had:" and each reason.
std::size_t downloads_or_throw(const index::ArtifactFetch& fetched, std::string_view what);

}  // namespace aitk::app
