#include "aitk/app/sync.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <iostream>
#include <mutex>
#include <thread>

#include "aitk/app/bytecode.hpp"
#include "aitk/app/prefix.hpp"
#include "aitk/app/source_builds.hpp"
#include "aitk/build/git_url.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/index/artifacts.hpp"
#include "aitk/install/transaction.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::app {
namespace {

constexpr std::string_view receipt_file = "receipt.json";

std::size_t worker_count(std::size_t wanted, std::size_t tasks) {
    std::size_t n =
        wanted != 0 ? wanted : std::max<std::size_t>(2, std::thread::hardware_concurrency());
    return std::max<std::size_t>(1, std::min(n, tasks));
}

// Runs `task(i)` for i in [0, count) on a few threads; the first exception wins and is
// rethrown after every thread has stopped.
template <class Task>
void parallel_for(std::size_t count, std::size_t jobs, const Task& task) {
    if (count == 0) return;
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto worker = [&] {
        for (;;) {
            std::size_t i = next.fetch_add(1);
            if (i >= count) return;
            {
                std::lock_guard lock(failure_mutex);
                if (failure) return;
            }
            try {
                task(i);
            } catch (...) {
                std::lock_guard lock(failure_mutex);
                if (!failure) failure = std::current_exception();
            }
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t t = 1; t < worker_count(jobs, count); ++t)
        threads.emplace_back(worker);
    worker();
    for (auto& t : threads)
        t.join();
    if (failure) std::rethrow_exception(failure);
}

// Indexes of `trees` grouped so that wheels sharing a top-level name (a folder or module in
// site-packages, or a .data subfolder) are in one group: a union-find over those names.
std::vector<std::vector<std::size_t>> install_groups(
    const std::vector<std::filesystem::path>& trees) {
    std::vector<std::size_t> parent(trees.size());
    for (std::size_t i = 0; i < parent.size(); ++i)
        parent[i] = i;
    auto find = [&](std::size_t i) {
        while (parent[i] != i)
            i = parent[i] = parent[parent[i]];
        return i;
    };
    std::map<std::string, std::size_t> owner;
    for (std::size_t i = 0; i < trees.size(); ++i) {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(trees[i], ec)) {
            std::string name = entry.path().filename().string();
            if (name.ends_with(".dist-info")) continue;
            if (name.ends_with(".data")) name = ".data";  // scripts, headers: shared folders
            auto [it, inserted] = owner.emplace(name, i);
            if (!inserted) parent[find(i)] = find(it->second);
        }
    }
    std::map<std::size_t, std::vector<std::size_t>> by_root;
    for (std::size_t i = 0; i < trees.size(); ++i)
        by_root[find(i)].push_back(i);
    std::vector<std::vector<std::size_t>> groups;
    for (auto& [root, members] : by_root)
        groups.push_back(std::move(members));
    return groups;
}

}  // namespace

std::optional<Receipt> Receipt::read(const std::filesystem::path& state_dir) {
    std::error_code ec;
    auto path = state_dir / receipt_file;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    auto json = nlohmann::json::parse(fs::read_file(path), nullptr, false);
    if (json.is_discarded() || !json.is_object()) return std::nullopt;  // rewritten on sync
    Receipt r;
    r.target = json.value("target", "");
    r.input_hash = json.value("input_hash", "");
    if (json.contains("wheel_sha256") && json["wheel_sha256"].is_object()) {
        for (const auto& [name, sha] : json["wheel_sha256"].items()) {
            if (sha.is_string()) r.wheel_sha256[name] = sha.get<std::string>();
        }
    }
    return r;
}

std::string Receipt::text() const {
    nlohmann::json json = {
        {"target", target}, {"input_hash", input_hash}, {"wheel_sha256", wheel_sha256}};
    return json.dump(2) + "\n";
}

void Receipt::write(const std::filesystem::path& state_dir) const {
    std::filesystem::create_directories(state_dir);
    fs::write_file_atomic(state_dir / receipt_file, text());
}

namespace {

// Every RECORD file is present with the size RECORD gives.
bool files_intact(const install::PrefixLayout& layout, const install::InstalledDistribution& dist) {
    if (dist.record.empty()) return false;
    for (const auto& file : dist.record) {
        if (file.hash.empty()) continue;  // RECORD itself, or a file recorded without a hash
        std::error_code ec;
        auto size = std::filesystem::file_size(layout.purelib / file.path, ec);
        if (ec || size != file.size) return false;
    }
    return true;
}

// A wheel locked by URL rather than from an index: pip records where it came from (PEP 610).
bool is_direct_reference(const lock::LockedPackage& package) {
    return package.index.empty() && package.wheel && !package.wheel->url.empty();
}

std::string direct_url_json(const lock::LockedFile& wheel) {
    nlohmann::json json = {
        {"url", wheel.url},
        {"archive_info",
         {{"hashes", {{"sha256", wheel.sha256}}}, {"hash", "sha256=" + wheel.sha256}}}};
    return json.dump();
}

// Whether the prefix's lock copy already says `lock` and `target` (an unreadable copy does not).
bool lock_copy_current(const install::PrefixLayout& layout, const lock::Lockfile& lock,
                       const std::string& target) {
    try {
        auto own = read_prefix_lock(layout);
        return own && own->target == target && own->lock == lock;
    } catch (const util::Error&) {
        return false;
    }
}

// A source node sync can build: git at a full commit (a lock made without inspecting sources
// may hold a branch name), an sdist/archive URL, a local folder.
bool buildable(const lock::LockedPackage& package) {
    if (!package.source) return false;
    if (package.source->kind == "vcs") {
        return package.source->url.starts_with("git+") &&
               build::is_full_commit_id(package.source->commit);
    }
    return !source_identity(package).empty();
}

// What the receipt records per package: the wheel's sha256, or the source a wheel is built from.
std::string installed_key(const lock::LockedPackage& package) {
    return package.wheel ? package.wheel->sha256 : source_identity(package);
}

std::filesystem::path from_record_path(const std::string& path) {
    return std::filesystem::path(std::u8string(path.begin(), path.end()));
}

}  // namespace

SyncPlan plan_sync(const lock::LockedTarget& target,
                   const std::vector<install::InstalledDistribution>& installed,
                   const std::optional<Receipt>& receipt, bool remove_extraneous,
                   const install::PrefixLayout* layout, bool build_sources) {
    SyncPlan plan;
    std::map<std::string, const install::InstalledDistribution*> present;
    for (const auto& dist : installed)
        present[dist.name] = &dist;
    for (const auto& package : target.packages) {
        if (!package.wheel && (!build_sources || !buildable(package))) {
            plan.unbuildable.push_back(package);
            present.erase(package.name);  // whatever is there stays (it may be a build of it)
            continue;
        }
        auto it = present.find(package.name);
        if (it == present.end()) {
            plan.install.push_back(package);
            continue;
        }
        const auto& dist = *it->second;
        // A source node locked without inspection has no version: its identity decides.
        bool same_version =
            package.version.empty() ? !package.wheel : dist.version == package.version;
        bool same_wheel = true;
        if (receipt) {
            auto sha = receipt->wheel_sha256.find(package.name);
            same_wheel =
                sha != receipt->wheel_sha256.end() && sha->second == installed_key(package);
        }
        if (same_version && same_wheel && (!layout || files_intact(*layout, dist))) {
            plan.keep.push_back(package.name);
        } else {
            plan.reinstall.push_back(package);
        }
        present.erase(it);
    }
    if (remove_extraneous) {
        for (const auto& [name, dist] : present)
            plan.remove.push_back(*dist);
    }
    return plan;
}

std::string SyncPlan::describe() const {
    std::string out;
    for (const auto& p : install)
        out += "install    " + p.name + " " + p.version + "\n";
    for (const auto& p : reinstall)
        out += "reinstall  " + p.name + " " + p.version + "\n";
    for (const auto& d : remove)
        out += "remove     " + d.name + " " + d.version + "\n";
    for (const auto& p : unbuildable) {
        out += "skip       " + p.name + " (" + (p.source ? p.source->kind : "source") +
               ": needs a source build)\n";
    }
    out += std::to_string(keep.size()) + " unchanged\n";
    return out;
}

nlohmann::json SyncPlan::to_json() const {
    auto names = [](const std::vector<lock::LockedPackage>& v) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& p : v)
            out.push_back({{"name", p.name}, {"version", p.version}});
        return out;
    };
    nlohmann::json removed = nlohmann::json::array();
    for (const auto& d : remove)
        removed.push_back({{"name", d.name}, {"version", d.version}});
    return {{"install", names(install)},
            {"reinstall", names(reinstall)},
            {"remove", removed},
            {"keep", keep},
            {"unbuildable", names(unbuildable)}};
}

nlohmann::json SyncOutcome::to_json() const {
    auto json = plan.to_json();
    json["downloaded"] = downloaded;
    if (link_mode) {
        static const char* names[] = {"auto", "reflink", "hardlink", "copy"};
        json["link_mode"] = names[static_cast<int>(*link_mode)];
    }
    return json;
}

SyncOutcome sync_prefix(const SyncRequest& request) {
    const auto& target = *request.target;
    const auto& layout = request.layout;
    SyncOutcome outcome;
    if (request.dry_run) {
        outcome.plan =
            plan_sync(target, install::installed_distributions(layout), Receipt::read(layout.state),
                      request.remove_extraneous, &layout, request.build_sources);
        return outcome;
    }

    // The prefix lock is held from planning to commit, and an interrupted earlier run is
    // finished or undone first, so the plan is made from a whole prefix that nobody changes.
    auto txn = install::PrefixTransaction::begin(layout, [&] {
        const std::string message =
            "waiting for another aitk-env using " + layout.prefix.string() + "...";
        if (request.notice) {
            request.notice(message);
        } else {
            std::cerr << message << std::endl;
        }
    });
    auto installed = install::installed_distributions(layout);
    auto receipt = Receipt::read(layout.state);
    outcome.plan = plan_sync(target, installed, receipt, request.remove_extraneous, &layout,
                             request.build_sources);

    std::vector<const lock::LockedPackage*> wanted;
    for (const auto& p : outcome.plan.install)
        wanted.push_back(&p);
    for (const auto& p : outcome.plan.reinstall)
        wanted.push_back(&p);

    // Source nodes are built first (a build failure then changes nothing), and afterwards
    // handled like wheels from an index.
    std::vector<const lock::LockedPackage*> sources;
    std::vector<const lock::LockedPackage*> wheels;
    for (const auto* p : wanted)
        (p->wheel ? wheels : sources).push_back(p);
    wanted = wheels;
    wanted.insert(wanted.end(), sources.begin(), sources.end());
    std::vector<BuiltSource> built;
    std::optional<fs::TempDir> build_output;
    if (!sources.empty()) {
        python::DiscoveryOptions discovery;
        auto interpreter = python::probe_interpreter(layout.python, discovery);
        if (!interpreter) {
            throw util::Error(util::ExitCode::failure,
                              "cannot build source packages for " + layout.prefix.string() +
                                  ": its interpreter does not run: " + interpreter.error(),
                              "recreate the prefix with `aitk-env setup`");
        }
        build_output = fs::TempDir::create("aitk-env-built");
        SourceBuildRequest build;
        build.sources = sources;
        build.interpreter = *interpreter;
        build.cache_root = request.cache_root;
        if (request.lock) build.routing = routing_from_lock(*request.lock, target);
        build.network = request.network;
        build.observer = request.observer;
        build.output_dir = build_output->path();
        build.prefix = layout.prefix;
        built = build_source_packages(build);
    }

    cache::Cache cache(request.cache_root);
    std::vector<cache::ArtifactRef> refs;
    for (const auto* p : wheels)
        refs.push_back({p->wheel->sha256, p->wheel->filename, p->wheel->url});
    std::vector<std::filesystem::path> artifacts;
    if (!refs.empty()) {
        net::DownloaderOptions options;
        options.concurrency = request.network.concurrency;
        options.ca_file = request.network.cert;
        net::Downloader downloader(options);
        auto fetched = index::fetch_artifacts(cache, downloader, refs, request.network.offline,
                                              request.observer);
        std::vector<std::string> errors;
        for (const auto& r : fetched.results) {
            if (r.path.empty()) errors.push_back(r.error);
            if (r.downloaded) ++outcome.downloaded;
            artifacts.push_back(r.path);
        }
        if (!errors.empty()) {
            throw util::Error(util::ExitCode::failure,
                              std::to_string(errors.size()) + " of " + std::to_string(refs.size()) +
                                  " wheels could not be had:\n  " + util::join(errors, "\n  "));
        }
    }

    auto hold = cache.hold();
    std::vector<std::filesystem::path> trees(wanted.size());
    for (const auto& b : built)
        artifacts.push_back(b.wheel);
    parallel_for(wanted.size(), request.jobs, [&](std::size_t i) {
        const auto& sha =
            i < wheels.size() ? wanted[i]->wheel->sha256 : built[i - wheels.size()].wheel_sha256;
        trees[i] = cache.ensure_unpacked(sha, [&](const std::filesystem::path& dest) {
            install::unpack_wheel(artifacts[i], dest);
        });
    });

    // Old versions leave at commit, unless a file of the new one takes their place.
    for (const auto& dist : outcome.plan.remove)
        txn.remove(dist);
    std::map<std::string, const install::InstalledDistribution*> present;
    for (const auto& dist : installed)
        present[dist.name] = &dist;
    for (const auto& p : outcome.plan.reinstall) {
        if (auto it = present.find(p.name); it != present.end()) txn.remove(*it->second);
    }

    // Wheels that share a top-level folder (nvidia/__init__.py in every nvidia-* wheel) are
    // installed one after the other, as pip would (the last one wins); the rest in parallel.
    auto groups = install_groups(trees);
    std::mutex result_mutex;
    std::vector<std::filesystem::path> modules;  // installed .py files, for compile_bytecode
    parallel_for(groups.size(), request.jobs, [&](std::size_t g) {
        for (std::size_t i : groups[g]) {
            install::WheelInstallRequest r;
            r.unpacked = trees[i];
            r.name = wanted[i]->name;
            r.version = wanted[i]->version;
            r.requested = wanted[i]->requested;
            r.link_mode = request.link_mode;
            if (i < wheels.size()) {
                r.label = wanted[i]->wheel->filename;
                if (is_direct_reference(*wanted[i]))
                    r.direct_url = direct_url_json(*wanted[i]->wheel);
            } else {
                const auto& b = built[i - wheels.size()];
                r.version = b.version;
                r.label = b.wheel.filename().string();
                r.direct_url = b.direct_url;
            }
            auto result = install::install_wheel(txn.staging(), r);
            std::lock_guard lock(result_mutex);
            if (!outcome.link_mode) outcome.link_mode = result.used;
            if (!request.compile_bytecode) continue;
            for (const auto& file : result.files) {
                // Modules in site-packages only, as pip compiles them (not data files).
                if (file.path.ends_with(".py") && !file.path.starts_with("../")) {
                    modules.push_back(layout.purelib / from_record_path(file.path));
                }
            }
        }
    });

    Receipt updated;
    updated.target = target.id;
    updated.input_hash = request.lock ? request.lock->input_hash : std::string();
    for (const auto& package : target.packages) {
        if (package.wheel || (request.build_sources && buildable(package))) {
            updated.wheel_sha256[package.name] = installed_key(package);
        }
    }
    // A sync that changes no package rewrites nothing it need not (and stages nothing at all
    // when the receipt and lock copy are current).
    const bool changed = !outcome.plan.empty();
    if (changed || !receipt || !(*receipt == updated)) {
        txn.stage_file(layout.state / receipt_file, updated.text());
    }
    if (request.lock && (changed || !lock_copy_current(layout, *request.lock, target.id))) {
        write_prefix_lock(txn.staging(), *request.lock, target.id);
    }
    txn.commit();

    if (request.compile_bytecode && !modules.empty()) {
        std::sort(modules.begin(), modules.end());
        compile_bytecode(layout, modules, request.jobs);
    }
    return outcome;
}

}  // namespace aitk::app
