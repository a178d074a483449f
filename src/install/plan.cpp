#include "aitk/install/plan.hpp"

#include <map>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "aitk/util/parallel.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::install {
namespace {

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

    // The size of the regular file at `path` (relative to site-packages, symlinks followed, as
    // std::filesystem::file_size does); nullopt when it is missing or not a regular file.
    std::optional<std::uintmax_t> file_size(const std::string& path) const {
#ifndef _WIN32
        if (fd_ >= 0) {
            struct stat st {};
            if (::fstatat(fd_, path.c_str(), &st, 0) != 0 || !S_ISREG(st.st_mode)) {
                return std::nullopt;
            }
            return static_cast<std::uintmax_t>(st.st_size);
        }
#endif
        std::error_code ec;
        auto size = std::filesystem::file_size(purelib_ / path, ec);
        if (ec) return std::nullopt;
        return size;
    }

  private:
    std::filesystem::path purelib_;
#ifndef _WIN32
    int fd_ = -1;
#endif
};

// Every RECORD file is present with the size RECORD gives.
bool files_intact(const SitePackages& site, const InstalledDistribution& dist) {
    if (dist.record.empty()) return false;
    for (const auto& file : dist.record) {
        if (file.hash.empty()) continue;  // RECORD itself, or a file recorded without a hash
        auto size = site.file_size(file.path);
        if (!size || *size != file.size) return false;
    }
    return true;
}

// intact[i] = files_intact(site, *dists[i]) for each non-null dists[i]. A big environment has
// tens of thousands of files, so two threads share them when there are that many.
void check_files(const SitePackages& site, const std::vector<const InstalledDistribution*>& dists,
                 std::vector<char>& intact) {
    std::size_t files = 0;
    for (const auto* d : dists)
        if (d) files += d->record.size();
    auto check = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            if (dists[i]) intact[i] = files_intact(site, *dists[i]) ? 1 : 0;
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
    std::vector<char> intact(wanted.size(), 1);
    if (layout) check_files(SitePackages(layout->purelib), current, intact);
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        if (current[i] && intact[i]) {
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
