#include "aitk/install/plan.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "aitk/util/parallel.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::install {
namespace {

struct FileTimes {
    std::uintmax_t size = 0;
    std::int64_t mtime_ns = 0;
};

// site-packages, opened once so that checking a RECORD's files need not resolve its full path
// for each one (a no-op sync checks tens of thousands).
class SitePackages {
  public:
    explicit SitePackages(const std::filesystem::path& purelib) : purelib_(purelib) {
#ifndef _WIN32
        fd_ = ::open(purelib.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
    }
    SitePackages(const SitePackages&) = delete;
    SitePackages& operator=(const SitePackages&) = delete;
    ~SitePackages() {
#ifndef _WIN32
        if (fd_ >= 0) ::close(fd_);
#endif
    }

    // The size and modification time of the regular file at `path` (relative to site-packages,
    // symlinks followed, as std::filesystem::file_size does); nullopt when it is missing or not
    // a regular file. One stat.
    std::optional<FileTimes> stat(const std::string& path) const {
#ifndef _WIN32
        if (fd_ >= 0) return stat_at(fd_, path.c_str());
#endif
        return stat_path(purelib_ / util::path_from_utf8(path));
    }

    // The same for a file named by its full path (a distribution's RECORD).
    static std::optional<FileTimes> stat_path(const std::filesystem::path& path) {
#ifndef _WIN32
        return stat_at(AT_FDCWD, path.c_str());
#else
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
        FileTimes out;
        out.size = std::filesystem::file_size(path, ec);
        if (ec) return std::nullopt;
        const auto when = std::filesystem::last_write_time(path, ec);
        if (ec) return std::nullopt;
        out.mtime_ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count();
        return out;
#endif
    }

  private:
#ifndef _WIN32
    static std::optional<FileTimes> stat_at(int dir, const char* path) {
        struct stat st {};
        if (::fstatat(dir, path, &st, 0) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
        return FileTimes{static_cast<std::uintmax_t>(st.st_size),
                         static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
                             static_cast<std::int64_t>(st.st_mtim.tv_nsec)};
    }
#endif

    std::filesystem::path purelib_;
#ifndef _WIN32
    int fd_ = -1;
#endif
};

// When was this distribution's RECORD written (installers write it after every file)? Nothing
// when it cannot be told: then only sizes are compared.
std::optional<std::int64_t> record_time(const InstalledDistribution& dist) {
    if (dist.dist_info.empty()) return std::nullopt;
    auto times = SitePackages::stat_path(dist.dist_info / "RECORD");
    if (!times) return std::nullopt;
    return times->mtime_ns;
}

// What the stat of one distribution's files found.
struct FilesCheck {
    bool intact = true;  // every file present with RECORD's size, none changed after RECORD
    // Files written after this distribution's RECORD (an edit in place, of any size), with
    // their times: changes, unless another distribution put the file there later (judged below).
    std::vector<std::pair<std::string, std::int64_t>> newer;
};

// Every RECORD file is present with the size RECORD gives, and none was modified after RECORD
// was written (rewritten in place: the size alone would not tell).
FilesCheck check_distribution(const SitePackages& site, const InstalledDistribution& dist) {
    FilesCheck out;
    if (dist.record.empty()) {
        out.intact = false;
        return out;
    }
    const auto recorded = record_time(dist);
    for (const auto& file : dist.record) {
        if (file.hash.empty()) continue;  // RECORD itself, or a file recorded without a hash
        auto times = site.stat(file.path);
        if (!times || times->size != file.size) {
            out.intact = false;
            out.newer.clear();
            return out;
        }
        if (recorded && times->mtime_ns > *recorded)
            out.newer.emplace_back(file.path, times->mtime_ns);
    }
    return out;
}

// checks[i] = check_distribution(site, *dists[i]) for each non-null dists[i]. A big environment
// has tens of thousands of files, so two threads share them when there are that many.
void check_files(const SitePackages& site, const std::vector<const InstalledDistribution*>& dists,
                 std::vector<FilesCheck>& checks) {
    std::size_t files = 0;
    for (const auto* d : dists)
        if (d) files += d->record.size();
    auto check = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            if (dists[i]) checks[i] = check_distribution(site, *dists[i]);
    };
    constexpr std::size_t worth_a_thread = 4096;
    if (files < worth_a_thread) {
        check(0, dists.size());
        return;
    }
    // Split where half of the files lie, not half of the distributions (torch alone is many).
    std::size_t split = 0;
    for (std::size_t seen = 0; split < dists.size() && seen < files / 2; ++split)
        if (dists[split]) seen += dists[split]->record.size();
    util::parallel_for(2, 2, [&](std::size_t half) {
        if (half == 0) check(0, split);
        if (half == 1) check(split, dists.size());
    });
}

// A file newer than its distribution's RECORD is that distribution's change unless a
// distribution that also lists it wrote its RECORD after the file: it put the file there last
// (a shared namespace __init__.py, a file one wheel overwrites of another). Decides the
// `newer` files of every check; the table of shared paths is made only when there are some.
void judge_newer_files(const std::vector<InstalledDistribution>& installed,
                       std::vector<FilesCheck>& checks) {
    bool any = false;
    for (const auto& c : checks)
        any = any || (c.intact && !c.newer.empty());
    if (!any) return;
    std::unordered_map<std::string, std::int64_t> latest;  // path -> newest RECORD listing it
    for (const auto& dist : installed) {
        const auto recorded = record_time(dist);
        if (!recorded) continue;
        for (const auto& file : dist.record) {
            auto [it, fresh] = latest.emplace(file.path, *recorded);
            if (!fresh && it->second < *recorded) it->second = *recorded;
        }
    }
    for (auto& c : checks) {
        for (const auto& [path, mtime] : c.newer) {
            auto it = latest.find(path);
            if (it == latest.end() || mtime > it->second) c.intact = false;
        }
    }
}

}  // namespace

InstallPlan plan_install(const std::vector<WantedDistribution>& wanted,
                         const std::vector<InstalledDistribution>& installed,
                         const std::optional<Receipt>& receipt, bool remove_extraneous,
                         const PrefixLayout* layout) {
    InstallPlan plan;
    std::map<std::string, const InstalledDistribution*> present;
    for (const auto& dist : installed)
        present[dist.name] = &dist;
    // Per wanted distribution: the installed one when it looks current (its files are checked
    // below, all at once), else null.
    std::vector<const InstalledDistribution*> current(wanted.size(), nullptr);
    std::vector<bool> replace(wanted.size(), false);
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        const auto& want = wanted[i];
        if (!want.installable) {
            plan.skipped.push_back(i);
            present.erase(want.name);  // whatever is there stays (it may be a build of it)
            continue;
        }
        auto it = present.find(want.name);
        if (it == present.end()) {
            plan.install.push_back(i);
            continue;
        }
        const auto& dist = *it->second;
        // A source locked without inspection has no version: its key decides.
        const bool same_version =
            want.version.empty() ? !want.from_wheel : dist.version == want.version;
        bool same_key = true;
        if (receipt) {
            auto key = receipt->wheel_sha256.find(want.name);
            same_key = key != receipt->wheel_sha256.end() && key->second == want.key;
        }
        if (same_version && same_key) {
            current[i] = &dist;
        } else {
            replace[i] = true;
        }
        present.erase(it);
    }
    std::vector<FilesCheck> checks(wanted.size());
    if (layout) {
        check_files(SitePackages(layout->purelib), current, checks);
        judge_newer_files(installed, checks);
    }
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        if (current[i] && checks[i].intact) {
            plan.keep.push_back(i);
        } else if (current[i] || replace[i]) {
            plan.reinstall.push_back(i);
        }
    }
    if (remove_extraneous) {
        for (const auto& [name, dist] : present)
            plan.remove.push_back(*dist);
    }
    return plan;
}

}  // namespace aitk::install
