// `setup --bundle`: a bundle is trusted only after every member matched manifest.json and every
// artifact the lock's sha256; then its files move into the cache and setup runs offline.
#include <algorithm>
#include <map>
#include <set>
#include <system_error>

#include "aitk/app/bundle.hpp"
#include "aitk/archive/error.hpp"
#include "aitk/archive/extract.hpp"
#include "aitk/archive/member_path.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/input_file.hpp"
#include "aitk/fs/path.hpp"
#include "aitk/python/standalone.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/hex.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::app {

std::string_view to_string(BundleMemberKind kind) noexcept {
    switch (kind) {
        case BundleMemberKind::lock:
            return "lock";
        case BundleMemberKind::wheel:
            return "wheel";
        case BundleMemberKind::source:
            return "source";
        case BundleMemberKind::python:
            return "python";
    }
    return "wheel";
}

std::optional<BundleMemberKind> parse_bundle_member_kind(std::string_view text) noexcept {
    for (auto kind : {BundleMemberKind::lock, BundleMemberKind::wheel, BundleMemberKind::source,
                      BundleMemberKind::python}) {
        if (to_string(kind) == text) return kind;
    }
    return std::nullopt;
}

namespace {

namespace stdfs = std::filesystem;

constexpr std::uint64_t manifest_limit = 64ull << 20;
// Room for tar padding and folders beyond the manifest's byte count; a member that is larger
// than listed then still reaches the hash check, which names both digests.
constexpr std::uint64_t extraction_slack = 64ull << 20;

const std::string damaged_hint =
    "copy the bundle again (its sha256 is printed by `aitk-env bundle`) or make a new one";

[[noreturn]] void refuse(const stdfs::path& bundle, const std::string& what) {
    throw util::Error(util::ExitCode::failure, "bundle " + util::utf8_of(bundle) + ": " + what,
                      damaged_hint);
}

struct Manifest {
    std::vector<BundleMember> members;
    std::vector<BundleTargetInfo> targets;
    std::uint64_t total = 0;
    const BundleMember* find(const std::string& path) const {
        for (const auto& m : members)
            if (m.path == path) return &m;
        return nullptr;
    }
};

// The filename of an "artifacts/<sha256>/<filename>" or "python/<sha256>/<filename>" member,
// after checking that the path has exactly that shape for `sha256` and that the filename is one
// file name (util::path_name_problem, through cache::checked_filename); else why not.
util::Expected<std::string, std::string> member_filename(const BundleMember& m) {
    const std::string prefix = m.kind == BundleMemberKind::python ? "python/" : "artifacts/";
    if (!m.path.starts_with(prefix + m.sha256 + "/")) {
        return util::Unexpected("it is not " + prefix + "<its sha256>/<file name>");
    }
    std::string filename = m.path.substr(prefix.size() + m.sha256.size() + 1);
    try {
        return cache::checked_filename(filename);
    } catch (const util::Error& e) {
        return util::Unexpected(std::string(e.what()));
    }
}

Manifest parse_manifest(const stdfs::path& bundle, const std::string& text) {
    auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object()) refuse(bundle, "manifest.json is not JSON");
    Manifest out;
    try {
        if (json.at("format").get<std::string>() != bundle_format_name) {
            refuse(bundle, "manifest.json is not an aitk-env bundle manifest");
        }
        const int version = json.at("format_version").get<int>();
        if (version != bundle_format_version) {
            throw util::Error(util::ExitCode::failure,
                              "bundle " + util::utf8_of(bundle) + " has format version " +
                                  std::to_string(version) + "; this aitk-env reads version " +
                                  std::to_string(bundle_format_version),
                              "use the aitk-env that made the bundle, or bundle again with this "
                              "one");
        }
        for (const auto& t : json.at("targets")) {
            BundleTargetInfo info;
            info.id = t.at("id").get<std::string>();
            info.python = t.at("python").get<std::string>();
            if (t.at("interpreter").is_string())
                info.interpreter = t["interpreter"].get<std::string>();
            info.interpreter_note = t.value("interpreter_note", "");
            info.not_bundled = t.at("not_bundled").get<std::vector<std::string>>();
            out.targets.push_back(std::move(info));
        }
        std::set<std::string> paths;
        for (const auto& m : json.at("members")) {
            BundleMember member;
            member.path = m.at("path").get<std::string>();
            const auto kind = parse_bundle_member_kind(m.at("kind").get<std::string>());
            member.kind = kind.value_or(BundleMemberKind::wheel);
            member.sha256 = m.at("sha256").get<std::string>();
            member.size = m.at("size").get<std::uint64_t>();
            member.targets = m.at("targets").get<std::vector<std::string>>();
            auto normal = archive::normalize_member_path(member.path);
            if (!normal || *normal != member.path || !util::is_sha256_hex(member.sha256)) {
                refuse(bundle, "manifest.json lists an invalid member \"" + member.path + "\"");
            }
            if (!kind ||
                (member.kind == BundleMemberKind::lock) != (member.path == bundle_lock_member)) {
                refuse(bundle, "manifest.json lists an invalid member \"" + member.path + "\"");
            }
            if (member.kind != BundleMemberKind::lock) {
                if (auto filename = member_filename(member); !filename) {
                    refuse(bundle, "manifest.json lists an invalid member \"" + member.path +
                                       "\": " + filename.error());
                }
            }
            if (!paths.insert(member.path).second) {
                refuse(bundle, "manifest.json lists " + member.path + " twice");
            }
            out.total += member.size;
            out.members.push_back(std::move(member));
        }
    } catch (const nlohmann::json::exception& e) {
        refuse(bundle, std::string("manifest.json is malformed: ") + e.what());
    }
    if (!out.find(std::string(bundle_lock_member))) {
        refuse(bundle, "manifest.json lists no lock.yml");
    }
    return out;
}

// Every file of the bundle is a manifest member with its size and sha256, and every member is
// there.
void check_members(const stdfs::path& bundle, const Manifest& manifest,
                   const archive::ExtractResult& extracted) {
    std::set<std::string> seen;
    for (const auto& entry : extracted.entries) {
        if (entry.type == archive::EntryType::directory) continue;
        const auto* member = manifest.find(entry.path);
        if (entry.type != archive::EntryType::file || !member) {
            refuse(bundle, "it holds " + entry.path + ", which manifest.json does not list");
        }
        const std::string actual =
            entry.sha256 ? fs::Sha256::finish_to_hex(*entry.sha256) : std::string();
        if (actual != member->sha256 || entry.size != member->size) {
            refuse(bundle, "member " + entry.path + " is damaged: sha256 expected " +
                               member->sha256 + " (manifest.json), actual " + actual + " (" +
                               std::to_string(entry.size) + " bytes, expected " +
                               std::to_string(member->size) + ")");
        }
        seen.insert(entry.path);
    }
    for (const auto& m : manifest.members) {
        if (!seen.count(m.path)) {
            refuse(bundle, "manifest.json lists " + m.path + ", but the bundle does not hold it");
        }
    }
}

// The lock decides what may be installed: every artifact member must be a file the lock lists
// for each target it claims to serve, with that sha256, and every file those targets install
// must be in the bundle.
void check_against_lock(const stdfs::path& bundle, const Manifest& manifest,
                        const lock::Lockfile& lock) {
    struct Locked {
        std::string name;
        std::string what;  // filename or URL
    };
    std::map<std::string, std::map<std::string, Locked>> locked;  // target → sha256 → file
    for (const auto& info : manifest.targets) {
        const auto* target = lock.find_target(info.id);
        if (!target)
            refuse(bundle, "manifest.json names target " + info.id + ", lock.yml lacks it");
        auto& files = locked[info.id];
        for (const auto& p : target->packages) {
            if (p.wheel) {
                files[util::to_lower(p.wheel->sha256)] = {p.name, p.wheel->filename};
            } else if (p.source &&
                       (p.source->kind == lock::SourceKind::sdist ||
                        p.source->kind == lock::SourceKind::url) &&
                       !p.source->sha256.empty()) {
                files[util::to_lower(p.source->sha256)] = {p.name, p.source->url};
            }  // VCS, folders: listed under not_bundled
        }
    }
    std::set<std::string> bundled;
    for (const auto& m : manifest.members) {
        if (m.kind != BundleMemberKind::wheel && m.kind != BundleMemberKind::source) continue;
        if (m.targets.empty()) refuse(bundle, "member " + m.path + " serves no target");
        for (const auto& t : m.targets) {
            auto it = locked.find(t);
            if (it == locked.end() || !it->second.count(m.sha256)) {
                refuse(bundle, "member " + m.path + " (sha256 " + m.sha256 +
                                   ") is not a file lock.yml lists for " + t);
            }
        }
        bundled.insert(m.sha256);
    }
    for (const auto& [target, files] : locked) {
        for (const auto& [sha, file] : files) {
            if (!bundled.count(sha)) {
                refuse(bundle, "lock.yml's " + target + " needs " + file.name + " (" + file.what +
                                   ", sha256 " + sha + "), which the bundle does not hold");
            }
        }
    }
}

// The lock with only the bundled targets, so that setup never picks one whose files are not
// there; the text as given when the bundle holds them all.
std::string lock_for_setup(const lock::Lockfile& lock, const std::string& text,
                           const Manifest& manifest) {
    if (manifest.targets.size() == lock.targets.size()) return text;
    lock::Lockfile narrowed = lock;
    narrowed.targets.clear();
    for (const auto& t : lock.targets) {
        bool bundled = std::any_of(manifest.targets.begin(), manifest.targets.end(),
                                   [&](const BundleTargetInfo& i) { return i.id == t.id; });
        if (bundled) narrowed.targets.push_back(t);
    }
    if (!narrowed.find_target(narrowed.default_target) && !narrowed.targets.empty()) {
        narrowed.default_target = narrowed.targets.front().id;
    }
    return lock::write_lockfile(narrowed);
}

}  // namespace

ImportedBundle import_bundle(const stdfs::path& bundle, const stdfs::path& cache_root) {
    std::error_code ec;
    if (!stdfs::is_regular_file(bundle, ec)) {
        throw util::InputError(util::utf8_of(bundle) + " does not exist or is not a file",
                               "give the file `aitk-env bundle -o` wrote");
    }
    cache::Cache cache(cache_root);
    auto hold = cache.hold();
    auto staging = fs::TempDir::create_in(cache.temp_dir(), "bundle");
    const stdfs::path members = staging.path() / "members";

    Manifest manifest;
    archive::ExtractResult extracted;
    try {
        auto reader = archive::Reader::open(bundle);
        const archive::Entry* first = reader.next();
        if (!first || first->path != bundle_manifest_member) {
            refuse(bundle, "it does not start with manifest.json: not an aitk-env bundle");
        }
        manifest = parse_manifest(bundle, reader.read_all(manifest_limit));
        archive::ExtractOptions options;
        options.links = archive::LinkPolicy::reject;
        options.compute_sha256 = true;
        options.keep_mtime = false;
        options.max_total_bytes = manifest.total + extraction_slack;
        options.max_entries = manifest.members.size() + 4096;
        // Streamed member by member into files: a bundle of many gigabytes needs no memory.
        extracted = archive::extract(reader, members, options);
    } catch (const archive::ArchiveError& e) {
        if (e.problem() == archive::Problem::too_large) {
            refuse(bundle, "member " + e.member() + " holds more bytes than manifest.json lists");
        }
        std::string what = e.problem() == archive::Problem::unreadable
                               ? "it is damaged or truncated (" + std::string(e.what()) + ")"
                               : std::string(e.what());
        refuse(bundle, what);
    }
    check_members(bundle, manifest, extracted);

    auto read = fs::read_input_file(members / std::string(bundle_lock_member), fs::lockfile);
    if (!read) refuse(bundle, "lock.yml: " + read.error());
    const std::string lock_text = std::move(*read);
    auto parsed = lock::parse_lockfile(lock_text, util::utf8_of(bundle) + "!lock.yml");
    if (!parsed) refuse(bundle, std::string("lock.yml: ") + parsed.error().to_error().what());
    check_against_lock(bundle, manifest, *parsed);

    ImportedBundle out(fs::TempDir::create("aitk-env-bundle"));
    for (const auto& m : manifest.members) {
        if (m.kind != BundleMemberKind::python) continue;
        // The interpreter table of this aitk-env decides what setup would install; an archive
        // it does not know is still stored (by its verified sha256) but named in a note.
        const std::string filename = *member_filename(m);
        bool known = false;
        for (const auto& b : python::standalone_builds()) {
            if (util::to_lower(b.sha256) == m.sha256) known = true;
        }
        if (!known) {
            out.notes.push_back("the bundled interpreter " + filename +
                                " is not one this aitk-env installs; it is kept in the cache "
                                "but not used");
        }
    }

    // All checks passed: only now does the cache gain anything (renames within its filesystem).
    for (const auto& m : manifest.members) {
        if (m.kind == BundleMemberKind::lock) continue;
        const std::string filename = *member_filename(m);
        if (cache.find_artifact(m.sha256, filename)) continue;
        cache.insert_artifact(members / m.path, m.sha256, filename, m.sha256,
                              "bundle member " + m.path);
        ++out.imported;
    }
    for (const auto& t : manifest.targets) {
        out.targets.push_back(t.id);
        for (const auto& n : t.not_bundled)
            out.notes.push_back(t.id + ": not in the bundle: " + n);
    }
    out.lockfile = out.work.path() / "lock.yml";
    fs::write_file_atomic(out.lockfile, lock_for_setup(*parsed, lock_text, manifest));
    return out;
}

SetupOutcome run_setup_from_bundle(Session& session, const SetupRequest& request) {
    const stdfs::path bundle = fs::absolute_from(session.cwd(), *request.bundle);
    auto imported = import_bundle(bundle, session.cache_root());
    SetupRequest offline = request;
    offline.bundle.reset();
    offline.lockfile = imported.lockfile;
    offline.indexes = {};    // nothing is looked up: no mirror of the lock's files either
    session.work_offline();  // the bundle replaces the network
    auto outcome = run_setup(session, offline);
    outcome.lockfile = bundle;
    std::vector<std::string> notes = {"installed from the bundle " + util::utf8_of(bundle) + " (" +
                                      std::to_string(imported.imported) +
                                      " files moved into the cache)"};
    notes.insert(notes.end(), imported.notes.begin(), imported.notes.end());
    outcome.notes.insert(outcome.notes.begin(), notes.begin(), notes.end());
    return outcome;
}

}  // namespace aitk::app
