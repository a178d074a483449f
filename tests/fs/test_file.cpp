#include "aitk/fs/file.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "aitk/util/error.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;

using aitk::test::TempDir;

TEST(File, AtomicWriteReplacesAndLeavesNoTemporaries) {
    TempDir dir;
    fs::path target = dir.path / "lock.yml";
    aitk::fs::write_file_atomic(target, "old\n");
    aitk::fs::write_file_atomic(target, "new content\n");
    EXPECT_EQ(aitk::fs::read_file(target), "new content\n");
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path))
        ++entries;
    EXPECT_EQ(entries, 1u);
}

TEST(File, ReadingAMissingFileNamesIt) {
    TempDir dir;
    try {
        aitk::fs::read_file(dir.path / "missing.txt");
        FAIL() << "expected an error";
    } catch (const aitk::util::Error& e) {
        EXPECT_NE(std::string(e.what()).find("missing.txt"), std::string::npos);
        EXPECT_EQ(e.code(), aitk::util::ExitCode::failure);
    }
}

TEST(File, WritingIntoAMissingFolderFailsCleanly) {
    TempDir dir;
    EXPECT_THROW(aitk::fs::write_file_atomic(dir.path / "no" / "such" / "f", "x"),
                 aitk::util::Error);
}
