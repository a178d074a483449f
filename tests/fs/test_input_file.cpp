// Bounded reading of the files a user names (fs/input_file.hpp): only regular files, never more
// than the cap, and nothing that can block.
#include "aitk/fs/input_file.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "test_files.hpp"

namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

using aitk::fs::InputFileKind;
using aitk::fs::read_input_file;
using aitk::test::TempDir;

namespace {

constexpr InputFileKind small_kind{"a test file", 10};

std::string refusal(const stdfs::path& path, const InputFileKind& kind = small_kind) {
    auto read = read_input_file(path, kind);
    return read ? std::string("read ") + std::to_string(read->size()) + " bytes" : read.error();
}

}  // namespace

TEST(InputFile, ARegularFileUpToTheCapIsRead) {
    TempDir dir;
    aitk::test::write_file(dir.path / "ten", "0123456789");
    auto read = read_input_file(dir.path / "ten", small_kind);
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(*read, "0123456789");
    aitk::test::write_file(dir.path / "empty", "");
    EXPECT_EQ(refusal(dir.path / "empty"), "read 0 bytes");
}

TEST(InputFile, AFileOverTheCapIsRefusedBeforeReading) {
    TempDir dir;
    aitk::test::write_file(dir.path / "eleven", "0123456789a");
    EXPECT_EQ(refusal(dir.path / "eleven"), "11 B is over the 10 B limit for a test file");
    // A sparse file of 300 MiB holds no data: the size alone refuses it.
    aitk::test::write_file(dir.path / "sparse", "");
    stdfs::resize_file(dir.path / "sparse", 300ull << 20);
    EXPECT_EQ(refusal(dir.path / "sparse", aitk::fs::requirements_file),
              "300.0 MiB is over the 64.0 MiB limit for a requirements file");
}

TEST(InputFile, AFolderIsNotARegularFile) {
    TempDir dir;
    EXPECT_EQ(refusal(dir.path), "not a regular file (a directory); give a test file");
}

TEST(InputFile, AMissingFileSaysWhy) {
    TempDir dir;
    EXPECT_NE(refusal(dir.path / "missing").find("No such file"), std::string::npos);
}

#ifndef _WIN32
TEST(InputFile, DevicesAreRefusedWithoutReading) {
    EXPECT_EQ(refusal("/dev/zero", aitk::fs::requirements_file),
              "not a regular file (a character device); give a requirements file");
    EXPECT_EQ(refusal("/dev/null"), "not a regular file (a character device); give a test file");
}

TEST(InputFile, AFifoIsRefusedWithoutBlocking) {
    TempDir dir;
    const stdfs::path fifo = dir.path / "fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto answer = std::async(std::launch::async, [&] { return refusal(fifo); });
    if (answer.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
        // The read is stuck waiting for a writer: be that writer, so the test ends and fails.
        const int fd = ::open(fifo.c_str(), O_WRONLY);
        if (fd >= 0) ::close(fd);
        FAIL() << "reading a FIFO blocked";
    }
    EXPECT_EQ(answer.get(), "not a regular file (a FIFO); give a test file");
}

TEST(InputFile, ALinkToARegularFileIsRead) {
    TempDir dir;
    aitk::test::write_file(dir.path / "real", "abc");
    stdfs::create_symlink(dir.path / "real", dir.path / "link");
    EXPECT_EQ(refusal(dir.path / "link"), "read 3 bytes");
    stdfs::create_symlink("/dev/zero", dir.path / "zero");
    EXPECT_EQ(refusal(dir.path / "zero"),
              "not a regular file (a character device); give a test file");
}
#endif

}  // namespace AITK_FILE_LOCAL
