#include "aitk/build/sdist.hpp"

#include <gtest/gtest.h>

#include "aitk/archive/error.hpp"
#include "aitk/archive/writer.hpp"
#include "aitk/build/error.hpp"
#include "build_test_support.hpp"

namespace aitk::build {
namespace AITK_FILE_LOCAL {

using archive::Format;
using archive::WriteEntry;

const std::string pkg_info =
    "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: six>=1.0\n";

TEST(Sdist, TarGzProjectIsTheSingleTopLevelFolder) {
    test::TempDir dir;
    auto sdist = dir.path / "demo-1.0.tar.gz";
    archive::write_archive(
        sdist, Format::tar_gz,
        {WriteEntry::directory("demo-1.0/"), WriteEntry::file("demo-1.0/PKG-INFO", pkg_info),
         WriteEntry::file("demo-1.0/pyproject.toml", "[project]\n"),
         WriteEntry::file("demo-1.0/src/demo/__init__.py", "")});
    auto unpacked = unpack_sdist(sdist, dir.path / "out");
    EXPECT_EQ(unpacked.project, dir.path / "out" / "demo-1.0");
    EXPECT_EQ(test::read_file(unpacked.project / "pyproject.toml"), "[project]\n");
    EXPECT_TRUE(std::filesystem::exists(unpacked.project / "src" / "demo" / "__init__.py"));
    ASSERT_TRUE(unpacked.pkg_info_text);
    EXPECT_EQ(*unpacked.pkg_info_text, pkg_info);
    ASSERT_TRUE(unpacked.pkg_info);
    EXPECT_EQ(unpacked.pkg_info->name, "demo");
    EXPECT_EQ(unpacked.pkg_info->version_text, "1.0");
    EXPECT_EQ(unpacked.pkg_info->requires_dist, (std::vector<std::string>{"six>=1.0"}));
    EXPECT_EQ(unpacked.pkg_info_problem, "");
}

TEST(Sdist, ZipWithoutPkgInfo) {
    test::TempDir dir;
    auto sdist = dir.path / "demo-1.0.zip";
    archive::write_archive(sdist, Format::zip,
                           {WriteEntry::file("demo-1.0/setup.py", "print('hi')\n")});
    auto unpacked = unpack_sdist(sdist, dir.path / "out");
    EXPECT_EQ(unpacked.project, dir.path / "out" / "demo-1.0");
    EXPECT_EQ(test::read_file(unpacked.project / "setup.py"), "print('hi')\n");
    EXPECT_FALSE(unpacked.pkg_info_text);
    EXPECT_FALSE(unpacked.pkg_info);
}

TEST(Sdist, BrokenPkgInfoIsReportedNotFatal) {
    test::TempDir dir;
    auto sdist = dir.path / "demo-1.0.tar.gz";
    archive::write_archive(sdist, Format::tar_gz,
                           {WriteEntry::file("demo-1.0/PKG-INFO", "Metadata-Version: 2.1\n")});
    auto unpacked = unpack_sdist(sdist, dir.path / "out");
    EXPECT_TRUE(unpacked.pkg_info_text);
    EXPECT_FALSE(unpacked.pkg_info);
    EXPECT_TRUE(
        unpacked.pkg_info_problem.starts_with((unpacked.project / "PKG-INFO").string() + ": "))
        << unpacked.pkg_info_problem;
}

TEST(Sdist, ParentMemberIsRefusedAndNothingIsLeft) {
    test::TempDir dir;
    auto sdist = dir.path / "evil-1.0.tar.gz";
    archive::write_archive(sdist, Format::tar_gz,
                           {WriteEntry::file("evil-1.0/setup.py", ""),
                            WriteEntry::file("evil-1.0/../../escaped.txt", "gotcha")});
    try {
        unpack_sdist(sdist, dir.path / "out");
        FAIL() << "unpacked";
    } catch (const archive::ArchiveError& e) {
        EXPECT_EQ(e.problem(), archive::Problem::unsafe_path);
        EXPECT_EQ(e.member(), "evil-1.0/../../escaped.txt");
    }
    EXPECT_FALSE(std::filesystem::exists(dir.path / "out"));
    EXPECT_FALSE(std::filesystem::exists(dir.path / "escaped.txt"));
}

TEST(Sdist, SymlinkOutOfTheTreeIsRefused) {
    test::TempDir dir;
    auto sdist = dir.path / "evil-1.0.tar.gz";
    archive::write_archive(sdist, Format::tar_gz,
                           {WriteEntry::symlink("evil-1.0/link", "../../../etc"),
                            WriteEntry::file("evil-1.0/link/passwd", "x")});
    try {
        unpack_sdist(sdist, dir.path / "out");
        FAIL() << "unpacked";
    } catch (const archive::ArchiveError& e) {
        EXPECT_EQ(e.problem(), archive::Problem::unsafe_link);
    }
    EXPECT_FALSE(std::filesystem::exists(dir.path / "out"));
}

TEST(Sdist, MoreThanOneTopLevelEntryIsNotAnSdist) {
    test::TempDir dir;
    auto sdist = dir.path / "flat-1.0.tar.gz";
    archive::write_archive(sdist, Format::tar_gz,
                           {WriteEntry::file("setup.py", ""), WriteEntry::file("flat-1.0/x", "")});
    try {
        unpack_sdist(sdist, dir.path / "out");
        FAIL() << "unpacked";
    } catch (const BuildError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "source distribution flat-1.0.tar.gz does not hold a single top-level folder "
                  "(found: flat-1.0, setup.py)");
        EXPECT_EQ(e.code(), util::ExitCode::failure);
    }
    EXPECT_FALSE(std::filesystem::exists(dir.path / "out"));
}

TEST(Sdist, SourceIdIsTheLowerCaseDigest) {
    EXPECT_EQ(sdist_source_id("ABCDEF"), "sha256:abcdef");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::build
