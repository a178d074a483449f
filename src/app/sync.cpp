#include "aitk/app/sync.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>
#include <utility>

#include "aitk/app/bytecode.hpp"
#include "aitk/app/index_routing.hpp"
#include "aitk/app/prefix.hpp"
#include "aitk/app/source_builds.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/cache/maintenance.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/index/artifacts.hpp"
#include "aitk/install/direct_url.hpp"
#include "aitk/install/ordered_installs.hpp"
#include "aitk/install/plan.hpp"
#include "aitk/install/transaction.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/parallel.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "disk_full.hpp"
#include "unpack_pool.hpp"

namespace aitk::app {
namespace {

std::uintmax_t size_or_zero(const std::filesystem::path& file) {
    std::error_code ec;
    auto size = std::filesystem::file_size(file, ec);
    return ec ? 0 : size;
}

// A wheel locked by URL rather than from an index: pip records where it came from (PEP 610).
bool is_direct_reference(const lock::LockedPackage& package) {
    return package.index.empty() && package.wheel && !package.wheel->url.empty();
}

// PEP 610: the URL without its credentials, as source_builds.cpp writes a source's.
std::string direct_url_json(const lock::LockedFile& wheel) {
    return install::write_direct_url(
        {util::strip_credentials(wheel.url), "", install::DirectUrl::Archive{wheel.sha256}});
}

// A source node sync can build: git at a full commit (a lock made without inspecting sources
// may hold a branch name), an sdist/archive URL, a local folder.
bool buildable(const lock::LockedPackage& package) {
    if (!package.source) return false;
    if (package.source->kind == lock::SourceKind::vcs) {
        return package.source->url.starts_with("git+") &&
               pep::is_full_commit_id(package.source->commit);
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

std::vector<install::WantedDistribution> wanted_distributions(const lock::LockedTarget& target,
                                                              bool build_sources) {
    std::vector<install::WantedDistribution> wanted;
    wanted.reserve(target.packages.size());
    for (const auto& package : target.packages) {
        install::WantedDistribution want;
        want.name = package.name;
        want.version = package.version;
        want.key = installed_key(package);
        want.from_wheel = package.wheel.has_value();
        want.installable = package.wheel || (build_sources && buildable(package));
        wanted.push_back(std::move(want));
    }
    return wanted;
}

SyncPlan plan_sync(const lock::LockedTarget& target,
                   const std::vector<install::InstalledDistribution>& installed,
                   const std::optional<Receipt>& receipt, bool remove_extraneous,
                   const install::PrefixLayout* layout, bool build_sources) {
    auto planned = install::plan_install(wanted_distributions(target, build_sources), installed,
                                         receipt, remove_extraneous, layout);
    SyncPlan plan;
    const auto& packages = target.packages;
    for (auto i : planned.install)
        plan.install.push_back(packages[i]);
    for (auto i : planned.reinstall)
        plan.reinstall.push_back(packages[i]);
    for (auto i : planned.keep)
        plan.keep.push_back(packages[i].name);
    for (auto i : planned.skipped)
        plan.unbuildable.push_back(packages[i]);
    plan.remove = std::move(planned.remove);
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
        out += "skip       " + p.name + " (" +
               (p.source ? std::string(lock::to_string(p.source->kind)) : "source") +
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

namespace {

// A line for the user: to the request's notice, else stderr (in one write: the unpack pool's
// threads may tell at once).
void tell(const std::function<void(const std::string&)>& notice, const std::string& message) {
    if (notice) {
        notice(message);
    } else {
        std::cerr << message + "\n" << std::flush;
    }
}

void tell(const SyncRequest& request, const std::string& message) {
    tell(request.notice, message);
}

}  // namespace

fs::FileLock lock_prefix_for_change(const install::PrefixLayout& layout,
                                    const std::function<void(const std::string&)>& notice) {
    return install::lock_prefix(layout, [&](std::optional<long> holder) {
        tell(notice, "waiting for another aitk-env" +
                         (holder ? " (pid " + std::to_string(*holder) + ")" : std::string()) +
                         " using " + util::utf8_of(layout.prefix) + "...");
    });
}

namespace {

// What the plan installs: wheels from the lock first, then the source nodes, which are built
// into wheels and from then on handled like them (index i of `all` is a wheel below
// wheels.size(), else built source i - wheels.size()).
struct WantedPackages {
    std::vector<const lock::LockedPackage*> all;
    std::vector<const lock::LockedPackage*> wheels;
    std::vector<const lock::LockedPackage*> sources;
};

WantedPackages wanted_of(const SyncPlan& plan) {
    WantedPackages out;
    for (const auto* list : {&plan.install, &plan.reinstall}) {
        for (const auto& p : *list)
            (p.wheel ? out.wheels : out.sources).push_back(&p);
    }
    out.all = out.wheels;
    out.all.insert(out.all.end(), out.sources.begin(), out.sources.end());
    return out;
}

// Stage: the source nodes built into wheels under `output`, before anything else, so that a
// build failure changes nothing.
std::vector<BuiltSource> build_sources(Session& session, const SyncRequest& request,
                                       const WantedPackages& wanted,
                                       std::optional<fs::TempDir>& output) {
    if (wanted.sources.empty()) return {};
    const auto& layout = request.layout;
    python::DiscoveryOptions discovery;
    auto interpreter = python::probe_interpreter(layout.python, discovery);
    if (!interpreter) {
        throw util::Error(util::ExitCode::failure,
                          "cannot build source packages for " + util::utf8_of(layout.prefix) +
                              ": its interpreter does not run: " + interpreter.error(),
                          "recreate the prefix with `aitk-env setup`");
    }
    output = fs::TempDir::create("aitk-env-built");
    SourceBuildRequest build;
    build.sources = wanted.sources;
    build.interpreter = *interpreter;
    if (request.lock) build.routing = routing_from_lock(*request.lock, *request.target);
    build.output_dir = output->path();
    build.prefix = layout.prefix;
    return build_source_packages(session, build);
}

// Fetches the locked wheels into the cache (from the artifact sources first, when given);
// `arrived(i, path)` runs as each one is there. Counts the downloads into `outcome`.
void fetch_wheels(Session& session, const SyncRequest& request, const WantedPackages& wanted,
                  const std::function<void(std::size_t, const std::filesystem::path&)>& arrived,
                  SyncOutcome& outcome) {
    // The order the downloads start in: the largest first, so that the wheel that takes
    // longest to unpack (torch) is not the last to arrive; wheels of unknown size before all
    // (an index that lists no sizes, PyTorch's, is where the largest ones come from).
    std::vector<std::size_t> order(wanted.wheels.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    auto size_rank = [&](std::size_t i) {
        const auto& size = wanted.wheels[i]->wheel->size;
        return size ? *size : UINT64_MAX;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return size_rank(a) > size_rank(b); });
    std::vector<cache::ArtifactRef> refs;
    for (std::size_t i : order) {
        const auto& wheel = *wanted.wheels[i]->wheel;
        refs.push_back({wheel.sha256, wheel.filename, wheel.url});
    }
    if (refs.empty()) return;
    auto& cache = session.cache();
    auto& downloader = session.downloader();
    if (!request.artifact_sources.empty()) {
        std::vector<std::string> projects;
        for (std::size_t i : order)
            projects.push_back(wanted.wheels[i]->name);
        locate_artifacts(session, refs, projects,
                         {&request.artifact_sources, request.target->backend});
    }
    auto fetched = index::fetch_artifacts(
        cache, downloader, refs, session.offline(), session.observer(),
        [&](std::size_t k, const std::filesystem::path& path) { arrived(order[k], path); });
    outcome.downloaded += downloads_or_throw(fetched, "wheels");
}

// Old versions leave at commit, unless a file of the new one takes their place.
void stage_removals(install::PrefixTransaction& txn, const SyncPlan& plan,
                    const std::vector<install::InstalledDistribution>& installed) {
    for (const auto& dist : plan.remove)
        txn.remove(dist);
    std::map<std::string, const install::InstalledDistribution*> present;
    for (const auto& dist : installed)
        present[dist.name] = &dist;
    for (const auto& p : plan.reinstall) {
        if (auto it = present.find(p.name); it != present.end()) txn.remove(*it->second);
    }
}

install::WheelInstallRequest install_request_for(const SyncRequest& request,
                                                 const WantedPackages& wanted,
                                                 const std::vector<BuiltSource>& built,
                                                 const std::filesystem::path& tree, std::size_t i) {
    const auto& package = *wanted.all[i];
    install::WheelInstallRequest r;
    r.unpacked = tree;
    r.name = package.name;
    r.version = package.version;
    r.requested = package.requested;
    r.link_mode = request.link_mode;
    if (i < wanted.wheels.size()) {
        r.label = package.wheel->filename;
        if (is_direct_reference(package)) r.direct_url = direct_url_json(*package.wheel);
    } else {
        const auto& b = built[i - wanted.wheels.size()];
        r.version = b.version;
        r.label = util::utf8_of(b.wheel.filename());
        r.direct_url = b.direct_url;
    }
    return r;
}

// Wheels from this size on unpack on several threads.
constexpr std::uintmax_t large_wheel_bytes = 64ull << 20;

// Stage: every wanted wheel in the cache, unpacked there once per sha256 and installed into
// the transaction's staging, each step as soon as the one before it is done for that wheel:
// a wheel is unpacked as soon as it is in the cache (the largest ready one first) while others
// still download, and linked as soon as its tree is ready, in parallel with the rest
// (install::OrderedInstalls makes the result that of installing in order). The installed
// modules, for compile_bytecode.
std::vector<std::filesystem::path> fetch_unpack_install(
    Session& session, const SyncRequest& request, install::PrefixTransaction& txn,
    const WantedPackages& wanted, const std::vector<BuiltSource>& built, TimelineRecorder& timeline,
    SyncOutcome& outcome) {
    auto& cache = session.cache();
    const std::size_t count = wanted.all.size();
    const std::size_t wheels = wanted.wheels.size();
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < count; ++i) {
        labels.push_back(i < wheels ? wanted.all[i]->wheel->filename
                                    : util::utf8_of(built[i - wheels].wheel.filename()));
    }
    timeline.wheels(std::move(labels));
    std::vector<std::filesystem::path> artifacts(count);
    install::OrderedInstalls order(count);
    std::mutex result_mutex;
    std::vector<std::filesystem::path> modules;
    const std::size_t threads = util::worker_count(request.jobs, count);
    UnpackPool pool(threads, [&](std::size_t i) {
        const auto& sha =
            i < wheels ? wanted.all[i]->wheel->sha256 : built[i - wheels].wheel_sha256;
        const double unpack_start = timeline.now();
        bool unpacked = false;
        // The tree is checked against what it was when it was unpacked (a prefix linked from it
        // may have written through a hardlink) and made again from the wheel when it differs.
        const auto tree = cache.ensure_unpacked(
            sha,
            [&](const std::filesystem::path& dest) {
                unpacked = true;
                // A large wheel (torch) is often the last to arrive and then unpacks alone: on
                // every worker's core, not one.
                install::UnpackLimits limits;
                if (size_or_zero(artifacts[i]) >= large_wheel_bytes) limits.threads = pool.limit();
                install::unpack_wheel(artifacts[i], dest, limits);
            },
            artifacts[i]);
        if (unpacked) {
            timeline.unpacked(i, unpack_start);
            timeline.cover(&SyncTimeline::unpack, unpack_start);
        }
        auto wheel_request = install_request_for(request, wanted, built, tree.path(), i);
        if (tree.changed()) tell(request, tree.change_notice(wheel_request.label));
        const double link_start = timeline.now();
        auto result = order.install(txn.staging(), i, std::move(wheel_request));
        timeline.linked(i, link_start);
        timeline.cover(&SyncTimeline::link, link_start);
        std::lock_guard lock(result_mutex);
        if (!outcome.link_mode) outcome.link_mode = result.used;
        if (!request.compile_bytecode) return;
        for (const auto& file : result.files) {
            // Modules in site-packages only, as pip compiles them (not data files).
            if (file.path.ends_with(".py") && !file.path.starts_with("../")) {
                modules.push_back(request.layout.purelib / from_record_path(file.path));
            }
        }
    });
    for (std::size_t b = 0; b < built.size(); ++b) {
        artifacts[wheels + b] = built[b].wheel;
        timeline.fetched(wheels + b);
        pool.add(wheels + b, size_or_zero(built[b].wheel));
    }
    // While wheels download, one core is left to the transfers (receiving, writing and
    // hashing them take about one): the fetch decides when torch, the largest and usually the
    // last wheel in, can start unpacking, and unpacking on every core slows it down. The last
    // wheel in gives every core back, before it starts unpacking. (On the 2-core bench VM this
    // alone moved the cold setup within the noise, bench/results/setup-2026-12-03.md.)
    if (threads > 1 && !wanted.wheels.empty()) pool.set_limit(threads - 1);
    std::atomic<std::size_t> awaited = wanted.wheels.size();
    const double fetch_start = timeline.now();
    fetch_wheels(
        session, request, wanted,
        [&](std::size_t i, const std::filesystem::path& path) {
            artifacts[i] = path;
            timeline.fetched(i);
            if (--awaited == 0) pool.set_limit(threads);
            pool.add(i, size_or_zero(path));
        },
        outcome);
    pool.set_limit(threads);
    if (wheels > 0) timeline.cover(&SyncTimeline::fetch, fetch_start);
    // The downloads and the trees unpacked so far go to disk while the last wheels unpack and
    // link, instead of all at once in commit's flush (not when nothing was fetched: a sync
    // with nothing to install stays without a flush).
    std::thread flush;
    if (outcome.downloaded > 0) flush = std::thread([&txn] { txn.flush_ahead(); });
    try {
        pool.finish();
    } catch (...) {
        if (flush.joinable()) flush.join();
        throw;
    }
    if (flush.joinable()) flush.join();
    return modules;
}

// Stage: the receipt and the prefix's copy of the lock, staged for the commit. A sync that
// changes no package rewrites nothing it need not (and stages nothing at all when the receipt
// and lock copy are current).
void stage_records(const SyncRequest& request, install::PrefixTransaction& txn,
                   const SyncPlan& plan, const std::optional<Receipt>& receipt) {
    const auto& target = *request.target;
    const auto& layout = request.layout;
    Receipt updated;
    updated.target = target.id;
    updated.input_hash = request.lock ? request.lock->input_hash : std::string();
    for (const auto& want : wanted_distributions(target, request.build_sources)) {
        if (want.installable) updated.wheel_sha256[want.name] = want.key;
    }
    const bool changed = !plan.empty();
    if (changed || !receipt || !(*receipt == updated)) {
        txn.stage_file(install::receipt_path(layout.state), updated.text());
    }
    if (request.lock && (changed || !prefix_lock_matches(layout, *request.lock, target.id))) {
        write_prefix_lock(txn.staging(), *request.lock, target.id);
    }
}

// files the lock may read → plan → build sources → prepare (fetch, unpack) → install (staged)
// → commit → bytecode.
SyncOutcome sync_stages(Session& session, const SyncRequest& request) {
    const auto& layout = request.layout;
    check_local_files(*request.target, request.artifact_sources);
    SyncOutcome outcome;
    if (request.dry_run) {
        outcome.plan = plan_sync(*request.target, install::installed_distributions(layout),
                                 Receipt::read(layout.state), request.remove_extraneous, &layout,
                                 request.build_sources);
        return outcome;
    }

    TimelineRecorder timeline(session.clock());
    timeline.begin(&SyncTimeline::plan);
    // The prefix lock is held from planning to commit, and an interrupted earlier run is
    // finished or undone first, so the plan is made from a whole prefix that nobody changes.
    std::optional<fs::FileLock> own_lock;
    if (request.prefix_lock == nullptr) own_lock = lock_prefix_for_change(layout, request.notice);
    auto txn = install::PrefixTransaction::begin(
        layout, {}, {}, request.prefix_lock ? request.prefix_lock : &*own_lock);
    const auto installed = install::installed_distributions(layout);
    const auto receipt = Receipt::read(layout.state);
    outcome.plan = plan_sync(*request.target, installed, receipt, request.remove_extraneous,
                             &layout, request.build_sources);
    const WantedPackages wanted = wanted_of(outcome.plan);

    timeline.end(&SyncTimeline::plan);

    std::optional<fs::TempDir> build_output;
    timeline.begin(&SyncTimeline::build);
    const auto built = build_sources(session, request, wanted, build_output);
    if (!wanted.sources.empty()) timeline.end(&SyncTimeline::build);
    auto hold = session.cache().hold();
    cache::sweep_interrupted_writes(session.cache());  // what a killed run left beside the caches

    stage_removals(txn, outcome.plan, installed);
    auto modules = fetch_unpack_install(session, request, txn, wanted, built, timeline, outcome);
    stage_records(request, txn, outcome.plan, receipt);
    timeline.begin(&SyncTimeline::commit);
    txn.commit();
    timeline.end(&SyncTimeline::commit);

    if (request.compile_bytecode && !modules.empty()) {
        timeline.begin(&SyncTimeline::bytecode);
        std::sort(modules.begin(), modules.end());
        compile_bytecode(layout, modules, request.jobs);
        timeline.end(&SyncTimeline::bytecode);
    }
    outcome.timeline = timeline.take();
    return outcome;
}

}  // namespace

SyncOutcome sync_prefix(Session& session, const SyncRequest& request) {
    try {
        return sync_stages(session, request);
    } catch (const std::exception& error) {
        explain_disk_full(error, session.cache_root(), request.layout.prefix);
        throw;
    }
}

}  // namespace aitk::app
