#pragma once
// What the command line and the environment say about the inputs, the indexes and the network:
// one copy of each, filled by cli and handed to every command (lock, setup, sync, bundle,
// mirror, snapshot, python install) so that a knob cannot reach one download and miss another.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aitk/index/routing.hpp"
#include "aitk/net/options.hpp"
#include "aitk/net/url_rewrite.hpp"
#include "aitk/project/pyproject.hpp"

namespace aitk::app {

// Which input; at most one of manifest / requirements / conda_file (none: what the project's
// folder holds, app/project_folder.hpp). `requirements` may name a pyproject.toml.
struct InputSelection {
    std::optional<std::filesystem::path> manifest;
    std::optional<std::filesystem::path> requirements;
    std::optional<std::filesystem::path> conda_file;
    std::optional<std::filesystem::path> project_dir;
    bool skip_unmapped = false;
    // --require-hashes: pip's hash-checking mode even when no line of the inputs has a --hash
    // (project/hash_pins.hpp).
    bool require_hashes = false;
    // What to install of an input that records several installs (a uv.lock, a pylock.toml, a
    // project's pyproject.toml), with uv sync's names: --extra, --all-extras, --group,
    // --no-default-groups; --locked: a uv.lock that no longer matches its pyproject.toml is
    // exit 1, not a warning.
    std::vector<std::string> extras;
    bool all_extras = false;
    std::vector<std::string> groups;
    bool no_default_groups = false;
    bool locked = false;
    // --no-install-project: a project's pyproject.toml without the project itself.
    bool no_install_project = false;
    // The same choices as the pyproject.toml reader takes them (set_install_selection fills it).
    project::PyprojectSelection pyproject;
};

// Index options from the command line / environment. Set values override what the inputs say.
struct IndexSettings {
    std::optional<std::string> index_url;
    std::vector<std::string> extra_index_urls;
    std::vector<std::string> find_links;
    std::optional<std::string> torch_index_url;
    // --index-strategy / AITK_ENV_INDEX_STRATEGY: how a lock takes a package several indexes
    // list; unset: the input's own tool's (project::ProjectInput::index_strategy).
    std::optional<index::IndexStrategy> index_strategy;
};

struct NetworkSettings {
    std::size_t concurrency = 8;
    std::optional<std::filesystem::path> cert;
    bool offline = false;
    // Where index pages are really fetched from (--rewrite-url, AITK_ENV_REWRITE_URL, the
    // config files): the lock still names the indexes' own URLs.
    net::UrlRewriteRules rewrite;
    // AITK_ENV_HTTP_RETRIES: tries after the first failed one (unset: the downloader's own).
    std::optional<int> retries;
    // AITK_ENV_HTTP_TIMEOUT: connect timeout, and how long a transfer may stay below the
    // low-speed limit before it is abandoned (and retried).
    std::optional<std::chrono::seconds> timeout;
    // AITK_ENV_HTTP_RETRY_DELAY_MS: the first backoff wait (later ones grow from it).
    std::optional<std::chrono::milliseconds> retry_delay;
    // What this command knows of its servers, shared by every downloader made from these
    // settings (copies share it): a first request that finds no way to its server fails at
    // once instead of being retried, and so do later ones to that server.
    std::shared_ptr<net::HostReachability> reachability = std::make_shared<net::HostReachability>();
};

// The downloader knobs these settings stand for (concurrency, CA bundle, retries, timeouts, the
// run's answered servers, the advice for an unreachable one); every command that downloads
// builds its net::Downloader from this, and from nothing else.
net::DownloaderOptions downloader_options(const NetworkSettings& network);

// What a user can do instead when a server cannot be reached at all (the options that avoid
// the network), added to the downloader's own advice.
std::string unreachable_hint();

}  // namespace aitk::app
