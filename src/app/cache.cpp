#include "aitk/app/cache.hpp"
#include "aitk/util/utf8.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <thread>
#include <vector>

#include "aitk/cache/cache.hpp"
#include "aitk/cache/maintenance.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/util/byte_size.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/parallel.hpp"

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

// One damaged file of an entry, as `cache verify` reports it.
struct Damage {
    std::string kind;    // "artifact" or "unpacked"
    std::string sha256;  // the entry's digest
    std::string name;    // the wheel's file name ("" when unknown)
    std::string path;    // unpacked: the file in the tree, as RECORD names it
    std::string problem;
    bool removed = false;
};

std::string plural(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The artifacts' files (one per name an artifact is stored under), hashed on a few threads.
std::vector<Damage> damaged_artifacts(const cache::Cache& c, const std::vector<std::string>& all) {
    std::vector<std::pair<std::string, std::filesystem::path>> files;
    for (const auto& sha : all) {
        std::error_code ec;
        for (auto it = std::filesystem::directory_iterator(c.artifact_dir(sha), ec);
             !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
            std::error_code type_ec;
            if (it->is_regular_file(type_ec)) files.emplace_back(sha, it->path());
        }
    }
    std::vector<std::optional<Damage>> found(files.size());
    const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 4);
    util::parallel_for(files.size(), threads, [&](std::size_t i) {
        const auto& [sha, file] = files[i];
        std::string actual;
        try {
            actual = fs::sha256_file_hex(file);
        } catch (const util::Error&) {
            actual = "unreadable";
        }
        if (actual == sha) return;
        found[i] = Damage{"artifact",
                          sha,
                          util::utf8_of(file.filename()),
                          "",
                          actual == "unreadable" ? "cannot be read" : "sha256 differs",
                          false};
    });
    std::vector<Damage> out;
    for (auto& d : found)
        if (d) out.push_back(std::move(*d));
    return out;
}

// The wheel an unpacked tree was made from, for the report: its stored name, else the tree's
// .dist-info name.
std::string tree_name(const cache::Cache& c, const std::string& sha,
                      const std::vector<install::FileDrift>& drift) {
    if (auto artifact = c.find_artifact(sha)) return util::utf8_of(artifact->filename());
    return drift.empty() ? std::string() : drift.front().distribution;
}

}  // namespace

CacheReport cache_verify(const std::filesystem::path& root, bool repair) {
    cache::Cache c(root);
    const auto artifacts = cache::entry_digests(c, cache::Kind::artifacts);
    const auto trees = cache::entry_digests(c, cache::Kind::unpacked);
    std::vector<Damage> damaged = damaged_artifacts(c, artifacts);
    std::vector<std::string> damaged_trees;
    for (const auto& sha : trees) {
        std::vector<install::FileDrift> drift;
        {
            // Held while it is read: a rebuild by a running setup waits, and nothing replaces
            // the tree half-way through the check.
            auto tree = c.open_unpacked(sha);
            if (!tree) continue;
            drift = install::verify_unpacked_tree(tree->path());
        }
        if (drift.empty()) continue;
        damaged_trees.push_back(sha);
        const std::string name = tree_name(c, sha, drift);
        for (const auto& d : drift)
            damaged.push_back({"unpacked", sha, name, d.path, d.detail, false});
    }

    bool all_removed = true;
    if (repair) {
        auto mark = [&](const std::string& kind, const std::string& sha, bool removed) {
            for (auto& d : damaged)
                if (d.kind == kind && d.sha256 == sha) d.removed = removed;
            all_removed = all_removed && removed;
        };
        for (const auto& sha : damaged_trees) {
            bool removed = false;
            try {
                removed = c.remove_unpacked(sha) || !c.find_unpacked(sha);
            } catch (const util::Error&) {
            }
            mark("unpacked", sha, removed);
        }
        for (const auto& d : std::vector<Damage>(damaged)) {
            if (d.kind != "artifact") continue;
            bool removed = false;
            try {
                removed = c.remove_artifact(d.sha256) || !c.find_artifact(d.sha256);
            } catch (const util::Error&) {
            }
            mark("artifact", d.sha256, removed);
        }
    }

    CacheReport r;
    json list = json::array();
    for (const auto& d : damaged) {
        list.push_back({{"kind", d.kind},
                        {"sha256", d.sha256},
                        {"name", d.name},
                        {"path", d.path},
                        {"problem", d.problem},
                        {"removed", d.removed}});
    }
    r.json = json{{"root", util::utf8_of(root)},
                  {"clean", damaged.empty()},
                  {"artifacts", artifacts.size()},
                  {"unpacked", trees.size()},
                  {"damaged", list}};
    const std::string counted = plural(artifacts.size(), "artifact", "artifacts") + " and " +
                                plural(trees.size(), "unpacked tree", "unpacked trees");
    if (damaged.empty()) {
        r.text = "clean: " + counted + " in " + util::utf8_of(root) +
                 " match their sha256 and RECORD hashes\n";
        return r;
    }
    for (const auto& d : damaged) {
        r.text +=
            std::string(d.removed ? "removed  " : "damaged  ") + d.kind + " " +
            (d.name.empty() ? d.sha256 : d.name + " (sha256 " + d.sha256.substr(0, 12) + ")") +
            ": " + (d.path.empty() ? "" : d.path + ": ") + d.problem + "\n";
    }
    std::size_t entries = damaged_trees.size();
    for (const auto& d : damaged)
        entries += d.kind == "artifact" ? 1 : 0;
    if (!repair) {
        r.text += plural(entries, "damaged entry", "damaged entries") + " among " + counted +
                  " in " + util::utf8_of(root) +
                  "; `aitk-env cache verify --repair` removes them, and the next setup or sync "
                  "makes them again from the wheels (downloading a removed wheel again)\n";
        r.exit_code = static_cast<int>(util::ExitCode::drift);
    } else if (all_removed) {
        r.text += "removed " + plural(entries, "damaged entry", "damaged entries") +
                  "; the next setup or sync makes them again\n";
    } else {
        r.text +=
            "some damaged entries could not be removed; remove them with `aitk-env cache "
            "clean`\n";
        r.exit_code = static_cast<int>(util::ExitCode::failure);
    }
    return r;
}

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
