// Finding METADATA in a zip from its tail: real zips from the archive layer, a hand-made zip64
// archive, long comments, and damaged directories.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aitk/archive/reader.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/index/zip_directory.hpp"
#include "wheel_builder.hpp"

namespace AITK_FILE_LOCAL {

using namespace aitk;
using namespace aitk::index;
using ::testing::HasSubstr;

namespace {

const std::string metadata_text =
    "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: numpy>=1.24\n\n" +
    std::string(3000, 'd') + "\n";

std::string demo_wheel(std::string comment = {}) {
    std::vector<archive::WriteEntry> entries = {
        archive::WriteEntry::file("demo/__init__.py", "x = 1\n"),
        archive::WriteEntry::file("demo/data.bin", test::pseudo_random_bytes(50'000, 1)),
        archive::WriteEntry::file("demo-1.0.dist-info/METADATA", metadata_text),
        archive::WriteEntry::file("demo-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n"),
        archive::WriteEntry::file("demo-1.0.dist-info/RECORD", ""),
        archive::WriteEntry::file("other/nested.dist-info/METADATA", "not top level"),
    };
    std::string zip = archive::write_archive_to_memory(archive::Format::zip, std::move(entries));
    if (!comment.empty()) {
        // Patch the end record's comment length and append the comment.
        const auto at = zip.size() - 22;
        zip[at + 20] = static_cast<char>(comment.size() & 0xFF);
        zip[at + 21] = static_cast<char>(comment.size() >> 8);
        zip += comment;
    }
    return zip;
}

ZipTail tail_of(const std::string& file, std::size_t bytes) {
    const std::size_t n = std::min(bytes, file.size());
    return ZipTail{file.size() - n, std::string_view(file).substr(file.size() - n), file.size()};
}

// Reads METADATA of `zip` the way the fetcher does, from a tail of `tail_bytes`.
std::string metadata_via_directory(const std::string& zip, std::size_t tail_bytes) {
    ZipTail tail = tail_of(zip, tail_bytes);
    auto location = locate_central_directory(tail);
    while (location && std::holds_alternative<ByteSpan>(*location)) {
        const auto span = std::get<ByteSpan>(*location);
        tail = tail_of(zip, zip.size() - span.offset);
        location = locate_central_directory(tail);
    }
    EXPECT_TRUE(location) << location.error();
    if (!location) return {};
    const auto dir = std::get<CentralDirectory>(*location);
    const auto members =
        find_metadata_members(std::string_view(zip).substr(dir.offset, dir.size), dir.entries);
    EXPECT_TRUE(members) << members.error();
    if (!members || members->size() != 1) return {};
    const ZipMember& m = members->front();
    const auto header = local_header_length(std::string_view(zip).substr(m.local_header_offset));
    EXPECT_TRUE(header);
    const auto compressed =
        std::string_view(zip).substr(m.local_header_offset + *header, m.compressed_size);
    const std::string small = single_member_zip(m, compressed);
    return archive::read_member(small, "mini", m.name).value_or("");
}

TEST(ZipDirectory, FindsMetadataOfARealZip) {
    const std::string zip = demo_wheel();
    const auto location = locate_central_directory(tail_of(zip, 64 * 1024));
    ASSERT_TRUE(location) << location.error();
    const auto& dir = std::get<CentralDirectory>(*location);
    EXPECT_EQ(dir.entries, 6u);
    EXPECT_FALSE(dir.zip64);
    const auto members =
        find_metadata_members(std::string_view(zip).substr(dir.offset, dir.size), dir.entries);
    ASSERT_TRUE(members) << members.error();
    ASSERT_EQ(members->size(), 1u);  // "other/nested.dist-info/METADATA" is not top level
    EXPECT_EQ(members->front().name, "demo-1.0.dist-info/METADATA");
    EXPECT_EQ(members->front().uncompressed_size, metadata_text.size());
    EXPECT_EQ(metadata_via_directory(zip, 64 * 1024), metadata_text);
}

TEST(ZipDirectory, ASmallTailAsksForTheMissingBytes) {
    const std::string zip = demo_wheel();
    // 30 bytes hold the end record but not the directory: locate still says where it is.
    const auto location = locate_central_directory(tail_of(zip, 30));
    ASSERT_TRUE(location);
    ASSERT_TRUE(std::holds_alternative<CentralDirectory>(*location));
    EXPECT_LT(std::get<CentralDirectory>(*location).offset, zip.size() - 30);
    // 10 bytes do not hold the end record: ask for the bytes before the tail.
    const auto more = locate_central_directory(tail_of(zip, 10));
    ASSERT_TRUE(more);
    ASSERT_TRUE(std::holds_alternative<ByteSpan>(*more));
    EXPECT_EQ(std::get<ByteSpan>(*more), (ByteSpan{0, zip.size() - 10}));
    EXPECT_EQ(metadata_via_directory(zip, 10), metadata_text);
}

TEST(ZipDirectory, LongArchiveComments) {
    const std::string zip = demo_wheel(std::string(60'000, 'c'));
    const auto more = locate_central_directory(tail_of(zip, 1024));
    ASSERT_TRUE(more);
    ASSERT_TRUE(std::holds_alternative<ByteSpan>(*more));
    EXPECT_EQ(metadata_via_directory(zip, 1024), metadata_text);
}

// A zip64 archive written by hand: one stored METADATA member whose sizes and offset live in
// the zip64 extra field, a zip64 end record and its locator, and an end record full of 0xFF.
std::string zip64_archive(std::size_t prefix_bytes) {
    auto put16 = [](std::string& s, std::uint16_t v) {
        s += static_cast<char>(v & 0xFF);
        s += static_cast<char>(v >> 8);
    };
    auto put32 = [&](std::string& s, std::uint32_t v) {
        put16(s, static_cast<std::uint16_t>(v));
        put16(s, static_cast<std::uint16_t>(v >> 16));
    };
    auto put64 = [&](std::string& s, std::uint64_t v) {
        put32(s, static_cast<std::uint32_t>(v));
        put32(s, static_cast<std::uint32_t>(v >> 32));
    };
    const std::string name = "demo-1.0.dist-info/METADATA";
    // CRC-32 of metadata_text, computed bitwise.
    std::uint32_t crc = 0xFFFFFFFF;
    for (unsigned char c : metadata_text) {
        crc ^= c;
        for (int k = 0; k < 8; ++k)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    crc ^= 0xFFFFFFFF;
    std::string z(prefix_bytes, '\0');  // stands in for other members
    const std::uint64_t local_offset = z.size();
    put32(z, 0x04034b50);
    put16(z, 45);
    put16(z, 0);
    put16(z, 0);  // stored
    put16(z, 0);
    put16(z, 0x21);
    put32(z, crc);
    put32(z, 0xFFFFFFFF);
    put32(z, 0xFFFFFFFF);
    put16(z, static_cast<std::uint16_t>(name.size()));
    put16(z, 20);
    z += name;
    put16(z, 0x0001);
    put16(z, 16);
    put64(z, metadata_text.size());
    put64(z, metadata_text.size());
    z += metadata_text;
    const std::uint64_t directory_offset = z.size();
    put32(z, 0x02014b50);
    put16(z, 45);
    put16(z, 45);
    put16(z, 0);
    put16(z, 0);
    put16(z, 0);
    put16(z, 0x21);
    put32(z, crc);
    put32(z, 0xFFFFFFFF);
    put32(z, 0xFFFFFFFF);
    put16(z, static_cast<std::uint16_t>(name.size()));
    put16(z, 28);
    put16(z, 0);
    put16(z, 0);
    put16(z, 0);
    put32(z, 0);
    put32(z, 0xFFFFFFFF);
    z += name;
    put16(z, 0x0001);
    put16(z, 24);
    put64(z, metadata_text.size());
    put64(z, metadata_text.size());
    put64(z, local_offset);
    const std::uint64_t directory_size = z.size() - directory_offset;
    const std::uint64_t record = z.size();
    put32(z, 0x06064b50);
    put64(z, 44);
    put16(z, 45);
    put16(z, 45);
    put32(z, 0);
    put32(z, 0);
    put64(z, 1);
    put64(z, 1);
    put64(z, directory_size);
    put64(z, directory_offset);
    put32(z, 0x07064b50);
    put32(z, 0);
    put64(z, record);
    put32(z, 1);
    put32(z, 0x06054b50);
    put16(z, 0);
    put16(z, 0);
    put16(z, 0xFFFF);
    put16(z, 0xFFFF);
    put32(z, 0xFFFFFFFF);
    put32(z, 0xFFFFFFFF);
    put16(z, 0);
    return z;
}

TEST(ZipDirectory, Zip64Archives) {
    const std::string zip = zip64_archive(100'000);
    // The archive layer (libarchive) agrees that this is a valid zip.
    EXPECT_EQ(archive::read_member(zip, "zip64", "demo-1.0.dist-info/METADATA"), metadata_text);

    const auto location = locate_central_directory(tail_of(zip, 4096));
    ASSERT_TRUE(location) << location.error();
    const auto& dir = std::get<CentralDirectory>(*location);
    EXPECT_TRUE(dir.zip64);
    EXPECT_EQ(dir.entries, 1u);
    const auto members =
        find_metadata_members(std::string_view(zip).substr(dir.offset, dir.size), dir.entries);
    ASSERT_TRUE(members) << members.error();
    EXPECT_EQ(members->front().local_header_offset, 100'000u);
    EXPECT_EQ(members->front().compressed_size, metadata_text.size());
    EXPECT_EQ(metadata_via_directory(zip, 4096), metadata_text);

    // The end record alone: the locator is before the tail, so ask for it.
    const auto more = locate_central_directory(tail_of(zip, 22));
    ASSERT_TRUE(more);
    ASSERT_TRUE(std::holds_alternative<ByteSpan>(*more));
    EXPECT_EQ(std::get<ByteSpan>(*more), (ByteSpan{zip.size() - 42, 20}));
    // Locator but not the zip64 record.
    const auto record = locate_central_directory(tail_of(zip, 42));
    ASSERT_TRUE(record);
    EXPECT_EQ(std::get<ByteSpan>(*record), (ByteSpan{zip.size() - 98, 56}));
    EXPECT_EQ(metadata_via_directory(zip, 22), metadata_text);
}

TEST(ZipDirectory, DamagedArchivesGiveClearErrors) {
    const std::string zip = demo_wheel();
    auto error_of = [](const util::Expected<DirectoryLocation, std::string>& r) {
        return r ? std::string() : r.error();
    };
    EXPECT_EQ(error_of(locate_central_directory(tail_of(std::string(5000, 'x'), 5000))),
              "no end of central directory record: not a zip file");
    EXPECT_EQ(error_of(locate_central_directory(ZipTail{0, "abc", 10})),
              "the tail bytes do not end at the end of the file");

    std::string bad_offset = zip;
    bad_offset[bad_offset.size() - 22 + 16] = '\xFF';
    bad_offset[bad_offset.size() - 22 + 17] = '\xFF';
    EXPECT_THAT(error_of(locate_central_directory(tail_of(bad_offset, 100'000))),
                HasSubstr("lies outside the file"));

    std::string bad_count = zip;
    bad_count[bad_count.size() - 22 + 10] = '\xFF';
    bad_count[bad_count.size() - 22 + 11] = '\x7F';
    EXPECT_THAT(error_of(locate_central_directory(tail_of(bad_count, 100'000))),
                HasSubstr("more than a"));

    const auto dir = std::get<CentralDirectory>(*locate_central_directory(tail_of(zip, 100'000)));
    const std::string directory = zip.substr(dir.offset, dir.size);
    std::string broken = directory;
    const auto second = broken.find("PK\x01\x02", 4);
    broken[second] = 'Q';
    auto members = find_metadata_members(broken, dir.entries);
    ASSERT_FALSE(members);
    EXPECT_EQ(members.error(), "central directory entry 1 is damaged");
    members = find_metadata_members(directory.substr(0, 60), dir.entries);
    ASSERT_FALSE(members);
    EXPECT_EQ(members.error(), "central directory entry 0 is cut short");

    EXPECT_FALSE(local_header_length("PK\x03\x04"));
    EXPECT_EQ(local_header_length(std::string(30, 'x')).error(),
              "no local file header where the central directory points");
}

TEST(ZipDirectory, EveryTailOfARealWheelIsSafe) {
    // Any suffix of a wheel, any claimed size: an answer or an error, never a crash.
    const std::string zip = demo_wheel("comment");
    for (std::size_t n = 0; n <= zip.size(); n += 7) {
        const auto r = locate_central_directory(tail_of(zip, n));
        if (r && std::holds_alternative<CentralDirectory>(*r)) {
            const auto& dir = std::get<CentralDirectory>(*r);
            EXPECT_LE(dir.offset + dir.size, zip.size());
        }
    }
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
