#pragma once
// The one small parallel-for of the tree, for loops bound by the CPU or the disk (checking the
// RECORDs of a prefix, hashing its files, compiling bytecode): a few threads take the indexes
// in order, the calling thread among them. Work that starts as other work finishes (unpacking
// as downloads land) needs a queue instead and does not belong here.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace aitk::util {

// Threads for `tasks` tasks: `wanted`, or when 0 one per core and at least two (one of them is
// often waiting on the disk); never more than there are tasks, never none.
inline std::size_t worker_count(std::size_t wanted, std::size_t tasks) {
    const std::size_t n =
        wanted != 0 ? wanted : std::max<std::size_t>(2, std::thread::hardware_concurrency());
    return std::max<std::size_t>(1, std::min(n, tasks));
}

// Runs `task(i)` for every i in [0, count) on worker_count(threads, count) threads. After a
// task throws no new one starts; the first exception is rethrown once every thread stopped.
template <class Task>
void parallel_for(std::size_t count, std::size_t threads, const Task& task) {
    if (count == 0) return;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto worker = [&] {
        for (std::size_t i = next.fetch_add(1); i < count && !failed; i = next.fetch_add(1)) {
            try {
                task(i);
            } catch (...) {
                std::lock_guard lock(failure_mutex);
                if (!failure) failure = std::current_exception();
                failed = true;
            }
        }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < worker_count(threads, count); ++t)
        pool.emplace_back(worker);
    worker();
    for (auto& t : pool)
        t.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace aitk::util
