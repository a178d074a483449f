// FileLock in one process and across processes. The other process is this test program run
// again as a lock holder (AITK_TEST_LOCK_HOLDER, support/child_role.hpp), started and, where the
// test says so, killed by util::run_process: fork/exec and SIGKILL of its group on POSIX,
// CreateProcessW and TerminateJobObject on Windows, so both OSes show that the kernel frees the
// lock of a holder that dies.
#include "aitk/fs/lock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "aitk/util/subprocess.hpp"
#include "aitk/util/utf8.hpp"
#include "child_role.hpp"

#ifdef _WIN32
#include <process.h>
#else
#include <unistd.h>
#endif

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using aitk::fs::FileLock;
using aitk::fs::LockMode;
using namespace std::chrono_literals;

namespace {

#ifdef _WIN32
long this_process_id() {
    return _getpid();
}
#else
long this_process_id() {
    return ::getpid();
}
#endif

// The holder role: "exclusive|shared <milliseconds> <lock file>". Takes the lock, holds it,
// exits 0 (or is killed first).
const bool holder_role =
    aitk::test::register_child_role("AITK_TEST_LOCK_HOLDER", [](const std::string& role) {
        const auto first = role.find(' ');
        const auto second = role.find(' ', first + 1);
        const LockMode mode =
            role.substr(0, first) == "shared" ? LockMode::shared : LockMode::exclusive;
        const long hold_ms = std::stol(role.substr(first + 1, second - first - 1));
        auto lock = FileLock::acquire(aitk::util::path_from_utf8(role.substr(second + 1)), mode);
        std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
        return 0;
    });

// Starts a holder of `file` in another process; it lets go after `hold`, or is killed when
// `kill_after` has passed. Returns once the holder has the lock (the lock is then refused here
// for the mode that excludes it); the future gives how the holder ended.
std::future<aitk::util::ProcessResult> hold_in_other_process(const fs::path& file, LockMode mode,
                                                             std::chrono::milliseconds hold,
                                                             std::chrono::milliseconds kill_after) {
    auto request = aitk::test::child_role_request(
        "AITK_TEST_LOCK_HOLDER", std::string(mode == LockMode::shared ? "shared " : "exclusive ") +
                                     std::to_string(hold.count()) + " " +
                                     aitk::util::utf8_of(file));
    request.timeout = kill_after;
    auto ended = std::async(std::launch::async, [request] {
        auto r = aitk::util::run_process(request);
        EXPECT_TRUE(r) << r.error().message;
        return r ? *r : aitk::util::ProcessResult{};
    });
    // Held by the other process once an exclusive attempt here fails.
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (FileLock::try_acquire(file, LockMode::exclusive).has_value() &&
           std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(5ms);
    }
    return ended;
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
    ASSERT_TRUE(holder_role);
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "cache.lock";
    auto holder = hold_in_other_process(file, LockMode::exclusive, 1500ms, 120s);
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::shared).has_value());
    auto start = std::chrono::steady_clock::now();
    auto mine = FileLock::acquire(file, LockMode::exclusive);  // blocks until the holder is done
    EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
    auto ended = holder.get();
    EXPECT_TRUE(ended.succeeded()) << ended.describe() << ended.err;
}

TEST(FileLock, AKilledHolderReleasesTheLock) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "cache.lock";
    auto holder = hold_in_other_process(file, LockMode::exclusive, 600000ms, 3s);
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::exclusive).has_value());
    EXPECT_EQ(holder.get().end, aitk::util::ProcessEnd::timed_out);  // killed, never let go
    EXPECT_TRUE(FileLock::try_acquire(file, LockMode::exclusive, 5000ms).has_value());
}

TEST(FileLock, SharedAcrossProcesses) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path file = dir.path() / "cache.lock";
    auto holder = hold_in_other_process(file, LockMode::shared, 600000ms, 3s);
    EXPECT_TRUE(FileLock::try_acquire(file, LockMode::shared).has_value());
    EXPECT_FALSE(FileLock::try_acquire(file, LockMode::exclusive).has_value());
    holder.get();
}

TEST(FileLock, UnusableLockPathNamesTheFile) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::path blocker = dir.path() / "plain-file";
    {
        std::FILE* f = std::fopen(aitk::util::utf8_of(blocker).c_str(), "w");
        ASSERT_NE(f, nullptr);
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
    // Whole seconds: mingw's std::filesystem keeps file times to the second.
    const auto old_time = std::chrono::floor<std::chrono::seconds>(
        std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
    std::filesystem::last_write_time(path, old_time);
    {
        auto lock = aitk::fs::FileLock::acquire(path, aitk::fs::LockMode::exclusive);
        lock.record_owner();
        EXPECT_EQ(aitk::fs::FileLock::recorded_owner(path), this_process_id());
    }
    // Released: the file is empty again, so an idle lock file is the same after every run.
    EXPECT_EQ(aitk::fs::FileLock::recorded_owner(path), std::nullopt);
    EXPECT_EQ(std::filesystem::file_size(path), 0u);
    EXPECT_EQ(std::filesystem::last_write_time(path), old_time);
}

// A folder this process made, taken back while its lock (a file inside it) is held: everything
// goes, the lock file and the folders that led to it included, on Windows too (there the lock
// file, deleted while open, stays listed until the lock's handle closes), and the lock is
// released. A second holder can lock the same path at once.
TEST(FileLock, ALockedFolderIsRemovedWholeAndTheLockReleased) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    const auto prefix = dir.path() / "prefix";
    fs::create_directories(prefix / "Lib" / "site-packages" / "pkg");
    fs::create_directories(prefix / ".aitk-env" / "cache");
    for (const auto& file :
         {prefix / "pyvenv.cfg", prefix / "Lib" / "site-packages" / "pkg" / "a.py",
          prefix / ".aitk-env" / "state.json"}) {
        std::FILE* f = std::fopen(aitk::util::utf8_of(file).c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("x", f);
        std::fclose(f);
    }
    auto lock = FileLock::acquire(prefix / ".aitk-env" / "lock", LockMode::exclusive);
    lock.record_owner();
    aitk::fs::remove_locked_folder(prefix, lock);
    EXPECT_FALSE(lock.held());
    EXPECT_FALSE(fs::exists(prefix));
    EXPECT_TRUE(fs::exists(dir.path()));
    EXPECT_TRUE(FileLock::try_acquire(prefix / ".aitk-env" / "lock", LockMode::exclusive));
}

// A folder named with a trailing separator is the same folder: it goes, and nothing above it.
TEST(FileLock, ALockedFolderNamedWithASlashGoesAndNothingAboveIt) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    const auto parent = dir.path() / "empty-parent";
    const auto prefix = parent / "prefix";
    fs::create_directories(prefix / ".aitk-env");
    auto lock = FileLock::acquire(prefix / ".aitk-env" / "lock", LockMode::exclusive);
    aitk::fs::remove_locked_folder(prefix / "", lock);
    EXPECT_FALSE(lock.held());
    EXPECT_FALSE(fs::exists(prefix));
    EXPECT_TRUE(fs::exists(parent));  // empty, but not ours to remove
}

// A lock whose file lies outside the folder: the folder goes whole and the lock is released.
TEST(FileLock, ALockOutsideTheFolderIsReleasedAndItsFileKept) {
    auto dir = aitk::fs::TempDir::create("lock-test");
    fs::create_directories(dir.path() / "prefix" / "sub");
    auto lock = FileLock::acquire(dir.path() / "outside.lock", LockMode::exclusive);
    aitk::fs::remove_locked_folder(dir.path() / "prefix", lock);
    EXPECT_FALSE(lock.held());
    EXPECT_FALSE(fs::exists(dir.path() / "prefix"));
    EXPECT_TRUE(fs::exists(dir.path() / "outside.lock"));
}

}  // namespace AITK_FILE_LOCAL
