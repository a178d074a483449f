#pragma once
// The pool sync unpacks wheels on while the others still download: unlike util::parallel_for
// its work arrives over time (as each download lands), and the largest ready wheel goes first.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <utility>
#include <vector>

namespace aitk::app {

// Runs `task(i)` on a few threads for each index added, as soon as a thread is free, the
// largest ready one first: a big wheel then starts unpacking as soon as it is there instead
// of last, alone. At most limit() tasks run at once (set_limit: fewer while downloads still
// need a core). After a failure nothing more starts; finish() rethrows the first one.
class UnpackPool {
  public:
    UnpackPool(std::size_t threads, std::function<void(std::size_t)> task)
        : task_(std::move(task)), limit_(threads) {
        for (std::size_t t = 0; t < threads; ++t)
            threads_.emplace_back([this] { work(); });
    }
    UnpackPool(const UnpackPool&) = delete;
    UnpackPool& operator=(const UnpackPool&) = delete;
    ~UnpackPool() { stop(true); }

    void add(std::size_t index, std::uintmax_t size) {
        {
            std::lock_guard lock(mutex_);
            ready_.emplace(size, index);
        }
        wake_.notify_one();
    }

    // How many tasks may run at once from now on (at least one; more than the threads are
    // never running).
    void set_limit(std::size_t limit) {
        {
            std::lock_guard lock(mutex_);
            limit_ = limit > 0 ? limit : 1;
        }
        wake_.notify_all();
    }

    std::size_t limit() const {
        std::lock_guard lock(mutex_);
        return limit_;
    }

    // Waits for every added task.
    void finish() {
        stop(false);
        if (failure_) std::rethrow_exception(failure_);
    }

  private:
    void stop(bool drop_queued) {
        {
            std::lock_guard lock(mutex_);
            closed_ = true;
            if (drop_queued) ready_ = {};
        }
        wake_.notify_all();
        for (auto& t : threads_)
            if (t.joinable()) t.join();
    }

    void work() {
        for (;;) {
            std::size_t index = 0;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] {
                    return failure_ || (closed_ && ready_.empty()) ||
                           (!ready_.empty() && busy_ < limit_);
                });
                if (ready_.empty() || failure_) return;
                index = ready_.top().second;
                ready_.pop();
                ++busy_;
            }
            try {
                task_(index);
            } catch (...) {
                std::lock_guard lock(mutex_);
                if (!failure_) failure_ = std::current_exception();
            }
            {
                std::lock_guard lock(mutex_);
                --busy_;
            }
            wake_.notify_all();
        }
    }

    std::function<void(std::size_t)> task_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::priority_queue<std::pair<std::uintmax_t, std::size_t>> ready_;
    std::size_t limit_;
    std::size_t busy_ = 0;
    bool closed_ = false;
    std::exception_ptr failure_;
    std::vector<std::thread> threads_;
};

}  // namespace aitk::app
