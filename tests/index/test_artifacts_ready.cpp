// fetch_artifacts' on_ready hook, against a real local HTTP server: each artifact is announced
// once, already stored in the cache, so a caller can unpack it while the rest downloads.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <thread>
#include <vector>

#include "aitk/fs/hash.hpp"
#include "aitk/index/artifacts.hpp"
#include "http_server.hpp"

namespace fs = std::filesystem;
using aitk::cache::ArtifactRef;
using aitk::index::fetch_artifacts;

namespace {

class ArtifactsReadyTest : public ::testing::Test {
  protected:
    static fs::path fresh_root() {
        fs::path root =
            fs::temp_directory_path() /
            ("aitk-artifacts-ready-" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(root);
        fs::create_directories(root);
        return root;
    }
    void TearDown() override { fs::remove_all(root_); }

    ArtifactRef serve(const std::string& filename, const std::string& content) {
        server_.add_file("/packages/" + filename, content);
        return {aitk::fs::sha256_hex(content), filename, server_.url("/packages/" + filename)};
    }

    fs::path root_ = fresh_root();
    aitk::test::HttpServer server_;
    aitk::cache::Cache cache_{root_ / "cache"};
};

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
