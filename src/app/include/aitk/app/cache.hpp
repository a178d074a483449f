#pragma once
// `aitk-env cache dir|info|prune|clean|verify`.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aitk/cache/root.hpp"

namespace aitk::app {

// --cache-dir when given, else the contract's default for this environment.
std::filesystem::path resolve_cache_root(const std::string& cache_dir_flag,
                                         const cache::Environment& env);

struct CacheReport {
    nlohmann::json json;  // machine-readable result (--json)
    std::string text;     // the same for people
    int exit_code = 0;    // verify: 4 when it found damage (see cache_verify)
};

CacheReport cache_info(const std::filesystem::path& root);
CacheReport cache_prune(const std::filesystem::path& root,
                        std::optional<std::chrono::seconds> http_older_than);
// `kinds` by name (artifacts, unpacked, metadata, http, temp); empty means all. An unknown name
// is an InputError listing the known ones.
CacheReport cache_clean(const std::filesystem::path& root, const std::vector<std::string>& kinds);

// Every stored artifact hashed against its sha256 and every unpacked tree's files against its
// wheel's RECORD (install::verify_unpacked_tree); each damaged file is reported. With `repair`
// the damaged entries are removed (the next setup or sync makes a tree again from its wheel and
// downloads a removed wheel again). exit_code: 0 clean, 4 damage found, with `repair` 0 when
// every damaged entry was removed.
CacheReport cache_verify(const std::filesystem::path& root, bool repair);

// "1.5 GiB" style sizes for reports.
std::string human_bytes(std::uint64_t bytes);

}  // namespace aitk::app
