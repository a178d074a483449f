#pragma once
// What a prefix holds: the distributions in its site-packages (*.dist-info with RECORD), and
// removing one by its RECORD (the inverse of install_wheel; pip's uninstall does the same).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aitk/install/layout.hpp"
#include "aitk/install/wheel_install.hpp"

namespace aitk::install {

struct InstalledDistribution {
    std::string name;  // normalised
    std::string version;
    std::filesystem::path dist_info;
    std::string installer;  // INSTALLER's first line ("aitk-env", "pip")
    bool requested = false;
    std::vector<InstalledFile> record;  // paths relative to site-packages
};

// Every distribution in the layout's site-packages, sorted by name. Unreadable RECORDs give a
// distribution with an empty record (verify reports it).
std::vector<InstalledDistribution> installed_distributions(const PrefixLayout& layout);

// Removes every file RECORD lists (and folders left empty), except the prefix's skeleton
// (skeleton.hpp). Returns the paths removed.
std::vector<std::filesystem::path> remove_distribution(const PrefixLayout& layout,
                                                       const InstalledDistribution& dist);

// skeleton: RECORD lists a file of the prefix's skeleton (skeleton.hpp), which no distribution
// may own; such a file is never removed with its distribution.
enum class FileProblem { missing, modified, skeleton };
// "missing", "modified", "skeleton" (verify's report and JSON).
std::string_view to_string(FileProblem problem) noexcept;
struct FileDrift {
    std::string distribution;
    std::string path;  // as RECORD lists it
    FileProblem problem = FileProblem::missing;
    std::string detail;  // "sha256 differs", "size 10, RECORD says 12"
};

// Every RECORD entry with a hash checked against the disk (scripts and .pyc files the installer
// wrote are in RECORD too), and every entry naming a file of the prefix's skeleton reported as
// such. Sorted by distribution, then path.
std::vector<FileDrift> verify_records(const PrefixLayout& layout,
                                      const std::vector<InstalledDistribution>& dists);

// An unpacked wheel in the cache checked as `verify` checks a prefix: every file its RECORD
// lists against RECORD's size and sha256 (`distribution` is the .dist-info folder's name less
// its suffix). A tree without one .dist-info folder or a readable RECORD gives one problem
// saying so. Empty when the tree is as its wheel made it.
std::vector<FileDrift> verify_unpacked_tree(const std::filesystem::path& tree);

// Files under site-packages that no RECORD lists (ignoring __pycache__ of listed modules),
// relative to site-packages, sorted.
std::vector<std::string> unowned_files(const PrefixLayout& layout,
                                       const std::vector<InstalledDistribution>& dists);

}  // namespace aitk::install
