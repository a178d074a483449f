// `aitk-env bundle`: the lock, its targets' artifacts and interpreter archives, fetched through
// the shared cache and written as one deterministic tar.zst.
#include <algorithm>
#include <map>
#include <set>
#include <system_error>

#include "aitk/app/any_lock.hpp"
#include "aitk/app/artifact_locations.hpp"
#include "aitk/app/bundle.hpp"
#include "aitk/app/lock.hpp"
#include "aitk/app/source_builds.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/index/artifacts.hpp"
#include "aitk/net/downloader.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "aitk/python/standalone_install.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/major_minor.hpp"
#include "aitk/util/redact.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {
namespace {

namespace stdfs = std::filesystem;

// The URL without its fragment (pep::split_fragment) and its query.
std::string without_query(std::string_view url) {
    const std::string_view plain = pep::split_fragment(url).url;
    return std::string(plain.substr(0, plain.find('?')));
}

// The last path segment of a URL as the source builds name it (kept encoded).
std::string last_segment(std::string_view url) {
    std::string plain = without_query(url);
    return plain.substr(plain.rfind('/') + 1);
}

// The standalone archive's name as `python install` stores it: the segment, percent-decoded
// ("%2B" → "+"), so that a bundled archive is found by the same name.
std::string decoded_last_segment(std::string_view url) {
    return util::percent_decode(last_segment(url));
}

// The standalone table's platform names for a lock target.
python::StandalonePlatform standalone_platform_of(const lock::LockedTarget& target) {
    python::StandalonePlatform where;
    where.os = target.os == "macos" ? "darwin" : target.os;
    where.arch = target.arch == "arm64" ? "aarch64" : target.arch;
    where.libc = where.os == "linux" ? "gnu" : "none";
    return where;
}

std::vector<const lock::LockedTarget*> chosen_targets(const lock::Lockfile& lock,
                                                      const std::vector<std::string>& ids,
                                                      const std::string& lock_name) {
    std::vector<const lock::LockedTarget*> out;
    if (ids.empty()) {
        for (const auto& t : lock.targets)
            out.push_back(&t);
        return out;
    }
    std::set<std::string> seen;
    for (const auto& id : ids) {
        const auto* target = lock.find_target(id);
        if (!target) {
            std::vector<std::string> have;
            for (const auto& t : lock.targets)
                have.push_back(t.id);
            throw util::InputError(
                "--target " + id + ": " + lock_name + " has no such target",
                "its targets are " + util::join(have, ", ") + "; lock again with --target " + id);
        }
        if (seen.insert(id).second) out.push_back(target);
    }
    std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->id < b->id; });
    return out;
}

// One file the bundle will hold, and where it comes from.
struct Planned {
    BundleMember member;
    std::string filename;
    std::string url;
    bool local = false;    // a source archive on this machine (file: URL or path)
    stdfs::path file;      // in the cache, once fetched
    bool checked = false;  // hashed by this run (a fresh download)
};

// Why a package cannot travel in a bundle.
std::string not_bundled_reason(const lock::LockedPackage& package) {
    if (!package.source) return "no file is locked for it";
    const auto& s = *package.source;
    if (s.kind == lock::SourceKind::vcs)
        return "a git checkout (" + util::redact_url(s.url) + ") needs the network";
    if (s.kind == lock::SourceKind::directory)
        return "a local folder (" + s.url + ") is not in the lock";
    return "the lock has no sha256 for " + util::redact_url(s.url);
}

// "https://host:443" of a URL (its authority without userinfo), lower case.
std::string url_origin(std::string_view url) {
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos) return {};
    const auto plain = util::strip_credentials(url);
    const auto end = plain.find_first_of("/?#", scheme_end + 3);
    return util::to_lower(plain.substr(0, end));
}

// `url` with the userinfo of the first credentialed index on the same origin, when it has none.
std::string with_index_credentials(const std::string& url, const IndexSettings& indexes) {
    if (util::has_credentials(url)) return url;
    std::vector<std::string> sources = indexes.extra_index_urls;
    if (indexes.index_url) sources.insert(sources.begin(), *indexes.index_url);
    sources.insert(sources.end(), indexes.find_links.begin(), indexes.find_links.end());
    if (indexes.torch_index_url) sources.push_back(*indexes.torch_index_url);
    const auto origin = url_origin(url);
    for (const auto& source : sources) {
        if (!util::has_credentials(source) || url_origin(source) != origin) continue;
        const auto authority = source.find("://") + 3;
        const auto userinfo_size = source.size() - util::strip_credentials(source).size();
        return url.substr(0, authority) + source.substr(authority, userinfo_size) +
               url.substr(authority);
    }
    return url;
}

// The bundle's members by sha256 (one member per content, whichever targets share it), and
// what each target holds.
struct BundlePlan {
    std::map<std::string, Planned> members;
    std::vector<BundleTargetInfo> targets;

    // The member for a file of `target`: its path in the bundle.
    std::string add(BundleMemberKind kind, const std::string& sha256, const std::string& filename,
                    const std::string& url, const std::string& target) {
        const std::string sha = cache::checked_sha256(sha256);
        auto [it, inserted] = members.try_emplace(sha);
        Planned& p = it->second;
        if (inserted) {
            p.filename = cache::checked_filename(filename);
            p.url = url;
            p.member.kind = kind;
            p.member.sha256 = sha;
            p.member.path = (kind == BundleMemberKind::python ? "python/" : "artifacts/") + sha +
                            "/" + p.filename;
            p.local = kind == BundleMemberKind::source && local_path_of(url).has_value();
        }
        if (std::find(p.member.targets.begin(), p.member.targets.end(), target) ==
            p.member.targets.end()) {
            p.member.targets.push_back(target);
        }
        return p.member.path;
    }
};

// Stage 1: every locked file of the chosen targets, and the standalone CPython of each (unless
// --no-python); what cannot travel is noted.
BundlePlan plan_bundle(const std::vector<const lock::LockedTarget*>& targets,
                       const BundleRequest& request, BundleOutcome& outcome) {
    const auto& table =
        request.python_builds ? *request.python_builds : python::standalone_builds();
    BundlePlan plan;
    for (const auto* target : targets) {
        outcome.targets.push_back(target->id);
        BundleTargetInfo info;
        info.id = target->id;
        info.python = target->python;
        for (const auto& package : target->packages) {
            if (package.wheel) {
                plan.add(BundleMemberKind::wheel, package.wheel->sha256, package.wheel->filename,
                         package.wheel->url, target->id);
            } else if (package.source &&
                       (package.source->kind == lock::SourceKind::sdist ||
                        package.source->kind == lock::SourceKind::url) &&
                       !package.source->sha256.empty()) {
                plan.add(BundleMemberKind::source, package.source->sha256,
                         last_segment(package.source->url), package.source->url, target->id);
            } else {
                info.not_bundled.push_back(package.name + ": " + not_bundled_reason(package));
                outcome.notes.push_back(target->id + ": " + info.not_bundled.back());
            }
        }
        if (!request.include_python) {
            info.interpreter_note = "left out (--no-python)";
        } else {
            try {
                // Named, not passed as temporaries: g++ 13 and later take the returned reference
                // for one into them (-Wdangling-reference); it is into `table`.
                const std::string version = util::major_minor(target->python);
                const python::StandalonePlatform platform = standalone_platform_of(*target);
                const auto& build = python::select_standalone_build(version, platform, table);
                info.interpreter = plan.add(
                    BundleMemberKind::python, build.sha256, decoded_last_segment(build.url),
                    python::mirrored_url(build.url, request.python_mirror), target->id);
            } catch (const util::InputError& e) {
                info.interpreter_note = e.what();
            }
        }
        if (!info.interpreter_note.empty()) {
            outcome.notes.push_back(target->id + ": no CPython in the bundle (" +
                                    info.interpreter_note +
                                    "); the machine that installs it needs Python " +
                                    util::major_minor(target->python));
        }
        plan.targets.push_back(std::move(info));
    }
    return plan;
}

// Stage 2: every member in the cache. What is there is used, the rest downloaded (hash checked
// while it streams) and stored for the next run; local source archives are copied in. One error
// lists every file that could not be had.
void fetch_members(Session& session, const BundleRequest& request, BundlePlan& plan,
                   BundleOutcome& outcome) {
    std::vector<cache::ArtifactRef> refs;
    std::vector<Planned*> fetched_by_ref;
    std::vector<std::string> errors;
    bool python_failed = false;
    for (auto& [sha, p] : plan.members) {
        if (p.local) {
            try {
                p.file = fetch_source_archive(session, p.url, p.filename, sha).path;
            } catch (const util::Error& e) {
                errors.push_back(e.what());
            }
            continue;
        }
        // Fetched through the rewrite (a pull-through cache); the manifest keeps p.url. The
        // credentials go only where they were given for: the origin the request really goes to.
        refs.push_back(
            {sha, p.filename,
             with_index_credentials(session.network().rewrite.apply(p.url), request.indexes)});
        fetched_by_ref.push_back(&p);
    }
    if (!refs.empty()) {
        auto fetched = index::fetch_artifacts(session.cache(), session.downloader(), refs,
                                              session.offline(), session.observer());
        for (std::size_t i = 0; i < fetched.results.size(); ++i) {
            const auto& r = fetched.results[i];
            if (r.path.empty()) {
                errors.push_back(r.error);
                python_failed |= fetched_by_ref[i]->member.kind == BundleMemberKind::python;
                continue;
            }
            fetched_by_ref[i]->file = r.path;
            fetched_by_ref[i]->checked = r.downloaded;
            if (r.downloaded) ++outcome.downloaded;
        }
    }
    if (errors.empty()) return;
    const std::size_t failed = errors.size();
    std::sort(errors.begin(), errors.end());
    errors.erase(std::unique(errors.begin(), errors.end()), errors.end());
    std::string hint = session.offline() ? "run without --offline to download them" : "";
    if (python_failed && !session.offline()) {
        hint = "interpreter archives come from " + std::string(python::standalone_release_base) +
               ": set " + std::string(python::python_mirror_variable) +
               " to a mirror of it, or leave them out with --no-python";
    }
    // Offline, every missing file carries the same report: say it once.
    throw util::Error(util::ExitCode::failure,
                      std::to_string(failed) + " of " + std::to_string(plan.members.size()) +
                          " files could not be had for the bundle:\n  " +
                          util::join(errors, "\n  "),
                      hint);
}

// Stage 3: the members as the manifest lists them, lock first. A file taken from the cache is
// hashed again: a bundle is copied to where nothing can be fetched, so a damaged cache entry
// must not travel.
std::vector<BundleMember> checked_members(BundlePlan& plan, const std::string& lock_text,
                                          const std::vector<std::string>& targets) {
    std::vector<BundleMember> members;
    members.push_back({std::string(bundle_lock_member), BundleMemberKind::lock,
                       fs::sha256_hex(lock_text), lock_text.size(), targets});
    for (auto& [sha, p] : plan.members) {
        if (!p.checked) {
            auto actual = fs::sha256_file_hex(p.file);
            if (actual != sha) {
                throw util::Error(util::ExitCode::failure,
                                  "the cached " + util::utf8_of(p.file) + " is damaged: sha256 " +
                                      actual + ", expected " + sha,
                                  "delete it (or run `aitk-env cache clean`) and bundle again");
            }
        }
        p.member.size = stdfs::file_size(p.file);
        std::sort(p.member.targets.begin(), p.member.targets.end());
        members.push_back(p.member);
    }
    std::sort(members.begin() + 1, members.end(),
              [](const BundleMember& a, const BundleMember& b) { return a.path < b.path; });
    return members;
}

// Stage 4: the archive, manifest.json and lock.yml first (readers check before they store).
void write_bundle_archive(const stdfs::path& out_path, const lock::Lockfile& lock,
                          const std::string& lock_text, const BundlePlan& plan,
                          const std::vector<BundleMember>& members) {
    std::vector<archive::WriteEntry> entries;
    entries.push_back(archive::WriteEntry::file(std::string(bundle_manifest_member),
                                                bundle_manifest_text(lock, plan.targets, members)));
    entries.push_back(archive::WriteEntry::file(std::string(bundle_lock_member), lock_text));
    std::map<std::string, const Planned*> by_path;
    for (const auto& [sha, p] : plan.members)
        by_path[p.member.path] = &p;
    for (const auto& [path, p] : by_path) {
        archive::WriteEntry entry;
        entry.path = path;
        entry.source = p->file;
        entries.push_back(std::move(entry));
    }
    archive::WriteOptions options;
    options.sort = false;
    if (!out_path.parent_path().empty()) stdfs::create_directories(out_path.parent_path());
    archive::write_archive(out_path, archive::Format::tar_zst, std::move(entries), options);
}

}  // namespace

// read the lock → plan the members → fetch them into the cache → check them → the archive.
BundleOutcome write_bundle(Session& session, const BundleRequest& request) {
    const stdfs::path lock_path = fs::absolute_from(session.cwd(), request.lockfile);
    refuse_foreign_lockfile(lock_path);
    const std::string lock_text = read_lockfile_text(lock_path);
    auto parsed = lock::parse_lockfile(lock_text, util::utf8_of(lock_path));
    if (!parsed) throw parsed.error().to_error();
    const lock::Lockfile& lock = *parsed;

    BundleOutcome outcome;
    outcome.path = fs::absolute_from(session.cwd(), request.output);
    const auto targets = chosen_targets(lock, request.targets, util::utf8_of(lock_path.filename()));
    ArtifactSources sources;  // the lock's URLs, through the rewrite rules
    sources.rewrite = session.network().rewrite;
    sources.local_files = LocalFileRule::for_lock(session.cwd(), request.lockfile, request.indexes);
    for (const auto* target : targets)
        check_local_files(*target, sources);
    auto plan = plan_bundle(targets, request, outcome);
    auto hold = session.cache().hold();
    fetch_members(session, request, plan, outcome);
    auto members = checked_members(plan, lock_text, outcome.targets);
    write_bundle_archive(outcome.path, lock, lock_text, plan, members);

    for (const auto& m : members)
        outcome.content_bytes += m.size;
    outcome.members = std::move(members);
    outcome.archive_bytes = stdfs::file_size(outcome.path);
    outcome.sha256 = fs::sha256_file_hex(outcome.path);
    return outcome;
}

std::string bundle_manifest_text(const lock::Lockfile& lock,
                                 const std::vector<BundleTargetInfo>& targets,
                                 const std::vector<BundleMember>& members) {
    nlohmann::json json;
    json["format"] = bundle_format_name;
    json["format_version"] = bundle_format_version;
    json["lock"] = {
        {"member", bundle_lock_member}, {"name", lock.name}, {"input_hash", lock.input_hash}};
    json["targets"] = nlohmann::json::array();
    for (const auto& t : targets) {
        nlohmann::json target = {{"id", t.id}, {"python", t.python}};
        target["interpreter"] =
            t.interpreter.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.interpreter);
        if (!t.interpreter_note.empty()) target["interpreter_note"] = t.interpreter_note;
        target["not_bundled"] = t.not_bundled;
        json["targets"].push_back(std::move(target));
    }
    json["members"] = nlohmann::json::array();
    for (const auto& m : members) {
        json["members"].push_back({{"path", m.path},
                                   {"kind", to_string(m.kind)},
                                   {"sha256", m.sha256},
                                   {"size", m.size},
                                   {"targets", m.targets}});
    }
    return json.dump(1) + "\n";
}

nlohmann::json BundleOutcome::to_json() const {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& m : members) {
        list.push_back({{"path", m.path},
                        {"kind", to_string(m.kind)},
                        {"sha256", m.sha256},
                        {"size", m.size},
                        {"targets", m.targets}});
    }
    return {{"path", util::utf8_of(path)},
            {"targets", targets},
            {"members", list},
            {"downloaded", downloaded},
            {"content_bytes", content_bytes},
            {"archive_bytes", archive_bytes},
            {"sha256", sha256},
            {"notes", notes}};
}

std::string BundleOutcome::summary() const {
    std::size_t artifacts = 0;
    std::size_t pythons = 0;
    for (const auto& m : members) {
        if (m.kind == BundleMemberKind::wheel || m.kind == BundleMemberKind::source) ++artifacts;
        if (m.kind == BundleMemberKind::python) ++pythons;
    }
    std::string out;
    out += "targets  " + util::join(targets, ", ") + "\n";
    out += "members  " + std::to_string(artifacts) + " artifacts, " + std::to_string(pythons) +
           " interpreter archives, the lockfile (" + std::to_string(downloaded) +
           " downloaded, the rest from the cache)\n";
    for (const auto& note : notes)
        out += "note     " + note + "\n";
    out += "wrote    " + util::utf8_of(path) + " (" + std::to_string(archive_bytes) + " bytes)\n";
    out += "sha256   " + sha256 + "\n";
    out += "install  aitk-env setup --bundle " + util::utf8_of(path.filename()) + "\n";
    return out;
}

}  // namespace aitk::app
