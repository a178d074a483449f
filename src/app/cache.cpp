#include "aitk/app/cache.hpp"
#include "aitk/util/utf8.hpp"

#include <array>
#include <cstdio>

#include "aitk/cache/cache.hpp"
#include "aitk/cache/maintenance.hpp"
#include "aitk/util/byte_size.hpp"
#include "aitk/util/error.hpp"

namespace aitk::app {
namespace {

using nlohmann::json;

constexpr std::array<cache::Kind, 5> kAllKinds{cache::Kind::artifacts, cache::Kind::unpacked,
                                               cache::Kind::metadata, cache::Kind::http,
                                               cache::Kind::temp};

json usage_json(const cache::Usage& u) {
    return json{{"entries", u.entries}, {"bytes", u.bytes}};
}

std::string usage_line(std::string_view label, const cache::Usage& u) {
    char line[128];
    std::snprintf(line, sizeof line, "  %-10s %8llu entries  %10s\n", std::string(label).c_str(),
                  static_cast<unsigned long long>(u.entries), human_bytes(u.bytes).c_str());
    return line;
}

CacheReport describe(const cache::CacheInfo& info, std::string_view heading) {
    CacheReport r;
    r.json["root"] = util::utf8_of(info.root);
    r.json["total_bytes"] = info.total_bytes();
    r.text = std::string(heading) + " " + util::utf8_of(info.root) + "\n";
    for (cache::Kind kind : kAllKinds) {
        r.json["kinds"][std::string(cache::to_string(kind))] = usage_json(info.of(kind));
        r.text += usage_line(cache::to_string(kind), info.of(kind));
    }
    r.text += "  total      " + human_bytes(info.total_bytes()) + "\n";
    return r;
}

}  // namespace

std::string human_bytes(std::uint64_t bytes) {
    return util::human_bytes(bytes);
}

std::filesystem::path resolve_cache_root(const std::string& flag, const cache::Environment& env) {
    if (!flag.empty()) return std::filesystem::absolute(util::path_from_utf8(flag));
    return cache::default_cache_root(env);
}

CacheReport cache_info(const std::filesystem::path& root) {
    cache::Cache c(root);
    return describe(cache::info(c), "cache");
}

CacheReport cache_prune(const std::filesystem::path& root,
                        std::optional<std::chrono::seconds> http_older_than) {
    cache::Cache c(root);
    cache::PruneOptions options;
    options.http_older_than = http_older_than;
    cache::PruneReport report = cache::prune(c, options);
    CacheReport r;
    r.json = json{{"root", util::utf8_of(root)},
                  {"freed_bytes", report.freed_bytes()},
                  {"removed",
                   {{"unpacked", usage_json(report.removed_unpacked)},
                    {"http", usage_json(report.removed_http)},
                    {"temp", usage_json(report.removed_temp)}}}};
    r.text = "pruned " + util::utf8_of(root) + ": freed " + human_bytes(report.freed_bytes()) +
             "\n" + usage_line("unpacked", report.removed_unpacked) +
             usage_line("http", report.removed_http) + usage_line("temp", report.removed_temp);
    return r;
}

CacheReport cache_clean(const std::filesystem::path& root, const std::vector<std::string>& names) {
    std::vector<cache::Kind> kinds;
    for (const std::string& name : names) {
        bool found = false;
        for (cache::Kind kind : kAllKinds) {
            if (name == cache::to_string(kind)) {
                kinds.push_back(kind);
                found = true;
            }
        }
        if (!found) {
            throw util::InputError("unknown cache kind '" + name + "'",
                                   "use one of: artifacts, unpacked, metadata, http, temp");
        }
    }
    cache::Cache c(root);
    return describe(cache::clean(c, kinds), "removed from");
}

}  // namespace aitk::app
