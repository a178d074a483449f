#pragma once
// Cache writes off the critical path. Every page and core-metadata file a lock fetches is stored
// in the cache, and each store is a write, an fsync and a rename (~2 ms on a VM disk, 243 of
// them for a 121-package lock): done in line, they stood between one batch of requests and
// the next. Here they run on a few threads of their own, in parallel with each other (fsyncs
// overlap) and with the resolution; what is still queued when the owner goes away is written
// before the destructor returns, so a finished lock leaves a complete cache. Tasks must catch
// their own exceptions (a cache that cannot be written only costs a later fetch).
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace aitk::index {

class WriteBehind {
  public:
    explicit WriteBehind(unsigned threads = 8) : threads_(threads == 0 ? 1 : threads) {}
    ~WriteBehind() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (auto& worker : workers_)
            worker.join();
    }
    WriteBehind(const WriteBehind&) = delete;
    WriteBehind& operator=(const WriteBehind&) = delete;

    void post(std::function<void()> task) {
        {
            std::lock_guard lock(mutex_);
            queue_.push_back(std::move(task));
            // Threads start on first use: a client that writes nothing starts none.
            if (workers_.size() < threads_ && workers_.size() < queue_.size() + busy_) {
                workers_.emplace_back([this] { run(); });
            }
        }
        wake_.notify_one();
    }

  private:
    void run() {
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stopping, and nothing left to write
            auto task = std::move(queue_.front());
            queue_.pop_front();
            ++busy_;
            lock.unlock();
            try {
                task();
            } catch (...) {
            }
            lock.lock();
            --busy_;
        }
    }

    const unsigned threads_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> queue_;
    std::vector<std::thread> workers_;
    std::size_t busy_ = 0;
    bool stopping_ = false;
};

}  // namespace aitk::index
