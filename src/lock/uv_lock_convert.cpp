// The selected packages of a uv.lock as lockfile packages for one target (uv_lock_install.hpp).
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "aitk/lock/lock_floor.hpp"
#include "aitk/lock/uv_lock_install.hpp"
#include "aitk/pep/tag_fit.hpp"
#include "aitk/pep/wheel_filename.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"

namespace aitk::lock {
namespace {

struct UvConvertFailure {
    util::InputProblem problem;
};

class Converter {
  public:
    Converter(const UvLock& lock, const UvConversionOptions& options)
        : lock_(lock), options_(options) {}

    // The floor the installed packages force: per registry or URL package, the needs of the
    // wheels that fit the target (or of its sdist when none does).
    void settle_floor(const std::set<std::size_t>& installed) {
        if (options_.os.empty()) return;
        std::vector<std::vector<std::optional<pep::OsVersion>>> needs;
        for (std::size_t i : installed) {
            const auto& p = lock_.packages[i];
            if (p.source.kind != UvSource::Kind::registry && p.source.kind != UvSource::Kind::url)
                continue;
            std::vector<std::optional<pep::OsVersion>> files;
            for (const auto& wheel : p.wheels) {
                auto name = pep::WheelFilename::parse(wheel.filename);
                if (!name || !options_.tags->best_rank(name->tags)) continue;
                auto need = wheel_os_need(options_.os, options_.arch, name->tags);
                needs_[&wheel] = need ? std::optional(need->version) : std::nullopt;
                files.push_back(needs_[&wheel]);
            }
            if (files.empty() && p.sdist) files.push_back(std::nullopt);
            needs.push_back(std::move(files));
        }
        floor_ = pep::unavoidable_floor(needs);
    }

    LockedPackage convert(const UvSelectedPackage& selected) const {
        const auto& p = lock_.packages[selected.package];
        LockedPackage out;
        out.name = p.name;
        out.version = p.version;
        out.requested = selected.root || selected.direct;
        out.extras = selected.extras;
        switch (p.source.kind) {
            case UvSource::Kind::registry:
                from_registry(p, out);
                break;
            case UvSource::Kind::url:
                from_url(p, out);
                break;
            case UvSource::Kind::git:
                from_git(p, out);
                break;
            case UvSource::Kind::path:
                from_path(p, out);
                break;
            case UvSource::Kind::directory:
            case UvSource::Kind::editable:
                out.source = LockedSource{
                    SourceKind::directory, local(p.source.location), "", "", std::nullopt, ""};
                out.source->editable = p.source.kind == UvSource::Kind::editable;
                break;
            case UvSource::Kind::virtual_:
                break;  // not installed
        }
        return out;
    }

  private:
    [[noreturn]] void fail(const util::SourceLocation& at, std::string message,
                           std::string hint = {}) const {
        throw UvConvertFailure{util::InputProblem{at, std::move(message), std::move(hint)}};
    }

    std::string local(std::string_view relative) const {
        if (options_.local_url) return options_.local_url(relative);
        return std::string(relative);
    }

    std::string file_url(const UvFile& file) const {
        return file.url.empty() ? local(file.path) : file.url;
    }

    std::string sha256_of(const UvPackage& p, const UvFile& file, std::string_view what) const {
        if (file.hash.empty()) {
            fail(file.where,
                 util::backquoted(p.label()) + ": the " + std::string(what) + " " +
                     util::backquoted(file.filename) +
                     " has no hash in the lock, and every file aitk-env installs is checked by its "
                     "sha256",
                 "regenerate the lock with `uv lock` from an index that gives hashes");
        }
        return file.hash.substr(std::string_view("sha256:").size());
    }

    // uv's choice: the wheel whose best tag ranks highest here, then the higher build tag; the
    // first one of equals. The tags are ranked in the file name's compressed form: a big lock
    // lists hundreds of wheels for a few installed ones.
    const UvFile* best_wheel(const UvPackage& p) const {
        const UvFile* best = nullptr;
        std::size_t best_rank = 0;
        std::optional<pep::BuildTag> best_build;
        for (const auto& wheel : p.wheels) {
            const std::string_view name = wheel.filename;
            std::vector<std::size_t> dashes;
            for (std::size_t i = 0; i < name.size(); ++i)
                if (name[i] == '-') dashes.push_back(i);
            if (!name.ends_with(".whl") || (dashes.size() != 4 && dashes.size() != 5)) {
                auto parsed = pep::WheelFilename::parse(wheel.filename);
                fail(wheel.where, util::backquoted(p.label()) + ": " +
                                      util::backquoted(wheel.filename) +
                                      " is not a wheel file name" +
                                      (parsed ? std::string() : ": " + parsed.error().message));
            }
            const auto tags_at = dashes[dashes.size() - 3] + 1;
            auto rank = options_.tags->best_rank(name.substr(tags_at, name.size() - 4 - tags_at));
            if (!rank) continue;
            if (auto need = needs_.find(&wheel);
                need != needs_.end() && !pep::within_floor(need->second, floor_))
                continue;
            std::optional<pep::BuildTag> build;
            if (dashes.size() == 5) {
                auto parsed = pep::WheelFilename::parse(wheel.filename);
                if (!parsed) {
                    fail(wheel.where, util::backquoted(p.label()) + ": " +
                                          util::backquoted(wheel.filename) +
                                          " is not a wheel file name: " + parsed.error().message);
                }
                build = parsed->build;
            }
            const bool better =
                best == nullptr || *rank < best_rank || (*rank == best_rank && build > best_build);
            if (better) {
                best = &wheel;
                best_rank = *rank;
                best_build = build;
            }
        }
        return best;
    }

    std::string index_of(const UvPackage& p) const {
        auto found = options_.index_names.find(p.source.location);
        return found == options_.index_names.end() ? p.source.location : found->second;
    }

    LockedFile wheel_file(const UvPackage& p, const UvFile& wheel) const {
        return LockedFile{wheel.filename, file_url(wheel), sha256_of(p, wheel, "wheel"),
                          wheel.size};
    }

    void from_registry(const UvPackage& p, LockedPackage& out) const {
        out.index = index_of(p);
        if (const auto* wheel = best_wheel(p)) {
            out.wheel = wheel_file(p, *wheel);
            return;
        }
        if (p.sdist) {
            out.source = LockedSource{SourceKind::sdist,
                                      file_url(*p.sdist),
                                      "",
                                      sha256_of(p, *p.sdist, "sdist"),
                                      p.sdist->size,
                                      ""};
            return;
        }
        fail(p.where,
             util::backquoted(p.label()) + " has no wheel for " + options_.target_id +
                 " and the lock gives no sdist to build",
             "lock for a target its wheels support, or regenerate the lock with `uv lock`");
    }

    void from_url(const UvPackage& p, LockedPackage& out) const {
        if (!p.wheels.empty()) {
            const auto* wheel = best_wheel(p);
            if (wheel == nullptr) {
                fail(p.where, util::backquoted(p.label()) + " is the wheel " +
                                  util::backquoted(util::redact_url(p.source.location)) +
                                  ", which does not fit " + options_.target_id);
            }
            out.wheel = wheel_file(p, *wheel);
            return;
        }
        if (!p.sdist)
            fail(p.where, util::backquoted(p.label()) + ": the URL source has no `sdist` entry");
        UvFile archive = *p.sdist;
        if (archive.filename.empty()) archive.filename = p.source.location;
        out.source = LockedSource{
            SourceKind::url, p.source.location,    "", sha256_of(p, archive, "archive"),
            p.sdist->size,   p.source.subdirectory};
    }

    void from_git(const UvPackage& p, LockedPackage& out) const {
        auto git = parse_uv_git_url(p.source.location);  // checked when read
        std::string repository = git->repository;
        if (!repository.starts_with("git+")) repository = "git+" + repository;
        out.source = LockedSource{SourceKind::vcs, repository,       git->commit, "",
                                  std::nullopt,    git->subdirectory};
        // The branch or tag asked for, when it is not the commit itself.
        if (git->reference != git->commit) out.source->revision = git->reference;
    }

    void from_path(const UvPackage& p, LockedPackage& out) const {
        // A local archive: built (an sdist) or taken as it is (a wheel) by the build layer, which
        // hashes what it copies into the cache.
        std::string sha256;
        if (!p.wheels.empty() && !p.wheels.front().hash.empty()) {
            sha256 = p.wheels.front().hash.substr(7);
        } else if (p.sdist && !p.sdist->hash.empty()) {
            sha256 = p.sdist->hash.substr(7);
        }
        out.source =
            LockedSource{SourceKind::url, local(p.source.location), "", sha256, std::nullopt, ""};
    }

    const UvLock& lock_;
    const UvConversionOptions& options_;
    std::map<const UvFile*, std::optional<pep::OsVersion>> needs_;  // of the fitting wheels
    std::optional<pep::OsVersion> floor_;
};

}  // namespace

util::Loaded<std::vector<LockedPackage>> uv_locked_packages(const UvLock& lock,
                                                            const UvInstallSet& selected,
                                                            const UvConversionOptions& options) {
    Converter converter(lock, options);
    std::set<std::size_t> installed;
    for (const auto& s : selected.packages) {
        if (lock.packages[s.package].source.kind != UvSource::Kind::virtual_)
            installed.insert(s.package);
    }
    converter.settle_floor(installed);
    std::vector<LockedPackage> out;
    try {
        for (const auto& s : selected.packages) {
            if (!installed.count(s.package)) continue;
            auto package = converter.convert(s);
            for (auto d : s.dependencies) {
                if (installed.count(d)) package.dependencies.push_back(lock.packages[d].name);
            }
            std::sort(package.dependencies.begin(), package.dependencies.end());
            package.dependencies.erase(
                std::unique(package.dependencies.begin(), package.dependencies.end()),
                package.dependencies.end());
            out.push_back(std::move(package));
        }
    } catch (UvConvertFailure& failure) {
        return util::Unexpected(std::move(failure.problem));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

}  // namespace aitk::lock
