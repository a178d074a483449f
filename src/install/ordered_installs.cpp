#include "aitk/install/ordered_installs.hpp"

#include <algorithm>
#include <system_error>
#include <utility>

#include "aitk/cache/tree_stamp.hpp"
#include "aitk/util/utf8.hpp"

namespace aitk::install {
namespace {

bool share_a_name(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    auto i = a.begin();
    auto j = b.begin();
    while (i != a.end() && j != b.end()) {
        if (*i == *j) return true;
        *i < *j ? ++i : ++j;
    }
    return false;
}

}  // namespace

std::vector<std::string> top_level_names(const std::filesystem::path& tree) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(tree, ec)) {
        std::string name = util::utf8_of(entry.path().filename());
        if (name.ends_with(".dist-info") || name == cache::tree_stamp_name) continue;
        if (name.ends_with(".data")) name = ".data";  // scripts, headers: shared folders
        names.push_back(std::move(name));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

OrderedInstalls::OrderedInstalls(std::size_t count)
    : names_(count), busy_(count, 0), done_(count, 0), placed_(count) {}

bool OrderedInstalls::shares_with_busy(std::size_t index) const {
    for (std::size_t j = 0; j < busy_.size(); ++j) {
        if (busy_[j] && j != index && share_a_name(names_[index], names_[j])) return true;
    }
    return false;
}

WheelInstallResult OrderedInstalls::install(const PrefixLayout& layout, std::size_t index,
                                            WheelInstallRequest request) {
    auto names = top_level_names(request.unpacked);
    // The files of wheels later in the order that are in place already; their sets no longer
    // change (those wheels are done), so they are read without the mutex.
    std::vector<const std::unordered_set<std::string>*> later;
    {
        std::unique_lock lock(mutex_);
        names_[index] = std::move(names);
        changed_.wait(lock, [&] { return !shares_with_busy(index); });
        busy_[index] = 1;
        for (std::size_t j = index + 1; j < done_.size(); ++j) {
            if (done_[j] && !placed_[j].empty() && share_a_name(names_[index], names_[j])) {
                later.push_back(&placed_[j]);
            }
        }
    }
    if (!later.empty()) {
        request.placed_by_later = [&later](std::string_view path) {
            const std::string key(path);
            for (const auto* files : later)
                if (files->count(key) != 0) return true;
            return false;
        };
    }
    std::unordered_set<std::string> placed;
    auto finish = [&] {
        {
            std::lock_guard lock(mutex_);
            placed_[index] = std::move(placed);
            busy_[index] = 0;
            done_[index] = 1;
        }
        changed_.notify_all();
    };
    try {
        WheelInstallResult result = install_wheel(layout, request);
        for (const auto& file : result.files)
            placed.insert(file.path);
        finish();
        return result;
    } catch (...) {
        finish();
        throw;
    }
}

}  // namespace aitk::install
