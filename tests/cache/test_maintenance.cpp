#include "aitk/cache/maintenance.hpp"

#include "aitk/cache/tree_stamp.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using namespace aitk::cache;
using namespace std::chrono_literals;

namespace {

class Maintenance : public ::testing::Test {
  protected:
    aitk::fs::TempDir dir_ = aitk::fs::TempDir::create("cache-maint");
    Cache cache_{dir_.path() / "root"};

    std::string add_artifact(const std::string& content, const std::string& name) {
        fs::path p = cache_.staging_path(name);
        aitk::fs::write_file_atomic(p, content);
        std::string sha = aitk::fs::sha256_hex(content);
        cache_.insert_artifact(p, sha, name);
        return sha;
    }

    // The bytes of the record every unpacked tree carries (tree_stamp.hpp).
    std::uint64_t stamp_bytes(const std::string& sha) {
        return fs::file_size(cache_.unpacked_dir(sha) / std::string(tree_stamp_name));
    }

    void add_unpacked(const std::string& sha, const std::string& content) {
        cache_.ensure_unpacked(sha, [&](const fs::path& tree) {
            fs::create_directories(tree / "pkg");
            aitk::fs::write_file_atomic(tree / "pkg" / "mod.py", content);
        });
    }

    void add_http(const std::string& url, std::int64_t stored_at, const std::string& body) {
        HttpEntry e;
        e.url = url;
        e.stored_at = stored_at;
        e.body = body;
        cache_.put_http(e);
    }
};

}  // namespace

TEST_F(Maintenance, InfoCountsEntriesAndBytesPerKind) {
    CacheInfo empty = info(cache_);
    EXPECT_EQ(empty.total_bytes(), 0u);
    EXPECT_EQ(empty.root, cache_.root());

    std::string a = add_artifact(std::string(1000, 'a'), "a-1.0-py3-none-any.whl");
    add_artifact(std::string(500, 'b'), "b-1.0.tar.gz");
    add_unpacked(a, std::string(300, 'x'));
    cache_.put_metadata(a, std::string(40, 'm'));
    add_http("https://x/simple/a/", 1, std::string(70, 'h'));
    aitk::fs::write_file_atomic(cache_.staging_path("partial.whl"), std::string(10, 'p'));

    CacheInfo i = info(cache_);
    EXPECT_EQ(i.artifacts.entries, 2u);
    EXPECT_EQ(i.artifacts.bytes, 1500u);
    EXPECT_EQ(i.unpacked.entries, 1u);
    EXPECT_EQ(i.unpacked.bytes, 300u + stamp_bytes(a));
    EXPECT_EQ(i.metadata.entries, 1u);
    EXPECT_EQ(i.metadata.bytes, 40u);
    EXPECT_EQ(i.http.entries, 1u);
    EXPECT_GT(i.http.bytes, 70u);  // with its header
    EXPECT_EQ(i.temp.entries, 1u);
    EXPECT_EQ(i.temp.bytes, 10u);
    EXPECT_EQ(i.of(Kind::artifacts).bytes, 1500u);
    EXPECT_EQ(i.total_bytes(), 1500u + i.unpacked.bytes + 40u + i.http.bytes + 10u);
}

TEST_F(Maintenance, PruneRemovesOrphansDebrisAndOldResponsesOnly) {
    std::string kept = add_artifact("kept", "kept-1.0-py3-none-any.whl");
    std::string gone = add_artifact("gone", "gone-1.0-py3-none-any.whl");
    add_unpacked(kept, "k");
    add_unpacked(gone, "gone tree");
    const std::uint64_t gone_bytes = 9u + stamp_bytes(gone);
    fs::remove_all(cache_.artifact_dir(gone));  // the user deleted the artifact
    cache_.put_metadata(gone, "Name: gone\n");  // metadata stays useful without the wheel
    aitk::fs::write_file_atomic(cache_.staging_path("torch.whl"), std::string(123, 'p'));
    // Debris of an extraction that crashed beside its destination.
    fs::create_directories(
        aitk::fs::unique_temp_path(cache_.unpacked_dir(kept).parent_path(), "tree") / "x");
    const std::int64_t now = 2'000'000'000;
    add_http("https://x/simple/old/", now - 7200, "old");
    add_http("https://x/simple/new/", now - 60, "new");
    fs::create_directories(cache_.http_file("https://x/simple/bad/").parent_path());
    aitk::fs::write_file_atomic(cache_.http_file("https://x/simple/bad/"), "damaged");

    PruneOptions options;
    options.http_older_than = 3600s;
    options.now = std::chrono::system_clock::time_point(std::chrono::seconds(now));
    PruneReport report = prune(cache_, options);

    EXPECT_EQ(report.removed_unpacked.entries, 1u);
    EXPECT_EQ(report.removed_unpacked.bytes, gone_bytes);
    EXPECT_EQ(report.removed_http.entries, 2u);  // old and damaged
    EXPECT_EQ(report.removed_temp.entries, 2u);
    EXPECT_GE(report.removed_temp.bytes, 123u);
    EXPECT_EQ(report.freed_bytes(), report.removed_unpacked.bytes + report.removed_http.bytes +
                                        report.removed_temp.bytes);

    EXPECT_TRUE(cache_.find_unpacked(kept).has_value());
    EXPECT_FALSE(cache_.find_unpacked(gone).has_value());
    EXPECT_TRUE(cache_.find_artifact(kept).has_value());
    EXPECT_TRUE(cache_.find_metadata(gone).has_value());
    EXPECT_TRUE(cache_.find_http("https://x/simple/new/").has_value());
    EXPECT_FALSE(cache_.find_http("https://x/simple/old/").has_value());
    EXPECT_EQ(info(cache_).temp.entries, 0u);

    // Without an age, responses stay.
    PruneReport again = prune(cache_);
    EXPECT_EQ(again.freed_bytes(), 0u);
    EXPECT_TRUE(cache_.find_http("https://x/simple/new/").has_value());
}

TEST_F(Maintenance, PruneAndCleanWaitForUsersThenGiveUpClearly) {
    add_artifact("x", "x-1.0.tar.gz");
    auto in_use = cache_.hold();
    PruneOptions options;
    options.lock_timeout = 100ms;
    try {
        prune(cache_, options);
        FAIL();
    } catch (const aitk::util::Error& e) {
        EXPECT_NE(std::string(e.what()).find("another aitk-env process"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find(cache_.root().string()), std::string::npos);
    }
    EXPECT_THROW(clean(cache_, {}, 100ms), aitk::util::Error);
    EXPECT_EQ(info(cache_).artifacts.entries, 1u);
    in_use.release();
    EXPECT_NO_THROW(prune(cache_, options));
}

TEST_F(Maintenance, CleanEmptiesTheChosenKinds) {
    std::string a = add_artifact("aaa", "a-1.0-py3-none-any.whl");
    add_unpacked(a, "tree");
    add_http("https://x/simple/a/", 1, "page");

    CacheInfo removed = clean(cache_, {Kind::http});
    EXPECT_EQ(removed.http.entries, 1u);
    EXPECT_EQ(removed.artifacts.entries, 0u);
    EXPECT_TRUE(cache_.find_artifact(a).has_value());
    EXPECT_FALSE(cache_.find_http("https://x/simple/a/").has_value());

    removed = clean(cache_);
    EXPECT_EQ(removed.artifacts.entries, 1u);
    EXPECT_EQ(removed.unpacked.entries, 1u);
    EXPECT_EQ(info(cache_).total_bytes(), 0u);
    EXPECT_TRUE(fs::exists(cache_.lock_file()));  // never deleted: others may wait on it
    // The cache works again right after.
    std::string b = add_artifact("bbb", "b.whl");
    EXPECT_TRUE(cache_.find_artifact(b).has_value());
}

}  // namespace AITK_FILE_LOCAL
