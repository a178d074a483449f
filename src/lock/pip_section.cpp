#include <algorithm>
#include <vector>

#include "aitk/lock/lockfile.hpp"
#include "aitk/pep/direct_reference.hpp"
#include "lock_text.hpp"

namespace aitk::lock {
namespace {

// Pip looks a name up on the indexes of the file, so a package pinned by version must come from
// one of them; a find-links file or a direct reference is named by its URL instead.
bool pinned_by_index(const LockedIndex* index, const std::string& version) {
    return index != nullptr && index->kind != IndexKind::find_links && !version.empty();
}

// With activated extras, the package is pinned twice: plain and with its extras. pip 23 reads
// a dependency's `lib[fast]>=1` and a plain `lib` as separate requirements and refuses either
// one unpinned in hash-checking mode.
void add_by_version(std::vector<std::string>& lines, const LockedPackage& package,
                    const std::string& sha256) {
    const std::string pin = "==" + package.version + " --hash=sha256:" + sha256;
    lines.push_back(package.name + pin);
    if (!package.extras.empty()) {
        std::string name = package.name + '[';
        for (std::size_t i = 0; i < package.extras.size(); ++i) {
            if (i != 0) name += ',';
            name += package.extras[i];
        }
        lines.push_back(name + ']' + pin);
    }
}

std::string by_url(const LockedPackage& package, std::string_view url, const std::string& sha256,
                   const std::string& subdirectory = {}) {
    const std::string stored = detail::storable_url(url);
    std::string line =
        package.name + " @ " + std::string(pep::split_fragment(stored).url) + "#sha256=" + sha256;
    if (!subdirectory.empty()) line += "&subdirectory=" + subdirectory;
    return line;
}

}  // namespace

PipSection pip_section(const Lockfile& lock, const LockedTarget& target) {
    std::vector<const LockedPackage*> packages;
    packages.reserve(target.packages.size());
    for (const auto& package : target.packages)
        packages.push_back(&package);
    std::stable_sort(packages.begin(), packages.end(),
                     [](const auto* a, const auto* b) { return a->name < b->name; });

    PipSection section;
    std::vector<const LockedIndex*> used;
    std::vector<std::string> requirements;
    const auto use = [&](const LockedIndex* index) {
        if (std::find(used.begin(), used.end(), index) == used.end()) used.push_back(index);
    };
    for (const auto* package : packages) {
        const LockedIndex* index = lock.find_index(package->index);
        if (package->wheel) {
            const LockedFile& wheel = *package->wheel;
            if (pinned_by_index(index, package->version)) {
                add_by_version(requirements, *package, wheel.sha256);
                use(index);
            } else {
                requirements.push_back(by_url(*package, wheel.url, wheel.sha256));
            }
            continue;
        }
        const bool archive = package->source &&
                             (package->source->kind == SourceKind::sdist ||
                              package->source->kind == SourceKind::url) &&
                             !package->source->sha256.empty();
        if (!archive) {
            // A VCS checkout or a local folder has no hash pip could check.
            section.left_out.push_back(package->name);
            continue;
        }
        const LockedSource& source = *package->source;
        if (source.kind == SourceKind::sdist && source.subdirectory.empty() &&
            pinned_by_index(index, package->version)) {
            add_by_version(requirements, *package, source.sha256);
            use(index);
        } else {
            requirements.push_back(
                by_url(*package, source.url, source.sha256, source.subdirectory));
        }
    }
    if (requirements.empty()) return section;

    // Hash mode even when every line is a URL (only `--hash` options switch it on by themselves).
    section.lines.push_back("--require-hashes");
    // The indexes in the lock's order, so the primary one stays first; with none, pip must not
    // go looking on PyPI for a name the lock does not list.
    std::stable_sort(used.begin(), used.end(), [&](const auto* a, const auto* b) {
        return a - lock.indexes.data() < b - lock.indexes.data();
    });
    if (used.empty()) section.lines.push_back("--no-index");
    for (std::size_t i = 0; i < used.size(); ++i) {
        section.lines.push_back((i == 0 ? "--index-url " : "--extra-index-url ") +
                                detail::storable_url(used[i]->url));
    }
    section.lines.insert(section.lines.end(), std::make_move_iterator(requirements.begin()),
                         std::make_move_iterator(requirements.end()));
    return section;
}

}  // namespace aitk::lock
