#include "aitk/app/index_source.hpp"

#include <algorithm>
#include <deque>
#include <system_error>

#include "aitk/app/source_builds.hpp"
#include "aitk/build/git_url.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/pep/specifier.hpp"
#include "aitk/pep/tag_fit.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "index_source_project.hpp"

namespace aitk::app {

std::string vcs_pin_key(const pep::VcsUrl& url) {
    return util::strip_credentials("git+" + url.repository) + "@" + url.revision + "#" +
           url.subdirectory;
}

IndexPackageSource::IndexPackageSource(index::IndexClient& client, SourceTarget target,
                                       SourceInspector* inspector)
    : client_(client),
      target_(std::move(target)),
      inspector_(inspector),
      priority_(pep::TagPriority::for_target(target_.platform)) {}

IndexPackageSource::~IndexPackageSource() = default;

bool IndexPackageSource::binary_only(const std::string& name) const {
    bool only = target_.only_binary.count(":all:") || target_.only_binary.count(name);
    return only;
}

void IndexPackageSource::index_project(Project& project, index::ProjectOutcome outcome) {
    project.loaded = true;
    if (!outcome) {
        if (outcome.error().kind != index::IndexError::Kind::not_found) {
            project.error = outcome.error();
        }
        return;
    }
    project.found = true;
    project.listing = std::move(*outcome);
    const auto& files = project.listing.files;
    const bool sdist_allowed = !binary_only(project.listing.project);
    const bool wheel_allowed =
        !(target_.no_binary.count(":all:") || target_.no_binary.count(project.listing.project));
    struct Scored {
        std::size_t file;
        std::size_t rank;  // wheels by tag priority; sdists after every wheel
    };
    const project::HashPin* pin =
        target_.hash_checking ? target_.hash_checking->find(project.listing.project) : nullptr;
    std::map<pep::Version, std::vector<Scored>> by_version;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const auto& file = files[i];
        std::size_t rank = 0;
        if (const auto* wheel = file.wheel()) {
            if (!wheel_allowed) continue;
            auto best = priority_.best_rank(std::span<const pep::Tag>(wheel->tags));
            if (!best) {
                project.incompatible.push_back(i);
                continue;
            }
            rank = *best;
        } else {
            if (!sdist_allowed) {
                ++project.sdists_refused;
                continue;
            }
            rank = static_cast<std::size_t>(-1);
        }
        if (!index::requires_python_allows(file, target_.python)) {
            ++project.python_excluded;
            continue;
        }
        if (pin && pin->judge(file.hashes) == project::HashPin::Verdict::refused) {
            if (pin->specifier.contains(file.version(), true)) {
                project.hash_refused.push_back({project.listing.project, file.version(),
                                                file.filename, util::strip_credentials(file.url),
                                                file.hashes, pin});
            }
            continue;
        }
        by_version[file.version()].push_back({i, rank});
    }
    for (auto& [version, scored] : by_version) {
        Project::VersionFiles entry;
        entry.version = version;
        std::stable_sort(scored.begin(), scored.end(),
                         [](const Scored& a, const Scored& b) { return a.rank < b.rank; });
        bool all_yanked = true;
        for (const auto& s : scored) {
            entry.files.push_back(s.file);
            if (!files[s.file].yanked) all_yanked = false;
        }
        // A yanked file is used only when the whole version is yanked (then the pin decides).
        entry.best = scored.front().file;
        for (const auto& s : scored) {
            if (!files[s.file].yanked) {
                entry.best = s.file;
                break;
            }
        }
        entry.yanked = all_yanked;
        if (all_yanked) entry.yanked_reason = files[entry.best].yanked_reason;
        // Under unsafe-first-match the index of a version's best file orders the versions
        // before their numbers do (a version's files are one index's under uv's merge).
        if (client_.routing().strategy == index::IndexStrategy::unsafe_first_match) {
            entry.index_rank = project.listing.source_of(entry.best);
        }
        project.versions.push_back(std::move(entry));
    }
}

bool IndexPackageSource::fits(const std::string& name, const Project& project) const {
    if (project.versions.empty()) return false;
    auto it = family_specifiers_.find(name);
    if (it == family_specifiers_.end()) return true;
    return std::any_of(project.versions.begin(), project.versions.end(),
                       [&](const auto& v) { return it->second.contains(v.version); });
}

void IndexPackageSource::look_beyond_backend(const std::string& name, Project& project) {
    const auto& routing = client_.routing();
    if (!routing.torch_backend_index || !routing.is_torch_family(name) ||
        routing.is_torch_core(name)) {
        return;
    }
    const std::string backend_name = routing.torch_backend_index->name;
    if (project.found && project.listing.index == *routing.torch_backend_index) {
        if (fits(name, project)) return;
        auto elsewhere = client_.project_beyond_backend(name);
        if (!elsewhere) return;  // nowhere else either: the backend index's answer stands
        Project other;
        index_project(other, std::move(elsewhere));
        if (!fits(name, other)) return;
        notes_.push_back(name + ": " + backend_name + " has no version that fits; taken from " +
                         other.listing.index.name);
        project = std::move(other);
    } else if (project.found) {
        notes_.push_back(name + ": not on " + backend_name + "; taken from " +
                         project.listing.index.name);
    }
}

IndexPackageSource::Project& IndexPackageSource::load(const std::string& name) {
    auto& slot = projects_[name];
    if (!slot) slot = std::make_unique<Project>();
    if (!slot->loaded) {
        index_project(*slot, client_.project(name));
        look_beyond_backend(name, *slot);
    }
    return *slot;
}

void IndexPackageSource::load_many(const std::vector<std::string>& names) {
    std::vector<std::string> wanted;
    for (const auto& name : names) {
        auto& slot = projects_[name];
        if (!slot) slot = std::make_unique<Project>();
        // A name asked for twice in one batch must be indexed once.
        if (!slot->loaded && std::find(wanted.begin(), wanted.end(), name) == wanted.end()) {
            wanted.push_back(name);
        }
    }
    if (wanted.empty()) return;
    auto outcomes = client_.projects(wanted);
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        index_project(*projects_[wanted[i]], std::move(outcomes[i]));
        look_beyond_backend(wanted[i], *projects_[wanted[i]]);
    }
}

resolve::SourceResult IndexPackageSource::versions(const std::string& name) {
    auto& project = load(name);
    if (project.error) return util::Unexpected<std::string>(project.error->message);
    std::vector<resolve::CandidateVersion> out;
    out.reserve(project.versions.size());
    for (const auto& v : project.versions) {
        out.push_back({v.version, v.yanked, v.yanked_reason, v.index_rank});
    }
    return out;
}

namespace {

util::Expected<resolve::DependencyInfo, std::string> dependency_info(
    const pep::CoreMetadata& metadata, const std::string& where) {
    resolve::DependencyInfo info;
    for (const auto& line : metadata.requires_dist) {
        auto requirement = pep::Requirement::parse(line);
        if (!requirement) {
            return util::Unexpected<std::string>(where + ": invalid Requires-Dist '" + line +
                                                 "': " + requirement.error().describe());
        }
        info.requires_dist.push_back(std::move(*requirement));
    }
    for (const auto& extra : metadata.provides_extra) {
        info.provides_extra.push_back(pep::canonicalize_name(extra));
    }
    return info;
}

resolve::DirectResult direct_package(const InspectedSource& inspected, const std::string& url) {
    auto info = dependency_info(inspected.metadata, util::redact_url(url));
    if (!info) return util::Unexpected<std::string>(info.error());
    resolve::DirectPackage package;
    package.version = inspected.metadata.version;
    package.dependencies = std::move(*info);
    return package;
}

// The folder a "file:" URL or a plain path names, when it is one (an archive is not).
std::optional<std::filesystem::path> local_directory(std::string_view url) {
    auto path = local_path_of(url);
    std::error_code ec;
    if (!path || !std::filesystem::is_directory(*path, ec)) return std::nullopt;
    return path;
}

}  // namespace

resolve::DependencyResult IndexPackageSource::sdist_dependencies(
    const std::string& name, const pep::Version& version, const index::DistributionFile& file) {
    const auto& inspected = remember(file.url, name, inspector_->archive(name, file), version);
    auto info = dependency_info(inspected.metadata, file.filename);
    if (!info) return util::Unexpected<std::string>(info.error());
    metadata_[file.url] = *info;
    return std::move(*info);
}

const InspectedSource& IndexPackageSource::remember(const std::string& url, const std::string& name,
                                                    InspectedSource inspected,
                                                    const std::optional<pep::Version>& expected) {
    const auto& metadata = inspected.metadata;
    const std::string where = name + " @ " + util::redact_url(url);
    if (pep::canonicalize_name(metadata.name) != pep::canonicalize_name(name)) {
        throw util::Error(util::ExitCode::failure,
                          where + ": the project there is named " + metadata.name + ", not " + name,
                          "name the requirement after the project it points to");
    }
    if (expected && !(metadata.version == *expected)) {
        throw util::Error(util::ExitCode::failure,
                          where + ": its metadata says version " + metadata.version_text +
                              ", its file name " + expected->to_string(),
                          "the archive is broken; report it to the project");
    }
    if (inspected.built) {
        notes_.push_back(name + " " + metadata.version_text + " (" + util::redact_url(url) +
                         "): metadata from its build backend with " + inspected.built_with +
                         " on this machine");
    }
    return inspected_.insert_or_assign(url, std::move(inspected)).first->second;
}

const InspectedSource* IndexPackageSource::inspected(const std::string& url) const {
    auto it = inspected_.find(url);
    return it == inspected_.end() ? nullptr : &it->second;
}

resolve::DependencyResult IndexPackageSource::dependencies(const std::string& name,
                                                           const pep::Version& version) {
    auto& project = load(name);
    const auto* entry = project.find(version);
    if (!entry) {
        return util::Unexpected<std::string>(name + " " + version.to_string() +
                                             " is not offered for this target");
    }
    const auto& file = project.listing.files[entry->best];
    if (auto known = metadata_.find(file.url); known != metadata_.end()) return known->second;
    if (!file.is_wheel() && inspector_) return sdist_dependencies(name, version, file);
    if (!file.is_wheel()) {
        // Without an inspector nothing is built: the sdist is locked as a source node with the
        // dependencies it declares nowhere we can read without building.
        notes_.push_back(name + " " + version.to_string() + ": only an sdist (" + file.filename +
                         "); its dependencies are not resolved until it is built");
        metadata_[file.url] = {};
        return resolve::DependencyInfo{};
    }
    auto fetched = client_.metadata(file);
    if (!fetched) return util::Unexpected<std::string>(fetched.error().message);
    auto info = dependency_info(fetched->metadata, file.filename);
    if (!info) return util::Unexpected<std::string>(info.error());
    metadata_[file.url] = *info;
    return std::move(*info);
}

void IndexPackageSource::lookahead(const resolve::ResolveOptions& options) {
    rules_ = options;
}

std::optional<std::size_t> IndexPackageSource::likely_version(const std::string& name,
                                                              const Project& project) const {
    const auto wanted = wanted_.find(name);
    auto admits = [&](const pep::Version& version, bool prereleases) {
        if (wanted != wanted_.end()) {
            for (const auto& specifier : wanted->second.specifiers) {
                if (!specifier.contains(version, prereleases)) return false;
            }
        }
        if (!rules_) return true;
        for (const auto& constraint : rules_->constraints) {
            if (constraint.requirement.canonical_name() == name &&
                !constraint.requirement.specifier().contains(version, true)) {
                return false;
            }
        }
        if (!rules_->local_label.empty() && version.has_local() &&
            !util::iequals(version.local(), rules_->local_label)) {
            for (const auto& entry : rules_->local_group) {
                const bool prefix = entry.ends_with('*');
                if (prefix ? name.starts_with(entry.substr(0, entry.size() - 1)) : name == entry)
                    return false;
            }
        }
        return true;
    };
    if (rules_ && !rules_->upgrade_all && !rules_->upgrade.count(name)) {
        // The lockfile's version, kept whenever it is still allowed (Solver's preference).
        if (auto it = rules_->preferences.find(name); it != rules_->preferences.end()) {
            for (std::size_t i = 0; i < project.versions.size(); ++i) {
                if (project.versions[i].version == it->second && admits(it->second, true)) {
                    return i;
                }
            }
        }
    }
    // The newest admitted version of the lowest index rank (all 0 but under
    // unsafe-first-match), as the solver chooses.
    const bool prereleases = rules_ && rules_->allow_prereleases;
    std::optional<std::size_t> best;
    for (std::size_t i = project.versions.size(); i-- > 0;) {
        const auto& v = project.versions[i];
        if (v.yanked || (!prereleases && v.version.is_prerelease())) continue;
        if (best && project.versions[*best].index_rank <= v.index_rank) continue;
        if (admits(v.version, prereleases)) best = i;
    }
    return best;
}

void IndexPackageSource::prefetch(std::span<const pep::Requirement> upcoming) {
    // One level of the crawl: requirements whose pages are wanted now.
    std::vector<const pep::Requirement*> level;
    for (const auto& requirement : upcoming)
        level.push_back(&requirement);
    std::deque<pep::Requirement> held;  // the requirements of later levels, kept in place
    // Without the target's markers only the given requirements are fetched ahead.
    const std::size_t max_levels = rules_ ? 64 : 1;
    for (std::size_t depth = 0; depth < max_levels && !level.empty(); ++depth) {
        std::vector<std::string> names;
        std::set<std::string> grown;  // names whose wants changed at this level
        for (const auto* requirement : level) {
            if (requirement->url()) continue;
            const std::string name = requirement->canonical_name();
            auto& wanted = wanted_[name];
            // New to the crawl, or asked with a specifier or extra it had not seen.
            bool changed = !crawled_.count(name);
            if (!requirement->specifier().empty()) {
                const auto text = requirement->specifier().to_string();
                if (std::none_of(wanted.specifiers.begin(), wanted.specifiers.end(),
                                 [&](const auto& s) { return s.to_string() == text; })) {
                    wanted.specifiers.push_back(requirement->specifier());
                    changed = true;
                }
            }
            for (const auto& extra : requirement->extras()) {
                if (wanted.extras.insert(pep::canonicalize_name(extra)).second) changed = true;
            }
            if (changed && grown.insert(name).second) names.push_back(name);
        }
        if (names.empty()) break;
        load_many(names);
        // The metadata of each one's likely choice, fetched together.
        std::vector<index::DistributionFile> files;
        for (const auto& name : names) {
            const auto& project = *projects_[name];
            auto choice = likely_version(name, project);
            if (!choice) continue;
            const auto& file = project.listing.files[project.versions[*choice].best];
            wanted_[name].guessed_url = file.url;
            if (!file.is_wheel() || metadata_.count(file.url)) continue;
            if (std::any_of(files.begin(), files.end(),
                            [&](const auto& f) { return f.url == file.url; })) {
                continue;
            }
            files.push_back(file);
        }
        if (!files.empty() && (rules_ || files.size() > 1)) {
            auto outcomes = client_.metadata(files);
            for (std::size_t i = 0; i < files.size(); ++i) {
                if (!outcomes[i]) continue;  // asked again (and reported) when needed
                auto info = dependency_info(outcomes[i]->metadata, files[i].filename);
                if (info) metadata_[files[i].url] = std::move(*info);
            }
        }
        if (!rules_) break;
        // The next level: what those choices need on this target (with the extras asked).
        std::vector<const pep::Requirement*> next;
        for (const auto& name : names) {
            crawled_.insert(name);
            const auto& wanted = wanted_[name];
            auto known = metadata_.find(wanted.guessed_url);
            if (wanted.guessed_url.empty() || known == metadata_.end()) continue;
            const std::vector<std::string> extras(wanted.extras.begin(), wanted.extras.end());
            for (const auto& requirement : known->second.requires_dist) {
                if (requirement.url()) continue;
                auto applies = requirement.applies(rules_->environment, extras);
                if (applies && !*applies) continue;
                held.push_back(requirement);
                next.push_back(&held.back());
            }
        }
        level = std::move(next);
    }
}

resolve::DirectResult IndexPackageSource::direct(const std::string& name, const std::string& url) {
    const auto reference = pep::split_fragment(url);
    const std::string_view plain = reference.url;
    // Only git repositories are looked into; hg, svn and bzr stay opaque source nodes.
    if (auto vcs = pep::parse_vcs_url(url); vcs && *vcs && inspector_ && (*vcs)->vcs == "git") {
        auto git = build::parse_git_url(url);
        if (!git) {
            return util::Unexpected<std::string>(name + " @ " + util::redact_url(url) + ": " +
                                                 git.error());
        }
        std::string locked;
        if (auto it = locked_commits_.find(vcs_pin_key(*git)); it != locked_commits_.end()) {
            if (pep::is_full_commit_id(it->second)) locked = it->second;
        }
        const auto& inspected = remember(url, name, inspector_->vcs(name, *git, locked), {});
        return direct_package(inspected, url);
    }
    if (auto vcs = pep::parse_vcs_url(url); vcs && *vcs) {
        // git+https://…: the version and dependencies are known once it is built.
        notes_.push_back(name + " comes from " + util::redact_url(url) +
                         "; its version and dependencies are read when it is built");
        return resolve::DirectPackage{};
    }
    if (inspector_) {
        if (auto folder = local_directory(plain)) {
            const auto& inspected = remember(url, name, inspector_->directory(name, *folder), {});
            return direct_package(inspected, url);
        }
    }
    index::DistributionFile draft;
    draft.url = std::string(plain);
    if (!reference.fragment.empty()) {
        auto fragment = index::hashes_from_fragment(reference.fragment);
        if (!fragment.error.empty()) {
            return util::Unexpected<std::string>(name + " @ " + util::redact_url(url) + ": " +
                                                 fragment.error);
        }
        draft.hashes = std::move(fragment.hashes);
    }
    auto slash = plain.rfind('/');
    draft.filename = std::string(slash == std::string_view::npos ? plain : plain.substr(slash + 1));
    auto classified = index::classify_file(std::move(draft), name);
    if (auto* skipped = std::get_if<index::SkippedFile>(&classified)) {
        return util::Unexpected<std::string>(name + " @ " + util::redact_url(url) + ": " +
                                             skipped->reason);
    }
    auto& file = std::get<index::DistributionFile>(classified);
    resolve::DirectPackage package;
    package.version = file.version();
    if (!file.is_wheel() && inspector_) {
        const auto& inspected =
            remember(url, name, inspector_->archive(name, file), file.version());
        return direct_package(inspected, url);
    }
    if (!file.is_wheel()) {
        notes_.push_back(name + " @ " + util::redact_url(url) +
                         ": an sdist; its dependencies are read when it is built");
        return package;
    }
    auto fetched = client_.metadata(file);
    if (!fetched) return util::Unexpected<std::string>(fetched.error().message);
    auto info = dependency_info(fetched->metadata, file.filename);
    if (!info) return util::Unexpected<std::string>(info.error());
    package.dependencies = std::move(*info);
    return package;
}

std::vector<HashRefusal> IndexPackageSource::hash_refusals() const {
    std::vector<HashRefusal> out;
    for (const auto& [name, project] : projects_) {
        if (project)
            out.insert(out.end(), project->hash_refused.begin(), project->hash_refused.end());
    }
    return out;
}

void IndexPackageSource::keep_within_floor(std::span<const resolve::ResolvedPackage> packages) {
    const auto& platform = target_.platform;
    if (platform.os == pep::TargetOs::windows) return;
    auto need_of = [&](const index::DistributionFile& file) -> std::optional<pep::OsVersion> {
        const auto* wheel = file.wheel();
        if (!wheel) return std::nullopt;
        auto need = pep::wheel_need(platform.os, platform.arch, wheel->tags);
        return need ? std::optional(need->version) : std::nullopt;
    };
    std::vector<std::pair<Project*, Project::VersionFiles*>> chosen;
    std::vector<std::vector<std::optional<pep::OsVersion>>> needs;
    for (const auto& package : packages) {
        if (package.url) continue;
        auto it = projects_.find(package.name);
        if (it == projects_.end()) continue;
        auto& project = *it->second;
        auto entry = std::find_if(project.versions.begin(), project.versions.end(),
                                  [&](const auto& v) { return v.version == package.version; });
        if (entry == project.versions.end()) continue;
        // Its wheels: an sdist is taken only where no wheel fits, never to keep a floor down.
        std::vector<std::optional<pep::OsVersion>> files;
        for (std::size_t i : entry->files) {
            if (project.listing.files[i].is_wheel())
                files.push_back(need_of(project.listing.files[i]));
        }
        if (files.empty()) continue;
        chosen.emplace_back(&project, &*entry);
        needs.push_back(std::move(files));
    }
    const auto floor = pep::unavoidable_floor(needs);
    for (auto [project, entry] : chosen) {
        const auto& files = project->listing.files;
        // The ranked files (a yanked one only when the whole version is yanked, as before).
        for (std::size_t i : entry->files) {
            if (!files[i].is_wheel() || (files[i].yanked && !entry->yanked)) continue;
            if (!pep::within_floor(need_of(files[i]), floor)) continue;
            entry->best = i;
            break;
        }
    }
}

std::optional<ChosenFile> IndexPackageSource::chosen_file(const std::string& name,
                                                          const pep::Version& version) const {
    auto it = projects_.find(name);
    if (it == projects_.end()) return std::nullopt;
    const auto* entry = it->second->find(version);
    if (!entry) return std::nullopt;
    const auto& listing = it->second->listing;
    return ChosenFile{&listing.files[entry->best], listing.index_of(entry->best)};
}

}  // namespace aitk::app
