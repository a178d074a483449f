// The test HTTP server's thread pool makes threads only as connections need them: a test that
// uses one connection at a time holds one thread, not 64 (under Wine every thread holds files
// open in the run's one wineserver, and eight tests of 64 threads each ran it out of them).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>

#include "growing_thread_pool.hpp"

using aitk::test::GrowingThreadPool;

namespace {

TEST(GrowingThreadPool, TasksOneAfterAnotherShareOneThread) {
    GrowingThreadPool pool(64);
    for (int i = 0; i < 20; ++i) {
        std::promise<void> done;
        auto finished = done.get_future();
        pool.enqueue([&done] { done.set_value(); });
        finished.wait();
        // The thread that ran the task goes back to waiting a moment after set_value; the next
        // task may still find it busy, so allow a second thread, never more.
    }
    EXPECT_LE(pool.thread_count(), 2u);
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
