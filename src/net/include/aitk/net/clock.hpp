#pragma once
// Time as the downloader sees it. Backoff waits go through Clock::sleep_for, so tests inject a
// clock that records the requested waits and advances instantly instead of sleeping.
#include <chrono>
#include <memory>

namespace aitk::net {

class Clock {
  public:
    using time_point = std::chrono::steady_clock::time_point;
    virtual ~Clock() = default;
    virtual time_point now() = 0;
    // Called only when no transfer is running and the next retry is `duration` away.
    virtual void sleep_for(std::chrono::milliseconds duration) = 0;
};

// The real steady clock and std::this_thread::sleep_for.
std::shared_ptr<Clock> system_clock();

}  // namespace aitk::net
