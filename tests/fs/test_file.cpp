#include "aitk/fs/file.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "aitk/util/error.hpp"
#include "test_files.hpp"

namespace AITK_FILE_LOCAL {

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

TEST(File, ReadingGivesEveryByteWhateverTheSize) {
    TempDir dir;
    for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096},
                             std::size_t{4097}, std::size_t{3} << 20}) {
        std::string content(size, '\0');
        for (std::size_t i = 0; i < size; ++i)
            content[i] = static_cast<char>((i * 131 + 7) % 256);
        const fs::path file = dir.path / ("f" + std::to_string(size));
        aitk::fs::write_file_atomic(file, content);
        EXPECT_EQ(aitk::fs::read_file(file), content) << size << " bytes";
    }
}

#ifdef __linux__
// /proc files say size 0 and have content: read to their end all the same.
TEST(File, AFileThatSaysSizeZeroIsReadToItsEnd) {
    const std::string status = aitk::fs::read_file("/proc/self/status");
    EXPECT_NE(status.find("Name:"), std::string::npos);
    EXPECT_NE(status.find("VmRSS:"), std::string::npos);
}
#endif

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

}  // namespace AITK_FILE_LOCAL
