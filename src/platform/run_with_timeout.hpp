#pragma once
// Runs an in-process call that may never return (a driver library stuck in its init) on its
// own thread and waits at most `timeout`. On timeout the thread is left behind, detached, with
// everything it uses owned by the task itself, and the caller moves on. Private to the layer.
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

namespace aitk::platform::detail {

template <class Fn>
auto run_with_timeout(Fn fn, std::chrono::milliseconds timeout) -> std::optional<decltype(fn())> {
    using T = decltype(fn());
    auto task = std::make_shared<std::packaged_task<T()>>(std::move(fn));
    std::future<T> result = task->get_future();
    std::thread worker([task]() { (*task)(); });
    if (result.wait_for(timeout) == std::future_status::ready) {
        worker.join();
        return result.get();
    }
    worker.detach();
    return std::nullopt;
}

}  // namespace aitk::platform::detail
