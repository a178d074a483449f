#include "aitk/app/progress.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace AITK_FILE_LOCAL {

using namespace aitk::app;
using namespace std::chrono_literals;

namespace {

// A clock the test moves by hand.
struct FakeClock {
    std::chrono::steady_clock::time_point now{};
    DownloadProgress::Clock fn() {
        return [this] { return now; };
    }
};

aitk::net::TransferInfo file(std::size_t id, const std::string& name) {
    aitk::net::TransferInfo info;
    info.id = id;
    info.url = "https://files.example/packages/" + name + "?token=x";
    return info;
}

}  // namespace

TEST(Progress, StyleFollowsTerminalAndFlags) {
    EXPECT_EQ(choose_progress_style(true, false, false), ProgressStyle::bar);
    EXPECT_EQ(choose_progress_style(false, false, false), ProgressStyle::lines);
    EXPECT_EQ(choose_progress_style(true, false, true), ProgressStyle::lines);
    EXPECT_EQ(choose_progress_style(true, true, false), ProgressStyle::quiet);
}

TEST(Progress, LinesModeLogsEachTransferAndASummary) {
    std::ostringstream out;
    FakeClock clock;
    DownloadProgress p(out, ProgressStyle::lines, 2, 3 * 1024 * 1024, clock.fn());
    p.on_start(file(0, "torch-2.7.0-cp312-cp312-linux_x86_64.whl"));
    p.on_start(file(1, "numpy-2.0.0.tar.gz"));
    p.on_progress(0, 2 * 1024 * 1024, {});
    aitk::net::RetryInfo retry;
    retry.attempt = 1;
    retry.delay = 1500ms;
    retry.reason = "HTTP 503 Service Unavailable";
    retry.resuming = true;
    p.on_retry(1, retry);
    p.on_progress(1, 1024 * 1024, {});
    p.on_finish(0, {true, 2 * 1024 * 1024, 1, ""});
    p.on_finish(1, {false, 1024 * 1024, 3, "HTTP 503 Service Unavailable after 3 attempts"});
    clock.now += 2s;
    p.finish();
    std::string text = out.str();
    EXPECT_EQ(text.find('\r'), std::string::npos);  // no terminal control in a log
    EXPECT_NE(text.find("retrying numpy-2.0.0.tar.gz after attempt 1: HTTP 503 Service "
                        "Unavailable (next in 1.5 s, resuming)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("fetched torch-2.7.0-cp312-cp312-linux_x86_64.whl (2.0 MiB)"),
              std::string::npos);
    EXPECT_NE(text.find("failed numpy-2.0.0.tar.gz: HTTP 503"), std::string::npos);
    EXPECT_NE(text.find("2 files, 3.0 MiB in 2.0 s (1.5 MiB/s), 1 failed"), std::string::npos)
        << text;
}

TEST(Progress, BarShowsFilesBytesRateAndEtaAndThrottlesRedraws) {
    std::ostringstream out;
    FakeClock clock;
    DownloadProgress p(out, ProgressStyle::bar, 4, 400 * 1024 * 1024, clock.fn());
    p.on_start(file(0, "a.whl"));
    clock.now += 1s;
    p.on_progress(0, 100 * 1024 * 1024, {});
    std::string first = out.str();
    EXPECT_NE(
        first.find(
            "[======>                 ] 0/4 files  100.0 MiB/400.0 MiB  100.0 MiB/s  ETA 0:03"),
        std::string::npos)
        << first;
    // Within 100 ms nothing is redrawn.
    clock.now += 10ms;
    p.on_progress(0, 101 * 1024 * 1024, {});
    EXPECT_EQ(out.str(), first);
    clock.now += 1s;
    p.on_progress(0, 300 * 1024 * 1024, {});
    EXPECT_NE(out.str().find("[==================>     ] 0/4 files  300.0 MiB/400.0 MiB"),
              std::string::npos)
        << out.str();
    p.finish();
    // The bar is cleared and the summary stands on its own line at the end.
    std::string text = out.str();
    EXPECT_EQ(text.back(), '\n');
    EXPECT_NE(text.find("\r\x1b[2K0 files, 300.0 MiB in 2.0 s"), std::string::npos) << text;
}

TEST(Progress, QuietPrintsNothing) {
    std::ostringstream out;
    DownloadProgress p(out, ProgressStyle::quiet, 1, 10);
    p.on_start(file(0, "a.whl"));
    p.on_progress(0, 10, {});
    p.on_finish(0, {true, 10, 1, ""});
    p.finish();
    EXPECT_EQ(out.str(), "");
}

TEST(Progress, RestartedBodiesDoNotDoubleCount) {
    std::ostringstream out;
    FakeClock clock;
    DownloadProgress p(out, ProgressStyle::lines, 1, 0, clock.fn());
    p.on_start(file(0, "a.whl"));
    p.on_progress(0, 500, {});
    p.on_progress(0, 100, {});  // the server ignored Range: the body starts again
    p.on_progress(0, 1000, {});
    p.on_finish(0, {true, 1000, 2, ""});
    clock.now += 1s;
    p.finish();
    EXPECT_NE(out.str().find("1 file, 1000 B in 1.0 s"), std::string::npos) << out.str();
}

}  // namespace AITK_FILE_LOCAL
