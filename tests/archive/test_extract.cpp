#include "aitk/archive/extract.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "aitk/archive/error.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using namespace aitk::archive;

namespace {

std::size_t count_children(const fs::path& dir) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
        ++n;
    return n;
}

WriteEntry device(std::string path, EntryType type) {
    WriteEntry e;
    e.path = std::move(path);
    e.type = type;
    e.rdev = 0x0103;
    return e;
}

WriteOptions unsorted() {
    WriteOptions o;
    o.sort = false;
    return o;
}

}  // namespace

TEST(Extract, BuildsTheTreeWithModesLinksHashesAndTimes) {
    auto dir = aitk::fs::TempDir::create("extract-test");
    fs::path archive = dir.path() / "python.tar.zst";
    write_archive(archive, Format::tar_zst,
                  {WriteEntry::directory("python/bin"),
                   WriteEntry::file("python/bin/python3.12", "#!elf\n", 0755),
                   WriteEntry::symlink("python/bin/python3", "python3.12"),
                   WriteEntry::symlink("python/lib/libpython.so", "../bin/python3.12"),
                   WriteEntry::hardlink("python/bin/python3-hard", "python/bin/python3.12"),
                   WriteEntry::file("python/lib/os.py", "import sys\n")},
                  unsorted());
    ExtractOptions options;
    options.compute_sha256 = true;
    fs::path dest = dir.path() / "out" / "python-3.12";  // the parent is created as needed
    ExtractResult result = extract(archive, dest, options);

    EXPECT_EQ(aitk::fs::read_file(dest / "python/bin/python3.12"), "#!elf\n");
    EXPECT_EQ(aitk::fs::read_file(dest / "python/bin/python3"), "#!elf\n");  // via the link
    EXPECT_EQ(fs::read_symlink(dest / "python/bin/python3"), fs::path("python3.12"));
    EXPECT_EQ(aitk::fs::read_file(dest / "python/lib/libpython.so"), "#!elf\n");
    EXPECT_EQ(fs::hard_link_count(dest / "python/bin/python3.12"), 2u);
    EXPECT_EQ(aitk::fs::read_file(dest / "python/lib/os.py"), "import sys\n");

#ifndef _WIN32  // execute bits: POSIX only
    struct stat st {};
    ASSERT_EQ(::stat((dest / "python/bin/python3.12").c_str(), &st), 0);
    EXPECT_NE(st.st_mode & S_IXUSR, 0u);
    EXPECT_EQ(st.st_mtime, default_archive_mtime);
    ASSERT_EQ(::stat((dest / "python/lib/os.py").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & S_IXUSR, 0u);
#endif

    ASSERT_EQ(result.entries.size(), 6u);
    EXPECT_EQ(result.entries[0].path, "python/bin");
    EXPECT_EQ(result.entries[0].type, EntryType::directory);
    const ExtractedEntry& py = result.entries[1];
    EXPECT_EQ(py.type, EntryType::file);
    EXPECT_EQ(py.size, 6u);
    ASSERT_TRUE(py.sha256.has_value());
    EXPECT_EQ(aitk::fs::Sha256::finish_to_hex(*py.sha256), aitk::fs::sha256_hex("#!elf\n"));
    EXPECT_EQ(result.entries[2].type, EntryType::symlink);
    EXPECT_EQ(result.entries[2].link_target, "python3.12");
    EXPECT_EQ(result.entries[4].type, EntryType::hardlink);
    EXPECT_EQ(result.entries[4].link_target, "python/bin/python3.12");
    EXPECT_EQ(result.entries[4].sha256, py.sha256);
    EXPECT_EQ(result.total_bytes, 6u + 11u);
    EXPECT_EQ(count_children(dir.path() / "out"), 1u);  // no temporary left beside it
}

TEST(Extract, ZipWheelWithImpliedFolders) {
    auto dir = aitk::fs::TempDir::create("extract-test");
    fs::path wheel = dir.path() / "demo-1.0-py3-none-any.whl";
    write_archive(wheel, Format::zip,
                  {WriteEntry::file("demo/__init__.py", "x = 1\n"),
                   WriteEntry::file("demo/sub/deep/mod.py", ""),
                   WriteEntry::file("demo-1.0.dist-info/METADATA", "Name: demo\n")});
    ExtractOptions options;
    options.links = LinkPolicy::reject;
    auto result = extract(wheel, dir.path() / "unpacked", options);
    EXPECT_EQ(result.entries.size(), 3u);  // implied folders are created, not reported
    EXPECT_TRUE(fs::is_directory(dir.path() / "unpacked/demo/sub/deep"));
    EXPECT_EQ(aitk::fs::read_file(dir.path() / "unpacked/demo/sub/deep/mod.py"), "");
}

TEST(Extract, RefusesAnExistingDestinationAndLeavesItAlone) {
    auto dir = aitk::fs::TempDir::create("extract-test");
    std::string bytes = write_archive_to_memory(Format::zip, {WriteEntry::file("a", "new")});
    fs::create_directories(dir.path() / "dest");
    aitk::fs::write_file_atomic(dir.path() / "dest" / "a", "old");
    Reader reader = Reader::open_memory(bytes, "a.zip");
    try {
        extract(reader, dir.path() / "dest");
        FAIL() << "expected an error";
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::destination_exists);
        EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos);
    }
    EXPECT_EQ(aitk::fs::read_file(dir.path() / "dest" / "a"), "old");
    EXPECT_EQ(count_children(dir.path()), 1u);
}

// The hostile corpus: each archive is built here, and each must be refused with the right
// problem, naming the member, leaving nothing behind.
struct Hostile {
    std::string name;
    Format format;
    std::vector<WriteEntry> entries;
    Problem problem;
    std::string member;
    std::string says;
    ExtractOptions options = {};
    // A member of this many zero bytes, appended when the archive is written: the corpus is
    // made when the test binary starts, for every test in it, and gtest copies each parameter
    // several times (8 MiB held here made each start of test_archive take 0.2 s, 0.75 s under
    // Wine).
    std::string zeros_member = {};
    std::size_t zeros_bytes = 0;
};

class HostileArchive : public ::testing::TestWithParam<Hostile> {};

// Extracts the hostile archive with `options`: it must be refused as `h` says, leaving nothing.
void expect_refused(const Hostile& h, const ExtractOptions& options) {
    auto dir = aitk::fs::TempDir::create("extract-test");
    fs::path work = dir.path() / "work";
    fs::create_directories(work);
    fs::path archive = dir.path() / ("hostile." + std::string(to_string(h.format)));
    std::vector<WriteEntry> entries = h.entries;
    if (h.zeros_bytes > 0)
        entries.push_back(WriteEntry::file(h.zeros_member, std::string(h.zeros_bytes, '\0')));
    write_archive(archive, h.format, entries, unsorted());
    try {
        extract(archive, work / "dest", options);
        FAIL() << h.name << " was extracted";
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), h.problem) << e.what();
        EXPECT_EQ(e.member(), h.member) << e.what();
        EXPECT_EQ(e.archive(), archive.string());
        std::string what = e.what();
        EXPECT_NE(what.find(archive.string()), std::string::npos) << what;
        EXPECT_NE(what.find(h.says), std::string::npos) << what;
    }
    EXPECT_EQ(count_children(work), 0u) << "something was left behind";
    EXPECT_FALSE(fs::exists(dir.path() / "evil.txt"));
    EXPECT_FALSE(fs::exists(dir.path() / "outside"));
}

TEST_P(HostileArchive, IsRefusedAndLeavesNothing) {
    expect_refused(GetParam(), GetParam().options);
}

std::vector<Hostile> hostile_corpus() {
    std::vector<Hostile> c;
    c.push_back({"zip_slip",
                 Format::zip,
                 {WriteEntry::file("ok.txt", "fine"), WriteEntry::file("../../evil.txt", "x")},
                 Problem::unsafe_path,
                 "../../evil.txt",
                 "'..'"});
    c.push_back({"nested_slip",
                 Format::tar_gz,
                 {WriteEntry::file("pkg/../../../evil.txt", "x")},
                 Problem::unsafe_path,
                 "pkg/../../../evil.txt",
                 "'..'"});
    c.push_back({"absolute_tar",
                 Format::tar,
                 {WriteEntry::file("/tmp/evil.txt", "x")},
                 Problem::unsafe_path,
                 "/tmp/evil.txt",
                 "absolute"});
    c.push_back({"absolute_zip",
                 Format::zip,
                 {WriteEntry::file("/tmp/evil.txt", "x")},
                 Problem::unsafe_path,
                 "/tmp/evil.txt",
                 "absolute"});
    c.push_back({"drive_letter",
                 Format::zip,
                 {WriteEntry::file("C:/Windows/evil.dll", "x")},
                 Problem::unsafe_path,
                 "C:/Windows/evil.dll",
                 "drive letter"});
    // libarchive reads a zip's backslashes as separators, so the '..' is what gets caught.
    c.push_back({"backslash_slip_zip",
                 Format::zip,
                 {WriteEntry::file("..\\..\\evil.txt", "x")},
                 Problem::unsafe_path,
                 "../../evil.txt",
                 "'..'"});
    c.push_back({"backslash_name_tar",
                 Format::tar,
                 {WriteEntry::file("..\\..\\evil.txt", "x")},
                 Problem::unsafe_path,
                 "..\\..\\evil.txt",
                 "backslash"});
    c.push_back({"symlink_escape",
                 Format::tar,
                 {WriteEntry::symlink("pkg/outside", "../../outside")},
                 Problem::unsafe_link,
                 "pkg/outside",
                 "outside the destination"});
    c.push_back({"symlink_absolute",
                 Format::tar_zst,
                 {WriteEntry::symlink("etc", "/etc")},
                 Problem::unsafe_link,
                 "etc",
                 "absolute"});
    c.push_back({"symlink_then_write_through",
                 Format::tar,
                 {WriteEntry::symlink("d", "sub"), WriteEntry::file("d/x.txt", "x")},
                 Problem::unsafe_link,
                 "d/x.txt",
                 "inside symlink 'd'"});
    c.push_back({"symlink_chain_escape",
                 Format::tar,
                 {WriteEntry::directory("a"), WriteEntry::symlink("a/up", ".."),
                  WriteEntry::symlink("esc", "a/up/..")},
                 Problem::unsafe_link,
                 "esc",
                 "chain of links leads outside"});
    c.push_back({"symlink_chain_escape_ordered_late",
                 Format::tar,
                 {WriteEntry::symlink("esc", "b/s/.."), WriteEntry::directory("b"),
                  WriteEntry::symlink("b/s", "..")},
                 Problem::unsafe_link,
                 "esc",
                 "chain of links leads outside"});
    c.push_back({"symlink_case_trick",
                 Format::tar,
                 {WriteEntry::symlink("Lib", "sub"), WriteEntry::file("lib/x.txt", "x")},
                 Problem::unsafe_link,
                 "lib/x.txt",
                 "differs only in case"});
    c.push_back({"hardlink_escape",
                 Format::tar,
                 {WriteEntry::hardlink("passwd", "../../etc/passwd")},
                 Problem::unsafe_link,
                 "passwd",
                 "'..'"});
    c.push_back({"hardlink_to_nothing",
                 Format::tar,
                 {WriteEntry::hardlink("h", "not/in/archive")},
                 Problem::unsafe_link,
                 "h",
                 "not a file extracted earlier"});
    c.push_back({"character_device",
                 Format::tar,
                 {WriteEntry::file("ok", "ok"), device("dev/null", EntryType::character_device)},
                 Problem::special_file,
                 "dev/null",
                 "character device"});
    c.push_back({"block_device",
                 Format::tar,
                 {device("sda", EntryType::block_device)},
                 Problem::special_file,
                 "sda",
                 "block device"});
    c.push_back({"fifo",
                 Format::tar_gz,
                 {device("pipe", EntryType::fifo)},
                 Problem::special_file,
                 "pipe",
                 "FIFO"});
    c.push_back({"duplicate_file",
                 Format::zip,
                 {WriteEntry::file("pkg/a.py", "one"), WriteEntry::file("pkg/a.py", "two")},
                 Problem::duplicate,
                 "pkg/a.py",
                 "more than once"});
    c.push_back({"duplicate_after_normalising",
                 Format::zip,
                 {WriteEntry::file("pkg/a.py", "one"), WriteEntry::file("./pkg//a.py", "two")},
                 Problem::duplicate,
                 "./pkg//a.py",
                 "more than once"});
    c.push_back({"file_over_folder",
                 Format::tar,
                 {WriteEntry::file("pkg/a.py", "one"), WriteEntry::file("pkg", "two")},
                 Problem::duplicate,
                 "pkg",
                 "already has a folder"});
    c.push_back({"file_below_file",
                 Format::tar,
                 {WriteEntry::file("pkg", "one"), WriteEntry::file("pkg/a.py", "two")},
                 Problem::duplicate,
                 "pkg/a.py",
                 "which is a file"});
    c.push_back({"symlink_over_file",
                 Format::tar,
                 {WriteEntry::file("a", "one"), WriteEntry::symlink("a", "b")},
                 Problem::duplicate,
                 "a",
                 "more than once"});
    {
        Hostile bomb{"bomb_like_size",   Format::zip, {WriteEntry::file("small.txt", "ok")},
                     Problem::too_large, "zeros.bin", "zip bomb"};
        bomb.options.max_total_bytes = 1u << 20;
        bomb.zeros_member = "zeros.bin";
        bomb.zeros_bytes = 8u << 20;
        c.push_back(bomb);
    }
    {
        Hostile many{"too_many_entries",        Format::zip, {},
                     Problem::too_many_entries, "f10",       "limit of 10 entries"};
        for (int i = 0; i < 30; ++i)
            many.entries.push_back(WriteEntry::file("f" + std::to_string(i), ""));
        many.options.max_entries = 10;
        c.push_back(many);
    }
    {
        Hostile links{"links_not_allowed",
                      Format::tar,
                      {WriteEntry::file("a", "x"), WriteEntry::symlink("b", "a")},
                      Problem::unsafe_link,
                      "b",
                      "links are not allowed"};
        links.options.links = LinkPolicy::reject;
        c.push_back(links);
    }
    return c;
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostileArchive, ::testing::ValuesIn(hostile_corpus()),
                         [](const auto& info) { return info.param.name; });

TEST(Extract, SizeLimitCountsAcrossFiles) {
    auto dir = aitk::fs::TempDir::create("extract-test");
    std::string bytes =
        write_archive_to_memory(Format::tar_gz, {WriteEntry::file("a", std::string(600, 'a')),
                                                 WriteEntry::file("b", std::string(600, 'b'))});
    ExtractOptions options;
    options.max_total_bytes = 1000;
    Reader reader = Reader::open_memory(bytes, "two.tar.gz");
    try {
        extract(reader, dir.path() / "dest", options);
        FAIL();
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::too_large);
        EXPECT_EQ(e.member(), "b");
    }
    EXPECT_EQ(count_children(dir.path()), 0u);

    options.max_total_bytes = 1200;  // exactly enough
    Reader again = Reader::open_memory(bytes, "two.tar.gz");
    EXPECT_EQ(extract(again, dir.path() / "dest", options).total_bytes, 1200u);
}

TEST(Extract, LinksInsideTheDestinationAreKept) {
    auto dir = aitk::fs::TempDir::create("extract-test");
    std::string bytes = write_archive_to_memory(
        Format::tar,
        {WriteEntry::directory("a/b"), WriteEntry::file("a/b/real.txt", "data"),
         WriteEntry::symlink("a/up", "b/.."), WriteEntry::symlink("top", "a/b/real.txt"),
         WriteEntry::symlink("dangling", "a/not-yet"), WriteEntry::symlink("self-dir", ".")},
        unsorted());
    Reader reader = Reader::open_memory(bytes, "links.tar");
    extract(reader, dir.path() / "dest");
    EXPECT_EQ(aitk::fs::read_file(dir.path() / "dest/top"), "data");
    EXPECT_EQ(fs::read_symlink(dir.path() / "dest/dangling"), fs::path("a/not-yet"));
    EXPECT_TRUE(fs::is_symlink(dir.path() / "dest/self-dir"));
}

// Every hostile archive is refused the same way when its members are spread over threads: a
// share that fails hands the archive to one walk in archive order, which names the problem.
TEST_P(HostileArchive, IsRefusedTheSameWayWhenSpreadOverThreads) {
    ExtractOptions options = GetParam().options;
    options.threads = 3;
    expect_refused(GetParam(), options);
}

TEST(Extract, ThreadsGiveTheTreeAndResultOfOneWalk) {
    auto dir = aitk::fs::TempDir::create("extract-test");
    std::vector<WriteEntry> entries;
    for (int i = 0; i < 40; ++i) {
        const std::string folder = "pkg/sub" + std::to_string(i % 5) + "/";
        entries.push_back(
            WriteEntry::file(folder + "m" + std::to_string(i) + ".py",
                             std::string(static_cast<std::size_t>(i) * 97, 'a' + i % 26)));
    }
    entries.push_back(WriteEntry::directory("pkg/empty"));
    entries.push_back(WriteEntry::file("demo-1.0.dist-info/RECORD", ""));
    const fs::path wheel = dir.path() / "demo-1.0-py3-none-any.whl";
    write_archive(wheel, Format::zip, entries, unsorted());

    ExtractOptions one;
    one.links = LinkPolicy::reject;
    one.compute_sha256 = true;
    ExtractOptions three = one;
    three.threads = 3;
    const auto alone = extract(wheel, dir.path() / "alone", one);
    const auto shared = extract(wheel, dir.path() / "shared", three);

    ASSERT_EQ(shared.entries.size(), alone.entries.size());
    EXPECT_EQ(shared.total_bytes, alone.total_bytes);
    for (std::size_t i = 0; i < alone.entries.size(); ++i) {
        EXPECT_EQ(shared.entries[i].path, alone.entries[i].path);
        EXPECT_EQ(shared.entries[i].type, alone.entries[i].type);
        EXPECT_EQ(shared.entries[i].size, alone.entries[i].size);
        EXPECT_EQ(shared.entries[i].sha256, alone.entries[i].sha256);
        if (alone.entries[i].type == EntryType::file) {
            EXPECT_EQ(aitk::fs::read_file(dir.path() / "shared" / alone.entries[i].path),
                      aitk::fs::read_file(dir.path() / "alone" / alone.entries[i].path));
        }
    }
    EXPECT_TRUE(fs::is_directory(dir.path() / "shared/pkg/empty"));
    EXPECT_EQ(count_children(dir.path()), 3u);  // the wheel and the two trees, no staging
}

TEST(Extract, TheSizeLimitCountsAcrossThreads) {
    auto dir = aitk::fs::TempDir::create("extract-test");
    const fs::path wheel = dir.path() / "three.zip";
    write_archive(
        wheel, Format::zip,
        {WriteEntry::file("a", std::string(600, 'a')), WriteEntry::file("b", std::string(600, 'b')),
         WriteEntry::file("c", std::string(600, 'c'))},
        unsorted());
    ExtractOptions options;
    options.links = LinkPolicy::reject;
    options.threads = 3;  // each share alone stays under the limit
    options.max_total_bytes = 1000;
    try {
        extract(wheel, dir.path() / "dest", options);
        FAIL() << "extracted past the limit";
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::too_large);
        EXPECT_EQ(e.member(), "b");
    }
    EXPECT_FALSE(fs::exists(dir.path() / "dest"));
}

}  // namespace AITK_FILE_LOCAL
