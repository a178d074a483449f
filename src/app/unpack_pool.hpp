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
// of last, alone. After a failure nothing more starts; finish() rethrows the first one.
class UnpackPool {
  public:
    UnpackPool(std::size_t threads, std::function<void(std::size_t)> task)
        : task_(std::move(task)) {
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
                wake_.wait(lock, [&] { return closed_ || !ready_.empty(); });
                if (ready_.empty() || failure_) return;
                index = ready_.top().second;
                ready_.pop();
            }
            try {
                task_(index);
            } catch (...) {
                std::lock_guard lock(mutex_);
                if (!failure_) failure_ = std::current_exception();
            }
        }
    }

    std::function<void(std::size_t)> task_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::priority_queue<std::pair<std::uintmax_t, std::size_t>> ready_;
    bool closed_ = false;
    std::exception_ptr failure_;
    std::vector<std::thread> threads_;
};

}  // namespace aitk::app
