// The HTTP knobs (AITK_ENV_HTTP_RETRIES / _TIMEOUT / _RETRY_DELAY_MS, --concurrency, --cert)
// travel in NetworkSettings, and every downloader app builds comes from downloader_options():
// the mapping itself, and the standalone-Python download of setup, which once built its
// downloader apart and dropped them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aitk/app/lock.hpp"
#include "aitk/app/python_cmd.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"
#include "app_calls.hpp"
#include "http_server.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

TEST(DownloaderOptions, CarryEveryKnobOfTheSettings) {
    NetworkSettings network;
    network.concurrency = 3;
    network.cert = "/etc/ca.pem";
    network.retries = 2;
    network.timeout = std::chrono::seconds(7);
    network.retry_delay = std::chrono::milliseconds(40);
    const auto options = downloader_options(network);
    EXPECT_EQ(options.concurrency, 3u);
    EXPECT_EQ(options.ca_file, std::filesystem::path("/etc/ca.pem"));
    EXPECT_EQ(options.retry.max_attempts, 3);
    EXPECT_EQ(options.connect_timeout, std::chrono::milliseconds(7'000));
    EXPECT_EQ(options.low_speed_time, std::chrono::seconds(7));
    EXPECT_EQ(options.retry.initial_backoff, std::chrono::milliseconds(40));
    EXPECT_EQ(options.reachability, network.reachability);
    EXPECT_EQ(options.unreachable_hint, unreachable_hint());
}

TEST(DownloaderOptions, UnsetKnobsKeepTheDownloadersOwn) {
    const auto options = downloader_options(NetworkSettings{});
    const net::DownloaderOptions own;
    EXPECT_EQ(options.retry.max_attempts, own.retry.max_attempts);
    EXPECT_EQ(options.connect_timeout, own.connect_timeout);
    EXPECT_EQ(options.retry.initial_backoff, own.retry.initial_backoff);
}

// ensure_python's standalone download tries 1 + retries times, without waiting between tries
// (before the fix: the downloader's own five tries, half a second apart and more).
TEST(DownloaderOptions, ReachTheStandalonePythonDownload) {
    auto work = fs::TempDir::create("aitk-knobs");
    test::HttpServer server;
    server.add_file("/cpython.tar.gz", "never served");
    server.set_fault("/cpython.tar.gz", test::Fault::http_status(503, 1000));
    std::vector<python::StandaloneBuild> table = {{"cpython", "3.12.1", "20260814", "linux",
                                                   "x86_64", "gnu", server.url("/cpython.tar.gz"),
                                                   std::string(64, 'a')}};
    test::PythonCall options;
    options.cache_root = work.path() / "cache";
    options.environment = {{"PATH", (work.path() / "bin").string()},
                           {"HOME", (work.path() / "home").string()}};
    options.builds = &table;
    options.platform = python::StandalonePlatform{"linux", "x86_64", "gnu"};
    options.system_dirs = std::vector<std::filesystem::path>{};
    options.network.retries = 1;
    options.network.retry_delay = std::chrono::milliseconds(0);
    EXPECT_THROW((void)ensure_python(options, "3.12"), util::Error);
    EXPECT_EQ(server.requests_for("/cpython.tar.gz").size(), 2u);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
