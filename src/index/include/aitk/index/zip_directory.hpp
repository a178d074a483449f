#pragma once
// Just enough of the zip format to find one member of a remote wheel with byte-range requests
// (PEP 658 is missing): the end-of-central-directory record (zip64 too) in the file's tail, the
// central directory entry of `<name>-<version>.dist-info/METADATA`, the length of its local
// header, and a one-member zip around its compressed bytes that the archive layer can inflate.
// Pure functions over byte buffers; every length read from the file is checked.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "aitk/util/expected.hpp"

namespace aitk::index {

// The last bytes of a file: bytes = file[offset, offset + bytes.size()), ending at file_size.
struct ZipTail {
    std::uint64_t offset = 0;
    std::string_view bytes;
    std::uint64_t file_size = 0;
};

struct ByteSpan {
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    friend bool operator==(const ByteSpan&, const ByteSpan&) = default;
};

struct CentralDirectory {
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    std::uint64_t entries = 0;
    bool zip64 = false;
};

// The central directory's place; or the bytes (just before the tail) still needed to find it
// (a long archive comment, a zip64 record outside the tail): fetch them, prepend, call again.
// Errors name what is wrong ("no end of central directory record: not a zip file").
using DirectoryLocation = std::variant<CentralDirectory, ByteSpan>;
util::Expected<DirectoryLocation, std::string> locate_central_directory(const ZipTail& tail);

// Bytes needed from the end to be sure to hold the end record with the longest comment.
inline constexpr std::uint64_t max_end_record_bytes = 22 + 0xFFFF + 20 + 56;

struct ZipMember {
    std::string name;
    std::uint16_t flags = 0;
    std::uint16_t method = 0;  // 0 stored, 8 deflate
    std::uint32_t crc32 = 0;
    std::uint64_t compressed_size = 0;
    std::uint64_t uncompressed_size = 0;
    std::uint64_t local_header_offset = 0;
};

// Every top-level "<dir>.dist-info/METADATA" entry of a central directory (`directory` holds
// exactly its bytes, `entries` from the end record). An error for a damaged directory.
util::Expected<std::vector<ZipMember>, std::string> find_metadata_members(
    std::string_view directory, std::uint64_t entries);

// Length of a local file header (30 bytes + name + extra field) from its first 30 bytes; an
// error when `header` is shorter or is not a local header.
util::Expected<std::uint64_t, std::string> local_header_length(std::string_view header);

// A complete zip holding only `member` with the given compressed bytes (data-descriptor flag
// cleared, sizes and CRC from the central directory), for the archive layer to inflate and
// check. Sizes must fit 32 bits (METADATA files are small).
std::string single_member_zip(const ZipMember& member, std::string_view compressed);

}  // namespace aitk::index
