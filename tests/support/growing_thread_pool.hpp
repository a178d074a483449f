// The test HTTP server's task queue: a thread per connection in use, made when one is needed
// and kept for the next, up to a cap.
//
// httplib's own ThreadPool starts every thread at once. A server sized for the clients' busiest
// moment (64) then holds 64 threads for its whole life, in every test process; under Wine each
// thread also holds open files in the one wineserver of the run, and eight tests at once ran it
// out of them ("Too many open files", "Resource temporarily unavailable"). Most tests use a few
// connections, so this pool stays small.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace aitk::test {

class GrowingThreadPool final : public httplib::TaskQueue {
  public:
    explicit GrowingThreadPool(std::size_t max_threads);
    ~GrowingThreadPool() override;
    GrowingThreadPool(const GrowingThreadPool&) = delete;
    GrowingThreadPool& operator=(const GrowingThreadPool&) = delete;

    // What httplib's enqueue returns: nothing in 0.11 (Debian 12), whether the task was queued
    // in later ones (Debian 13 has 0.18).
    using EnqueueResult =
        decltype(std::declval<httplib::TaskQueue&>().enqueue(std::function<void()>{}));

    // A task waits for a free thread only when `max_threads` are busy; it is always queued.
    EnqueueResult enqueue(std::function<void()> task) override;
    // Runs the queued tasks, then joins every thread.
    void shutdown() override;

    // Threads made so far, and those waiting for a task now (for tests of the pool itself).
    std::size_t thread_count() const;
    std::size_t idle_threads() const;

  private:
    void work();

    const std::size_t max_threads_;
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
    std::vector<std::thread> threads_;
    std::size_t idle_ = 0;
    std::size_t made_ = 0;
    bool stopping_ = false;
};

}  // namespace aitk::test
