#pragma once
// File bodies hashed on worker threads beside the transfer thread (DownloaderOptions::
// writer_threads > 0). The transfer thread copies libcurl's pieces into buffers of the receive
// buffer's size and writes each full buffer itself, while it is still in its core's cache; the
// buffer then goes to a worker for sha256, user-space work that reads memory from another core
// cheaply. So one stream uses two cores (receive + write, hash) with no extra copy: the buffer
// written is the one hashed. Each file is a BodyStream whose buffers are hashed strictly in order,
// by one worker at a time; a bounded set of buffers keeps memory flat and slows the receiver down
// when the hashing cannot keep up.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "aitk/fs/hash.hpp"
#include "part_file.hpp"

namespace aitk::net::detail {

struct Buffer {
    std::unique_ptr<char[]> data;
    std::size_t size = 0;
};

class BodyStream;

class BodyWriters {
  public:
    // `max_buffers` must exceed the number of streams filling a buffer at the same time.
    BodyWriters(std::size_t threads, std::size_t buffer_bytes, std::size_t max_buffers);
    ~BodyWriters();
    BodyWriters(const BodyWriters&) = delete;
    BodyWriters& operator=(const BodyWriters&) = delete;

    std::size_t buffer_bytes() const noexcept { return buffer_bytes_; }

  private:
    friend class BodyStream;
    Buffer acquire();  // blocks while every buffer is in use
    void release(Buffer buffer);
    void schedule(BodyStream* stream);
    void work();

    const std::size_t buffer_bytes_;
    const std::size_t max_buffers_;
    std::mutex mutex_;
    std::condition_variable work_ready_;
    std::condition_variable buffer_free_;
    std::deque<BodyStream*> ready_;
    std::vector<Buffer> free_;
    std::size_t allocated_ = 0;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

class BodyStream {
  public:
    // `file` and `hash` belong to the transfer; the stream uses them until drain() returns.
    BodyStream(BodyWriters& writers, PartFile& file, fs::Sha256& hash);
    ~BodyStream();  // drains
    BodyStream(const BodyStream&) = delete;
    BodyStream& operator=(const BodyStream&) = delete;

    // Copies the bytes into buffers; a full one is written to the file here and handed to a
    // worker for hashing.
    void append(const char* data, std::size_t size);
    // Writes and hands over a partly filled buffer (at the end of an attempt).
    void flush();
    // Waits until every appended byte is written and hashed; the first write error, if any.
    // Afterwards the caller may use the file and the hash directly.
    std::optional<std::string> drain();
    bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }
    std::string error() const;

  private:
    friend class BodyWriters;
    void run_queue();  // on a worker

    BodyWriters& writers_;
    PartFile& file_;
    fs::Sha256& hash_;
    Buffer current_;  // transfer thread only

    mutable std::mutex mutex_;
    std::condition_variable idle_;
    std::deque<Buffer> queue_;
    bool scheduled_ = false;  // queued for, or being run by, a worker
    std::optional<std::string> error_;
    std::atomic<bool> failed_{false};
};

}  // namespace aitk::net::detail
