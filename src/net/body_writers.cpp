#include "body_writers.hpp"

#include <algorithm>
#include <cstring>

namespace aitk::net::detail {

BodyWriters::BodyWriters(std::size_t threads, std::size_t buffer_bytes, std::size_t max_buffers)
    : buffer_bytes_(std::max<std::size_t>(buffer_bytes, 4096)),
      max_buffers_(std::max<std::size_t>(max_buffers, 2)) {
    threads_.reserve(threads);
    for (std::size_t i = 0; i < threads; ++i)
        threads_.emplace_back([this] { work(); });
}

BodyWriters::~BodyWriters() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto& thread : threads_)
        thread.join();
}

Buffer BodyWriters::acquire() {
    std::unique_lock lock(mutex_);
    buffer_free_.wait(lock, [&] { return !free_.empty() || allocated_ < max_buffers_; });
    if (!free_.empty()) {
        Buffer buffer = std::move(free_.back());
        free_.pop_back();
        return buffer;
    }
    ++allocated_;
    lock.unlock();
    return Buffer{std::make_unique<char[]>(buffer_bytes_), 0};
}

void BodyWriters::release(Buffer buffer) {
    buffer.size = 0;
    {
        std::lock_guard lock(mutex_);
        free_.push_back(std::move(buffer));
    }
    buffer_free_.notify_one();
}

void BodyWriters::schedule(BodyStream* stream) {
    {
        std::lock_guard lock(mutex_);
        ready_.push_back(stream);
    }
    work_ready_.notify_one();
}

void BodyWriters::work() {
    for (;;) {
        BodyStream* stream = nullptr;
        {
            std::unique_lock lock(mutex_);
            work_ready_.wait(lock, [&] { return stopping_ || !ready_.empty(); });
            if (ready_.empty()) return;  // stopping, and nothing left
            stream = ready_.front();
            ready_.pop_front();
        }
        stream->run_queue();
    }
}

BodyStream::BodyStream(BodyWriters& writers, PartFile& file, fs::Sha256& hash)
    : writers_(writers), file_(file), hash_(hash) {}

BodyStream::~BodyStream() {
    drain();
}

void BodyStream::append(const char* data, std::size_t size) {
    const std::size_t capacity = writers_.buffer_bytes();
    while (size > 0) {
        if (!current_.data) current_ = writers_.acquire();
        const std::size_t take = std::min(size, capacity - current_.size);
        std::memcpy(current_.data.get() + current_.size, data, take);
        current_.size += take;
        data += take;
        size -= take;
        if (current_.size == capacity) flush();
    }
}

void BodyStream::flush() {
    if (!current_.data) return;
    if (current_.size == 0) {
        writers_.release(std::move(current_));
        current_ = Buffer{};
        return;
    }
    // Written here, where the bytes were just copied and are still in this core's cache (the
    // kernel's copy into the page cache from memory last written on another core cost 2-4x);
    // only the hashing, user-space work that streams well across cores, goes to a worker.
    if (!failed()) {
        std::optional<std::string> problem;
        try {
            problem = file_.write(current_.data.get(), current_.size);
        } catch (const std::exception& error) {
            problem = error.what();
        }
        if (problem) {
            std::lock_guard lock(mutex_);
            error_ = std::move(problem);
            failed_.store(true);
        }
    }
    if (failed()) {
        // After a write error the rest is dropped: the transfer fails with that error.
        writers_.release(std::move(current_));
        current_ = Buffer{};
        return;
    }
    bool start_worker = false;
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(current_));
        start_worker = !scheduled_;
        scheduled_ = true;
    }
    current_ = Buffer{};
    if (start_worker) writers_.schedule(this);
}

std::optional<std::string> BodyStream::drain() {
    flush();
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return !scheduled_; });
    return error_;
}

std::string BodyStream::error() const {
    std::lock_guard lock(mutex_);
    return error_.value_or(std::string());
}

void BodyStream::run_queue() {
    for (;;) {
        Buffer buffer;
        {
            std::lock_guard lock(mutex_);
            if (queue_.empty()) {
                scheduled_ = false;
                idle_.notify_all();
                return;
            }
            buffer = std::move(queue_.front());
            queue_.pop_front();
        }
        if (!failed()) {
            try {
                hash_.update(buffer.data.get(), buffer.size);
            } catch (const std::exception& error) {
                std::lock_guard lock(mutex_);
                error_ = error.what();
                failed_.store(true);
            }
        }
        writers_.release(std::move(buffer));
    }
}

}  // namespace aitk::net::detail
