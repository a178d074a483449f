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
        ZipCensus census{little_endian(tail, at + 10, 2), little_endian(tail, at + 16, 4)};
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
        return ZipCensus{little_endian(record, 32, 8), little_endian(record, 48, 8)};
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

}  // namespace aitk::archive::detail
