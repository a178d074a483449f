#include "aitk/archive/writer.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/archive/error.hpp"
#include "aitk/archive/extract.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using namespace aitk::archive;

namespace {

std::vector<WriteEntry> entries_in_order(bool reversed) {
    std::vector<WriteEntry> e = {
        WriteEntry::file("b/two.txt", "two\n"),
        WriteEntry::file("a/one.txt", "one\n", 0755),
        WriteEntry::directory("a"),
        WriteEntry::symlink("c", "a/one.txt"),
    };
    if (reversed) std::reverse(e.begin(), e.end());
    return e;
}

int run_python(const std::string& script) {
    auto dir = aitk::fs::TempDir::create("py");
    aitk::fs::write_file_atomic(dir.path() / "check.py", script);
    return std::system(("python3 " + (dir.path() / "check.py").string()).c_str());
}

}  // namespace

TEST(Writer, SameEntriesGiveTheSameBytesInEveryFormat) {
    for (Format f : {Format::zip, Format::tar, Format::tar_gz, Format::tar_zst, Format::tar_xz}) {
        std::string first = write_archive_to_memory(f, entries_in_order(false));
        std::string second = write_archive_to_memory(f, entries_in_order(true));
        EXPECT_EQ(first, second) << to_string(f);
        EXPECT_FALSE(first.empty());
    }
}

TEST(Writer, GzipHeaderCarriesNoTimestamp) {
    std::string gz = write_archive_to_memory(Format::tar_gz, entries_in_order(false));
    ASSERT_GE(gz.size(), 10u);
    EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
    EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
    EXPECT_EQ(gz.substr(4, 4), std::string(4, '\0'));
}

TEST(Writer, UnsortedKeepsTheCallersOrder) {
    WriteOptions options;
    options.sort = false;
    std::string zip = write_archive_to_memory(
        Format::zip,
        {WriteEntry::file("z.txt", "z"), WriteEntry::file("pkg-1.dist-info/RECORD", "")}, options);
    Reader r = Reader::open_memory(zip, "z");
    EXPECT_EQ(r.next()->path, "z.txt");
    EXPECT_EQ(r.next()->path, "pkg-1.dist-info/RECORD");
}

TEST(Writer, PythonReadsOurZipAndTarFiles) {
    auto dir = aitk::fs::TempDir::create("writer-test");
    std::string big(300000, '\0');
    for (std::size_t i = 0; i < big.size(); ++i)
        big[i] = static_cast<char>((i * 2654435761u) >> 13);
    auto stored = WriteEntry::file("pkg/stored.bin", big);
    stored.store = true;
    std::vector<WriteEntry> entries = {WriteEntry::file("pkg/__init__.py", "VALUE = 42\n"),
                                       WriteEntry::file("pkg/big.bin", big), stored,
                                       WriteEntry::file("pkg/caf\xc3\xa9.txt", "accent\n")};
    write_archive(dir.path() / "t.zip", Format::zip, entries);
    write_archive(dir.path() / "t.tar.gz", Format::tar_gz, entries);
    write_archive(dir.path() / "t.tar.xz", Format::tar_xz, entries);
    std::string d = dir.path().string();
    std::string script =
        "import zipfile, tarfile, sys\n"
        "z = zipfile.ZipFile('" +
        d +
        "/t.zip')\n"
        "assert z.testzip() is None\n"
        "names = sorted(z.namelist())\n"
        "assert names == ['pkg/__init__.py', 'pkg/big.bin', 'pkg/caf\\u00e9.txt', "
        "'pkg/stored.bin'], names\n"
        "assert z.read('pkg/__init__.py') == b'VALUE = 42\\n'\n"
        "assert z.read('pkg/big.bin') == z.read('pkg/stored.bin')\n"
        "assert len(z.read('pkg/big.bin')) == 300000\n"
        "for ext in ('gz', 'xz'):\n"
        "    t = tarfile.open('" +
        d +
        "/t.tar.' + ext)\n"
        "    m = t.getmember('pkg/__init__.py')\n"
        "    assert m.mode == 0o644 and m.uid == 0 and m.mtime == 315619200, m\n"
        "    assert t.extractfile(m).read() == b'VALUE = 42\\n'\n"
        "    assert len(t.extractfile('pkg/big.bin').read()) == 300000\n"
        "    u = t.getmember('pkg/caf\\u00e9.txt')\n"
        "    assert u.pax_headers.get('hdrcharset') != 'BINARY', u.pax_headers\n";
    EXPECT_EQ(run_python(script), 0);
}

TEST(Writer, DirectoryRoundTripKeepsFilesModesAndLinks) {
    auto dir = aitk::fs::TempDir::create("writer-test");
    fs::path src = dir.path() / "src";
    fs::create_directories(src / "bin");
    fs::create_directories(src / "empty");
    aitk::fs::write_file_atomic(src / "bin" / "tool", "#!/bin/sh\n");
    fs::permissions(src / "bin" / "tool", fs::perms::owner_all | fs::perms::group_read);
    std::string large(5u << 20, 'L');
    aitk::fs::write_file_atomic(src / "large.bin", large);
    fs::create_symlink("bin/tool", src / "tool-link");

    fs::path out = dir.path() / "bundle.tar.zst";
    write_directory_archive(out, Format::tar_zst, src, "bundle-1/");
    extract(out, dir.path() / "back");
    fs::path back = dir.path() / "back" / "bundle-1";
    EXPECT_EQ(aitk::fs::read_file(back / "bin" / "tool"), "#!/bin/sh\n");
    EXPECT_EQ(aitk::fs::read_file(back / "large.bin"), large);
    EXPECT_EQ(fs::read_symlink(back / "tool-link"), fs::path("bin/tool"));
    EXPECT_TRUE(fs::is_directory(back / "empty"));
#ifndef _WIN32  // execute bits: POSIX only
    struct stat st {};
    ASSERT_EQ(::stat((back / "bin" / "tool").c_str(), &st), 0);
    EXPECT_NE(st.st_mode & S_IXUSR, 0u);
#endif

    // Written twice, the bytes are equal (sorted walk, fixed times).
    fs::path again = dir.path() / "again.tar.zst";
    write_directory_archive(again, Format::tar_zst, src, "bundle-1/");
    EXPECT_EQ(aitk::fs::read_file(out), aitk::fs::read_file(again));
}

TEST(Writer, FailureNamesTheOutputAndLeavesNoTemporary) {
    auto dir = aitk::fs::TempDir::create("writer-test");
    try {
        write_archive(dir.path() / "missing" / "x.zip", Format::zip, entries_in_order(false));
        FAIL();
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.problem(), Problem::write_failed);
        EXPECT_NE(std::string(e.what()).find("x.zip"), std::string::npos);
    }
    WriteEntry from_missing;
    from_missing.path = "gone";
    from_missing.source = dir.path() / "no-such-file";
    try {
        write_archive(dir.path() / "y.tar.gz", Format::tar_gz, {from_missing});
        FAIL();
    } catch (const ArchiveError& e) {
        EXPECT_EQ(e.member(), "gone");
        EXPECT_NE(std::string(e.what()).find("no-such-file"), std::string::npos);
    }
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace AITK_FILE_LOCAL
