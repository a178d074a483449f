#include "aitk/fs/lock.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"

namespace fs = std::filesystem;
using aitk::fs::FileLock;
using aitk::fs::LockMode;
using namespace std::chrono_literals;

namespace {

// A child process that takes the lock, reports through a pipe, then holds it until killed or
// until `hold` has passed.
pid_t lock_in_child(const fs::path& file, LockMode mode, std::chrono::milliseconds hold) {
    int fds[2];
    if (::pipe(fds) != 0) return -1;
    pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        auto lock = FileLock::acquire(file, mode);
        char ok = 'L';
        if (::write(fds[1], &ok, 1) != 1) ::_exit(2);
        std::this_thread::sleep_for(hold);
        ::_exit(0);
    }
    ::close(fds[1]);
    char got = 0;
    EXPECT_EQ(::read(fds[0], &got, 1), 1);
    EXPECT_EQ(got, 'L');
    ::close(fds[0]);
    return pid;
}

int wait_child(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
}

}  // namespace

TEST(FileLock, ExclusiveExcludesEveryOtherHolderInTheSameProcess) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "sub" / "cache.lock";  // the folder is created on demand
    auto first = FileLock::acquire(file, LockMode::exclusive);
    EXPECT_TRUE(first.held());
    EXPECT_EQ(first.path(), file);
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::exclusive).has_value());
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::shared).has_value());
    first.release();
    EXPECT_FALSE(first.held());
    auto second = FileLock::try_acquire(file, LockMode::exclusive);
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(second->mode(), LockMode::exclusive);
}

TEST(FileLock, SharedHoldersCoexistAndKeepExclusiveOut) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "cache.lock";
    auto a = FileLock::acquire(file, LockMode::shared);
    auto b = FileLock::try_acquire(file, LockMode::shared);
    ASSERT_TRUE(b.has_value());
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::exclusive).has_value());
    a.release();
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::exclusive).has_value());
    b->release();
    EXPECT_TRUE(FileLock::try_acquire(file, LockMode::exclusive).has_value());
}

TEST(FileLock, MovedLockStaysHeldAndIsReleasedOnce) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "cache.lock";
    auto a = FileLock::acquire(file, LockMode::exclusive);
    FileLock b = std::move(a);
    EXPECT_FALSE(a.held());  // NOLINT(bugprone-use-after-move): moved-from state is specified
    EXPECT_TRUE(b.held());
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::exclusive).has_value());
    { FileLock c = std::move(b); }
    EXPECT_TRUE(FileLock::try_acquire(file, LockMode::exclusive).has_value());
}

TEST(FileLock, TimeoutWaitsThenGivesUp) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "cache.lock";
    auto held = FileLock::acquire(file, LockMode::exclusive);
    auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::exclusive, 120ms).has_value());
    EXPECT_GE(std::chrono::steady_clock::now() - start, 120ms);
}

TEST(FileLock, TimeoutSucceedsWhenTheHolderLetsGoInTime) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "cache.lock";
    auto held = FileLock::acquire(file, LockMode::exclusive);
    std::thread releaser([&] {
        std::this_thread::sleep_for(50ms);
        held.release();
    });
    auto got = FileLock::try_acquire(file, LockMode::exclusive, 5000ms);
    releaser.join();
    EXPECT_TRUE(got.has_value());
}

TEST(FileLock, ExcludesAnotherProcessUntilItExits) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "cache.lock";
    pid_t child = lock_in_child(file, LockMode::exclusive, 300ms);
    ASSERT_GT(child, 0);
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::shared).has_value());
    auto start = std::chrono::steady_clock::now();
    auto mine = FileLock::acquire(file, LockMode::exclusive);  // blocks until the child is done
    EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
    int status = wait_child(child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(FileLock, AKilledHolderReleasesTheLock) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "cache.lock";
    pid_t child = lock_in_child(file, LockMode::exclusive, 60000ms);
    ASSERT_GT(child, 0);
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::exclusive).has_value());
    ::kill(child, SIGKILL);
    wait_child(child);
    EXPECT_TRUE(FileLock::try_acquire(file, LockMode::exclusive, 2000ms).has_value());
}

TEST(FileLock, SharedAcrossProcesses) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "cache.lock";
    pid_t child = lock_in_child(file, LockMode::shared, 60000ms);
    ASSERT_GT(child, 0);
    EXPECT_TRUE(FileLock::try_acquire(file, LockMode::shared).has_value());
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::exclusive).has_value());
    ::kill(child, SIGKILL);
    wait_child(child);
}

TEST(FileLock, UnusableLockPathNamesTheFile) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path blocker = dir.path() / "plain-file";
    {
        std::FILE* f = std::fopen(blocker.c_str(), "w");
        std::fclose(f);
    }
    try {
        FileLock::acquire(blocker / "x.lock", LockMode::exclusive);
        FAIL() << "expected an error";
    } catch (const aitk::util::Error& e) {
        EXPECT_NE(std::string(e.what()).find("x.lock"), std::string::npos) << e.what();
    }
}

TEST(FileLock, TheOwnerRecordLastsWhileTheLockIsHeld) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    auto path = dir.path() / "prefix.lock";
    aitk::fs::FileLock::acquire(path, aitk::fs::LockMode::exclusive).release();
    const auto old_time = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
    std::filesystem::last_write_time(path, old_time);
    {
        auto lock = aitk::fs::FileLock::acquire(path, aitk::fs::LockMode::exclusive);
        lock.record_owner();
        EXPECT_EQ(aitk::fs::FileLock::recorded_owner(path), static_cast<long>(::getpid()));
    }
    // Released: the file is empty again, so an idle lock file is the same after every run.
    EXPECT_EQ(aitk::fs::FileLock::recorded_owner(path), std::nullopt);
    EXPECT_EQ(std::filesystem::file_size(path), 0u);
    EXPECT_EQ(std::filesystem::last_write_time(path), old_time);
}
