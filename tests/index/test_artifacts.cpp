// Artifacts into the cache from a real local HTTP server.
#include "aitk/index/artifacts.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "aitk/fs/hash.hpp"
#include "http_server.hpp"
#include "test_files.hpp"

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using aitk::cache::ArtifactRef;
using aitk::index::fetch_artifacts;

namespace {

class ArtifactsTest : public ::testing::Test {
  protected:
    ArtifactRef serve(const std::string& filename, const std::string& content) {
        server_.add_file("/packages/" + filename, content);
        return {aitk::fs::sha256_hex(content), filename, server_.url("/packages/" + filename)};
    }

    std::size_t staging_files() const {
        std::size_t n = 0;
        fs::path tmp = cache_.temp_dir();
        if (!fs::exists(tmp)) return 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp))
            ++n;
        return n;
    }

    aitk::test::TempDir dir_{"artifacts"};
    fs::path root_ = dir_.path;
    aitk::test::HttpServer server_;
    aitk::cache::Cache cache_{root_ / "cache"};
};

aitk::net::Downloader fast_downloader() {
    aitk::net::DownloaderOptions options;
    options.concurrency = 4;
    return aitk::net::Downloader(options);
}

}  // namespace

TEST_F(ArtifactsTest, DownloadsWhatIsMissingAndReusesWhatIsCached) {
    auto a = serve("a-1.0-py3-none-any.whl", std::string(100000, 'a'));
    auto b = serve("b-2.0-py3-none-any.whl", "bee");
    auto downloader = fast_downloader();

    auto first = fetch_artifacts(cache_, downloader, {a}, false);
    ASSERT_EQ(first.failed, 0u) << first.results[0].error;
    EXPECT_TRUE(first.results[0].downloaded);

    server_.clear_log();
    auto second = fetch_artifacts(cache_, downloader, {a, b}, false);
    ASSERT_EQ(second.failed, 0u);
    EXPECT_FALSE(second.results[0].downloaded);  // from the cache
    EXPECT_TRUE(second.results[1].downloaded);
    EXPECT_TRUE(server_.requests_for("/packages/a-1.0-py3-none-any.whl").empty());
    EXPECT_EQ(aitk::fs::sha256_file_hex(second.results[1].path), b.sha256);
    EXPECT_EQ(second.results[1].path.filename(), "b-2.0-py3-none-any.whl");
    EXPECT_EQ(staging_files(), 0u);
}

TEST_F(ArtifactsTest, AWrongHashKeepsNothingAndSaysWhy) {
    auto good = serve("good-1.0-py3-none-any.whl", "good");
    auto bad = serve("bad-1.0-py3-none-any.whl", "tampered");
    bad.sha256 = aitk::fs::sha256_hex("what the lock says");
    auto downloader = fast_downloader();
    auto fetched = fetch_artifacts(cache_, downloader, {good, bad}, false);
    EXPECT_EQ(fetched.failed, 1u);
    EXPECT_FALSE(fetched.results[0].path.empty());
    EXPECT_TRUE(fetched.results[1].path.empty());
    const std::string& error = fetched.results[1].error;
    EXPECT_NE(error.find("bad-1.0-py3-none-any.whl"), std::string::npos) << error;
    EXPECT_NE(error.find(bad.sha256), std::string::npos) << error;
    EXPECT_NE(error.find(aitk::fs::sha256_hex("tampered")), std::string::npos) << error;
    EXPECT_FALSE(cache_.find_artifact(bad.sha256));
    EXPECT_FALSE(cache_.find_artifact(aitk::fs::sha256_hex("tampered")));
    EXPECT_EQ(staging_files(), 0u);
}

TEST_F(ArtifactsTest, OfflineNeverTouchesTheNetworkAndNamesWhatIsMissing) {
    auto a = serve("a-1.0-py3-none-any.whl", "aaa");
    auto downloader = fast_downloader();
    auto fetched = fetch_artifacts(cache_, downloader, {a}, true);
    EXPECT_EQ(fetched.failed, 1u);
    EXPECT_TRUE(server_.requests().empty());
    EXPECT_NE(fetched.results[0].error.find("a-1.0-py3-none-any.whl"), std::string::npos)
        << fetched.results[0].error;
    EXPECT_NE(fetched.results[0].error.find(a.sha256), std::string::npos);
}

TEST_F(ArtifactsTest, CredentialsNeverReachResultsOrErrors) {
    ArtifactRef missing{aitk::fs::sha256_hex("x"), "gone-1.0-py3-none-any.whl",
                        server_.url_with_credentials("alice", "s3cret-token",
                                                     "/packages/gone-1.0-py3-none-any.whl")};
    auto downloader = fast_downloader();
    auto fetched = fetch_artifacts(cache_, downloader, {missing}, false);
    ASSERT_EQ(fetched.failed, 1u);
    EXPECT_EQ(fetched.results[0].ref.url.find("s3cret-token"), std::string::npos);
    EXPECT_EQ(fetched.results[0].error.find("s3cret-token"), std::string::npos)
        << fetched.results[0].error;
    EXPECT_NE(fetched.results[0].error.find("404"), std::string::npos) << fetched.results[0].error;
}

// fetch_artifacts' on_ready hook: each artifact is announced once, already stored in the cache,
// so a caller can unpack it while the rest downloads.
namespace {

class ArtifactsReadyTest : public ArtifactsTest {};

aitk::net::Downloader downloader() {
    aitk::net::DownloaderOptions options;
    options.concurrency = 4;
    return aitk::net::Downloader(options);
}

class Finishes : public aitk::net::TransferObserver {
  public:
    void on_finish(std::size_t id, const aitk::net::FinishInfo& info) override {
        finished[id] = info.ok;
    }
    std::map<std::size_t, bool> finished;
};

struct Announced {
    std::size_t index;
    fs::path path;
    std::string sha256_then;  // of the file when it was announced
};

}  // namespace

TEST_F(ArtifactsReadyTest, EachArtifactInTheCacheIsAnnouncedOnceAlreadyStored) {
    auto cached = serve("cached-1.0-py3-none-any.whl", "in the cache already");
    auto fresh = serve("fresh-1.0-py3-none-any.whl", std::string(200000, 'f'));
    auto bad = serve("bad-1.0-py3-none-any.whl", "tampered");
    bad.sha256 = aitk::fs::sha256_hex("what the lock says");
    auto d = downloader();
    ASSERT_EQ(fetch_artifacts(cache_, d, {cached}, false).failed, 0u);

    std::vector<Announced> announced;
    Finishes observer;
    auto fetched =
        fetch_artifacts(cache_, d, {fresh, cached, bad}, false, &observer,
                        [&](std::size_t index, const fs::path& path) {
                            announced.push_back({index, path, aitk::fs::sha256_file_hex(path)});
                        });

    ASSERT_EQ(fetched.failed, 1u);
    ASSERT_EQ(announced.size(), 2u);
    // What the cache has is announced before anything downloads.
    EXPECT_EQ(announced[0].index, 1u);
    EXPECT_EQ(announced[0].path, fetched.results[1].path);
    EXPECT_EQ(announced[0].sha256_then, cached.sha256);
    EXPECT_EQ(announced[1].index, 0u);
    EXPECT_EQ(announced[1].path, fetched.results[0].path);
    EXPECT_EQ(announced[1].sha256_then, fresh.sha256);
    EXPECT_EQ(announced[1].path.filename(), "fresh-1.0-py3-none-any.whl");
    EXPECT_TRUE(fetched.results[0].downloaded);
    EXPECT_FALSE(fetched.results[1].downloaded);
    // The caller's observer still hears of every transfer.
    EXPECT_EQ(observer.finished, (std::map<std::size_t, bool>{{0, true}, {1, false}}));
}

TEST_F(ArtifactsReadyTest, AFailedDownloadIsNotAnnouncedAndReportsAsWithoutTheHook) {
    auto bad = serve("bad-1.0-py3-none-any.whl", "tampered");
    bad.sha256 = aitk::fs::sha256_hex("what the lock says");
    auto d = downloader();
    auto plain = fetch_artifacts(cache_, d, {bad}, false);
    std::size_t calls = 0;
    auto hooked = fetch_artifacts(cache_, d, {bad}, false, nullptr,
                                  [&](std::size_t, const fs::path&) { ++calls; });
    EXPECT_EQ(calls, 0u);
    ASSERT_EQ(hooked.failed, 1u);
    EXPECT_TRUE(hooked.results[0].path.empty());
    EXPECT_EQ(hooked.results[0].error, plain.results[0].error);
    EXPECT_FALSE(cache_.find_artifact(bad.sha256));
}

// Storing a download flushes it to disk, and the caller's hook may take its time (it queues an
// unpack): neither may hold up the transfers still in flight, which share one thread.
TEST_F(ArtifactsReadyTest, AnAnnouncementThatWaitsDoesNotHoldUpTheOtherTransfers) {
    auto one = serve("one-1.0-py3-none-any.whl", std::string(300000, '1'));
    auto two = serve("two-1.0-py3-none-any.whl", std::string(300000, '2'));
    auto d = downloader();
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t transfers_finished = 0;
    class CountFinishes : public aitk::net::TransferObserver {
      public:
        explicit CountFinishes(std::function<void()> finished) : finished_(std::move(finished)) {}
        void on_finish(std::size_t, const aitk::net::FinishInfo&) override { finished_(); }

      private:
        std::function<void()> finished_;
    } observer([&] {
        std::lock_guard lock(mutex);
        ++transfers_finished;
        changed.notify_all();
    });
    bool first = true;
    bool other_finished_meanwhile = false;
    auto fetched =
        fetch_artifacts(cache_, d, {one, two}, false, &observer, [&](std::size_t, const fs::path&) {
            if (!first) return;
            first = false;
            // The first one announced waits for the other transfer.
            std::unique_lock lock(mutex);
            other_finished_meanwhile = changed.wait_for(lock, std::chrono::seconds(20),
                                                        [&] { return transfers_finished == 2; });
        });
    EXPECT_TRUE(other_finished_meanwhile)
        << "the second transfer could not finish while the first announcement waited";
    EXPECT_EQ(fetched.failed, 0u);
    EXPECT_TRUE(cache_.find_artifact(one.sha256));
    EXPECT_TRUE(cache_.find_artifact(two.sha256));
}

TEST_F(ArtifactsReadyTest, WhatTheHookThrowsComesBackAfterEveryTransferEnded) {
    auto one = serve("one-1.0-py3-none-any.whl", "one");
    auto two = serve("two-1.0-py3-none-any.whl", "two");
    auto d = downloader();
    std::size_t calls = 0;
    EXPECT_THROW(fetch_artifacts(cache_, d, {one, two}, false, nullptr,
                                 [&](std::size_t, const fs::path&) {
                                     ++calls;
                                     throw std::runtime_error("the unpack queue is closed");
                                 }),
                 std::runtime_error);
    // After the first throw nothing more is announced.
    EXPECT_EQ(calls, 1u);
    EXPECT_EQ(staging_files(), 0u);
}

}  // namespace AITK_FILE_LOCAL
