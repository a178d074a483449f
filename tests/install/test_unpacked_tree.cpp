// The install layer's side of the cache's unpacked trees (issue 33): the record the cache keeps
// at the top of each tree is a name no wheel may hold and nothing installs, and
// verify_unpacked_tree checks a tree's files against its wheel's RECORD for `cache verify`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "aitk/archive/writer.hpp"
#include "aitk/cache/tree_stamp.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/install/ordered_installs.hpp"
#include "aitk/install/wheel_install.hpp"
#include "wheel_builder.hpp"

namespace aitk::install {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

class UnpackedTree : public ::testing::Test {
  protected:
    fs::TempDir dir = fs::TempDir::create("unpacked-tree");
    stdfs::path tree = dir.path() / "tree";

    stdfs::path unpacked_fixture() {
        test::WheelSpec spec;
        spec.name = "pkg";
        spec.version = "1.0";
        spec.files = {{"pkg/__init__.py", "X = 1\n"}, {"pkg/data.bin", std::string(100, 'd')}};
        auto built = test::build_wheel(spec, dir.path() / "wheels");
        unpack_wheel(built.path, tree);
        return tree;
    }
};

TEST_F(UnpackedTree, AWheelHoldingTheCachesRecordNameIsRefused) {
    test::WheelSpec spec;
    spec.name = "sneaky";
    spec.version = "1.0";
    auto entries = test::wheel_entries(spec);
    entries.insert(entries.begin(),
                   archive::WriteEntry::file(std::string(cache::tree_stamp_name), "end 0\n"));
    test::set_record(entries);
    auto built = test::write_wheel("sneaky-1.0-py3-none-any.whl", entries, dir.path() / "w");
    try {
        unpack_wheel(built.path, tree);
        FAIL() << "a wheel could place the cache's record";
    } catch (const WheelError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("sneaky-1.0-py3-none-any.whl"), std::string::npos) << what;
        EXPECT_NE(what.find(std::string(cache::tree_stamp_name)), std::string::npos) << what;
    }
    EXPECT_FALSE(stdfs::exists(tree));
}

TEST_F(UnpackedTree, TheRecordIsNoTopLevelNameAndIsNotInstalled) {
    unpacked_fixture();
    cache::write_tree_stamp(tree);
    EXPECT_EQ(top_level_names(tree), std::vector<std::string>{"pkg"});

    const auto layout = PrefixLayout::for_venv(dir.path() / "prefix", "3.12", false);
    WheelInstallRequest request;
    request.unpacked = tree;
    request.name = "pkg";
    request.version = "1.0";
    install_wheel(layout, request);
    EXPECT_TRUE(stdfs::exists(layout.purelib / "pkg" / "__init__.py"));
    EXPECT_FALSE(stdfs::exists(layout.purelib / std::string(cache::tree_stamp_name)));
}

TEST_F(UnpackedTree, VerifyFindsEveryChangedFileAndNothingOnAnIntactTree) {
    unpacked_fixture();
    cache::write_tree_stamp(tree);  // not a RECORD file: never reported
    EXPECT_TRUE(verify_unpacked_tree(tree).empty());

    {
        std::ofstream out(tree / "pkg" / "__init__.py", std::ios::binary | std::ios::app);
        out << "import os\n";
    }
    {
        std::fstream f(tree / "pkg" / "data.bin", std::ios::binary | std::ios::in | std::ios::out);
        f.write("EVIL", 4);
    }
    stdfs::remove(tree / "pkg-1.0.dist-info" / "METADATA");
    auto drift = verify_unpacked_tree(tree);
    ASSERT_EQ(drift.size(), 3u);
    EXPECT_EQ(drift[0].path, "pkg-1.0.dist-info/METADATA");
    EXPECT_EQ(drift[0].problem, FileProblem::missing);
    EXPECT_EQ(drift[1].path, "pkg/__init__.py");
    EXPECT_EQ(drift[1].detail, "size 16, RECORD says 6");
    EXPECT_EQ(drift[2].path, "pkg/data.bin");
    EXPECT_EQ(drift[2].detail, "sha256 differs");
    EXPECT_EQ(drift[2].distribution, "pkg-1.0");
}

TEST_F(UnpackedTree, VerifySaysWhenATreeHasNoRecordToCheckAgainst) {
    unpacked_fixture();
    stdfs::remove(tree / "pkg-1.0.dist-info" / "RECORD");
    auto drift = verify_unpacked_tree(tree);
    ASSERT_EQ(drift.size(), 1u);
    EXPECT_EQ(drift[0].detail, "RECORD is missing or unreadable");
    stdfs::remove_all(tree / "pkg-1.0.dist-info");
    drift = verify_unpacked_tree(tree);
    ASSERT_EQ(drift.size(), 1u);
    EXPECT_EQ(drift[0].detail, "has no .dist-info folder");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::install
