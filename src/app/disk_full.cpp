#include "disk_full.hpp"

#ifndef _WIN32
#include <sys/stat.h>
#endif

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <system_error>

#include "aitk/app/cache.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

namespace stdfs = std::filesystem;

bool is_disk_full(const std::exception& error) {
    if (const auto* system = dynamic_cast<const std::system_error*>(&error)) {
        if (system->code() == std::errc::no_space_on_device) return true;
#ifdef EDQUOT
        if (system->code() == std::error_code(EDQUOT, std::generic_category())) return true;
#endif
    }
    // Lower layers put the system's words into their messages.
    const std::string_view text = error.what();
    if (text.find(std::strerror(ENOSPC)) != std::string_view::npos) return true;
#ifdef EDQUOT
    if (text.find(std::strerror(EDQUOT)) != std::string_view::npos) return true;
#endif
#ifdef _WIN32
    if (text.find("not enough space on the disk") != std::string_view::npos) return true;
#endif
    return false;
}

// The folder itself, or the nearest one above it that exists (a prefix not made yet).
stdfs::path existing(stdfs::path path) {
    std::error_code ec;
    while (!path.empty() && !stdfs::exists(path, ec) && path.has_parent_path() &&
           path.parent_path() != path) {
        path = path.parent_path();
    }
    return path;
}

std::optional<std::uintmax_t> free_bytes(const stdfs::path& path) {
    std::error_code ec;
    const auto space = stdfs::space(existing(path), ec);
    if (ec) return std::nullopt;
    return space.available;
}

std::string free_text(const std::optional<std::uintmax_t>& bytes) {
    return bytes ? human_bytes(*bytes) + " free" : std::string("free space unknown");
}

// Whether two folders are on one file system: writing into one takes room from the other.
bool same_disk(const stdfs::path& a, const stdfs::path& b) {
#ifdef _WIN32
    std::error_code ec;
    return stdfs::absolute(existing(a), ec).root_name() ==
           stdfs::absolute(existing(b), ec).root_name();
#else
    struct stat sa {};
    struct stat sb {};
    if (::stat(existing(a).c_str(), &sa) != 0 || ::stat(existing(b).c_str(), &sb) != 0) {
        return false;
    }
    return sa.st_dev == sb.st_dev;
#endif
}

}  // namespace

void explain_disk_full(const std::exception& error, const stdfs::path& cache,
                       const stdfs::path& prefix) {
    if (dynamic_cast<const DiskFullError*>(&error) != nullptr || !is_disk_full(error)) return;
    const std::string text = error.what();
    const std::string cache_text = util::utf8_of(cache);
    const std::string prefix_text = util::utf8_of(prefix);
    const auto cache_free = free_bytes(cache);
    const auto prefix_free = free_bytes(prefix);
    enum class Which { cache, prefix, both } which = Which::both;
    if (!cache_text.empty() && text.find(cache_text) != std::string::npos) {
        which = Which::cache;
    } else if (!prefix_text.empty() && text.find(prefix_text) != std::string::npos) {
        which = Which::prefix;
    } else if (!same_disk(cache, prefix) && cache_free && prefix_free) {
        which = *cache_free < *prefix_free ? Which::cache : Which::prefix;
    }
    const std::string cache_fix =
        "free space on that disk (`aitk-env cache prune` or `cache clean` frees the cache's own), "
        "or use a cache on a disk with room: --cache-dir DIR or AITK_ENV_CACHE_DIR";
    const std::string prefix_fix =
        "free space on that disk, or make the prefix on a disk with room (-p DIR)";
    switch (which) {
        case Which::cache:
            throw DiskFullError(util::ExitCode::failure,
                                "the cache at " + cache_text + " is full (" +
                                    free_text(cache_free) + " on its disk):\n  " + text,
                                cache_fix);
        case Which::prefix:
            throw DiskFullError(util::ExitCode::failure,
                                "the prefix at " + prefix_text + " is full (" +
                                    free_text(prefix_free) + " on its disk):\n  " + text,
                                prefix_fix);
        case Which::both:
            throw DiskFullError(util::ExitCode::failure,
                                "the disk holding the cache at " + cache_text +
                                    " and the prefix at " + prefix_text + " is full (" +
                                    free_text(cache_free) + "):\n  " + text,
                                prefix_fix + "; " + cache_fix);
    }
}

}  // namespace aitk::app
