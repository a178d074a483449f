#include "aitk/fs/temp.hpp"

#include <gtest/gtest.h>
#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "aitk/fs/file.hpp"
#include "test_files.hpp"

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using aitk::fs::PublishResult;
using aitk::fs::TempDir;
using aitk::test::write_file;

namespace {}  // namespace

TEST(TempPath, NamesAreUniqueHiddenAndRecognisable) {
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        fs::path p = aitk::fs::unique_temp_path("/x/y", "torch-2.9.0.whl");
        EXPECT_EQ(p.parent_path(), fs::path("/x/y"));
        std::string name = p.filename().string();
        EXPECT_TRUE(name.starts_with(".torch-2.9.0.whl."));
        EXPECT_TRUE(aitk::fs::is_temp_name(name)) << name;
        seen.insert(name);
    }
    EXPECT_EQ(seen.size(), 1000u);
}

TEST(TempPath, OrdinaryNamesAreNotTemporaries) {
    EXPECT_FALSE(aitk::fs::is_temp_name("torch-2.9.0.whl"));
    EXPECT_FALSE(aitk::fs::is_temp_name(".hidden"));
    EXPECT_FALSE(aitk::fs::is_temp_name(".a.tmp"));
    EXPECT_FALSE(aitk::fs::is_temp_name(".a.0123456789abcdeg.tmp"));
    EXPECT_FALSE(aitk::fs::is_temp_name("a.0123456789abcdef.tmp"));
    EXPECT_TRUE(aitk::fs::is_temp_name(".a.0123456789abcdef.tmp"));
    EXPECT_TRUE(aitk::fs::is_temp_name("..0123456789abcdef.tmp"));
}

TEST(TempDir, IsRemovedWithItsContentUnlessKept) {
    fs::path removed;
    {
        auto dir = TempDir::create("temp-test");
        removed = dir.path();
        EXPECT_TRUE(fs::is_directory(removed));
        write_file(removed / "a" / "b.txt", "x");
    }
    EXPECT_FALSE(fs::exists(removed));

    fs::path kept;
    {
        auto dir = TempDir::create("temp-test");
        kept = dir.keep();
        EXPECT_TRUE(dir.path().empty());
    }
    EXPECT_TRUE(fs::is_directory(kept));
    fs::remove_all(kept);
}

TEST(TempDir, CreatedBesideItsParentAndMovable) {
    auto outer = TempDir::create("temp-test");
    auto inner = TempDir::create_in(outer.path() / "new" / "parent", "stage");
    EXPECT_EQ(inner.path().parent_path(), outer.path() / "new" / "parent");
    EXPECT_TRUE(aitk::fs::is_temp_name(inner.path().filename().string()));
    fs::path p = inner.path();
    TempDir moved = std::move(inner);
    EXPECT_EQ(moved.path(), p);
    moved = TempDir::create_in(outer.path(), "other");
    EXPECT_FALSE(fs::exists(p));  // the directory it held before the assignment is gone
}

TEST(TempDir, RemovesReadOnlyTrees) {
    fs::path p;
    {
        auto dir = TempDir::create("temp-test");
        p = dir.path();
        write_file(p / "ro" / "f.txt", "x");
        fs::permissions(p / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    }
    EXPECT_FALSE(fs::exists(p));
}

TEST(Publish, MovesAFileButNeverReplaces) {
    auto dir = TempDir::create("temp-test");
    write_file(dir.path() / "staged1", "one");
    write_file(dir.path() / "staged2", "two");
    EXPECT_EQ(aitk::fs::publish(dir.path() / "staged1", dir.path() / "final"),
              PublishResult::published);
    EXPECT_FALSE(fs::exists(dir.path() / "staged1"));
    EXPECT_EQ(aitk::fs::publish(dir.path() / "staged2", dir.path() / "final"),
              PublishResult::already_exists);
    EXPECT_EQ(aitk::fs::read_file(dir.path() / "final"), "one");
    EXPECT_EQ(aitk::fs::read_file(dir.path() / "staged2"), "two");
}

TEST(Publish, MovesADirectoryButNeverReplacesOneEvenEmpty) {
    auto dir = TempDir::create("temp-test");
    write_file(dir.path() / "stage" / "x" / "f.txt", "payload");
    EXPECT_EQ(aitk::fs::publish(dir.path() / "stage", dir.path() / "entry"),
              PublishResult::published);
    EXPECT_EQ(aitk::fs::read_file(dir.path() / "entry" / "x" / "f.txt"), "payload");

    write_file(dir.path() / "stage2" / "g.txt", "other");
    EXPECT_EQ(aitk::fs::publish(dir.path() / "stage2", dir.path() / "entry"),
              PublishResult::already_exists);
    fs::create_directories(dir.path() / "empty");
    EXPECT_EQ(aitk::fs::publish(dir.path() / "stage2", dir.path() / "empty"),
              PublishResult::already_exists);
    EXPECT_TRUE(fs::exists(dir.path() / "stage2" / "g.txt"));
}

TEST(Publish, MissingSourceIsAnError) {
    auto dir = TempDir::create("temp-test");
    EXPECT_THROW(aitk::fs::publish(dir.path() / "nope", dir.path() / "final"), std::exception);
}

#ifndef _WIN32
// fork() copies the name generator's state: the child must not draw the parent's next names.
// (Windows has no fork; a new process seeds its own generator.)
TEST(TempPath, AForkedChildDrawsDifferentNames) {
    (void)aitk::fs::unique_temp_path("/x", "a");  // the parent's generator is now in use
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::string name = aitk::fs::unique_temp_path("/x", "a").filename().string();
        (void)!::write(fds[1], name.data(), name.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string parent_name = aitk::fs::unique_temp_path("/x", "a").filename().string();
    std::string child_name(64, '\0');
    ssize_t n = ::read(fds[0], child_name.data(), child_name.size());
    ::close(fds[0]);
    ::waitpid(pid, nullptr, 0);
    ASSERT_GT(n, 0);
    child_name.resize(static_cast<std::size_t>(n));
    EXPECT_NE(parent_name, child_name);
}
#endif

}  // namespace AITK_FILE_LOCAL
