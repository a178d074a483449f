#include "aitk/net/clock.hpp"

#include <thread>

namespace aitk::net {
namespace {

class SteadyClock final : public Clock {
  public:
    time_point now() override { return std::chrono::steady_clock::now(); }
    void sleep_for(std::chrono::milliseconds duration) override {
        std::this_thread::sleep_for(duration);
    }
};

}  // namespace

std::shared_ptr<Clock> system_clock() {
    static const auto clock = std::make_shared<SteadyClock>();
    return clock;
}

}  // namespace aitk::net
