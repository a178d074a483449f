#pragma once
// Installing a sync's wheels as each one is unpacked, in whatever order they come, with the
// prefix ending up as if they had been installed one after the other in the sync's order.
// Wheels that share a top-level name in their trees (nvidia/ in every nvidia-* wheel; any .data
// folder, whose scripts and headers land in shared folders) never install at the same time, and
// a wheel that comes after a later one in the order leaves in place the files the later one has
// put there (the later one wins, as with pip). Wheels that share nothing install in parallel.
#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "aitk/install/layout.hpp"
#include "aitk/install/wheel_install.hpp"

namespace aitk::install {

// The names install order cares about in an unpacked wheel: its top-level entries, .dist-info
// and the cache's record of the tree (cache/tree_stamp.hpp) left out and any `<x>.data` as
// ".data". Sorted.
std::vector<std::string> top_level_names(const std::filesystem::path& tree);

class OrderedInstalls {
  public:
    // `count` wheels, numbered in the sync's order.
    explicit OrderedInstalls(std::size_t count);

    // Installs wheel `index` (request.unpacked is its tree) into `layout`; waits while a wheel
    // that shares a top-level name with it installs. Thread-safe; each index once.
    WheelInstallResult install(const PrefixLayout& layout, std::size_t index,
                               WheelInstallRequest request);

  private:
    bool shares_with_busy(std::size_t index) const;

    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::vector<std::string>> names_;          // of the wheels seen so far
    std::vector<char> busy_;                               // installing now
    std::vector<char> done_;                               // installed (or failed)
    std::vector<std::unordered_set<std::string>> placed_;  // RECORD paths, once done
};

}  // namespace aitk::install
