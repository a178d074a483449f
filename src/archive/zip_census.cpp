#include "zip_census.hpp"

#include <algorithm>
#include <fstream>
#include <string>

namespace aitk::archive::detail {
namespace {

constexpr std::uint32_t eocd_signature = 0x06054b50;
constexpr std::uint32_t zip64_locator_signature = 0x07064b50;
constexpr std::uint32_t zip64_eocd_signature = 0x06064b50;
constexpr std::size_t eocd_size = 22;
constexpr std::size_t zip64_locator_size = 20;
constexpr std::size_t zip64_eocd_size = 56;
constexpr std::size_t max_comment = 0xffff;

std::uint64_t little_endian(const std::string& bytes, std::size_t at, std::size_t width) {
    std::uint64_t value = 0;
    for (std::size_t i = width; i-- > 0;)
        value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
    return value;
}

bool read_at(std::ifstream& in, std::uint64_t offset, std::size_t size, std::string& out) {
    out.assign(size, '\0');
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(out.data(), static_cast<std::streamsize>(size));
    return static_cast<std::size_t>(in.gcount()) == size;
}

}  // namespace

std::optional<ZipCensus> zip_census(const std::filesystem::path& file) {
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(file, ec);
    if (ec || size < eocd_size) return std::nullopt;
    std::ifstream in(file, std::ios::binary);
    const std::uint64_t tail_size = std::min<std::uint64_t>(size, eocd_size + max_comment);
    std::string tail;
    if (!in || !read_at(in, size - tail_size, static_cast<std::size_t>(tail_size), tail)) {
        return std::nullopt;
    }
    // The last record whose comment length reaches exactly to the end of the file.
    for (std::size_t at = tail.size() - eocd_size + 1; at-- > 0;) {
        if (little_endian(tail, at, 4) != eocd_signature) continue;
        if (at + eocd_size + little_endian(tail, at + 20, 2) != tail.size()) continue;
        ZipCensus census{little_endian(tail, at + 10, 2), little_endian(tail, at + 16, 4),
                         little_endian(tail, at + 12, 4)};
        if (census.members != 0xffff && census.central_directory_offset != 0xffffffff) {
            return census;
        }
        // zip64: the locator right before the record points at the zip64 end record.
        const std::uint64_t eocd_offset = size - tail_size + at;
        std::string locator;
        if (eocd_offset < zip64_locator_size ||
            !read_at(in, eocd_offset - zip64_locator_size, zip64_locator_size, locator) ||
            little_endian(locator, 0, 4) != zip64_locator_signature) {
            return census;
        }
        std::string record;
        if (!read_at(in, little_endian(locator, 8, 8), zip64_eocd_size, record) ||
            little_endian(record, 0, 4) != zip64_eocd_signature) {
            return census;
        }
        return ZipCensus{little_endian(record, 32, 8), little_endian(record, 48, 8),
                         little_endian(record, 40, 8)};
    }
    return std::nullopt;
}

std::optional<std::string> zip_member_name(const std::filesystem::path& file,
                                           const ZipCensus& census, std::uint64_t index) {
    constexpr std::uint32_t central_signature = 0x02014b50;
    constexpr std::size_t central_size = 46;
    std::ifstream in(file, std::ios::binary);
    std::uint64_t at = census.central_directory_offset;
    std::string header;
    for (std::uint64_t i = 0;; ++i) {
        if (!read_at(in, at, central_size, header) ||
            little_endian(header, 0, 4) != central_signature) {
            return std::nullopt;
        }
        const auto name_length = static_cast<std::size_t>(little_endian(header, 28, 2));
        if (i == index) {
            std::string name;
            if (!read_at(in, at + central_size, name_length, name)) return std::nullopt;
            return name;
        }
        at += central_size + name_length + little_endian(header, 30, 2) +
              little_endian(header, 32, 2);
    }
}

std::optional<ZipEntryPlace> find_zip_entry(const std::filesystem::path& file,
                                            const ZipCensus& census,
                                            const std::function<bool(std::string_view)>& wanted,
                                            std::uint64_t max_directory) {
    constexpr std::uint32_t central_signature = 0x02014b50;
    constexpr std::size_t central_size = 46;
    constexpr std::uint64_t saturated = 0xffffffff;
    if (census.central_directory_size > max_directory) return std::nullopt;
    std::ifstream in(file, std::ios::binary);
    std::string directory;
    if (!in || !read_at(in, census.central_directory_offset,
                        static_cast<std::size_t>(census.central_directory_size), directory)) {
        return std::nullopt;
    }
    for (std::size_t at = 0; directory.size() - at >= central_size;) {
        if (little_endian(directory, at, 4) != central_signature) return std::nullopt;
        const auto name_length = static_cast<std::size_t>(little_endian(directory, at + 28, 2));
        const auto extra_length = static_cast<std::size_t>(little_endian(directory, at + 30, 2));
        const std::size_t record = central_size + name_length + extra_length +
                                   static_cast<std::size_t>(little_endian(directory, at + 32, 2));
        if (directory.size() - at < record) return std::nullopt;
        const std::string_view name =
            std::string_view(directory).substr(at + central_size, name_length);
        if (wanted(name)) {
            ZipEntryPlace entry{std::string(name), little_endian(directory, at + 20, 4),
                                little_endian(directory, at + 42, 4)};
            // Zip64 extended information (id 1): the values saturated at 0xffffffff, in the
            // order uncompressed size, compressed size, local header offset.
            std::uint64_t uncompressed = little_endian(directory, at + 24, 4);
            const std::string extra =
                directory.substr(at + central_size + name_length, extra_length);
            for (std::size_t e = 0; extra.size() - e >= 4;) {
                const auto length = static_cast<std::size_t>(little_endian(extra, e + 2, 2));
                if (extra.size() - e - 4 < length) break;
                if (little_endian(extra, e, 2) == 1) {
                    std::size_t f = e + 4;
                    for (std::uint64_t* value :
                         {&uncompressed, &entry.compressed_size, &entry.local_header_offset}) {
                        if (*value != saturated) continue;
                        if (e + 4 + length - f < 8) return std::nullopt;
                        *value = little_endian(extra, f, 8);
                        f += 8;
                    }
                }
                e += 4 + length;
            }
            return entry;
        }
        at += record;
    }
    return std::nullopt;
}

std::optional<std::string> zip_entry_bytes(const std::filesystem::path& file,
                                           const ZipEntryPlace& entry) {
    constexpr std::uint32_t local_signature = 0x04034b50;
    constexpr std::size_t local_size = 30;
    constexpr std::uint64_t descriptor_bytes = 24;
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(file, ec);
    std::ifstream in(file, std::ios::binary);
    std::string header;
    if (ec || !in || entry.local_header_offset > size ||
        !read_at(in, entry.local_header_offset, local_size, header) ||
        little_endian(header, 0, 4) != local_signature) {
        return std::nullopt;
    }
    const std::uint64_t start = entry.local_header_offset;
    const std::uint64_t data =
        local_size + little_endian(header, 26, 2) + little_endian(header, 28, 2);
    if (entry.compressed_size > size || data > size - start ||
        entry.compressed_size > size - start - data) {
        return std::nullopt;
    }
    const std::uint64_t length =
        std::min(data + entry.compressed_size + descriptor_bytes, size - start);
    std::string bytes;
    if (!read_at(in, start, static_cast<std::size_t>(length), bytes)) return std::nullopt;
    return bytes;
}

}  // namespace aitk::archive::detail
