#include "aitk/app/snapshot.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <system_error>

#include "aitk/app/prefix.hpp"
#include "aitk/app/sync.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/index/client.hpp"
#include "aitk/index/url.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/pep/metadata.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/requirement.hpp"
#include "aitk/pep/wheel_filename.hpp"
#include "aitk/platform/tables.hpp"
#include "aitk/project/target.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "snapshot_parts.hpp"

namespace aitk::app {
namespace {

using namespace snapshot_detail;

namespace stdfs = std::filesystem;

// The full interpreter version from pyvenv.cfg: `version` (venv) or `version_info`
// (virtualenv: "3.12.1.final.0").
std::string full_python_version(const stdfs::path& prefix) {
    auto text = read_optional(prefix / "pyvenv.cfg");
    std::string found;
    if (text) {
        for (auto line : util::split(*text, '\n')) {
            auto eq = line.find('=');
            if (eq == std::string_view::npos) continue;
            auto key = util::trim(line.substr(0, eq));
            auto value = std::string(util::trim(line.substr(eq + 1)));
            if (util::iequals(key, "version") || util::iequals(key, "version_info")) {
                auto parts = util::split(value, '.');
                if (parts.size() >= 3) {
                    found = std::string(parts[0]) + "." + std::string(parts[1]) + "." +
                            std::string(parts[2]);
                }
                if (util::iequals(key, "version")) break;
            }
        }
    }
    auto version = pep::Version::parse(found);
    if (found.empty() || !version) {
        throw util::InputError(
            util::utf8_of(prefix / "pyvenv.cfg") + " names no full Python version",
            "a snapshot needs the interpreter's X.Y.Z: add `version = X.Y.Z` to pyvenv.cfg");
    }
    return version->to_string();
}

// This machine, with the backend torch was built for: its local version label ("+cu130");
// without one, the backend of the target the prefix was set up for (same OS and architecture),
// else PyPI's build (mps on macOS arm64, cpu elsewhere). `torch_backend` is the label's backend,
// whose index the torch family is looked up on ("" without a label).
project::Target choose_target(const SnapshotRequest& request,
                              const std::vector<install::InstalledDistribution>& installed,
                              const lock::LockedTarget* set_up_for, std::string& torch_backend) {
    project::Target target{request.os, request.arch, "cpu"};
    for (const auto& d : installed) {
        if (d.name != "torch") continue;
        if (auto backend = backend_of_torch_version(d.version)) {
            target.backend = *backend;
            torch_backend = *backend;
            return target;
        }
        if (request.os == "macos" && request.arch == "arm64") target.backend = "mps";
    }
    if (set_up_for && set_up_for->os == target.os && set_up_for->arch == target.arch) {
        target.backend = set_up_for->backend;
    }
    return target;
}

// Index entries by name; a name another URL already uses gets a number.
class IndexTable {
  public:
    std::string add(const lock::LockedIndex& entry) {
        for (const auto& known : entries_) {
            if (known.url == entry.url && known.kind == entry.kind) return known.name;
        }
        auto name = entry.name;
        for (int n = 2; taken(name); ++n)
            name = entry.name + " " + std::to_string(n);
        entries_.push_back({name, entry.url, entry.kind});
        return name;
    }
    const std::vector<lock::LockedIndex>& entries() const { return entries_; }

  private:
    bool taken(const std::string& name) const {
        return std::any_of(entries_.begin(), entries_.end(),
                           [&](const auto& e) { return e.name == name; });
    }
    std::vector<lock::LockedIndex> entries_;
};

// The locked package a receipt vouches for: aitk-env installed exactly it.
std::optional<lock::LockedPackage> from_receipt(const install::InstalledDistribution& dist,
                                                const std::optional<Receipt>& receipt,
                                                const lock::LockedTarget* locked) {
    if (!receipt || !locked || dist.installer != "aitk-env") return std::nullopt;
    auto key = receipt->wheel_sha256.find(dist.name);
    const auto* package = locked->find(dist.name);
    if (key == receipt->wheel_sha256.end() || !package || key->second.empty()) return std::nullopt;
    if (package->wheel && package->wheel->sha256 != key->second) return std::nullopt;
    if (!package->wheel && !package->source) return std::nullopt;
    auto installed = pep::Version::parse(dist.version);
    auto wanted = pep::Version::parse(package->version);
    if (!package->version.empty() && (!installed || !wanted || !(*installed == *wanted))) {
        return std::nullopt;
    }
    auto out = *package;
    if (out.version.empty()) out.version = dist.version;
    return out;
}

// What find_files fills in.
struct Found {
    std::map<std::string, lock::LockedPackage>& packages;
    std::map<std::string, FileOrigin>& origins;
    IndexTable& indexes;
    std::vector<std::string>& unlockable;
    std::vector<std::string>& notes;
};

// The files of distributions nothing recorded: the exact wheel on the indexes, else that
// version's sdist, else the wheel in the cache; the rest are unlockable.
void find_files(const std::vector<std::string>& lookups,
                std::map<std::string, WheelInfo>& wheel_infos, index::IndexClient& client,
                const cache::Cache& cache, Found& found) {
    auto pages = client.projects(lookups);
    std::vector<std::string> failures;
    for (std::size_t i = 0; i < lookups.size(); ++i) {
        const auto& name = lookups[i];
        auto& package = found.packages[name];
        const auto version = pep::Version::parse(package.version);
        const auto& wheel = wheel_infos[name];
        const auto& page = pages[i];
        if (!page && page.error().kind != index::IndexError::Kind::not_found) {
            failures.push_back(name + ": " + page.error().message);
            continue;
        }
        if (page && version) {
            const auto* file = matching_wheel(*page, name, *version, wheel);
            const auto* sdist = file ? nullptr : matching_sdist(*page, name, *version);
            if (file || sdist) {
                const auto* chosen = file ? file : sdist;
                package.index = found.indexes.add(to_locked(page->index));
                std::string sha = chosen->sha256() ? std::string(*chosen->sha256()) : "";
                if (file) {
                    package.wheel = lock::LockedFile{
                        chosen->filename, util::strip_credentials(chosen->url), sha, chosen->size};
                } else {
                    lock::LockedSource source;
                    source.kind = lock::SourceKind::sdist;
                    source.url = util::strip_credentials(chosen->url);
                    source.sha256 = sha;
                    source.size = chosen->size;
                    package.source = source;
                    found.notes.push_back(name + " " + package.version +
                                          ": no wheel on the index has the installed "
                                          "wheel's tags; its sdist is locked (setup builds "
                                          "it)");
                }
                found.origins[name] = FileOrigin::index;
                continue;
            }
        }
        if (version) {
            if (auto path = cached_wheel(cache, name, *version, wheel)) {
                std::error_code ec;
                package.wheel = lock::LockedFile{
                    util::utf8_of(path->filename()), index::path_to_file_url(*path),
                    util::utf8_of(path->parent_path().parent_path().filename()) +
                        util::utf8_of(path->parent_path().filename()),
                    stdfs::file_size(*path, ec)};
                found.origins[name] = FileOrigin::cache;
                found.notes.push_back(name + " " + package.version +
                                      ": only this machine's cache holds its wheel; "
                                      "`aitk-env bundle -l LOCK` carries it elsewhere");
                continue;
            }
        }
        std::string where;
        for (const auto& location : client.routing().candidates(name))
            where += (where.empty() ? "" : ", ") + util::strip_credentials(location.url);
        found.unlockable.push_back(
            name + " " + package.version + " (tags: " + util::join(wheel.tags, ".") +
            "): no such file on " + (where.empty() ? "no index" : where) + " nor in the cache");
    }
    if (!failures.empty()) {
        throw util::Error(util::ExitCode::failure,
                          "cannot read the index:\n  " + util::join(failures, "\n  "),
                          "check --index-url / --extra-index-url and the network");
    }
}

std::string location_of(const lock::LockedPackage& package) {
    if (package.wheel) return package.wheel->url;
    if (package.source) return package.source->url;
    return {};
}

// "sha256:<hex>" over what the snapshot locks, so two snapshots of equal prefixes are equal.
std::string snapshot_hash(const lock::LockedTarget& target) {
    fs::Sha256 hash;
    auto field = [&](std::string_view value) {
        hash.update(std::to_string(value.size()));
        hash.update(std::string_view("\0", 1));
        hash.update(value);
    };
    field("snapshot");
    field(target.id);
    field(target.python);
    for (const auto& p : target.packages) {
        field(p.name);
        field(p.version);
        field(location_of(p));
        field(p.wheel ? p.wheel->sha256 : p.source ? p.source->sha256 + p.source->commit : "");
    }
    return "sha256:" + hash.finish_hex();
}

// What the prefix holds, read once: its layout, Python, distributions, lock copy and receipt.
struct PrefixState {
    install::PrefixLayout layout;
    std::string python;
    std::vector<install::InstalledDistribution> installed;
    std::optional<PrefixLock> prefix_lock;
    std::optional<Receipt> receipt;
    const lock::LockedTarget* locked_target = nullptr;  // in prefix_lock
};

PrefixState read_prefix_state(const SnapshotRequest& request, SnapshotOutcome& outcome) {
    PrefixState state;
    state.layout = open_prefix(request.prefix, request.windows);
    state.python = full_python_version(state.layout.prefix);
    state.installed = install::installed_distributions(state.layout);
    try {
        state.prefix_lock = read_prefix_lock(state.layout);
    } catch (const util::Error& e) {
        outcome.notes.push_back(std::string("the prefix's lock copy is unreadable (") + e.what() +
                                "); every file is looked up anew");
    }
    state.receipt = Receipt::read(state.layout.state);
    if (state.prefix_lock) {
        const auto& receipt = state.receipt;
        auto id = receipt && !receipt->target.empty() ? receipt->target : state.prefix_lock->target;
        state.locked_target = state.prefix_lock->lock.find_target(id);
    }
    return state;
}

// The lock entries made so far, and what is still to be found on the indexes.
struct Collected {
    std::map<std::string, lock::LockedPackage> packages;
    std::map<std::string, FileOrigin> origins;
    std::vector<std::string> lookups;  // names to find on the indexes
    std::map<std::string, WheelInfo> wheel_infos;
    std::vector<std::string> unlockable;  // "name version: why"
};

// Each kept distribution from the receipt's lock entry, its direct_url.json, or (its WHEEL
// read) left for the index lookup.
Collected collect_entries(const std::set<std::string>& kept,
                          const std::map<std::string, Dist>& dists, const PrefixState& state,
                          IndexTable& indexes, SnapshotOutcome& outcome) {
    const auto& receipt = state.receipt;
    const auto* locked_target = state.locked_target;
    const auto& prefix_lock = state.prefix_lock;
    Collected c;
    auto& packages = c.packages;
    auto& origins = c.origins;
    auto& lookups = c.lookups;
    auto& wheel_infos = c.wheel_infos;
    auto& unlockable = c.unlockable;
    for (const auto& name : kept) {
        const auto& dist = dists.at(name);
        const auto& d = *dist.installed;
        lock::LockedPackage package;
        package.name = name;
        package.version = d.version;
        package.requested = d.requested;
        package.extras = extra_list(dist.extras);
        if (auto reused = from_receipt(d, receipt, locked_target)) {
            if (!reused->index.empty()) {
                for (const auto& entry : prefix_lock->lock.indexes) {
                    if (entry.name == reused->index) {
                        reused->index = indexes.add(entry);
                        break;
                    }
                }
            }
            packages[name] = std::move(*reused);
            origins[name] = FileOrigin::receipt;
            continue;
        }
        if (auto text = read_optional(d.dist_info / "direct_url.json")) {
            auto direct = parse_direct_url(*text);
            if (!direct) {
                unlockable.push_back(name + " " + d.version + ": " +
                                     util::utf8_of(d.dist_info / "direct_url.json") + ": " +
                                     direct.error());
                continue;
            }
            if (auto* file = std::get_if<lock::LockedFile>(&*direct)) {
                package.wheel = *file;
            } else {
                package.source = std::get<lock::LockedSource>(*direct);
            }
            if (location_of(package).starts_with("file:")) {
                outcome.notes.push_back(name + " " + d.version + ": " + location_of(package) +
                                        " is on this machine only; `aitk-env bundle -l LOCK` "
                                        "carries it elsewhere");
            }
            packages[name] = std::move(package);
            origins[name] = FileOrigin::direct_url;
            continue;
        }
        auto wheel_text = read_optional(d.dist_info / "WHEEL");
        auto wheel = wheel_text ? parse_wheel_info(*wheel_text)
                                : util::Expected<WheelInfo, std::string>(
                                      util::Unexpected(std::string("no WHEEL file")));
        if (!wheel) {
            unlockable.push_back(name + " " + d.version + ": " +
                                 util::utf8_of(d.dist_info / "WHEEL") + ": " + wheel.error());
            continue;
        }
        wheel_infos[name] = *wheel;
        packages[name] = std::move(package);
        lookups.push_back(name);
    }

    return c;
}

// Without --allow-unlocked a package no index has is an error; with it, it is left out.
void drop_unlockable(const SnapshotRequest& request, Collected& c, SnapshotOutcome& outcome) {
    auto& unlockable = c.unlockable;
    auto& packages = c.packages;
    auto& origins = c.origins;
    if (!unlockable.empty()) {
        if (!request.allow_unlocked) {
            throw util::Error(
                util::ExitCode::failure,
                "cannot lock what the prefix holds:\n  " + util::join(unlockable, "\n  "),
                "pass --index-url / --extra-index-url / --find-links of the index these came "
                "from, or --allow-unlocked to leave them out of the snapshot");
        }
        for (const auto& line : unlockable) {
            auto name = line.substr(0, line.find(' '));
            packages.erase(name);
            origins.erase(name);
            outcome.left_out.push_back(line + " (--allow-unlocked)");
        }
    }
}

// Entries whose sha256 (or size) the prefix does not record.
std::vector<Unhashed> unhashed_files(std::map<std::string, lock::LockedPackage>& packages) {
    std::vector<Unhashed> unhashed;
    for (auto& [name, package] : packages) {
        if (package.wheel && package.wheel->sha256.empty()) {
            unhashed.push_back({&package.wheel->sha256, &package.wheel->size, package.wheel->url,
                                package.wheel->filename});
        } else if (package.source && package.source->sha256.empty() &&
                   (package.source->kind == lock::SourceKind::url ||
                    package.source->kind == lock::SourceKind::sdist)) {
            unhashed.push_back({&package.source->sha256, &package.source->size, package.source->url,
                                index::url_filename(package.source->url)});
        } else if (package.wheel && !package.wheel->size) {
            // A local wheel pip recorded by hash only: its size is one stat away.
            if (auto path = index::file_url_to_path(package.wheel->url)) {
                std::error_code ec;
                auto size = stdfs::file_size(*path, ec);
                if (!ec) package.wheel->size = size;
            }
        }
    }
    return unhashed;
}

lock::LockedTarget snapshot_target(const project::Target& target, const std::string& python,
                                   const pep::MarkerEnvironment& env, const PrefixState& state,
                                   const std::map<std::string, Dist>& dists, Collected& c,
                                   SnapshotOutcome& outcome) {
    const auto* locked_target = state.locked_target;
    auto& packages = c.packages;
    auto& origins = c.origins;
    lock::LockedTarget locked;
    locked.id = target.id();
    locked.os = target.os;
    locked.arch = target.arch;
    locked.backend = target.backend;
    locked.python = python;
    locked.marker_environment = pep::marker_map(env);
    if (locked_target && locked_target->id == locked.id)
        locked.variables = locked_target->variables;
    for (auto& [name, package] : packages) {
        // Reused lock entries keep their own list; both drop names the snapshot left out.
        std::vector<std::string> deps;
        const auto& source_deps =
            origins[name] == FileOrigin::receipt
                ? package.dependencies
                : std::vector<std::string>(dists.at(name).dependencies.begin(),
                                           dists.at(name).dependencies.end());
        for (const auto& dep : source_deps) {
            if (packages.count(dep)) deps.push_back(dep);
        }
        package.dependencies = deps;
        outcome.entries.push_back({name, package.version, origins[name], location_of(package)});
        locked.packages.push_back(package);
    }

    return locked;
}

}  // namespace

// prefix → target → distributions and extras → entries (receipt, direct_url.json, indexes) →
// hashes → the lockfile.
SnapshotOutcome snapshot_prefix(Session& session, const SnapshotRequest& request) {
    SnapshotOutcome outcome;
    const auto state = read_prefix_state(request, outcome);
    const auto python_version = *pep::Version::parse(state.python);

    std::string torch_backend;
    const auto target = choose_target(request, state.installed, state.locked_target, torch_backend);
    auto env = project::marker_environment(target, python_version);
    auto dists = read_distributions(state.installed, outcome.notes);
    activate_extras(dists, env);
    find_dependencies(dists, env, outcome.notes);
    auto kept = kept_names(dists, request.keep_installer_tools, outcome.left_out);

    // The lock copy's indexes keep their names, whether or not a package still uses them, so a
    // snapshot of an untouched prefix lists what its lock lists.
    IndexTable indexes;
    if (state.prefix_lock) {
        for (const auto& entry : state.prefix_lock->lock.indexes)
            indexes.add(entry);
    }
    auto collected = collect_entries(kept, dists, state, indexes, outcome);
    if (!collected.lookups.empty()) {
        const lock::Lockfile* own = state.prefix_lock ? &state.prefix_lock->lock : nullptr;
        index::ClientOptions client_options;
        client_options.offline = session.offline();
        index::IndexClient client(session.downloader(), &session.cache(),
                                  snapshot_routing(request, own, torch_backend), client_options);
        Found found{collected.packages, collected.origins, indexes, collected.unlockable,
                    outcome.notes};
        find_files(collected.lookups, collected.wheel_infos, client, session.cache(), found);
    }
    drop_unlockable(request, collected, outcome);
    auto unhashed = unhashed_files(collected.packages);
    fill_hashes(session, unhashed);
    auto locked = snapshot_target(target, state.python, env, state, dists, collected, outcome);

    auto& lockfile = outcome.lockfile;
    lockfile.name = state.prefix_lock ? state.prefix_lock->lock.name
                                      : util::utf8_of(state.layout.prefix.filename());
    if (lockfile.name.empty()) lockfile.name = "snapshot";
    lockfile.generator = std::string("aitk-env ") + AITK_ENV_VERSION;
    if (state.prefix_lock) lockfile.python_requires = state.prefix_lock->lock.python_requires;
    lockfile.input_hash = snapshot_hash(locked);
    lockfile.indexes = indexes.entries();
    lockfile.default_target = locked.id;
    lockfile.targets.push_back(std::move(locked));
    return outcome;
}

nlohmann::json SnapshotOutcome::to_json() const {
    nlohmann::json packages = nlohmann::json::array();
    for (const auto& e : entries) {
        packages.push_back({{"name", e.name},
                            {"version", e.version},
                            {"origin", std::string(to_string(e.origin))},
                            {"location", e.location}});
    }
    const auto& target = lockfile.targets.front();
    return {{"target", target.id},
            {"python", target.python},
            {"packages", packages},
            {"left_out", left_out},
            {"notes", notes}};
}

std::string SnapshotOutcome::summary() const {
    std::ostringstream out;
    for (const auto& e : entries) {
        out << e.name << " " << e.version << ": " << to_string(e.origin) << " (" << e.location
            << ")\n";
    }
    for (const auto& line : left_out)
        out << "left out: " << line << "\n";
    for (const auto& note : notes)
        out << "note: " << note << "\n";
    return out.str();
}

}  // namespace aitk::app
