#include "ownership.hpp"

#include <algorithm>
#include <map>
#include <system_error>

#include "aitk/install/skeleton.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::install::detail {
namespace {

namespace stdfs = std::filesystem;

std::string relative_to_prefix(const TxnPaths& paths, const stdfs::path& full) {
    return to_journal_path(full.lexically_relative(paths.prefix));
}

bool is_file_like(const stdfs::path& path) {
    std::error_code ec;
    auto status = stdfs::symlink_status(path, ec);
    return !ec && stdfs::exists(status) && !stdfs::is_directory(status);
}

}  // namespace

OwnedFiles owned_files(const TxnPaths& paths, const PrefixLayout& layout,
                       const InstalledDistribution& dist) {
    const std::string who = dist.name + " " + dist.version;
    const stdfs::path record_file = dist.dist_info / "RECORD";
    const PrefixSkeleton skeleton(layout);
    OwnedFiles owned;
    owned.dist_info = absolute_normal(dist.dist_info);
    if (!is_within(owned.dist_info, paths.prefix) || owned.dist_info == paths.prefix) {
        throw util::Error(util::ExitCode::failure,
                          "refusing to remove " + who + ": " + util::utf8_of(dist.dist_info) +
                              " is outside the prefix " + util::utf8_of(paths.prefix));
    }
    if (dist.record.empty()) {
        // As pip does: without RECORD nobody knows which files are this distribution's.
        throw util::Error(util::ExitCode::failure,
                          "cannot remove " + who + ": its RECORD (" + util::utf8_of(record_file) +
                              ") is missing or unreadable, so its files are unknown",
                          "reinstall it (which writes a new RECORD), then remove it");
    }
    auto refuse = [&](const std::string& path, const std::string& why) {
        throw util::Error(util::ExitCode::failure, "refusing to remove " + who + ": its RECORD (" +
                                                       util::utf8_of(record_file) + ") lists '" +
                                                       path + "', " + why);
    };
    // Every path is checked before anything moves: a RECORD naming a file outside the prefix
    // (by '..', an absolute path, or a symlinked folder) makes the whole transaction fail.
    const stdfs::path base = owned.dist_info.parent_path();
    const stdfs::path real_prefix = stdfs::weakly_canonical(paths.prefix);
    std::map<stdfs::path, bool> parent_ok;
    for (const InstalledFile& file : dist.record) {
        stdfs::path target = (base / from_journal_path(file.path)).lexically_normal();
        if (!is_within(target, paths.prefix) || target == paths.prefix) {
            refuse(file.path, "which is outside the prefix " + util::utf8_of(paths.prefix));
        }
        // pyvenv.cfg, the interpreter, the shims, .aitk-env/...: a RECORD that lists one (pip
        // installed a wheel over it) never takes it away; verify reports such a RECORD.
        if (skeleton.describe_path(target)) continue;
        auto [it, fresh] = parent_ok.emplace(target.parent_path(), true);
        if (fresh) {
            std::error_code ec;
            stdfs::path real = stdfs::weakly_canonical(target.parent_path(), ec);
            it->second = !ec && is_within(real, real_prefix);
        }
        if (!it->second) {
            refuse(file.path,
                   "whose folder leads outside the prefix " + util::utf8_of(paths.prefix));
        }
        owned.record.push_back(relative_to_prefix(paths, target));
    }
    return owned;
}

std::vector<std::string> existing_owned_files(const TxnPaths& paths,
                                              const std::vector<OwnedFiles>& owned) {
    std::vector<std::string> out;
    std::map<stdfs::path, std::vector<std::string>> modules;  // folder → stems of its .py files
    for (const auto& dist : owned) {
        for (const auto& rel : dist.record) {
            stdfs::path full = paths.in_prefix(rel);
            if (is_file_like(full)) out.push_back(rel);
            // Bytecode of a module goes with it, whether or not the .py is still there.
            if (full.extension() == ".py") {
                modules[full.parent_path()].push_back(util::utf8_of(full.stem()));
            }
        }
        std::error_code ec;
        if (!stdfs::is_directory(stdfs::symlink_status(dist.dist_info, ec))) continue;
        for (auto it = stdfs::recursive_directory_iterator(dist.dist_info, ec);
             !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
            std::error_code type_ec;
            if (!it->is_directory(type_ec) || it->is_symlink(type_ec)) {
                out.push_back(relative_to_prefix(paths, it->path()));
            }
        }
    }
    for (auto& [folder, stems] : modules) {
        std::sort(stems.begin(), stems.end());
        std::error_code ec;
        for (const auto& entry : stdfs::directory_iterator(folder / "__pycache__", ec)) {
            const std::string name = util::utf8_of(entry.path().filename());
            if (!name.ends_with(".pyc")) continue;
            if (!std::binary_search(stems.begin(), stems.end(), name.substr(0, name.find('.')))) {
                continue;
            }
            if (is_file_like(entry.path())) out.push_back(relative_to_prefix(paths, entry.path()));
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void prune_empty_folders(const PrefixLayout& layout, const TxnPaths& paths,
                         const std::set<stdfs::path>& folders) {
    std::set<stdfs::path> kept;
    for (const auto& root : {layout.prefix, layout.purelib, layout.platlib, layout.scripts,
                             layout.headers, layout.state, layout.data}) {
        for (stdfs::path p = absolute_normal(root); is_within(p, paths.prefix);
             p = p.parent_path()) {
            kept.insert(p);
            if (p == paths.prefix) break;
        }
    }
    std::vector<stdfs::path> order(folders.begin(), folders.end());
    // Deepest first, so a folder holding only empty folders goes too.
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
    });
    for (stdfs::path folder : order) {
        while (is_within(folder, paths.prefix) && kept.count(folder) == 0) {
            std::error_code ec;
            auto status = stdfs::symlink_status(folder, ec);
            // A folder already gone (an interrupted run pruned it) may have left its parent
            // empty: go on upwards.
            if (stdfs::exists(status)) {
                if (!stdfs::is_directory(status) || !stdfs::is_empty(folder, ec) || ec ||
                    !stdfs::remove(folder, ec)) {
                    break;
                }
            }
            folder = folder.parent_path();
        }
    }
}

}  // namespace aitk::install::detail
