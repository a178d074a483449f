#pragma once
// Source distributions (.tar.gz, .zip) unpacked with the archive layer's secure extraction: no
// member may leave the destination ("../", absolute names, links that escape), and the archive
// must hold a single top-level folder, which is the project.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "aitk/pep/metadata.hpp"

namespace aitk::build {

struct UnpackedSdist {
    std::filesystem::path project;             // destination / <the single top-level folder>
    std::optional<std::string> pkg_info_text;  // <project>/PKG-INFO, when present
    // PKG-INFO parsed; nullopt when absent or not valid core metadata (pkg_info_problem says
    // why, for a warning: the build itself does not need it).
    std::optional<pep::CoreMetadata> pkg_info;
    std::string pkg_info_problem;
};

// Extracts `archive` into `destination` (which must not exist). Throws archive::ArchiveError for
// an unsafe or unreadable archive (nothing is left at `destination` then) and BuildError when it
// does not hold exactly one top-level folder.
UnpackedSdist unpack_sdist(const std::filesystem::path& archive,
                           const std::filesystem::path& destination);

// The source id of a built wheel (wheel_cache.hpp): "sha256:<hex>" of the sdist file.
std::string sdist_source_id(std::string_view sha256);

}  // namespace aitk::build
