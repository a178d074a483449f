// Per-member limits of extraction (ExtractOptions::member_limit: stopped at the cap, or made
// empty without reading the data), on one thread and spread over several; and reading one
// member through the central directory (read_zip_member_where), as unpack_wheel reads RECORD.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "aitk/archive/error.hpp"
#include "aitk/archive/extract.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/archive/zip_member.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"

namespace aitk::archive {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

stdfs::path make_zip(const stdfs::path& dir, std::vector<WriteEntry> entries,
                     const std::string& name = "a.zip") {
    WriteOptions options;
    options.sort = false;
    write_archive(dir / name, Format::zip, std::move(entries), options);
    return dir / name;
}

std::vector<WriteEntry> members() {
    std::vector<WriteEntry> entries;
    for (int i = 0; i < 8; ++i)
        entries.push_back(
            WriteEntry::file("m/" + std::to_string(i) + ".txt", std::string(100, 'a')));
    entries.push_back(WriteEntry::file("m/big.bin", std::string(1 << 20, '\0')));
    entries.push_back(WriteEntry::file("m/last.txt", "the end\n"));
    return entries;
}

class MemberLimits : public ::testing::TestWithParam<std::size_t> {
  protected:
    fs::TempDir dir = fs::TempDir::create("member-limits-test");
};

TEST_P(MemberLimits, AMemberPastItsCapIsStoppedAndNothingIsLeft) {
    const auto zip = make_zip(dir.path(), members());
    ExtractOptions options;
    options.links = LinkPolicy::reject;
    options.threads = GetParam();
    options.member_limit = [](const std::string& path) -> std::optional<MemberLimit> {
        if (path == "m/big.bin") return MemberLimit{65536};
        return std::nullopt;
    };
    options.member_limit_name = "the size RECORD gives for it";
    try {
        extract(zip, dir.path() / "out", options);
        ADD_FAILURE() << "extracted";
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::too_large);
        EXPECT_EQ(e.member(), "m/big.bin");
        EXPECT_EQ(e.detail(), "expands past 65536 bytes, the size RECORD gives for it");
    }
    EXPECT_FALSE(stdfs::exists(dir.path() / "out"));
    EXPECT_EQ(std::distance(stdfs::directory_iterator(dir.path()), stdfs::directory_iterator()), 1)
        << "a staging folder was left";
}

TEST_P(MemberLimits, AMemberAtItsCapAndASkippedOneAreExtracted) {
    const auto zip = make_zip(dir.path(), members());
    ExtractOptions options;
    options.links = LinkPolicy::reject;
    options.compute_sha256 = true;
    options.threads = GetParam();
    options.member_limit = [](const std::string& path) -> std::optional<MemberLimit> {
        if (path == "m/big.bin") return MemberLimit{0, true};
        if (path == "m/last.txt") return MemberLimit{8};
        return std::nullopt;
    };
    auto result = extract(zip, dir.path() / "out", options);
    EXPECT_EQ(stdfs::file_size(dir.path() / "out/m/big.bin"), 0u);
    EXPECT_EQ(fs::read_file(dir.path() / "out/m/last.txt"), "the end\n");
    ASSERT_EQ(result.entries.size(), 10u);
    EXPECT_EQ(result.entries[8].path, "m/big.bin");
    EXPECT_TRUE(result.entries[8].data_skipped);
    EXPECT_EQ(result.entries[8].size, 0u);
    EXPECT_FALSE(result.entries[9].data_skipped);
    EXPECT_EQ(result.total_bytes, 8u * 100 + 8);
}

INSTANTIATE_TEST_SUITE_P(Threads, MemberLimits, ::testing::Values(1, 3));

TEST(ZipMemberWhere, ReadsTheLastMemberThroughTheDirectory) {
    fs::TempDir dir = fs::TempDir::create("zip-member-test");
    auto entries = members();
    WriteEntry stored = WriteEntry::file("x.dist-info/RECORD", "a,sha256=b,1\n");
    stored.store = true;
    entries.push_back(stored);
    const auto zip = make_zip(dir.path(), std::move(entries));
    auto record = read_zip_member_where(
        zip, [](std::string_view name) { return name.ends_with(".dist-info/RECORD"); });
    ASSERT_TRUE(record);
    EXPECT_EQ(record->path, "x.dist-info/RECORD");
    EXPECT_EQ(record->content, "a,sha256=b,1\n");
    auto big =
        read_zip_member_where(zip, [](std::string_view name) { return name == "m/big.bin"; });
    ASSERT_TRUE(big);
    EXPECT_EQ(big->content, std::string(1 << 20, '\0'));
    EXPECT_FALSE(read_zip_member_where(zip, [](std::string_view) { return false; }));
    try {
        read_zip_member_where(
            zip, [](std::string_view name) { return name == "m/big.bin"; }, 1000);
        ADD_FAILURE() << "read past the limit";
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::too_large);
    }
    fs::write_file_atomic(dir.path() / "not.zip", "just text\n");
    EXPECT_FALSE(
        read_zip_member_where(dir.path() / "not.zip", [](std::string_view) { return true; }));
}

TEST(ZipMemberWhere, RefusesDataThatIsNotWhatTheDirectorySays) {
    fs::TempDir dir = fs::TempDir::create("zip-member-test");
    const auto zip = make_zip(dir.path(), {WriteEntry::file("r.txt", std::string(5000, 'r'))});
    std::string bytes = fs::read_file(zip);
    // Damage the compressed data, after the local header (30 bytes, the name, the extra field).
    auto u16 = [&](std::size_t at) {
        return static_cast<std::size_t>(static_cast<unsigned char>(bytes[at]) |
                                        (static_cast<unsigned char>(bytes[at + 1]) << 8));
    };
    const std::size_t data = 30 + u16(26) + u16(28);
    bytes[data + 2] = static_cast<char>(bytes[data + 2] ^ 0x5a);
    fs::write_file_atomic(zip, bytes);
    EXPECT_THROW(read_zip_member_where(zip, [](std::string_view name) { return name == "r.txt"; }),
                 ArchiveError);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::archive
