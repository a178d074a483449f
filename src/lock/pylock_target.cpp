// What one install from a pylock.toml selects, and the lockfile target it becomes: the
// specification's "Installation" steps, with aitk-env's lockfile as the plan.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aitk/lock/lock_floor.hpp"
#include "aitk/lock/pylock.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/sdist_filename.hpp"
#include "aitk/pep/tag_fit.hpp"
#include "aitk/pep/wheel_filename.hpp"
#include "aitk/util/path_name.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::lock {
namespace {

using util::SourceLocation;

PylockProblem bad(SourceLocation where, std::string message, std::string hint,
                  bool fits_elsewhere) {
    PylockProblem out;
    out.problem.where = std::move(where);
    out.problem.message = std::move(message);
    out.problem.hint = std::move(hint);
    out.fits_elsewhere = fits_elsewhere;
    return out;
}

// A problem in the file or in what was asked.
util::Unexpected<PylockProblem> problem(SourceLocation where, std::string message,
                                        std::string hint = {}) {
    return util::Unexpected(bad(std::move(where), std::move(message), std::move(hint), false));
}

// A valid file this target, Python or selection cannot install.
util::Unexpected<PylockProblem> mismatch(SourceLocation where, std::string message,
                                         std::string hint = {}) {
    return util::Unexpected(bad(std::move(where), std::move(message), std::move(hint), true));
}

std::string list_or_none(const std::vector<std::string>& names) {
    return names.empty() ? std::string("none") : util::join(names, ", ");
}

// "linux x86_64, Python 3.12.3": what the environment markers were evaluated for.
std::string describe(const pep::MarkerEnvironment& env) {
    using V = pep::MarkerVariable;
    return "sys_platform " + util::single_quoted(env.get(V::sys_platform)) + ", platform_machine " +
           util::single_quoted(env.get(V::platform_machine)) + ", Python " +
           env.get(V::python_full_version);
}

}  // namespace

PylockResult<std::vector<const PylockPackage*>> select_pylock_packages(
    const Pylock& pylock, const PylockSelection& selection) {
    const SourceLocation top{pylock.file, 0, 0};
    std::vector<std::string> extras;
    for (const auto& extra : selection.extras) {
        const std::string name = pep::canonicalize_name(extra);
        if (std::find(pylock.extras.begin(), pylock.extras.end(), name) == pylock.extras.end()) {
            return problem(top,
                           "the lock file has no extra " + util::single_quoted(name) +
                               " (its extras: " + list_or_none(pylock.extras) + ")",
                           "choose one of its extras");
        }
        extras.push_back(name);
    }
    std::vector<std::string> groups;
    for (const auto& group : selection.groups) {
        const std::string name = pep::canonicalize_name(group);
        const auto& declared = pylock.dependency_groups;
        const auto& defaults = pylock.default_groups;
        if (std::find(declared.begin(), declared.end(), name) == declared.end() &&
            std::find(defaults.begin(), defaults.end(), name) == defaults.end()) {
            return problem(top,
                           "the lock file has no dependency group " + util::single_quoted(name) +
                               " (its groups: " + list_or_none(declared) + ")",
                           "choose one of its dependency groups");
        }
        groups.push_back(name);
    }
    const pep::LockFileSelection sets{extras, groups};
    const auto& env = selection.environment;
    const std::string python = env.get(pep::MarkerVariable::python_full_version);
    const auto version = pep::Version::parse(python);
    if (pylock.requires_python && version && !pylock.requires_python->contains(*version, true)) {
        return mismatch(top,
                        "the lock file's requires-python " +
                            util::single_quoted(pylock.requires_python_text) +
                            " does not allow Python " + python,
                        "install for a Python it allows (--python)");
    }
    if (!pylock.environments.empty()) {
        bool any = false;
        for (const auto& marker : pylock.environments) {
            auto holds = marker.evaluate(env, sets);
            if (!holds) {
                return problem(
                    pylock.environments_where,
                    "an environment marker cannot be evaluated: " + holds.error().describe());
            }
            any = any || *holds;
        }
        if (!any) {
            std::vector<std::string> listed;
            for (const auto& marker : pylock.environments)
                listed.push_back(util::single_quoted(marker.to_string()));
            return mismatch(pylock.environments_where,
                            "none of the lock file's environments (" + util::join(listed, ", ") +
                                ") holds for " + describe(env),
                            "install it on a platform it was locked for, or lock for this one");
        }
    }
    std::vector<const PylockPackage*> out;
    std::map<std::string, const PylockPackage*> chosen;
    for (const auto& package : pylock.packages) {
        if (package.marker) {
            auto holds = package.marker->evaluate(env, sets);
            if (!holds) {
                return problem(package.marker_where,
                               "package " + package.name + ": " + holds.error().describe());
            }
            if (!*holds) continue;
        }
        if (package.requires_python && version &&
            !package.requires_python->contains(*version, true)) {
            return mismatch(package.where,
                            "package " + package.name + " requires Python " +
                                util::single_quoted(package.requires_python_text) +
                                ", and this install is for " + python,
                            "install for a Python it allows (--python)");
        }
        auto [it, inserted] = chosen.emplace(package.name, &package);
        if (!inserted) {
            return problem(package.where,
                           "package " + package.name +
                               " has two entries for this install (the "
                               "other at " +
                               it->second->where.to_string() + ")",
                           "the lock file must narrow every package to one entry: give the "
                           "entries markers that exclude each other");
        }
        out.push_back(&package);
    }
    return out;
}

namespace {

class TargetBuilder {
  public:
    TargetBuilder(const PylockTarget& target, const PylockPlaces& places,
                  std::vector<LockedIndex>& indexes)
        : target_(target), places_(places), indexes_(indexes) {}

    // Fills the package's wheel or source (and its version when the file names it).
    std::optional<PylockProblem> convert(const PylockPackage& from, LockedPackage& to) {
        if (from.vcs) {
            to.source = vcs_source(*from.vcs);
        } else if (from.directory) {
            LockedSource source;
            source.kind = SourceKind::directory;
            source.url = local(from.directory->path);
            source.editable = from.directory->editable;
            source.subdirectory = from.directory->subdirectory;
            to.source = std::move(source);
        } else if (from.archive) {
            return archive(from, to);
        } else {
            return wheel_or_sdist(from, to);
        }
        return std::nullopt;
    }

    // The floor the selected index packages force (pep::unavoidable_floor): the needs of each
    // one's wheels that fit the target (of its sdist when none does).
    void settle_floor(const std::vector<const PylockPackage*>& selected) {
        std::vector<std::vector<std::optional<pep::OsVersion>>> needs;
        for (const auto* package : selected) {
            if (package->vcs || package->directory || package->archive) continue;
            std::vector<std::optional<pep::OsVersion>> files;
            for (const auto& wheel : package->wheels) {
                auto name = pep::WheelFilename::parse(wheel.name);
                if (!name || !target_.tags.best_rank(name->tags)) continue;
                files.push_back(need_of(name->tags));
            }
            if (files.empty() && package->sdist) files.push_back(std::nullopt);
            needs.push_back(std::move(files));
        }
        floor_ = pep::unavoidable_floor(needs);
    }

  private:
    std::optional<pep::OsVersion> need_of(const std::vector<pep::Tag>& tags) const {
        auto need = wheel_os_need(target_.os, target_.arch, tags);
        return need ? std::optional(need->version) : std::nullopt;
    }
    // A compiled wheel that needs a newer glibc (macOS) than the versions force gives way to
    // one that keeps the floor (a pure wheel).
    bool keeps_floor(const std::vector<pep::Tag>& tags) const {
        return pep::within_floor(need_of(tags), floor_);
    }

    std::string local(std::string_view path) const {
        return places_.local_url ? places_.local_url(path) : std::string(path);
    }
    std::string location(const PylockFile& file) const {
        return file.path.empty() ? file.url : local(file.path);
    }

    LockedSource vcs_source(const PylockVcs& vcs) const {
        LockedSource source;
        source.kind = SourceKind::vcs;
        std::string url = vcs.path.empty() ? vcs.url : local(vcs.path);
        // direct_url.json's form has no "git+"; the lockfile's (a requirement's) has.
        if (!url.starts_with(vcs.type + "+")) url = vcs.type + "+" + url;
        source.url = std::move(url);
        source.commit = vcs.commit_id;
        if (!pep::is_full_commit_id(vcs.requested_revision)) {
            source.revision = vcs.requested_revision;
        }
        source.subdirectory = vcs.subdirectory;
        return source;
    }

    std::string index_name(const std::string& url) {
        for (const auto& index : indexes_) {
            if (index.url == url) return index.name;
        }
        LockedIndex index{{}, url, IndexKind::simple};
        if (places_.index_backend) {
            if (auto backend = places_.index_backend(url)) {
                index.name = "torch " + *backend;
                index.kind = IndexKind::torch_backend;
            }
        }
        if (index.name.empty()) {
            const auto plain = std::count_if(indexes_.begin(), indexes_.end(), [](const auto& i) {
                return i.kind == IndexKind::simple;
            });
            index.name = plain == 0 ? "primary" : "extra-index " + std::to_string(plain);
        }
        const std::string base = index.name;
        for (int n = 2; std::any_of(indexes_.begin(), indexes_.end(),
                                    [&](const auto& i) { return i.name == index.name; });
             ++n) {
            index.name = base + " (" + std::to_string(n) + ")";
        }
        indexes_.push_back(index);
        return index.name;
    }

    // The file's name must be a wheel of this package, of its version when that is written.
    util::Expected<pep::WheelFilename, PylockProblem> wheel_name(const PylockPackage& from,
                                                                 const PylockFile& file) {
        auto parsed = pep::WheelFilename::parse(file.name);
        if (!parsed) {
            return problem(file.where,
                           "package " + from.name + ": " + util::single_quoted(file.name) +
                               " is not a wheel file name: " + parsed.error().describe());
        }
        // It names the file in the cache, a bundle and a mirror, as a lockfile's `filename`.
        if (auto unusable = util::path_name_problem(file.name)) {
            return problem(file.where,
                           "package " + from.name + ": " + util::single_quoted(file.name) +
                               " cannot name a file: " + *unusable,
                           std::string(util::path_name_rule));
        }
        if (parsed->name != from.name) {
            return problem(file.where, "package " + from.name + " lists " +
                                           util::single_quoted(file.name) + ", a wheel of " +
                                           parsed->name);
        }
        if (!from.version.empty()) {
            auto version = pep::Version::parse(from.version);
            if (version && !(*version == parsed->version)) {
                return problem(file.where, "package " + from.name + " " + from.version + " lists " +
                                               util::single_quoted(file.name) + ", a wheel of " +
                                               parsed->version.to_string());
            }
        }
        return std::move(*parsed);
    }

    std::optional<PylockProblem> wheel_or_sdist(const PylockPackage& from, LockedPackage& to) {
        const PylockFile* best = nullptr;
        std::optional<std::size_t> best_rank;
        std::optional<pep::WheelFilename> best_name;
        std::vector<std::string> names;
        for (const auto& wheel : from.wheels) {
            auto name = wheel_name(from, wheel);
            if (!name) return std::move(name).error();
            names.push_back(wheel.name);
            const auto rank = target_.tags.best_rank(name->tags);
            if (rank && !keeps_floor(name->tags)) continue;
            if (rank && (!best_rank || *rank < *best_rank)) {
                best = &wheel;
                best_rank = rank;
                best_name = std::move(*name);
            }
        }
        if (!from.index.empty()) to.index = index_name(from.index);
        if (best != nullptr) {
            to.wheel = LockedFile{best->name, location(*best), best->sha256, best->size};
            if (to.version.empty()) to.version = best_name->version.to_string();
            return std::nullopt;
        }
        if (!from.sdist) {
            return bad(from.where,
                       "package " + from.name + (from.version.empty() ? "" : " " + from.version) +
                           " has no wheel for " + target_.id + " (Python " + target_.python +
                           ") and no sdist; its wheels: " + list_or_none(names),
                       "install on a platform it has wheels for, or lock again for this one", true);
        }
        const PylockFile& sdist = *from.sdist;
        LockedSource source;
        source.kind = from.index.empty() ? SourceKind::url : SourceKind::sdist;
        source.url = location(sdist);
        source.sha256 = sdist.sha256;
        source.size = sdist.size;
        to.source = std::move(source);
        if (to.version.empty()) {
            if (auto parsed = pep::SdistFilename::parse(sdist.name);
                parsed && parsed->name == from.name) {
                to.version = parsed->version.to_string();
            }
        }
        return std::nullopt;
    }

    std::optional<PylockProblem> archive(const PylockPackage& from, LockedPackage& to) {
        const PylockFile& file = *from.archive;
        if (util::to_lower(file.name).ends_with(".whl")) {
            // A wheel named by its URL: installed as it is, if this target can.
            auto name = wheel_name(from, file);
            if (!name) return std::move(name).error();
            if (!target_.tags.best_rank(name->tags)) {
                return bad(file.where,
                           "package " + from.name + ": the archive " +
                               util::single_quoted(file.name) + " is a wheel " + target_.id +
                               " (Python " + target_.python + ") cannot install",
                           "install on a platform the wheel is for", true);
            }
            to.wheel = LockedFile{file.name, location(file), file.sha256, file.size};
            if (to.version.empty()) to.version = name->version.to_string();
            return std::nullopt;
        }
        LockedSource source;
        source.kind = SourceKind::url;
        source.url = location(file);
        source.sha256 = file.sha256;
        source.size = file.size;
        source.subdirectory = file.subdirectory;
        to.source = std::move(source);
        return std::nullopt;
    }

    const PylockTarget& target_;
    const PylockPlaces& places_;
    std::vector<LockedIndex>& indexes_;
    std::optional<pep::OsVersion> floor_;
};

}  // namespace

PylockResult<LockedTarget> pylock_target(const std::vector<const PylockPackage*>& selected,
                                         const PylockTarget& target, const PylockPlaces& places,
                                         std::vector<LockedIndex>& indexes) {
    LockedTarget out;
    out.id = target.id;
    out.os = target.os;
    out.arch = target.arch;
    out.backend = target.backend;
    out.python = target.python;
    out.marker_environment = pep::marker_map(target.environment);

    // PEP 751 has no "requested": the roots of the recorded dependencies stand for it (what no
    // other selected package needs was asked for), and every package when none records any.
    std::set<std::string> names;
    bool recorded = false;
    for (const auto* package : selected) {
        names.insert(package->name);
        recorded = recorded || package->has_dependencies;
    }
    std::set<std::string> needed;
    for (const auto* package : selected) {
        for (const auto& dependency : package->dependencies) {
            if (dependency != package->name && names.count(dependency)) needed.insert(dependency);
        }
    }

    TargetBuilder builder(target, places, indexes);
    builder.settle_floor(selected);
    for (const auto* package : selected) {
        LockedPackage locked;
        locked.name = package->name;
        locked.version = package->version;
        locked.requested = !recorded || needed.count(package->name) == 0;
        for (const auto& dependency : package->dependencies) {
            if (dependency != package->name && names.count(dependency)) {
                locked.dependencies.push_back(dependency);
            }
        }
        std::sort(locked.dependencies.begin(), locked.dependencies.end());
        locked.dependencies.erase(
            std::unique(locked.dependencies.begin(), locked.dependencies.end()),
            locked.dependencies.end());
        if (auto failed = builder.convert(*package, locked)) {
            return util::Unexpected(std::move(*failed));
        }
        out.packages.push_back(std::move(locked));
    }
    std::sort(out.packages.begin(), out.packages.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

}  // namespace aitk::lock
