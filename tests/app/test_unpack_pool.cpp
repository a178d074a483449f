#include "unpack_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace AITK_FILE_LOCAL {

namespace {

using aitk::app::UnpackPool;

// Tasks that wait until released, counting how many run at once.
struct Gate {
    std::mutex mutex;
    std::condition_variable changed;
    int running = 0;
    int most_at_once = 0;
    int started = 0;
    bool open = false;

    void task() {
        std::unique_lock lock(mutex);
        ++running;
        ++started;
        most_at_once = std::max(most_at_once, running);
        changed.notify_all();
        changed.wait(lock, [&] { return open; });
        --running;
        changed.notify_all();
    }
    // Waits until `n` tasks have started (a test that hangs here fails on ctest's timeout).
    void wait_started(int n) {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return started >= n; });
    }
    void release() {
        std::lock_guard lock(mutex);
        open = true;
        changed.notify_all();
    }
};

TEST(UnpackPoolTest, RunsNoMoreTasksAtOnceThanItsLimit) {
    Gate gate;
    UnpackPool pool(3, [&](std::size_t) { gate.task(); });
    pool.set_limit(1);
    for (std::size_t i = 0; i < 3; ++i)
        pool.add(i, 100 - i);
    gate.wait_started(1);
    // The other two stay queued while the first one runs: give them every chance to start.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    {
        std::lock_guard lock(gate.mutex);
        EXPECT_EQ(gate.started, 1);
    }
    // Raising the limit starts them at once, beside the one still running.
    pool.set_limit(3);
    gate.wait_started(3);
    gate.release();
    pool.finish();
    EXPECT_EQ(gate.started, 3);
    EXPECT_EQ(gate.most_at_once, 3);
    EXPECT_EQ(pool.limit(), 3u);
}

TEST(UnpackPoolTest, FinishesQueuedTasksUnderALimitAndTakesTheLargestFirst) {
    Gate gate;
    std::mutex mutex;
    std::vector<std::size_t> order;
    std::atomic<int> at_once{0};
    std::atomic<int> most{0};
    UnpackPool pool(2, [&](std::size_t i) {
        const int now = ++at_once;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        if (i == 9) gate.task();  // holds the one slot until the others are queued
        {
            std::lock_guard lock(mutex);
            order.push_back(i);
        }
        --at_once;
    });
    pool.set_limit(0);  // means one
    EXPECT_EQ(pool.limit(), 1u);
    pool.add(9, 1);
    gate.wait_started(1);
    pool.add(0, 10);
    pool.add(1, 30);
    pool.add(2, 20);
    gate.release();
    pool.finish();
    EXPECT_EQ(order, (std::vector<std::size_t>{9, 1, 2, 0}));
    EXPECT_EQ(most.load(), 1);
}

TEST(UnpackPoolTest, AFailureStopsWhatIsQueuedAndComesBackFromFinish) {
    std::atomic<int> ran{0};
    UnpackPool pool(1, [&](std::size_t i) {
        ++ran;
        if (i == 0) throw std::runtime_error("unpack failed");
    });
    pool.add(0, 1000);
    pool.add(1, 1);
    EXPECT_THROW(
        {
            try {
                pool.finish();
            } catch (const std::runtime_error& error) {
                EXPECT_STREQ(error.what(), "unpack failed");
                throw;
            }
        },
        std::runtime_error);
    // The failing task was the largest, so it ran first, and nothing started after it.
    EXPECT_EQ(ran.load(), 1);
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
