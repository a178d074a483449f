// An unpacked tree records what its files were when it was made (cache::write_tree_stamp), is
// checked against that record by stat alone before each use, and is rebuilt from its wheel when
// it differs (issue 33: a hardlinked prefix must not be able to change what the next prefix gets).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "aitk/cache/cache.hpp"
#include "aitk/cache/tree_stamp.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/lock.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"

namespace aitk::cache {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using Result = StampCheck::Result;

// A tree of two files with fixed times (as unpacking sets them from the wheel).
stdfs::path make_tree(const stdfs::path& tree) {
    stdfs::create_directories(tree / "pkg" / "sub");
    fs::write_file_atomic(tree / "pkg" / "__init__.py", "x = 1\n");
    fs::write_file_atomic(tree / "pkg" / "sub" / "data.bin", std::string(1000, 'd'));
    const auto when = stdfs::file_time_type::clock::now() - std::chrono::hours(24 * 400);
    stdfs::last_write_time(tree / "pkg" / "__init__.py", when);
    stdfs::last_write_time(tree / "pkg" / "sub" / "data.bin", when);
    return tree;
}

void append(const stdfs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary | std::ios::app);
    out << text;
}

class TreeStamp : public ::testing::Test {
  protected:
    fs::TempDir dir = fs::TempDir::create("tree-stamp");
    stdfs::path tree = make_tree(dir.path() / "tree");
};

TEST_F(TreeStamp, AFreshRecordMatchesAndIsNoFileOfTheTreeItself) {
    write_tree_stamp(tree);
    EXPECT_TRUE(stdfs::is_regular_file(tree / std::string(tree_stamp_name)));
    auto check = check_tree_stamp(tree);
    EXPECT_EQ(check.result, Result::matches) << check.detail;
    // Written twice (the record is not recorded in itself): still matches.
    write_tree_stamp(tree);
    EXPECT_EQ(check_tree_stamp(tree).result, Result::matches);
}

TEST_F(TreeStamp, WithoutARecordTheTreeIsUnrecorded) {
    EXPECT_EQ(check_tree_stamp(tree).result, Result::missing);
    write_tree_stamp(tree);
    // A record cut short (a power loss before it reached the disk) counts as none.
    const auto stamp = tree / std::string(tree_stamp_name);
    const std::string text = fs::read_file(stamp);
    fs::write_file_atomic(stamp, text.substr(0, text.size() - 5));
    EXPECT_EQ(check_tree_stamp(tree).result, Result::missing);
    fs::write_file_atomic(stamp, "");
    EXPECT_EQ(check_tree_stamp(tree).result, Result::missing);
}

TEST_F(TreeStamp, AnAppendIsASizeChange) {
    write_tree_stamp(tree);
    append(tree / "pkg" / "__init__.py", "import os\n");
    auto check = check_tree_stamp(tree);
    EXPECT_EQ(check.result, Result::differs);
    EXPECT_EQ(check.detail, "file pkg/__init__.py: size 16, was 6");
}

TEST_F(TreeStamp, AnInPlaceRewriteOfTheSameSizeChangesTheTime) {
    write_tree_stamp(tree);
    {
        std::fstream f(tree / "pkg" / "sub" / "data.bin",
                       std::ios::binary | std::ios::in | std::ios::out);
        f.write("EVIL", 4);
    }
    auto check = check_tree_stamp(tree);
    EXPECT_EQ(check.result, Result::differs);
    EXPECT_EQ(check.detail, "file pkg/sub/data.bin: modified since it was unpacked");
}

TEST_F(TreeStamp, TouchAndChmodCountAsChanges) {
    write_tree_stamp(tree);
    stdfs::last_write_time(tree / "pkg" / "__init__.py", stdfs::file_time_type::clock::now());
    EXPECT_EQ(check_tree_stamp(tree).result, Result::differs);

    make_tree(tree);
    write_tree_stamp(tree);
    stdfs::permissions(tree / "pkg" / "__init__.py", stdfs::perms::owner_write,
                       stdfs::perm_options::remove);
    auto check = check_tree_stamp(tree);
    EXPECT_EQ(check.result, Result::differs);
    EXPECT_NE(check.detail.find("file pkg/__init__.py: mode"), std::string::npos) << check.detail;
    stdfs::permissions(tree / "pkg" / "__init__.py", stdfs::perms::owner_write,
                       stdfs::perm_options::add);
}

TEST_F(TreeStamp, AMissingOrReplacedFileIsAChange) {
    write_tree_stamp(tree);
    stdfs::remove(tree / "pkg" / "sub" / "data.bin");
    auto check = check_tree_stamp(tree);
    EXPECT_EQ(check.result, Result::differs);
    EXPECT_EQ(check.detail, "file pkg/sub/data.bin: missing");
    stdfs::create_directory(tree / "pkg" / "sub" / "data.bin");
    EXPECT_EQ(check_tree_stamp(tree).detail, "file pkg/sub/data.bin: not a file");
}

TEST_F(TreeStamp, ACopyThatKeepsTimesAndModesStillMatches) {
    write_tree_stamp(tree);
    // `cp -a` of the cache (or a backup restored with its times) keeps the record valid.
    const auto copy = dir.path() / "copy";
    stdfs::copy(tree, copy, stdfs::copy_options::recursive);
    for (const char* file : {"pkg/__init__.py", "pkg/sub/data.bin"}) {
        stdfs::last_write_time(copy / file, stdfs::last_write_time(tree / file));
    }
    auto check = check_tree_stamp(copy);
    EXPECT_EQ(check.result, Result::matches) << check.detail;
}

TEST_F(TreeStamp, AWholeRecordThatCannotBeReadIsAChange) {
    write_tree_stamp(tree);
    const auto stamp = tree / std::string(tree_stamp_name);
    std::string text = fs::read_file(stamp);
    text[text.find('\n') + 1] = 'x';  // the first file's size
    fs::write_file_atomic(stamp, text);
    auto check = check_tree_stamp(tree);
    EXPECT_EQ(check.result, Result::differs);
    EXPECT_EQ(check.detail, "its record cannot be read (line 2)");
}

// --- Cache::ensure_unpacked with the record ---

class UnpackedIntegrity : public ::testing::Test {
  protected:
    fs::TempDir dir = fs::TempDir::create("unpacked-integrity");
    Cache cache{dir.path() / "root"};
    const std::string wheel_bytes = "PK a wheel";
    const std::string sha = fs::sha256_hex(wheel_bytes);
    stdfs::path artifact;
    int fills = 0;

    void SetUp() override {
        auto staged = cache.staging_path("w.whl");
        fs::write_file_atomic(staged, wheel_bytes);
        artifact = cache.insert_artifact(staged, sha, "w.whl");
    }

    UnpackedTree unpack() {
        return cache.ensure_unpacked(
            sha,
            [&](const stdfs::path& dest) {
                ++fills;
                make_tree(dest);
            },
            artifact);
    }
};

TEST_F(UnpackedIntegrity, AnIntactTreeIsUnpackedOnceAndRecorded) {
    const auto first = unpack().path();
    EXPECT_TRUE(stdfs::exists(first / std::string(tree_stamp_name)));
    auto again = unpack();
    EXPECT_EQ(again.path(), first);
    EXPECT_FALSE(again.changed().has_value());
    EXPECT_EQ(fills, 1);
}

TEST_F(UnpackedIntegrity, AChangedTreeIsRebuiltAndSaysWhatChanged) {
    const auto path = unpack().path();
    const auto old_inode_file = path / "pkg" / "__init__.py";
    append(old_inode_file, "import os\n");
    auto again = unpack();
    EXPECT_EQ(fills, 2);
    EXPECT_EQ(again.path(), path);
    ASSERT_TRUE(again.changed().has_value());
    EXPECT_EQ(*again.changed(), "file pkg/__init__.py: size 16, was 6");
    EXPECT_EQ(fs::read_file(path / "pkg" / "__init__.py"), "x = 1\n");
    EXPECT_EQ(check_tree_stamp(path).result, Result::matches);
    // The damaged tree left nothing behind.
    std::error_code ec;
    EXPECT_TRUE(stdfs::is_empty(cache.temp_dir(), ec) || !stdfs::exists(cache.temp_dir()));
}

TEST_F(UnpackedIntegrity, ATreeWithoutARecordIsRebuiltQuietly) {
    const auto path = unpack().path();
    stdfs::remove(path / std::string(tree_stamp_name));
    append(path / "pkg" / "__init__.py", "# poisoned before records existed\n");
    auto again = unpack();
    EXPECT_EQ(fills, 2);
    EXPECT_FALSE(again.changed().has_value());
    EXPECT_EQ(fs::read_file(path / "pkg" / "__init__.py"), "x = 1\n");
    EXPECT_EQ(check_tree_stamp(path).result, Result::matches);
}

TEST_F(UnpackedIntegrity, ADamagedWheelIsNotUnpackedAgainAndIsRemoved) {
    const auto path = unpack().path();
    append(path / "pkg" / "__init__.py", "#\n");
    append(artifact, "x");
    try {
        unpack();
        FAIL() << "a damaged wheel was unpacked";
    } catch (const util::Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("w.whl"), std::string::npos) << what;
        EXPECT_NE(what.find("does not match its sha256"), std::string::npos) << what;
    }
    EXPECT_EQ(fills, 1);
    EXPECT_FALSE(stdfs::exists(artifact));
}

TEST_F(UnpackedIntegrity, ATreeInUseCannotBeReplaced) {
    auto in_use = unpack();
    // While a tree is linked from, its entry lock is held shared: a rebuild (exclusive) waits.
    auto rebuild = fs::FileLock::try_acquire(cache.base() / "locks" / ("unpacked-" + sha + ".lock"),
                                             fs::LockMode::exclusive);
    EXPECT_FALSE(rebuild.has_value());
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::cache
