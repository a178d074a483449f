// The test HTTP server's thread pool makes threads only as connections need them: a test that
// uses one connection at a time holds one thread, not 64 (under Wine every thread holds files
// open in the run's one wineserver, and eight tests of 64 threads each ran it out of them).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "growing_thread_pool.hpp"

namespace AITK_FILE_LOCAL {

using aitk::test::GrowingThreadPool;

namespace {

TEST(GrowingThreadPool, TasksOneAfterAnotherShareOneThread) {
    GrowingThreadPool pool(64);
    for (int i = 0; i < 20; ++i) {
        std::promise<void> done;
        auto finished = done.get_future();
        pool.enqueue([&done] { done.set_value(); });
        finished.wait();
        // The thread goes back to waiting a moment after set_value; the next task comes once
        // it does (as a connection that closed before the next one opens).
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (pool.idle_threads() != 1 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ASSERT_EQ(pool.idle_threads(), 1u);
    }
    EXPECT_EQ(pool.thread_count(), 1u);
    pool.shutdown();
}

TEST(GrowingThreadPool, BusyTasksGetAThreadEachUpToTheCapAndTheRestWait) {
    GrowingThreadPool pool(3);
    std::mutex mutex;
    std::condition_variable cv;
    int running = 0;
    bool release = false;
    std::atomic<int> finished{0};
    for (int i = 0; i < 5; ++i) {
        pool.enqueue([&] {
            std::unique_lock lock(mutex);
            ++running;
            cv.notify_all();
            cv.wait(lock, [&] { return release; });
            --running;
            ++finished;
        });
    }
    {
        std::unique_lock lock(mutex);
        ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return running == 3; }));
    }
    EXPECT_EQ(pool.thread_count(), 3u);
    {
        std::lock_guard lock(mutex);
        release = true;
    }
    cv.notify_all();
    pool.shutdown();  // runs the two that waited, then joins
    EXPECT_EQ(finished.load(), 5);
    EXPECT_EQ(pool.thread_count(), 3u);
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
