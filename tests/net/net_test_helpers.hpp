#pragma once
// Shared pieces of the net tests: a clock that records backoff waits instead of sleeping,
// deterministic file contents, and a process environment without proxies.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "aitk/net/clock.hpp"
#include "aitk/net/downloader.hpp"
#include "portable_env.hpp"
#include "test_files.hpp"

namespace aitk::test {

class FakeClock : public net::Clock {
  public:
    time_point now() override { return start_ + elapsed_; }
    void sleep_for(std::chrono::milliseconds duration) override {
        sleeps.push_back(duration);
        elapsed_ += duration;
        if (on_sleep) on_sleep(sleeps.size());
    }

    std::vector<std::chrono::milliseconds> sleeps;
    std::function<void(std::size_t count)> on_sleep;

  private:
    time_point start_ = std::chrono::steady_clock::now();
    std::chrono::milliseconds elapsed_{0};
};

// Options for tests: fixed jitter seed, short timeouts.
inline net::DownloaderOptions test_options(std::size_t concurrency = 4) {
    net::DownloaderOptions options;
    options.concurrency = concurrency;
    options.retry.jitter_seed = 42;
    options.connect_timeout = std::chrono::seconds(5);
    options.low_speed_time = std::chrono::seconds(10);
    return options;
}

inline std::string random_bytes(std::size_t size, unsigned seed) {
    std::mt19937 random(seed);
    std::string out(size, '\0');
    for (auto& c : out)
        c = static_cast<char>(random() & 0xFF);
    return out;
}

// Tests talk to 127.0.0.1 directly; a proxy configured on the machine must not get in the way.
struct NoProxyEnvironment {
    NoProxyEnvironment() {
        for (const char* name :
             {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
              "NO_PROXY", "NETRC", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"}) {
            ::unsetenv(name);
        }
    }
};

}  // namespace aitk::test
