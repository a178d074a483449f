// Artifacts into the cache from a real local HTTP server.
#include "aitk/index/artifacts.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "aitk/fs/hash.hpp"
#include "http_server.hpp"

namespace fs = std::filesystem;
using aitk::cache::ArtifactRef;
using aitk::index::fetch_artifacts;

namespace {

class ArtifactsTest : public ::testing::Test {
  protected:
    static fs::path fresh_root() {
        fs::path root =
            fs::temp_directory_path() /
            ("aitk-artifacts-" +
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

    std::size_t staging_files() const {
        std::size_t n = 0;
        fs::path tmp = cache_.temp_dir();
        if (!fs::exists(tmp)) return 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp))
            ++n;
        return n;
    }

    fs::path root_ = fresh_root();
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
