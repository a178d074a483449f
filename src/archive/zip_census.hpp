#pragma once
// What a zip's end records declare about it, read without libarchive: how many members it
// holds. Extraction refuses an archive that declares more members than allowed before creating
// a single file, instead of finding out after half a million of them.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace aitk::archive::detail {

struct ZipCensus {
    std::uint64_t members = 0;  // as declared
    std::uint64_t central_directory_offset = 0;
};

// What the end of central directory record (or its zip64 form) declares; nothing when the file
// is not a zip (no such record in its last 64 KiB) or cannot be read.
std::optional<ZipCensus> zip_census(const std::filesystem::path& file);

// The name of member `index` (0-based) in the central directory; nothing when the directory
// is shorter than that (it declared more than it holds) or unreadable.
std::optional<std::string> zip_member_name(const std::filesystem::path& file,
                                           const ZipCensus& census, std::uint64_t index);

}  // namespace aitk::archive::detail
