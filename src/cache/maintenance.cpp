#include "aitk/cache/maintenance.hpp"

#include <algorithm>
#include <fstream>
#include <functional>

#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::cache {
namespace {

namespace stdfs = std::filesystem;

struct KindDir {
    Kind kind;
    stdfs::path dir;
};

std::vector<KindDir> kind_dirs(const Cache& cache) {
    const stdfs::path base = cache.base();
    return {{Kind::artifacts, base / "artifacts"},
            {Kind::unpacked, base / "unpacked"},
            {Kind::metadata, base / "metadata"},
            {Kind::http, base / "http"},
            {Kind::temp, base / "tmp"}};
}

// Bytes of every regular file below `path` (or of `path` itself), links not followed.
std::uint64_t size_of(const stdfs::path& path) {
    std::error_code ec;
    auto status = stdfs::symlink_status(path, ec);
    if (ec) return 0;
    if (stdfs::is_regular_file(status)) {
        auto n = stdfs::file_size(path, ec);
        return ec ? 0 : n;
    }
    if (!stdfs::is_directory(status)) return 0;
    std::uint64_t total = 0;
    for (auto it = stdfs::recursive_directory_iterator(
             path, stdfs::directory_options::skip_permission_denied, ec);
         !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code item_ec;
        if (it->is_regular_file(item_ec) && !it->is_symlink(item_ec)) {
            auto n = it->file_size(item_ec);
            if (!item_ec) total += n;
        }
    }
    return total;
}

// Calls `visit(path, digest)` for each "<root>/<2 hex>/<rest><suffix>" entry, and
// `debris(path)` for temporaries of interrupted runs found between them.
void for_each_sharded(const stdfs::path& root, std::string_view suffix,
                      const std::function<void(const stdfs::path&, const std::string&)>& visit,
                      const std::function<void(const stdfs::path&)>& debris = {}) {
    std::error_code ec;
    std::vector<stdfs::path> shards;
    for (auto it = stdfs::directory_iterator(root, ec); !ec && it != stdfs::directory_iterator();
         it.increment(ec)) {
        std::string name = util::utf8_of(it->path().filename());
        if (fs::is_temp_name(name)) {
            if (debris) debris(it->path());
        } else if (name.size() == 2 && util::is_hex(name, true)) {
            shards.push_back(it->path());
        }
    }
    for (const auto& shard : shards) {
        std::vector<stdfs::path> children;
        for (auto it = stdfs::directory_iterator(shard, ec);
             !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
            children.push_back(it->path());
        }
        ec.clear();
        for (const auto& child : children) {
            std::string name = util::utf8_of(child.filename());
            if (fs::is_temp_name(name)) {
                if (debris) debris(child);
                continue;
            }
            if (!name.ends_with(suffix)) continue;
            std::string digest =
                util::utf8_of(shard.filename()) + name.substr(0, name.size() - suffix.size());
            if (util::is_sha256_hex(digest)) visit(child, digest);
        }
    }
}

Usage measure(Kind kind, const stdfs::path& dir) {
    Usage usage;
    auto count = [&](const stdfs::path& p, const std::string&) {
        ++usage.entries;
        usage.bytes += size_of(p);
    };
    switch (kind) {
        case Kind::artifacts:
            for_each_sharded(dir / "sha256", "", count);
            break;
        case Kind::unpacked:
            for_each_sharded(dir / "sha256", "", count);
            break;
        case Kind::metadata:
            for_each_sharded(dir / "sha256", ".metadata", count);
            break;
        case Kind::http:
            for_each_sharded(dir, ".http", count);
            break;
        case Kind::temp: {
            std::error_code ec;
            for (auto it = stdfs::directory_iterator(dir, ec);
                 !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
                ++usage.entries;
                usage.bytes += size_of(it->path());
            }
            break;
        }
    }
    return usage;
}

template <class Info>  // CacheInfo or const CacheInfo
auto& slot(Info& info, Kind kind) {
    switch (kind) {
        case Kind::artifacts:
            return info.artifacts;
        case Kind::unpacked:
            return info.unpacked;
        case Kind::metadata:
            return info.metadata;
        case Kind::http:
            return info.http;
        case Kind::temp:
            return info.temp;
    }
    return info.temp;
}

fs::FileLock lock_exclusively(const Cache& cache, std::chrono::milliseconds timeout,
                              std::string_view verb) {
    auto lock = fs::FileLock::try_acquire(cache.lock_file(), fs::LockMode::exclusive, timeout);
    if (!lock) {
        throw util::Error(util::ExitCode::failure,
                          "cannot " + std::string(verb) + " the cache at " +
                              util::utf8_of(cache.root()) +
                              ": another aitk-env process is using it",
                          "try again when the other aitk-env commands have finished");
    }
    return std::move(*lock);
}

void remove_counted(const stdfs::path& path, Usage& removed) {
    std::uint64_t bytes = size_of(path);
    if (fs::remove_all_quietly(path)) {
        ++removed.entries;
        removed.bytes += bytes;
    }
}

void remove_empty_shards(const stdfs::path& root) {
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(root, ec); !ec && it != stdfs::directory_iterator();
         it.increment(ec)) {
        std::error_code ignored;
        if (it->is_directory(ignored) && stdfs::is_empty(it->path(), ignored)) {
            stdfs::remove(it->path(), ignored);
        }
    }
}

std::optional<std::int64_t> stored_at(const stdfs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    // The header is small; the body is not needed to read the time.
    std::size_t at = head.find("\nstored-at: ");
    if (at == std::string::npos) return std::nullopt;
    at += 12;
    std::size_t end = head.find('\n', at);
    if (end == std::string::npos) return std::nullopt;
    try {
        return std::stoll(head.substr(at, end - at));
    } catch (...) {
        return std::nullopt;
    }
}

}  // namespace

std::string_view to_string(Kind kind) noexcept {
    switch (kind) {
        case Kind::artifacts:
            return "artifacts";
        case Kind::unpacked:
            return "unpacked";
        case Kind::metadata:
            return "metadata";
        case Kind::http:
            return "http";
        case Kind::temp:
            return "temp";
    }
    return "unknown";
}

const Usage& CacheInfo::of(Kind kind) const noexcept {
    return slot(*this, kind);
}

std::uint64_t CacheInfo::total_bytes() const noexcept {
    return artifacts.bytes + unpacked.bytes + metadata.bytes + http.bytes + temp.bytes;
}

std::uint64_t PruneReport::freed_bytes() const noexcept {
    return removed_unpacked.bytes + removed_http.bytes + removed_temp.bytes;
}

CacheInfo info(const Cache& cache) {
    CacheInfo out;
    out.root = cache.root();
    for (const auto& [kind, dir] : kind_dirs(cache))
        slot(out, kind) = measure(kind, dir);
    return out;
}

std::size_t sweep_interrupted_writes(const Cache& cache) {
    std::vector<stdfs::path> folders = {cache.root(), cache.base()};
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(cache.root(), ec);
         !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        std::error_code type_ec;
        if (it->is_directory(type_ec) && !it->is_symlink(type_ec) && it->path() != cache.base()) {
            folders.push_back(it->path());
        }
    }
    std::size_t removed = 0;
    for (const auto& folder : folders) {
        std::vector<stdfs::path> leftovers;
        std::error_code list_ec;
        for (auto it = stdfs::directory_iterator(folder, list_ec);
             !list_ec && it != stdfs::directory_iterator(); it.increment(list_ec)) {
            std::error_code type_ec;
            if (it->is_regular_file(type_ec) &&
                fs::is_temp_name(util::utf8_of(it->path().filename()))) {
                leftovers.push_back(it->path());
            }
        }
        for (const auto& p : leftovers) {
            std::error_code remove_ec;
            if (stdfs::remove(p, remove_ec)) ++removed;
        }
    }
    return removed;
}

PruneReport prune(const Cache& cache, const PruneOptions& options) {
    auto lock = lock_exclusively(cache, options.lock_timeout, "prune");
    PruneReport report;
    const stdfs::path base = cache.base();
    auto debris = [&](const stdfs::path& p) { remove_counted(p, report.removed_temp); };

    // Holding the lock exclusively means no run is in progress: all of tmp/ is debris.
    std::error_code ec;
    std::vector<stdfs::path> temps;
    for (auto it = stdfs::directory_iterator(cache.temp_dir(), ec);
         !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        temps.push_back(it->path());
    }
    for (const auto& p : temps)
        debris(p);
    sweep_interrupted_writes(cache);
    fs::remove_all_quietly(base / "locks");  // nobody waits on an entry lock now

    for_each_sharded(
        base / "unpacked" / "sha256", "",
        [&](const stdfs::path& tree, const std::string& digest) {
            std::error_code exists_ec;
            if (!stdfs::exists(cache.artifact_dir(digest), exists_ec)) {
                remove_counted(tree, report.removed_unpacked);
            }
        },
        debris);
    for_each_sharded(
        base / "artifacts" / "sha256", "", [](const stdfs::path&, const std::string&) {}, debris);
    for_each_sharded(
        base / "metadata" / "sha256", ".metadata", [](const stdfs::path&, const std::string&) {},
        debris);

    const auto now_s =
        std::chrono::duration_cast<std::chrono::seconds>(options.now.time_since_epoch()).count();
    for_each_sharded(
        base / "http", ".http",
        [&](const stdfs::path& file, const std::string&) {
            auto at = stored_at(file);
            if (!at) {
                remove_counted(file, report.removed_http);  // damaged: useless
            } else if (options.http_older_than && now_s - *at > options.http_older_than->count()) {
                remove_counted(file, report.removed_http);
            }
        },
        debris);

    for (const char* sub : {"artifacts/sha256", "unpacked/sha256", "metadata/sha256", "http"}) {
        remove_empty_shards(base / sub);
    }
    return report;
}

std::vector<std::string> entry_digests(const Cache& cache, Kind kind) {
    std::vector<std::string> out;
    const char* folder = kind == Kind::artifacts ? "artifacts" : "unpacked";
    if (kind != Kind::artifacts && kind != Kind::unpacked) return out;
    for_each_sharded(cache.base() / folder / "sha256", "",
                     [&](const stdfs::path&, const std::string& digest) { out.push_back(digest); });
    std::sort(out.begin(), out.end());
    return out;
}

CacheInfo clean(const Cache& cache, const std::vector<Kind>& kinds,
                std::chrono::milliseconds lock_timeout) {
    auto lock = lock_exclusively(cache, lock_timeout, "clean");
    CacheInfo removed;
    removed.root = cache.root();
    for (const auto& [kind, dir] : kind_dirs(cache)) {
        bool wanted = kinds.empty();
        for (Kind k : kinds)
            wanted = wanted || k == kind;
        if (!wanted) continue;
        slot(removed, kind) = measure(kind, dir);
        fs::remove_all_quietly(dir);
    }
    fs::remove_all_quietly(cache.base() / "locks");
    return removed;
}

}  // namespace aitk::cache
