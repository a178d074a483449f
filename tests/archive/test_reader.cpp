#include "aitk/archive/reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "aitk/archive/error.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/fs/temp.hpp"

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using namespace aitk::archive;

namespace {

std::vector<WriteEntry> sample_entries() {
    return {
        WriteEntry::directory("pkg"),
        WriteEntry::file("pkg/__init__.py", "print('hi')\n"),
        WriteEntry::file("pkg/tool", "#!/bin/sh\necho tool\n", 0755),
        WriteEntry::symlink("pkg/alias", "tool"),
        WriteEntry::file("pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\n"),
    };
}

class ReaderPerFormat : public ::testing::TestWithParam<Format> {};

}  // namespace

TEST_P(ReaderPerFormat, ListsEveryEntryWithTypeSizeAndMode) {
    auto dir = aitk::fs::TempDir::create("archive-test");
    fs::path file = dir.path() / ("sample." + std::string(to_string(GetParam())));
    write_archive(file, GetParam(), sample_entries());
    auto entries = list_entries(file);
    ASSERT_EQ(entries.size(), 5u);
    // Sorted by path when written.
    EXPECT_EQ(entries[0].path, "pkg-1.0.dist-info/METADATA");
    EXPECT_EQ(entries[1].path, "pkg/");
    EXPECT_EQ(entries[1].type, EntryType::directory);
    EXPECT_EQ(entries[2].path, "pkg/__init__.py");
    EXPECT_EQ(entries[2].type, EntryType::file);
    ASSERT_TRUE(entries[2].size.has_value());
    EXPECT_EQ(*entries[2].size, 12u);
    EXPECT_EQ(entries[2].mode, 0644u);
    EXPECT_EQ(entries[3].path, "pkg/alias");
    EXPECT_EQ(entries[3].type, EntryType::symlink);
    EXPECT_EQ(entries[3].link_target, "tool");
    EXPECT_EQ(entries[4].path, "pkg/tool");
    EXPECT_EQ(entries[4].mode, 0755u);
    ASSERT_TRUE(entries[4].mtime.has_value());
    EXPECT_EQ(*entries[4].mtime, default_archive_mtime);
}

TEST_P(ReaderPerFormat, ReadsOneMemberFromFileAndMemory) {
    auto dir = aitk::fs::TempDir::create("archive-test");
    fs::path file = dir.path() / "sample.bin";
    write_archive(file, GetParam(), sample_entries());
    EXPECT_EQ(read_member(file, "pkg/tool").value_or("<none>"), "#!/bin/sh\necho tool\n");
    EXPECT_EQ(read_member(file, "./pkg//__init__.py").value_or("<none>"), "print('hi')\n");
    EXPECT_FALSE(read_member(file, "pkg/missing.py").has_value());
    EXPECT_FALSE(read_member(file, "pkg").has_value());  // a folder has no content

    std::string bytes = write_archive_to_memory(GetParam(), sample_entries());
    EXPECT_EQ(read_member(bytes, "https://host/sample", "pkg/tool").value_or("<none>"),
              "#!/bin/sh\necho tool\n");
    auto meta = read_wheel_metadata(bytes, "sample");
    EXPECT_EQ(meta.path, "pkg-1.0.dist-info/METADATA");
    EXPECT_EQ(meta.content, "Metadata-Version: 2.1\nName: pkg\n");
}

INSTANTIATE_TEST_SUITE_P(AllFormats, ReaderPerFormat,
                         ::testing::Values(Format::zip, Format::tar, Format::tar_gz,
                                           Format::tar_zst, Format::tar_xz),
                         [](const auto& info) {
                             std::string name(to_string(info.param));
                             for (char& c : name)
                                 if (c == '.') c = '_';
                             return name;
                         });

TEST(Reader, WalksEntriesAndTheirDataInBlocks) {
    std::string big(3 << 20, 'x');
    for (std::size_t i = 0; i < big.size(); i += 4096)
        big[i] = static_cast<char>('a' + i % 26);
    std::string bytes = write_archive_to_memory(
        Format::zip, {WriteEntry::file("a.txt", "A"), WriteEntry::file("big.bin", big)});
    Reader reader = Reader::open_memory(bytes, "mem.zip");
    EXPECT_EQ(reader.label(), "mem.zip");
    const Entry* e = reader.next();
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->path, "a.txt");  // its data is skipped by the next call
    e = reader.next();
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->path, "big.bin");
    std::string joined;
    std::string_view block;
    std::uint64_t offset = 0;
    while (reader.next_block(block, offset)) {
        EXPECT_EQ(offset, joined.size());
        joined.append(block);
    }
    EXPECT_EQ(joined, big);
    EXPECT_EQ(reader.next(), nullptr);
}

TEST(Reader, MemberPastTheLimitIsRefusedByName) {
    std::string bytes = write_archive_to_memory(
        Format::tar_gz, {WriteEntry::file("huge.bin", std::string(5000, 'z'))});
    try {
        (void)read_member(bytes, "x.tar.gz", "huge.bin", 4096);
        FAIL() << "expected an error";
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::too_large);
        EXPECT_EQ(e.member(), "huge.bin");
        EXPECT_EQ(e.archive(), "x.tar.gz");
        EXPECT_NE(std::string(e.what()).find("4096"), std::string::npos) << e.what();
    }
}

TEST(Reader, GarbageAndTruncatedArchivesAreUnreadableNotCrashes) {
    auto dir = aitk::fs::TempDir::create("archive-test");
    try {
        Reader::open(dir.path() / "missing.whl");
        FAIL() << "expected an error";
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::unreadable);
        EXPECT_NE(std::string(e.what()).find("missing.whl"), std::string::npos);
    }
    std::string garbage = "this is not an archive at all, just some text\n";
    EXPECT_THROW(
        {
            Reader r = Reader::open_memory(garbage, "garbage");
            while (r.next()) {
            }
        },
        ArchiveError);

    std::string good = write_archive_to_memory(Format::tar_gz,
                                               {WriteEntry::file("a.bin", std::string(200000, 'q')),
                                                WriteEntry::file("b.bin", std::string(1000, 'r'))});
    std::string truncated = good.substr(0, good.size() / 2);
    try {
        Reader r = Reader::open_memory(truncated, "cut.tar.gz");
        while (const Entry* e = r.next()) {
            (void)r.read_all(1 << 30);
            (void)e;
        }
        FAIL() << "a truncated archive read to the end";
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::unreadable);
        EXPECT_EQ(e.archive(), "cut.tar.gz");
    }
}

TEST(Reader, CorruptZipDataIsDetectedByItsChecksum) {
    std::string content(10000, 'k');
    std::string bytes = write_archive_to_memory(Format::zip, {[&] {
                                                    auto e = WriteEntry::file("k.txt", content);
                                                    e.store = true;
                                                    return e;
                                                }()});
    std::size_t at = bytes.find(content);
    ASSERT_NE(at, std::string::npos);
    bytes[at + 5000] = 'X';
    try {
        (void)read_member(bytes, "bad.whl", "k.txt");
        FAIL() << "expected a CRC error";
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::unreadable);
        EXPECT_EQ(e.member(), "k.txt");
    }
}

TEST(Reader, WheelMetadataMustBeUniqueAndPresent) {
    std::string none = write_archive_to_memory(Format::zip, {WriteEntry::file("x/METADATA", "")});
    try {
        (void)read_wheel_metadata(none, "none.whl");
        FAIL();
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::missing_member);
        EXPECT_NE(std::string(e.what()).find("none.whl"), std::string::npos);
    }
    std::string two = write_archive_to_memory(
        Format::zip, {WriteEntry::file("a-1.dist-info/METADATA", "Name: a\n"),
                      WriteEntry::file("b-1.dist-info/METADATA", "Name: b\n")});
    try {
        (void)read_wheel_metadata(two, "two.whl");
        FAIL();
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::duplicate);
        EXPECT_EQ(e.member(), "b-1.dist-info/METADATA");
    }
    // Deeper METADATA files (vendored packages) are not the wheel's own.
    std::string nested = write_archive_to_memory(
        Format::zip, {WriteEntry::file("a-1.dist-info/METADATA", "Name: a\n"),
                      WriteEntry::file("a/_vendor/b-1.dist-info/METADATA", "Name: b\n")});
    EXPECT_EQ(read_wheel_metadata(nested, "n.whl").content, "Name: a\n");
}

TEST(Reader, NonAsciiNamesRoundTripInZipAndTar) {
    const std::string name = "pkg/caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac.txt";
    for (Format f : {Format::zip, Format::tar_gz}) {
        std::string bytes = write_archive_to_memory(
            f, {WriteEntry::file(name, "utf8"), WriteEntry::symlink("link", "caf\xc3\xa9")});
        Reader r = Reader::open_memory(bytes, "names");
        const Entry* link = r.next();
        ASSERT_NE(link, nullptr);
        EXPECT_EQ(link->link_target, "caf\xc3\xa9") << to_string(f);
        const Entry* e = r.next();
        ASSERT_NE(e, nullptr);
        EXPECT_EQ(e->path, name) << to_string(f);
        EXPECT_EQ(r.read_all(100), "utf8");
    }
}

}  // namespace AITK_FILE_LOCAL
