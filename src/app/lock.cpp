#include "aitk/app/lock.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <system_error>

#include "aitk/app/any_lock.hpp"
#include "aitk/app/index_routing.hpp"
#include "aitk/app/index_source.hpp"
#include "aitk/app/python_cmd.hpp"
#include "aitk/app/source_metadata.hpp"
#include "aitk/app/torch_choice.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/index/client.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/platform/tables.hpp"
#include "aitk/python/standalone.hpp"
#include "aitk/resolve/resolver.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "hash_checks.hpp"
#include "hash_downloads.hpp"
#include "lock_os_caps.hpp"
#include "lock_project.hpp"
#include "lock_routing.hpp"
#include "lock_sources.hpp"

namespace aitk::app {
namespace {

using lock_detail::all_indexes;
using lock_detail::backend_note;
using lock_detail::check_named_target;
using lock_detail::complete_source;
using lock_detail::direct_source;
using lock_detail::direct_wheel;
using lock_detail::locked_commits;
using lock_detail::OsCaps;
using lock_detail::routing_for;
using lock_detail::strategy_for;
using lock_detail::strategy_of_input;

constexpr std::string_view default_python = "3.12";

// The X.Y a lock is made for when neither --python nor the input names one: 3.12, or the newest
// the input's python requirement allows when it rules 3.12 out (a project on 3.13 only).
std::string default_python_for(const project::ProjectInput& input) {
    auto allowed = pep::SpecifierSet::parse(input.python_requires);
    auto fits = [&](std::string_view minor) {
        auto full = python::full_python_version(minor, python::standalone_builds());
        if (!full) return false;
        auto version = pep::Version::parse(*full);
        return version && (!allowed || allowed->contains(*version, true));
    };
    if (input.python_requires.empty() || fits(default_python)) return std::string(default_python);
    for (std::string_view minor : {"3.14", "3.13", "3.11", "3.10"}) {
        if (fits(minor)) return std::string(minor);
    }
    return std::string(default_python);
}

// The full Python version the lock evaluates markers with.
std::string choose_python(const LockRequest& request, const project::ProjectInput& input) {
    std::string wanted = request.python.value_or(
        input.python_preferred.empty() ? default_python_for(input) : input.python_preferred);
    auto full = python::full_python_version(wanted, python::standalone_builds());
    if (!full) {
        throw util::InputError("--python " + wanted + ": no known CPython " + wanted,
                               "give X.Y (3.10 … 3.14) or a full version such as 3.12.3");
    }
    auto version = pep::Version::parse(*full);
    if (!input.python_requires.empty()) {
        auto allowed = pep::SpecifierSet::parse(input.python_requires);
        if (allowed && version && !allowed->contains(*version, true)) {
            throw util::InputError(
                "Python " + *full + " is outside " + input.name + "'s python requirement " +
                    input.python_requires,
                "pass --python with a version that satisfies " + input.python_requires);
        }
    }
    return *full;
}

// The targets to lock, sorted by id, and the default one: the first the inputs name (the
// manifest's order, else the first --target), so that the lock is the same whoever locks it.
struct ChosenTargets {
    std::vector<project::Target> targets;
    std::string default_id;
};

ChosenTargets choose_targets(const std::vector<std::string>& ids) {
    if (ids.empty()) {
        throw util::InputError("no target to lock for",
                               "pass --target OS-ARCH-BACKEND, e.g. "
                               "--target linux-x86_64-cu130");
    }
    ChosenTargets out;
    for (const auto& id : ids) {
        auto target = project::Target::parse(id);
        if (!target) throw util::InputError("--target " + id + ": " + target.error());
        if (out.default_id.empty()) out.default_id = target->id();
        if (std::find(out.targets.begin(), out.targets.end(), *target) == out.targets.end()) {
            out.targets.push_back(*target);
        }
    }
    std::sort(out.targets.begin(), out.targets.end(),
              [](const auto& a, const auto& b) { return a.id() < b.id(); });
    return out;
}

std::set<std::string> name_set(const std::vector<std::string>& names) {
    std::set<std::string> out;
    for (const auto& n : names)
        out.insert(n == ":all:" ? n : pep::canonicalize_name(n));
    return out;
}

std::vector<resolve::RootRequirement> roots_for(const project::ProjectInput& input,
                                                const project::Target& target,
                                                std::vector<std::string>& notes) {
    std::vector<resolve::RootRequirement> roots;
    for (const auto& [name, specifier] : input.torch_packages) {
        auto requirement = pep::Requirement::parse(name + specifier);
        if (!requirement) {
            throw util::InputError(input.name + ": torch pin '" + name + specifier +
                                   "': " + requirement.error().describe());
        }
        roots.push_back({std::move(*requirement), input.name + " torch family"});
    }
    for (const auto* entry : input.requirements_for(target)) {
        const auto& line = entry->line;
        if (!line.requirement) {
            notes.push_back(line.where.to_string() + ": " + line.text +
                            " names no project (add #egg=NAME); it is not locked");
            continue;
        }
        roots.push_back({*line.requirement, line.where.to_string()});
    }
    return roots;
}

std::vector<resolve::RootRequirement> constraints_for(const project::ProjectInput& input,
                                                      const project::Target& target) {
    std::vector<resolve::RootRequirement> out;
    for (const auto& entry : input.constraints) {
        if (!entry.when.applies(target.os, target.arch, target.backend)) continue;
        if (entry.line.requirement) {
            out.push_back({*entry.line.requirement, entry.line.where.to_string()});
        }
    }
    return out;
}

// Names (normalised) of the target's "-e" requirements.
std::set<std::string> editable_names(const project::ProjectInput& input,
                                     const project::Target& target) {
    std::set<std::string> out;
    for (const auto* entry : input.requirements_for(target)) {
        if (entry->line.editable && entry->line.requirement) {
            out.insert(entry->line.requirement->canonical_name());
        }
    }
    return out;
}

struct TargetLock {
    lock::LockedTarget locked;
    std::vector<std::string> notes;
};

// Files whose index gave no sha256 are downloaded once and hashed (docs/data-sources.md §2: the
// torch index sometimes omits it); they land in the cache for the install.
void fill_missing_hashes(Session& session, std::vector<lock::LockedPackage>& packages) {
    std::vector<lock::LockedFile*> files;
    std::vector<UnhashedFile> wanted;
    for (auto& package : packages) {
        if (!package.wheel || !package.wheel->sha256.empty()) continue;
        files.push_back(&*package.wheel);
        wanted.push_back({package.wheel->filename, package.wheel->url});
    }
    auto hashes = download_to_hash(session, wanted, "the index gives no sha256 for");
    for (std::size_t i = 0; i < hashes.size(); ++i) {
        files[i]->sha256 = hashes[i].sha256;
        files[i]->size = hashes[i].size;
    }
}

// How the resolver is asked for `target`: its markers, the earlier lock's versions as
// preferences, the inputs' constraints and this machine's torch releases
// (`torch_constraint`, "torch>=2.7,<2.12", for a lock made for it; empty otherwise).
resolve::ResolveOptions resolve_options_for(
    const LockRequest& request, const project::ProjectInput& input, const project::Target& target,
    const pep::Version& python_version, const lock::LockedTarget* previous_target,
    const index::IndexRouting& routing, const std::string& torch_constraint) {
    resolve::ResolveOptions options;
    options.environment = project::marker_environment(target, python_version);
    options.allow_prereleases = input.options.pre;
    options.upgrade_all = request.upgrade;
    for (const auto& name : request.upgrade_packages) {
        options.upgrade.insert(pep::canonicalize_name(name));
    }
    if (previous_target) {
        for (const auto& package : previous_target->packages) {
            if (auto v = pep::Version::parse(package.version)) {
                options.preferences[package.name] = *v;
            }
        }
    }
    options.constraints = constraints_for(input, target);
    for (const auto* entry : input.overrides_for(target)) {
        if (entry->line.requirement) {
            options.overrides.push_back({*entry->line.requirement, entry->line.where.to_string()});
        }
    }
    if (!torch_constraint.empty()) {
        options.constraints.push_back(
            {*pep::Requirement::parse(torch_constraint),
             "this machine (the torch releases whose " + target.backend + " build runs here)"});
    }
    if (routing.torch_backend_index) {
        options.local_group = routing.torch_family;
        options.local_label = target.backend;
    }
    return options;
}

// The versions the roots pin for the torch family ("torch==2.8.0"): the source picks the
// builds of the family's backend index for them.
std::map<std::string, pep::SpecifierSet> family_specifiers_of(
    const std::vector<resolve::RootRequirement>& roots, const index::IndexRouting& routing) {
    std::map<std::string, pep::SpecifierSet> out;
    for (const auto& root : roots) {
        const auto name = root.requirement.canonical_name();
        if (routing.is_torch_family(name) && !root.requirement.specifier().empty())
            out[name] = root.requirement.specifier();
    }
    return out;
}

// A resolved package as the lock records it: the wheel or source the source chose for it.
lock::LockedPackage locked_package(const resolve::ResolvedPackage& package,
                                   const IndexPackageSource& source, bool inspecting,
                                   bool editable) {
    lock::LockedPackage lp;
    lp.name = package.name;
    lp.version = package.url && package.version == pep::Version() ? std::string()
                                                                  : package.version.to_string();
    lp.requested = package.requested;
    lp.extras = package.extras;
    lp.dependencies = package.dependencies;
    if (package.url && inspecting && direct_wheel(*package.url)) {
        lp.wheel = direct_wheel(*package.url);
    } else if (package.url) {
        lp.source = direct_source(*package.url);
        if (const auto* inspected = source.inspected(*package.url)) {
            complete_source(*lp.source, *package.url, *inspected, editable);
        }
        // Sync clones an editable git requirement into <prefix>/src/<name>, as pip does.
        if (lp.source->kind == lock::SourceKind::vcs && editable) lp.source->editable = true;
    } else if (auto chosen = source.chosen_file(package.name, package.version)) {
        const auto& file = *chosen->file;
        lp.index = chosen->index.name;
        std::string sha = file.sha256() ? std::string(*file.sha256()) : std::string();
        if (file.is_wheel()) {
            lp.wheel =
                lock::LockedFile{file.filename, util::strip_credentials(file.url), sha, file.size};
        } else {
            lock::LockedSource s;
            s.kind = lock::SourceKind::sdist;
            s.url = util::strip_credentials(file.url);
            s.sha256 = sha;
            s.size = file.size;
            if (const auto* inspected = source.inspected(file.url)) {
                complete_source(s, file.url, *inspected, false);
            }
            lp.source = s;
        }
    }
    return lp;
}

lock::LockedTarget locked_target_header(const project::ProjectInput& input,
                                        const project::Target& target, const std::string& python,
                                        const pep::MarkerEnvironment& markers) {
    lock::LockedTarget locked;
    locked.id = target.id();
    locked.os = target.os;
    locked.arch = target.arch;
    locked.backend = target.backend;
    locked.python = python;
    locked.marker_environment = pep::marker_map(markers);
    locked.variables = input.environment_for(target);
    locked.variables.erase("PATH");  // environment.yml reserves it
    return locked;
}

// One target: its indexes → the resolution → the locked packages, hashed.
TargetLock lock_target(Session& session, const LockRequest& request,
                       const project::ProjectInput& input, const project::Target& target,
                       const std::string& python, const lock::Lockfile* previous,
                       SourceInspector* inspector, const std::string& torch_constraint,
                       const OsCaps& os_caps) {
    TargetLock out;
    auto python_version = *pep::Version::parse(python);
    auto routing = routing_for(request, input, target);
    // pip's hash-checking mode: the lines it refuses stop the lock before any download.
    const auto hash_checking =
        project::hash_checking_for(input, target, request.input.require_hashes);
    refuse_unhashable_lines(hash_checking, target.id());

    index::ClientOptions client_options;
    client_options.offline = session.offline();
    client_options.rewrite = session.network().rewrite;
    // Within a run and shortly after, a cached page is as good as the server's (PyPI itself
    // says max-age=600); --upgrade asks again.
    client_options.trust_cached_for =
        request.upgrade ? std::chrono::seconds(0) : std::chrono::seconds(600);
    index::IndexClient client(session.downloader(), &session.cache(), routing, client_options);
    client.metadata_fetcher().set_observer(session.observer());

    SourceTarget source_target;
    source_target.platform = project::tag_platform(target, python_version,
                                                   lock_detail::assumptions_for(target, os_caps));
    if (const auto* cap = os_caps.of(target.os)) source_target.os_cap_by = cap->by;
    source_target.python = python_version;
    source_target.only_binary = name_set(input.options.only_binary);
    source_target.no_binary = name_set(input.options.no_binary);
    if (hash_checking.on) source_target.hash_checking = &hash_checking;
    IndexPackageSource source(client, source_target, inspector);
    const lock::LockedTarget* previous_target =
        previous ? previous->find_target(target.id()) : nullptr;
    source.set_locked_commits(locked_commits(previous_target, request));

    auto options = resolve_options_for(request, input, target, python_version, previous_target,
                                       routing, torch_constraint);
    auto roots = roots_for(input, target, out.notes);
    source.set_family_specifiers(family_specifiers_of(roots, routing));

    resolve::Resolution resolution;
    try {
        resolution = resolve::resolve(source, roots, options);
    } catch (const resolve::Unsatisfiable& e) {
        // A pinned file left out for its digest is why, whatever else the resolver says.
        throw_if_refused_for_hashes(source.hash_refusals(), target.id());
        throw resolve::Unsatisfiable("no environment satisfies the requirements for " +
                                     target.id() + " (Python " + python + "):\n" + e.what());
    }

    source.keep_within_floor(resolution.packages);
    out.locked = locked_target_header(input, target, python, options.environment);
    const auto editables = editable_names(input, target);
    for (const auto& package : resolution.packages) {
        out.locked.packages.push_back(locked_package(package, source, inspector != nullptr,
                                                     editables.count(package.name) > 0));
    }
    fill_missing_hashes(session, out.locked.packages);
    check_locked_hashes(session, hash_checking, out.locked.packages, target.id());
    lock_detail::record_floor(out.locked, os_caps);
    for (const auto& note : source.notes())
        out.notes.push_back(target.id() + ": " + note);
    return out;
}

// One inspector for every target (the metadata is this machine's either way); its build
// requirements come from the indexes of the default target.
std::unique_ptr<HostSourceInspector> make_inspector(Session& session, const LockRequest& request,
                                                    const project::ProjectInput& input,
                                                    const std::string& python,
                                                    const std::vector<project::Target>& targets,
                                                    const std::string& default_target) {
    const project::Target* target = &targets.front();
    for (const auto& t : targets) {
        if (t.id() == default_target) target = &t;
    }
    SourceInspectorSettings settings;
    settings.routing = routing_for(request, input, *target);
    settings.python = python;
    settings.interpreter = request.sources.interpreter;
    settings.discovery = discovery_options(session);
    settings.environment = request.sources.build_environment;
    settings.timeout = request.sources.timeout;
    settings.git = request.sources.git;
    return std::make_unique<HostSourceInspector>(session, std::move(settings));
}

std::optional<lock::Lockfile> read_existing(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    return read_lockfile(path);
}

// One lock of `targets` (default `default_id`) into `outcome`, which carries the path and the
// input's notes.
void lock_targets(Session& session, const LockRequest& request, const project::ProjectInput& input,
                  const ChosenTargets& chosen, const std::string& torch_constraint,
                  LockOutcome& outcome) {
    const auto& targets = chosen.targets;
    auto python = choose_python(request, input);
    std::vector<std::string> target_ids;
    for (const auto& t : targets)
        target_ids.push_back(t.id());
    auto indexes = all_indexes(request, input, targets);
    // A strategy other than the input's own decides the lock too; the input's own adds nothing,
    // so that the locks made before strategies were chosen keep their bytes.
    const auto strategy = strategy_for(request, input);
    const OsCaps os_caps = lock_detail::os_caps_for(request, input);
    auto input_hash = lock_input_hash(
        input, python, target_ids, indexes,
        strategy == strategy_of_input(input) ? std::string_view() : index::to_string(strategy),
        os_caps.glibc.text(), os_caps.macos.text());

    auto previous = read_existing(outcome.path);
    if (request.check) {
        if (!previous) {
            outcome.stale_reason = util::utf8_of(outcome.path) + " does not exist";
        } else if (previous->input_hash != input_hash) {
            outcome.stale_reason = util::utf8_of(outcome.path) +
                                   " was locked from other inputs (the requirements, Python, "
                                   "targets, indexes, index strategy, glibc or macOS cap changed)";
        } else {
            outcome.up_to_date = true;
            outcome.lockfile = *previous;
        }
        return;
    }

    lock::Lockfile lockfile;
    lockfile.name = input.name;
    lockfile.generator = std::string("aitk-env ") + AITK_ENV_VERSION;
    lockfile.input_hash = input_hash;
    lockfile.python_requires = input.python_requires;
    lockfile.indexes = indexes;
    lockfile.default_target = chosen.default_id;
    std::unique_ptr<HostSourceInspector> inspector;
    if (request.sources.inspect) {
        inspector =
            make_inspector(session, request, input, python, targets, lockfile.default_target);
    }
    std::vector<std::string> notes;
    for (const auto& target : targets) {
        if (auto note = backend_note(input, target))
            notes.push_back(targets.size() == 1 ? *note : target.id() + ": " + *note);
    }
    for (const auto& target : targets) {
        auto locked = lock_target(session, request, input, target, python,
                                  previous && !request.upgrade ? &*previous : nullptr,
                                  inspector.get(), torch_constraint, os_caps);
        notes.insert(notes.end(), locked.notes.begin(), locked.notes.end());
        lockfile.targets.push_back(std::move(locked.locked));
    }
    outcome.notes.insert(outcome.notes.end(), notes.begin(), notes.end());

    auto text = lock::write_lockfile(lockfile);
    std::error_code ec;
    bool same = std::filesystem::exists(outcome.path, ec) && fs::read_file(outcome.path) == text;
    if (!same) {
        std::filesystem::create_directories(outcome.path.parent_path(), ec);
        fs::write_file_atomic(outcome.path, text);
        outcome.written = true;
    }
    outcome.up_to_date = true;
    outcome.lockfile = std::move(lockfile);
}

// The lock for this machine: the best build of the torch the inputs ask for that runs here,
// and the next one when the indexes cannot satisfy the requirements with it.
void lock_for_machine(Session& session, const LockRequest& request,
                      const project::ProjectInput& input, LockOutcome& outcome) {
    auto host = choose_host_builds(input, *request.machine);
    std::vector<std::string> passed;
    std::unique_ptr<HashMismatch> first_mismatch;
    for (std::size_t i = 0; i < host.attempts.size(); ++i) {
        const auto& attempt = host.attempts[i];
        LockOutcome tried = outcome;
        try {
            lock_targets(session, request, input, choose_targets({attempt.target}),
                         attempt.torch_constraint, tried);
        } catch (const resolve::Unsatisfiable& e) {
            // One build only: its own explanation is the answer.
            if (request.check || host.attempts.size() == 1) throw;
            passed.push_back(attempt.target + " passed over: " + e.what());
            continue;
        } catch (const HashMismatch& e) {
            // The pinned files may be another build's (hashes of the cu126 wheels on a machine
            // that runs cu128 too): the next build is tried; the first mismatch is the answer
            // when none fits.
            if (request.check || host.attempts.size() == 1) throw;
            if (!first_mismatch) first_mismatch = std::make_unique<HashMismatch>(e);
            passed.push_back(attempt.target + " passed over: " + e.what());
            continue;
        }
        tried.target_reason = host.choice.reason;
        if (!passed.empty()) {
            tried.target_reason += "; " + std::to_string(passed.size()) +
                                   (passed.size() == 1 ? " build" : " builds") +
                                   " passed over (the indexes cannot satisfy the requirements "
                                   "there) → " +
                                   attempt.target;
        }
        tried.passed_over = passed;
        for (const auto& p : passed)
            tried.notes.push_back(p);
        outcome = std::move(tried);
        return;
    }
    if (first_mismatch) throw HashMismatch(*first_mismatch);
    throw resolve::Unsatisfiable("no build this machine runs satisfies the requirements (" +
                                 host.choice.reason + "):\n" + util::join(passed, "\n"));
}

// The name a lockfile and its `name:` take from the inputs: a plain file name. The readers of
// environment.yml and manifests refuse a bad `name:` where it is written; this catches the names
// taken from a file's stem.
void check_lock_name(const project::ProjectInput& input) {
    if (auto problem = util::path_name_problem(input.name)) {
        throw util::InputError(input.name_where.to_string() + ": the lock's name '" + input.name +
                                   "' cannot name a file: " + *problem,
                               std::string(util::path_name_rule) + "; or rename the input");
    }
}

// `e` again, its message and hint showing ${VAR} references instead of their values.
[[noreturn]] void rethrow_concealed(const util::Error& e,
                                    const std::vector<util::Concealed>& concealed) {
    std::string message = util::conceal(e.what(), concealed);
    std::string hint = util::conceal(e.hint(), concealed);
    if (dynamic_cast<const resolve::Unsatisfiable*>(&e) != nullptr)
        throw resolve::Unsatisfiable(std::move(message), std::move(hint));
    if (dynamic_cast<const util::InputError*>(&e) != nullptr)
        throw util::InputError(std::move(message), std::move(hint));
    throw util::Error(e.code(), std::move(message), std::move(hint));
}

LockOutcome lock_input(Session& session, const LockRequest& request,
                       const project::ProjectInput& input) {
    LockOutcome outcome;
    outcome.notes = input.notes;
    outcome.input = input.described_as;
    outcome.selected_backend = input.selected_backend;
    outcome.selected_backend_by = input.selected_backend_by;
    outcome.destination = request.output
                              ? fs::absolute_from(session.cwd(), *request.output)
                              : default_lock_output(request.input, session.cwd(), input.name);
    outcome.path = outcome.destination;
    check_lock_output_name(outcome.destination);
    if (request.scratch_dir) {
        outcome.path = *request.scratch_dir / outcome.destination.filename();
        std::error_code ec;
        if (std::filesystem::exists(outcome.destination, ec)) {
            std::filesystem::copy_file(outcome.destination, outcome.path,
                                       std::filesystem::copy_options::overwrite_existing);
        }
    }
    const auto& named = request.targets.empty() ? input.default_targets : request.targets;
    if (request.machine && request.targets.empty() && (named.empty() || request.this_machine)) {
        lock_for_machine(session, request, input, outcome);
    } else {
        auto chosen = choose_targets(named);
        for (const auto& target : chosen.targets)
            check_named_target(input, target);
        lock_targets(session, request, input, chosen, {}, outcome);
    }
    return outcome;
}

}  // namespace

LockOutcome run_lock(Session& session, const LockRequest& request) {
    // A bad --glibc or --macos is the user's to fix before anything is read or fetched.
    if (request.glibc) lock_detail::checked_glibc_option(*request.glibc);
    if (request.macos) lock_detail::checked_macos_option(*request.macos);
    // A project whose dependencies only its build backend knows is asked with the lock's Python
    // (--python, else the default); --no-build leaves that to a problem naming the field.
    auto python = python::full_python_version(request.python.value_or(std::string(default_python)),
                                              python::standalone_builds());
    const auto input =
        load_project_input(request.input, session.cwd(), session.environment(),
                           request.sources.inspect
                               ? lock_detail::project_metadata_reader(
                                     session, request, python.value_or(std::string(default_python)))
                               : ProjectMetadataReader{});
    if (request.on_input) request.on_input(input.described_as);
    check_lock_name(input);
    if (input.concealed.empty()) return lock_input(session, request, input);
    LockOutcome outcome;
    try {
        outcome = lock_input(session, request, input);
    } catch (const util::Error& e) {
        rethrow_concealed(e, input.concealed);
    }
    for (auto* texts : {&outcome.notes, &outcome.passed_over}) {
        for (auto& text : *texts)
            text = util::conceal(text, input.concealed);
    }
    outcome.target_reason = util::conceal(outcome.target_reason, input.concealed);
    return outcome;
}

nlohmann::json LockOutcome::to_json() const {
    nlohmann::json targets = nlohmann::json::array();
    for (const auto& target : lockfile.targets) {
        targets.push_back(
            {{"id", target.id}, {"python", target.python}, {"packages", target.packages.size()}});
    }
    return {{"lockfile", util::utf8_of(path)},
            {"written", written},
            {"up_to_date", up_to_date},
            {"stale_reason",
             stale_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(stale_reason)},
            {"input_hash", lockfile.input_hash},
            {"default_target", lockfile.default_target},
            {"target_reason",
             target_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(target_reason)},
            {"passed_over", passed_over},
            {"input", input},
            {"targets", targets},
            {"notes", notes}};
}

}  // namespace aitk::app
