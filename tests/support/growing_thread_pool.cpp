#include "growing_thread_pool.hpp"

#include <algorithm>
#include <utility>

namespace aitk::test {

GrowingThreadPool::GrowingThreadPool(std::size_t max_threads)
    : max_threads_(std::max<std::size_t>(1, max_threads)) {}

GrowingThreadPool::~GrowingThreadPool() {
    shutdown();
}

GrowingThreadPool::EnqueueResult GrowingThreadPool::enqueue(std::function<void()> task) {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
    // Idle threads take the queued tasks first; a new thread is made only for a task that no
    // idle thread will take.
    if (tasks_.size() > idle_ && threads_.size() < max_threads_ && !stopping_) {
        threads_.emplace_back([this] { work(); });
        ++made_;
    }
    ready_.notify_one();
    return static_cast<EnqueueResult>(true);  // `true`, or nothing for httplib's void enqueue
}

void GrowingThreadPool::work() {
    std::unique_lock lock(mutex_);
    for (;;) {
        ++idle_;
        ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        --idle_;
        if (tasks_.empty()) return;  // stopping, nothing left
        auto task = std::move(tasks_.front());
        tasks_.pop_front();
        lock.unlock();
        task();
        lock.lock();
    }
}

void GrowingThreadPool::shutdown() {
    std::vector<std::thread> threads;
    {
        std::lock_guard lock(mutex_);
        if (stopping_ && threads_.empty()) return;
        stopping_ = true;
        threads.swap(threads_);
    }
    ready_.notify_all();
    for (auto& thread : threads)
        thread.join();
}

std::size_t GrowingThreadPool::thread_count() const {
    std::lock_guard lock(mutex_);
    return made_;
}

std::size_t GrowingThreadPool::idle_threads() const {
    std::lock_guard lock(mutex_);
    return idle_;
}

}  // namespace aitk::test
