#include "aitk/index/zip_directory.hpp"

#include <algorithm>
#include <optional>

namespace aitk::index {

namespace {

constexpr std::uint32_t end_signature = 0x06054b50;
constexpr std::uint32_t zip64_locator_signature = 0x07064b50;
constexpr std::uint32_t zip64_end_signature = 0x06064b50;
constexpr std::uint32_t central_signature = 0x02014b50;
constexpr std::uint32_t local_signature = 0x04034b50;
constexpr std::size_t end_size = 22;
constexpr std::size_t locator_size = 20;
constexpr std::size_t zip64_end_size = 56;
constexpr std::size_t central_size = 46;
constexpr std::size_t local_size = 30;

std::uint16_t u16(std::string_view b, std::size_t at) noexcept {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(b[at]) |
                                      (static_cast<unsigned char>(b[at + 1]) << 8));
}
std::uint32_t u32(std::string_view b, std::size_t at) noexcept {
    return static_cast<std::uint32_t>(u16(b, at)) |
           (static_cast<std::uint32_t>(u16(b, at + 2)) << 16);
}
std::uint64_t u64(std::string_view b, std::size_t at) noexcept {
    return static_cast<std::uint64_t>(u32(b, at)) |
           (static_cast<std::uint64_t>(u32(b, at + 4)) << 32);
}

void put16(std::string& out, std::uint16_t v) {
    out += static_cast<char>(v & 0xFF);
    out += static_cast<char>(v >> 8);
}
void put32(std::string& out, std::uint32_t v) {
    put16(out, static_cast<std::uint16_t>(v & 0xFFFF));
    put16(out, static_cast<std::uint16_t>(v >> 16));
}

util::Unexpected<std::string> fail(std::string message) {
    return util::Unexpected<std::string>(std::move(message));
}

// The position in `bytes` of the last end record whose comment ends within the bytes.
std::optional<std::size_t> find_end_record(std::string_view bytes) {
    if (bytes.size() < end_size) return std::nullopt;
    const std::size_t lowest =
        bytes.size() > end_size + 0xFFFF ? bytes.size() - end_size - 0xFFFF : 0;
    for (std::size_t at = bytes.size() - end_size + 1; at-- > lowest;) {
        if (u32(bytes, at) != end_signature) continue;
        if (at + end_size + u16(bytes, at + 20) <= bytes.size()) return at;
    }
    return std::nullopt;
}

bool is_wheel_metadata(std::string_view path) noexcept {
    constexpr std::string_view suffix = ".dist-info/METADATA";
    if (path.size() <= suffix.size() || !path.ends_with(suffix)) return false;
    const std::size_t dir_end = path.size() - std::string_view("/METADATA").size();
    return path.find('/') == dir_end && path.find('\\') == std::string_view::npos;
}

}  // namespace

util::Expected<DirectoryLocation, std::string> locate_central_directory(const ZipTail& tail) {
    const std::string_view bytes = tail.bytes;
    if (tail.offset > tail.file_size || bytes.size() != tail.file_size - tail.offset) {
        return fail("the tail bytes do not end at the end of the file");
    }
    const auto found = find_end_record(bytes);
    if (!found) {
        const std::uint64_t wanted_from =
            tail.file_size > max_end_record_bytes ? tail.file_size - max_end_record_bytes : 0;
        if (tail.offset > wanted_from) {
            return DirectoryLocation(ByteSpan{wanted_from, tail.offset - wanted_from});
        }
        return fail("no end of central directory record: not a zip file");
    }
    const std::size_t at = *found;
    const std::uint64_t end_position = tail.offset + at;
    CentralDirectory directory;
    directory.entries = u16(bytes, at + 10);
    directory.size = u32(bytes, at + 12);
    directory.offset = u32(bytes, at + 16);
    if (u16(bytes, at + 4) != 0 || u16(bytes, at + 6) != 0) {
        return fail("the zip is split over several disks");
    }
    const bool maybe_zip64 = directory.entries == 0xFFFF || directory.size == 0xFFFFFFFF ||
                             directory.offset == 0xFFFFFFFF;
    std::uint64_t directory_limit = end_position;  // the directory ends before this

    if (end_position >= locator_size) {
        const std::uint64_t locator = end_position - locator_size;
        if (locator < tail.offset) {
            // The locator (if any) is outside the tail. Only a zip64 archive needs it.
            if (maybe_zip64) return DirectoryLocation(ByteSpan{locator, tail.offset - locator});
        } else if (u32(bytes, static_cast<std::size_t>(locator - tail.offset)) ==
                   zip64_locator_signature) {
            const std::size_t l = static_cast<std::size_t>(locator - tail.offset);
            const std::uint64_t record = u64(bytes, l + 8);
            if (record > locator || locator - record < zip64_end_size) {
                return fail("the zip64 end record lies outside the file");
            }
            if (record < tail.offset) {
                return DirectoryLocation(ByteSpan{record, tail.offset - record});
            }
            const std::size_t r = static_cast<std::size_t>(record - tail.offset);
            if (u32(bytes, r) != zip64_end_signature) {
                return fail("the zip64 end of central directory record is damaged");
            }
            directory.entries = u64(bytes, r + 32);
            directory.size = u64(bytes, r + 40);
            directory.offset = u64(bytes, r + 48);
            directory.zip64 = true;
            directory_limit = record;
        }
    }
    if (maybe_zip64 && !directory.zip64) {
        return fail("the end record points to zip64 data, but there is no zip64 locator");
    }
    if (directory.offset > directory_limit || directory.size > directory_limit - directory.offset) {
        return fail("the central directory (offset " + std::to_string(directory.offset) +
                    ", size " + std::to_string(directory.size) + ") lies outside the file");
    }
    if (directory.entries > directory.size / central_size) {
        return fail("the end record counts " + std::to_string(directory.entries) +
                    " entries, more than a " + std::to_string(directory.size) +
                    "-byte central directory can hold");
    }
    return DirectoryLocation(directory);
}

util::Expected<std::vector<ZipMember>, std::string> find_metadata_members(
    std::string_view directory, std::uint64_t entries) {
    std::vector<ZipMember> found;
    std::size_t at = 0;
    for (std::uint64_t i = 0; i < entries; ++i) {
        if (directory.size() - at < central_size || u32(directory, at) != central_signature) {
            return fail("central directory entry " + std::to_string(i) + " is damaged");
        }
        const std::size_t name_length = u16(directory, at + 28);
        const std::size_t extra_length = u16(directory, at + 30);
        const std::size_t comment_length = u16(directory, at + 32);
        const std::size_t record = central_size + name_length + extra_length + comment_length;
        if (directory.size() - at < record) {
            return fail("central directory entry " + std::to_string(i) + " is cut short");
        }
        const std::string_view name = directory.substr(at + central_size, name_length);
        if (is_wheel_metadata(name)) {
            ZipMember member;
            member.name = std::string(name);
            member.flags = u16(directory, at + 8);
            member.method = u16(directory, at + 10);
            member.crc32 = u32(directory, at + 16);
            member.compressed_size = u32(directory, at + 20);
            member.uncompressed_size = u32(directory, at + 24);
            member.local_header_offset = u32(directory, at + 42);
            // Zip64 extended information: present values replace those saturated at 0xFFFFFFFF,
            // in the order uncompressed, compressed, offset.
            const std::string_view extra =
                directory.substr(at + central_size + name_length, extra_length);
            std::size_t e = 0;
            while (extra.size() - e >= 4) {
                const std::uint16_t id = u16(extra, e);
                const std::size_t length = u16(extra, e + 2);
                if (extra.size() - e - 4 < length) break;
                if (id == 0x0001) {
                    const std::string_view field = extra.substr(e + 4, length);
                    std::size_t f = 0;
                    for (std::uint64_t* value : {&member.uncompressed_size, &member.compressed_size,
                                                 &member.local_header_offset}) {
                        if (*value != 0xFFFFFFFF) continue;
                        if (field.size() - f < 8) {
                            return fail("the zip64 field of '" + member.name + "' is cut short");
                        }
                        *value = u64(field, f);
                        f += 8;
                    }
                }
                e += 4 + length;
            }
            found.push_back(std::move(member));
        }
        at += record;
    }
    return found;
}

util::Expected<std::uint64_t, std::string> local_header_length(std::string_view header) {
    if (header.size() < local_size) return fail("the local file header is cut short");
    if (u32(header, 0) != local_signature) {
        return fail("no local file header where the central directory points");
    }
    return static_cast<std::uint64_t>(local_size) + u16(header, 26) + u16(header, 28);
}

std::string single_member_zip(const ZipMember& member, std::string_view compressed) {
    const auto flags = static_cast<std::uint16_t>(member.flags & ~0x0008u);
    const auto name_length =
        static_cast<std::uint16_t>(std::min<std::size_t>(member.name.size(), 0xFFFF));
    const std::string_view name = std::string_view(member.name).substr(0, name_length);
    const auto csize = static_cast<std::uint32_t>(compressed.size());
    const auto usize = static_cast<std::uint32_t>(member.uncompressed_size);
    std::string out;
    out.reserve(compressed.size() + 2 * name.size() + 128);
    put32(out, local_signature);
    put16(out, 20);  // version needed: 2.0 (deflate)
    put16(out, flags);
    put16(out, member.method);
    put16(out, 0);     // time
    put16(out, 0x21);  // date: 1980-01-01
    put32(out, member.crc32);
    put32(out, csize);
    put32(out, usize);
    put16(out, name_length);
    put16(out, 0);
    out.append(name);
    out.append(compressed);
    const auto directory_offset = static_cast<std::uint32_t>(out.size());
    put32(out, central_signature);
    put16(out, 20);
    put16(out, 20);
    put16(out, flags);
    put16(out, member.method);
    put16(out, 0);
    put16(out, 0x21);
    put32(out, member.crc32);
    put32(out, csize);
    put32(out, usize);
    put16(out, name_length);
    put16(out, 0);  // extra
    put16(out, 0);  // comment
    put16(out, 0);  // disk
    put16(out, 0);  // internal attributes
    put32(out, 0);  // external attributes
    put32(out, 0);  // local header offset
    out.append(name);
    const auto directory_size = static_cast<std::uint32_t>(out.size() - directory_offset);
    put32(out, end_signature);
    put16(out, 0);
    put16(out, 0);
    put16(out, 1);
    put16(out, 1);
    put32(out, directory_size);
    put32(out, directory_offset);
    put16(out, 0);
    return out;
}

}  // namespace aitk::index
