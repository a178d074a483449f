#pragma once
// Pieces shared by the index layer's end-to-end tests: a clock that does not sleep, downloader
// options for tests, no proxies from the environment, and a server that ignores Range headers
// (old mirrors and some CDNs do), which the fault-injecting test server cannot be made to do.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "portable_env.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/net/clock.hpp"
#include "aitk/net/options.hpp"
#include "http_server.hpp"
#include "mirror_builder.hpp"

namespace aitk::test {

class InstantClock : public net::Clock {
  public:
    time_point now() override { return start_ + elapsed_; }
    void sleep_for(std::chrono::milliseconds duration) override { elapsed_ += duration; }

  private:
    time_point start_ = std::chrono::steady_clock::now();
    std::chrono::milliseconds elapsed_{0};
};

inline net::DownloaderOptions index_test_options(std::size_t concurrency = 8) {
    net::DownloaderOptions options;
    options.concurrency = concurrency;
    options.retry.jitter_seed = 7;
    options.retry.max_attempts = 2;
    options.connect_timeout = std::chrono::seconds(5);
    options.low_speed_time = std::chrono::seconds(10);
    return options;
}

// Tests talk to 127.0.0.1 directly; a proxy configured on the machine must not get in the way.
struct ClearProxyEnvironment {
    ClearProxyEnvironment() {
        for (const char* name : {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy",
                                 "ALL_PROXY", "no_proxy", "NO_PROXY", "NETRC"}) {
            ::unsetenv(name);
        }
    }
};

inline std::string slurp_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// Serves a folder over HTTP and always answers 200 with the whole file, Range or not.
class NoRangeServer {
  public:
    explicit NoRangeServer(std::filesystem::path root) : root_(std::move(root)) {
        server_.Get(R"(/.*)", [this](const httplib::Request& request, httplib::Response& response) {
            // httplib would otherwise slice the body to the requested range itself.
            const_cast<httplib::Request&>(request).ranges.clear();
            ++requests_;
            std::string relative = request.path.substr(1);
            if (relative.empty() || relative.back() == '/') relative += "index.html";
            const auto file = root_ / relative;
            std::error_code ec;
            if (relative.find("..") != std::string::npos ||
                !std::filesystem::is_regular_file(file, ec)) {
                response.status = 404;
                response.set_content("not found\n", "text/plain");
                return;
            }
            std::string body = slurp_file(file);
            bytes_ += body.size();
            const bool html = file.extension() == ".html";
            response.set_content(std::move(body),
                                 html ? "text/html; charset=utf-8" : "application/octet-stream");
        });
        // One request per connection: stop() would otherwise wait out idle keep-alive clients.
        server_.set_keep_alive_max_count(1);
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
    }
    ~NoRangeServer() {
        server_.stop();
        thread_.join();
    }
    NoRangeServer(const NoRangeServer&) = delete;
    NoRangeServer& operator=(const NoRangeServer&) = delete;

    std::string url(std::string_view path) const {
        return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
    }
    int requests() const { return requests_.load(); }
    std::uint64_t bytes_offered() const { return bytes_.load(); }

  private:
    std::filesystem::path root_;
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
    std::atomic<int> requests_{0};
    std::atomic<std::uint64_t> bytes_{0};
};

// A suite over the torch-like mirror, built once per suite (it holds a few hundred real
// wheels) and served by a fresh local server for every test.
class TorchMirrorTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        mirror_dir = new fs::TempDir(fs::TempDir::create("aitk-index-mirror"));
        scenario = new TorchScenario(build_torch_like_scenario(mirror_dir->path()));
    }
    static void TearDownTestSuite() {
        delete scenario;
        delete mirror_dir;
    }
    void SetUp() override { server.serve_directory(scenario->root); }

    static inline fs::TempDir* mirror_dir = nullptr;
    static inline TorchScenario* scenario = nullptr;
    HttpServer server;
    std::shared_ptr<InstantClock> clock = std::make_shared<InstantClock>();
};

}  // namespace aitk::test
