// Reading what a prefix holds from its .dist-info folders, removing a distribution by its RECORD,
// and comparing RECORDs with the disk.
#include "aitk/install/installed.hpp"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <system_error>
#include <thread>
#include <tuple>
#include <unordered_set>

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/install/record.hpp"
#include "aitk/install/skeleton.hpp"
#include "aitk/pep/metadata.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/parallel.hpp"
#include "aitk/util/strings.hpp"
#include "aitk/util/utf8.hpp"
#include "dist_info.hpp"

namespace aitk::install {
namespace {

namespace stdfs = std::filesystem;

std::optional<std::string> read_if_file(const stdfs::path& path) {
    std::error_code ec;
    if (!stdfs::is_regular_file(path, ec)) return std::nullopt;
    try {
        return fs::read_file(path);
    } catch (const util::Error&) {
        return std::nullopt;
    }
}

stdfs::path from_generic(std::string_view path) {
    return stdfs::path(std::u8string(path.begin(), path.end()));
}

std::optional<InstalledDistribution> read_distribution(const stdfs::path& dist_info) {
    InstalledDistribution dist;
    dist.dist_info = dist_info;
    const std::string folder = util::utf8_of(dist_info.filename());
    if (auto text = read_if_file(dist_info / "METADATA")) {
        if (auto metadata = pep::CoreMetadata::parse(*text)) {
            dist.name = pep::canonicalize_name(metadata->name);
            dist.version = metadata->version_text;
        }
    }
    if (dist.name.empty()) {
        auto parts = detail::split_dist_info(folder);
        if (!parts) return std::nullopt;  // not a distribution's folder
        dist.name = pep::canonicalize_name(parts->name);
        dist.version = std::string(parts->version);
    }
    if (auto text = read_if_file(dist_info / "INSTALLER")) {
        dist.installer =
            std::string(util::trim(std::string_view(*text).substr(0, text->find('\n'))));
    }
    std::error_code ec;
    dist.requested = stdfs::exists(dist_info / "REQUESTED", ec);
    if (auto text = read_if_file(dist_info / "RECORD")) {
        if (auto record = parse_record(*text)) dist.record = std::move(*record);
    }
    return dist;
}

// Whether `path` (lexically normal) is `root` or below it.
bool is_within(const stdfs::path& path, const stdfs::path& root) {
    auto rel = path.lexically_relative(root);
    if (rel.empty()) return false;
    auto first = rel.begin();
    return first == rel.end() || *first != "..";
}

stdfs::path normal(const stdfs::path& path) {
    return stdfs::absolute(path).lexically_normal();
}

// The folder RECORD paths are relative to: the one holding the .dist-info.
stdfs::path record_base(const InstalledDistribution& dist) {
    return normal(dist.dist_info).parent_path();
}

fs::Digest256 hash_file(const stdfs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open");
    fs::Sha256 hasher;
    char buffer[65536];
    while (in) {
        in.read(buffer, sizeof buffer);
        if (in.gcount() > 0) hasher.update(buffer, static_cast<std::size_t>(in.gcount()));
    }
    if (in.bad()) throw std::runtime_error("cannot read");
    return hasher.finish();
}

struct CheckJob {
    const std::string* distribution;
    const InstalledFile* file;
    stdfs::path base;
};

// One RECORD row against the disk: nothing when the file has RECORD's size and hash. The one
// comparison `verify` (a prefix) and `cache verify` (an unpacked tree) both make.
std::optional<FileDrift> check_file(const CheckJob& job) {
    const InstalledFile& file = *job.file;
    const stdfs::path path = job.base / from_generic(file.path);
    std::error_code ec;
    auto status = stdfs::status(path, ec);
    FileDrift drift;
    drift.distribution = *job.distribution;
    drift.path = file.path;
    if (ec || !stdfs::is_regular_file(status)) {
        drift.problem = FileProblem::missing;
        drift.detail = stdfs::exists(status) ? "is not a file" : "not found";
        return drift;
    }
    drift.problem = FileProblem::modified;
    std::uint64_t size = stdfs::file_size(path, ec);
    if (!ec && size != file.size) {
        drift.detail =
            "size " + std::to_string(size) + ", RECORD says " + std::to_string(file.size);
        return drift;
    }
    try {
        if (record_hash_matches(file.hash, hash_file(path))) return std::nullopt;
        drift.detail = "sha256 differs";
    } catch (const std::exception&) {
        drift.detail = "cannot be read";
    }
    return drift;
}

// Runs the checks on a few threads (hashing gigabytes is I/O and CPU bound); the problems found,
// in the jobs' order.
std::vector<FileDrift> check_files(const std::vector<CheckJob>& jobs) {
    const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1,
                                                        std::max<std::size_t>(1, jobs.size() / 64));
    std::vector<std::optional<FileDrift>> found(jobs.size());
    util::parallel_for(jobs.size(), std::min<std::size_t>(threads, 8),
                       [&](std::size_t i) { found[i] = check_file(jobs[i]); });
    std::vector<FileDrift> out;
    for (auto& drift : found) {
        if (drift) out.push_back(std::move(*drift));
    }
    return out;
}

void sort_drift(std::vector<FileDrift>& drift) {
    std::sort(drift.begin(), drift.end(), [](const FileDrift& a, const FileDrift& b) {
        return std::tie(a.distribution, a.path) < std::tie(b.distribution, b.path);
    });
}

// __pycache__/<stem>.<tag>.pyc -> <stem>.py in the folder above (relative, '/'-separated).
std::optional<std::string> pyc_source(std::string_view rel) {
    if (!rel.ends_with(".pyc")) return std::nullopt;
    std::size_t slash = rel.rfind('/');
    std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
    std::string_view folder = slash == std::string_view::npos ? "" : rel.substr(0, slash);
    std::string_view stem = name.substr(0, name.find('.'));
    std::string out;
    if (folder == "__pycache__" || folder.ends_with("/__pycache__")) {
        folder.remove_suffix(std::string_view("__pycache__").size());
        out = std::string(folder) + std::string(stem) + ".py";
    } else {
        // A legacy x.pyc beside x.py.
        out = std::string(rel.substr(0, rel.size() - 1));
    }
    return out;
}

}  // namespace

std::vector<InstalledDistribution> installed_distributions(const PrefixLayout& layout) {
    std::vector<InstalledDistribution> out;
    std::vector<stdfs::path> folders{layout.purelib};
    if (normal(layout.platlib) != normal(layout.purelib)) folders.push_back(layout.platlib);
    for (const auto& folder : folders) {
        std::error_code ec;
        for (const auto& entry : stdfs::directory_iterator(folder, ec)) {
            const std::string name = util::utf8_of(entry.path().filename());
            if (!name.ends_with(detail::dist_info_suffix) || !entry.is_directory(ec)) continue;
            if (auto dist = read_distribution(entry.path())) out.push_back(std::move(*dist));
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return std::tie(a.name, a.version, a.dist_info) < std::tie(b.name, b.version, b.dist_info);
    });
    return out;
}

std::vector<std::filesystem::path> remove_distribution(const PrefixLayout& layout,
                                                       const InstalledDistribution& dist) {
    const stdfs::path prefix = normal(layout.prefix);
    const stdfs::path base = record_base(dist);
    auto refuse = [&](const std::string& path, const std::string& why) {
        throw util::Error(util::ExitCode::failure, "refusing to remove " + dist.name + " " +
                                                       dist.version + ": its RECORD (" +
                                                       util::utf8_of(dist.dist_info / "RECORD") +
                                                       ") lists '" + path + "', " + why);
    };
    if (!is_within(base, prefix)) {
        throw util::Error(util::ExitCode::failure,
                          "refusing to remove " + dist.name + " " + dist.version + ": " +
                              util::utf8_of(dist.dist_info) + " is outside the prefix " +
                              util::utf8_of(prefix));
    }
    if (dist.record.empty()) {
        // As pip does: without RECORD nobody knows which files are this distribution's.
        throw util::Error(util::ExitCode::failure,
                          "cannot remove " + dist.name + " " + dist.version + ": its RECORD (" +
                              util::utf8_of(dist.dist_info / "RECORD") +
                              ") is missing or unreadable, so its files are unknown",
                          "reinstall it (which writes a new RECORD), then remove it");
    }
    // Every path is checked before anything is deleted: a RECORD naming a file outside the
    // prefix (by '..', an absolute path, or a symlinked folder) removes nothing at all.
    std::vector<stdfs::path> targets;
    std::map<stdfs::path, bool> parent_ok;
    const stdfs::path real_prefix = stdfs::weakly_canonical(prefix);
    const PrefixSkeleton skeleton(layout);
    for (const InstalledFile& file : dist.record) {
        stdfs::path target = (base / from_generic(file.path)).lexically_normal();
        if (!is_within(target, prefix) || target == prefix) {
            refuse(file.path, "which is outside the prefix " + util::utf8_of(prefix));
        }
        if (skeleton.describe_path(target)) continue;  // the prefix's own, whatever RECORD says
        auto [it, fresh] = parent_ok.emplace(target.parent_path(), true);
        if (fresh) {
            std::error_code ec;
            stdfs::path real = stdfs::weakly_canonical(target.parent_path(), ec);
            it->second = !ec && is_within(real, real_prefix);
        }
        if (!it->second) {
            refuse(file.path, "whose folder leads outside the prefix " + util::utf8_of(prefix));
        }
        targets.push_back(std::move(target));
    }

    std::vector<stdfs::path> removed;
    std::set<stdfs::path> touched_folders;
    std::map<stdfs::path, std::set<std::string>> removed_modules;  // folder -> stems of .py
    for (const auto& target : targets) {
        std::error_code ec;
        auto status = stdfs::symlink_status(target, ec);
        if (ec || stdfs::is_directory(status) || !stdfs::exists(status)) continue;
        if (!stdfs::remove(target, ec) || ec) continue;
        removed.push_back(target);
        touched_folders.insert(target.parent_path());
        if (target.extension() == ".py") {
            removed_modules[target.parent_path()].insert(util::utf8_of(target.stem()));
        }
    }
    // Bytecode of the removed modules: __pycache__/<stem>.<tag>.pyc.
    for (const auto& [folder, stems] : removed_modules) {
        const stdfs::path cache = folder / "__pycache__";
        std::error_code ec;
        for (const auto& entry : stdfs::directory_iterator(cache, ec)) {
            const std::string name = util::utf8_of(entry.path().filename());
            if (!name.ends_with(".pyc")) continue;
            if (stems.count(name.substr(0, name.find('.'))) == 0) continue;
            std::error_code rm;
            if (stdfs::remove(entry.path(), rm)) removed.push_back(entry.path());
        }
        touched_folders.insert(cache);
    }
    {
        std::error_code ec;
        stdfs::path info = normal(dist.dist_info);
        if (stdfs::is_directory(stdfs::symlink_status(info, ec))) {
            for (const auto& entry : stdfs::recursive_directory_iterator(info, ec)) {
                if (!entry.is_directory(ec)) removed.push_back(entry.path());
            }
            stdfs::remove_all(info, ec);
        }
    }

    // Prune folders left empty, deepest first, never the prefix's own folders.
    std::set<stdfs::path> kept;
    for (const auto& root : {layout.prefix, layout.purelib, layout.platlib, layout.scripts,
                             layout.headers, layout.state, layout.data}) {
        for (stdfs::path p = normal(root); is_within(p, prefix); p = p.parent_path()) {
            kept.insert(p);
            if (p == prefix) break;
        }
    }
    std::vector<stdfs::path> folders(touched_folders.begin(), touched_folders.end());
    std::sort(folders.begin(), folders.end(), [](const auto& a, const auto& b) {
        return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
    });
    for (stdfs::path folder : folders) {
        while (is_within(folder, prefix) && kept.count(folder) == 0) {
            std::error_code ec;
            if (!stdfs::is_empty(folder, ec) || ec || !stdfs::remove(folder, ec)) break;
            folder = folder.parent_path();
        }
    }
    std::sort(removed.begin(), removed.end());
    removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
    return removed;
}

std::string_view to_string(FileProblem problem) noexcept {
    switch (problem) {
        case FileProblem::missing:
            return "missing";
        case FileProblem::modified:
            return "modified";
        case FileProblem::skeleton:
            return "skeleton";
    }
    return "modified";
}

std::vector<FileDrift> verify_records(const PrefixLayout& layout,
                                      const std::vector<InstalledDistribution>& dists) {
    std::vector<FileDrift> out;
    std::vector<CheckJob> jobs;
    const PrefixSkeleton skeleton(layout);
    for (const auto& dist : dists) {
        if (dist.record.empty()) {
            FileDrift drift;
            drift.distribution = dist.name;
            drift.path = util::utf8_of(dist.dist_info.filename()) + "/RECORD";
            drift.problem = FileProblem::missing;
            drift.detail = "RECORD is missing or unreadable";
            out.push_back(std::move(drift));
            continue;
        }
        const stdfs::path base = record_base(dist);
        for (const auto& file : dist.record) {
            // A RECORD that claims the prefix's skeleton (pip installed a wheel over pyvenv.cfg)
            // is drift even when the file matches it: the file's bytes are the wheel's now.
            if (auto what =
                    skeleton.describe_path((base / from_generic(file.path)).lexically_normal())) {
                out.push_back(
                    {dist.name, file.path, FileProblem::skeleton,
                     "the prefix's " + *what + "; aitk-env owns it, no distribution may"});
                continue;
            }
            if (is_sha256_record_hash(file.hash)) jobs.push_back({&dist.name, &file, base});
        }
    }
    for (auto& drift : check_files(jobs))
        out.push_back(std::move(drift));
    sort_drift(out);
    return out;
}

std::vector<FileDrift> verify_unpacked_tree(const std::filesystem::path& tree) {
    std::string dist_info;
    std::error_code ec;
    for (const auto& entry : stdfs::directory_iterator(tree, ec)) {
        const std::string name = util::utf8_of(entry.path().filename());
        std::error_code type_ec;
        if (name.ends_with(detail::dist_info_suffix) && entry.is_directory(type_ec)) {
            if (!dist_info.empty()) {
                return {{"", "", FileProblem::modified, "has more than one .dist-info folder"}};
            }
            dist_info = name;
        }
    }
    if (ec) return {{"", "", FileProblem::missing, "cannot be read: " + ec.message()}};
    if (dist_info.empty()) return {{"", "", FileProblem::missing, "has no .dist-info folder"}};
    const std::string record_path = dist_info + "/RECORD";
    auto text = read_if_file(tree / from_generic(record_path));
    if (!text) return {{"", record_path, FileProblem::missing, "RECORD is missing or unreadable"}};
    auto record = parse_record(*text);
    if (!record) return {{"", record_path, FileProblem::modified, record.error()}};
    const std::string name =
        dist_info.substr(0, dist_info.size() - detail::dist_info_suffix.size());
    std::vector<CheckJob> jobs;
    for (const auto& file : *record) {
        if (file.path == record_path) continue;  // RECORD cannot hold its own hash
        if (record_path_problem(file.path)) {
            return {{name, file.path, FileProblem::modified, "RECORD lists an unsafe path"}};
        }
        jobs.push_back({&name, &file, tree});
    }
    auto out = check_files(jobs);
    sort_drift(out);
    return out;
}

std::vector<std::string> unowned_files(const PrefixLayout& layout,
                                       const std::vector<InstalledDistribution>& dists) {
    const stdfs::path site = normal(layout.purelib);
    std::unordered_set<std::string> owned;
    for (const auto& dist : dists) {
        const stdfs::path base = record_base(dist);
        for (const auto& file : dist.record) {
            stdfs::path full = (base / from_generic(file.path)).lexically_normal();
            if (!is_within(full, site)) continue;
            owned.insert(util::generic_utf8_of(full.lexically_relative(site)));
        }
    }
    std::vector<std::string> out;
    std::error_code ec;
    stdfs::recursive_directory_iterator it(site, stdfs::directory_options::skip_permission_denied,
                                           ec);
    for (; !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code type_ec;
        if (it->is_directory(type_ec) && !it->is_symlink(type_ec)) continue;
        std::string rel = util::generic_utf8_of(it->path().lexically_relative(site));
        if (owned.count(rel) != 0) continue;
        if (auto source = pyc_source(rel); source && owned.count(*source) != 0) continue;
        out.push_back(std::move(rel));
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace aitk::install
