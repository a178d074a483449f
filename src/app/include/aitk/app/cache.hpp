#pragma once
// `aitk-env cache dir|info|prune|clean`.
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
};

CacheReport cache_info(const std::filesystem::path& root);
CacheReport cache_prune(const std::filesystem::path& root,
                        std::optional<std::chrono::seconds> http_older_than);
// `kinds` by name (artifacts, unpacked, metadata, http, temp); empty means all. An unknown name
// is an InputError listing the known ones.
CacheReport cache_clean(const std::filesystem::path& root, const std::vector<std::string>& kinds);

// "1.5 GiB" style sizes for reports.
std::string human_bytes(std::uint64_t bytes);

}  // namespace aitk::app
