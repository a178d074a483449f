#pragma once
// What a zip's end records declare about it, read without libarchive: how many members it
// holds. Extraction refuses an archive that declares more members than allowed before creating
// a single file, instead of finding out after half a million of them.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace aitk::archive::detail {

struct ZipCensus {
    std::uint64_t members = 0;  // as declared
    std::uint64_t central_directory_offset = 0;
    std::uint64_t central_directory_size = 0;
};

// What the end of central directory record (or its zip64 form) declares; nothing when the file
// is not a zip (no such record in its last 64 KiB) or cannot be read.
std::optional<ZipCensus> zip_census(const std::filesystem::path& file);

// The name of member `index` (0-based) in the central directory; nothing when the directory
// is shorter than that (it declared more than it holds) or unreadable.
std::optional<std::string> zip_member_name(const std::filesystem::path& file,
                                           const ZipCensus& census, std::uint64_t index);

// Where the central directory puts a member's local header (zip64 fields applied).
struct ZipEntryPlace {
    std::string name;
    std::uint64_t compressed_size = 0;
    std::uint64_t local_header_offset = 0;
};

// The first member of the central directory (read in one piece) whose stored name `wanted`
// accepts; nothing when none does or the directory is damaged or larger than `max_directory`.
std::optional<ZipEntryPlace> find_zip_entry(const std::filesystem::path& file,
                                            const ZipCensus& census,
                                            const std::function<bool(std::string_view)>& wanted,
                                            std::uint64_t max_directory);

// The bytes of that member as a zip's first entry: its local header and data (and the 24 bytes
// after them, which hold a data descriptor when the header says there is one), for
// Reader::open_memory; nothing when they lie outside the file or are no local header.
std::optional<std::string> zip_entry_bytes(const std::filesystem::path& file,
                                           const ZipEntryPlace& entry);

}  // namespace aitk::archive::detail
