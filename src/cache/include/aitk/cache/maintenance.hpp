#pragma once
// `cache info`, `cache prune`, `cache clean`. Pruning and cleaning take the cache's lock
// exclusively, so they wait for (or give up on) running aitk-env processes instead of pulling
// files from under them.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aitk/cache/cache.hpp"

namespace aitk::cache {

enum class Kind { artifacts, unpacked, metadata, http, temp };
std::string_view to_string(Kind kind) noexcept;

struct Usage {
    std::uint64_t entries = 0;
    std::uint64_t bytes = 0;  // apparent file sizes (hardlinked files count where they are)
};

struct CacheInfo {
    std::filesystem::path root;
    Usage artifacts, unpacked, metadata, http, temp;
    const Usage& of(Kind kind) const noexcept;
    std::uint64_t total_bytes() const noexcept;
};

// Reads sizes without locking (a concurrent insert only makes the numbers a moment old).
CacheInfo info(const Cache& cache);

struct PruneOptions {
    // Remove HTTP responses stored longer ago than this (none: keep them all).
    std::optional<std::chrono::seconds> http_older_than;
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
    // How long to wait for other aitk-env processes to let go of the cache.
    std::chrono::milliseconds lock_timeout = std::chrono::seconds(10);
};

struct PruneReport {
    Usage removed_unpacked;  // trees whose artifact is gone
    Usage removed_http;      // responses past http_older_than
    Usage removed_temp;      // staging debris of interrupted runs
    std::uint64_t freed_bytes() const noexcept;
};

// Throws util::Error when the lock is not free within lock_timeout.
PruneReport prune(const Cache& cache, const PruneOptions& options = {});

// Removes what killed processes left beside the small files replaced in place outside tmp/
// (the probe cache, interpreters.json): files with temporary names (fs::is_temp_name) in the
// root, in its folders other than the layout's, and in the layout's base folder. A live writer
// whose temporary file is taken writes it again (fs::write_file_atomic), so this needs no lock;
// every setup and sync runs it. Returns how many were removed.
std::size_t sweep_interrupted_writes(const Cache& cache);

// The digests of the stored artifacts or unpacked trees (`kind` one of those two), sorted;
// staging debris is not listed. For `cache verify`.
std::vector<std::string> entry_digests(const Cache& cache, Kind kind);

// Empties the given kinds (all when empty); returns what was removed.
CacheInfo clean(const Cache& cache, const std::vector<Kind>& kinds = {},
                std::chrono::milliseconds lock_timeout = std::chrono::seconds(10));

}  // namespace aitk::cache
