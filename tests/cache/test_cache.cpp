#include "aitk/cache/cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"

namespace AITK_FILE_LOCAL {

namespace fs = std::filesystem;
using aitk::cache::Cache;

namespace {

class CacheTest : public ::testing::Test {
  protected:
    aitk::fs::TempDir dir_ = aitk::fs::TempDir::create("cache-test");
    Cache cache_{dir_.path() / "root"};

    // A finished "download" in the cache's staging area.
    fs::path staged(const std::string& name, const std::string& content) {
        fs::path p = cache_.staging_path(name);
        aitk::fs::write_file_atomic(p, content);
        return p;
    }

    std::size_t files_under(const fs::path& p) {
        std::size_t n = 0;
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(p, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (it->is_regular_file()) ++n;
        }
        return n;
    }
};

const std::string wheel_bytes = "PK fake wheel bytes";
const std::string wheel_sha = aitk::fs::sha256_hex(wheel_bytes);
const std::string wheel_name = "torch-2.9.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl";

}  // namespace

TEST_F(CacheTest, LayoutIsVersionedAndSharded) {
    const std::string h = "ab" + std::string(62, 'c');
    fs::path base = dir_.path() / "root" / "v1";
    EXPECT_EQ(cache_.base(), base);
    EXPECT_EQ(cache_.artifact_dir(h), base / "artifacts/sha256/ab" / std::string(62, 'c'));
    EXPECT_EQ(cache_.artifact_dir("AB" + std::string(62, 'C')), cache_.artifact_dir(h));
    EXPECT_EQ(cache_.unpacked_dir(h), base / "unpacked/sha256/ab" / std::string(62, 'c'));
    EXPECT_EQ(cache_.metadata_file(h),
              base / "metadata/sha256/ab" / (std::string(62, 'c') + ".metadata"));
    std::string url_hash = aitk::fs::sha256_hex("https://pypi.org/simple/numpy/");
    EXPECT_EQ(cache_.http_file("https://pypi.org/simple/numpy/"),
              base / "http" / url_hash.substr(0, 2) / (url_hash.substr(2) + ".http"));
    // The key is the URL without credentials.
    EXPECT_EQ(cache_.http_file("https://me:pw@pypi.org/simple/numpy/"),
              cache_.http_file("https://pypi.org/simple/numpy/"));
    EXPECT_FALSE(fs::exists(dir_.path() / "root"));  // nothing created by looking
}

TEST_F(CacheTest, BadDigestsAndFileNamesAreRefused) {
    EXPECT_THROW(cache_.artifact_dir("abc"), aitk::util::InputError);
    EXPECT_THROW(cache_.artifact_dir(std::string(64, 'g')), aitk::util::InputError);
    for (const char* name : {"../evil.whl", "a/b.whl", "a\\b.whl", "..", "", "C:x.whl"}) {
        fs::path p = staged("x", wheel_bytes);
        EXPECT_THROW(cache_.insert_artifact(p, wheel_sha, name), aitk::util::InputError) << name;
    }
    EXPECT_FALSE(fs::exists(dir_.path() / "evil.whl"));
}

TEST_F(CacheTest, InsertVerifiesThenStoresAndFinds) {
    EXPECT_FALSE(cache_.find_artifact(wheel_sha).has_value());
    fs::path temp = staged(wheel_name, wheel_bytes);
    fs::path stored = cache_.insert_artifact(temp, wheel_sha, wheel_name);
    EXPECT_EQ(stored, cache_.artifact_dir(wheel_sha) / wheel_name);
    EXPECT_EQ(aitk::fs::read_file(stored), wheel_bytes);
    EXPECT_FALSE(fs::exists(temp));
    EXPECT_EQ(cache_.find_artifact(wheel_sha, wheel_name), stored);
    EXPECT_EQ(cache_.find_artifact(wheel_sha), stored);
    EXPECT_EQ(cache_.find_artifact(wheel_sha, "other-name.whl"), stored);  // same bytes
    EXPECT_TRUE(cache_.verify_artifact(wheel_sha));
    EXPECT_EQ(files_under(cache_.temp_dir()), 0u);

    // Inserting the same content again keeps the entry and drops the new file.
    fs::path again = staged(wheel_name, wheel_bytes);
    EXPECT_EQ(cache_.insert_artifact(again, wheel_sha, wheel_name), stored);
    EXPECT_FALSE(fs::exists(again));
    // Under a second name it is added beside the first.
    fs::path renamed = staged("x", wheel_bytes);
    fs::path second = cache_.insert_artifact(renamed, wheel_sha, "torch-alias.whl");
    EXPECT_EQ(second.parent_path(), stored.parent_path());
    EXPECT_EQ(cache_.find_artifact(wheel_sha, "torch-alias.whl"), second);
}

TEST_F(CacheTest, MismatchDiscardsTheFileAndSaysBothDigests) {
    fs::path temp = staged(wheel_name, "tampered bytes");
    std::string actual = aitk::fs::sha256_hex("tampered bytes");
    try {
        cache_.insert_artifact(temp, wheel_sha, wheel_name, std::nullopt,
                               "https://user:pw@download.example/whl/" + wheel_name);
        FAIL() << "expected a mismatch";
    } catch (const aitk::util::Error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("sha256 mismatch"), std::string::npos) << what;
        EXPECT_NE(what.find(wheel_sha), std::string::npos) << what;
        EXPECT_NE(what.find(actual), std::string::npos) << what;
        EXPECT_NE(what.find("https://download.example/whl/"), std::string::npos) << what;
        EXPECT_EQ(what.find("pw"), std::string::npos) << "credentials leaked: " << what;
    }
    EXPECT_FALSE(fs::exists(temp));
    EXPECT_FALSE(cache_.find_artifact(wheel_sha).has_value());
    EXPECT_FALSE(fs::exists(cache_.artifact_dir(wheel_sha)));
}

TEST_F(CacheTest, StreamedDigestIsTrustedInsteadOfRereading) {
    fs::path temp = staged(wheel_name, wheel_bytes);
    // The digest computed while downloading says it differs: refused without reading.
    EXPECT_THROW(cache_.insert_artifact(temp, wheel_sha, wheel_name, std::string(64, '0')),
                 aitk::util::Error);
    EXPECT_FALSE(fs::exists(temp));
    fs::path ok = staged(wheel_name, wheel_bytes);
    EXPECT_TRUE(fs::exists(cache_.insert_artifact(ok, wheel_sha, wheel_name, wheel_sha)));
}

TEST_F(CacheTest, ImportCopiesAndKeepsTheSource) {
    fs::path source = dir_.path() / "find-links" / wheel_name;
    fs::create_directories(source.parent_path());
    aitk::fs::write_file_atomic(source, wheel_bytes);
    fs::path stored = cache_.import_artifact(source, wheel_sha, wheel_name);
    EXPECT_TRUE(fs::exists(source));
    EXPECT_EQ(aitk::fs::read_file(stored), wheel_bytes);
    EXPECT_EQ(cache_.import_artifact(source, wheel_sha, wheel_name), stored);
    EXPECT_THROW(cache_.import_artifact(source, std::string(64, 'a'), wheel_name),
                 aitk::util::Error);
    EXPECT_EQ(files_under(cache_.temp_dir()), 0u);
}

TEST_F(CacheTest, VerifyNoticesDamageOnDisk) {
    fs::path stored = cache_.insert_artifact(staged("a", wheel_bytes), wheel_sha, wheel_name);
    fs::permissions(stored, fs::perms::owner_write, fs::perm_options::add);
    aitk::fs::write_file_atomic(stored, "bit rot");
    EXPECT_FALSE(cache_.verify_artifact(wheel_sha));
    EXPECT_FALSE(cache_.verify_artifact(std::string(64, 'e')));
}

TEST_F(CacheTest, UnpackedTreeIsMadeOnceAndAppearsWhole) {
    int calls = 0;
    auto fill = [&](const fs::path& tree) {
        ++calls;
        EXPECT_FALSE(fs::exists(tree));
        fs::create_directories(tree / "torch");
        aitk::fs::write_file_atomic(tree / "torch" / "__init__.py", "");
    };
    EXPECT_FALSE(cache_.find_unpacked(wheel_sha).has_value());
    fs::path tree = cache_.ensure_unpacked(wheel_sha, fill).path();
    EXPECT_EQ(tree, cache_.unpacked_dir(wheel_sha));
    EXPECT_TRUE(fs::exists(tree / "torch" / "__init__.py"));
    EXPECT_EQ(cache_.ensure_unpacked(wheel_sha, fill).path(), tree);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(cache_.find_unpacked(wheel_sha), tree);
}

TEST_F(CacheTest, FailedUnpackLeavesNothing) {
    auto failing = [](const fs::path& tree) {
        fs::create_directories(tree / "half");
        aitk::fs::write_file_atomic(tree / "half" / "a.py", "");
        throw std::runtime_error("hostile wheel");
    };
    EXPECT_THROW(cache_.ensure_unpacked(wheel_sha, failing), std::runtime_error);
    EXPECT_FALSE(cache_.find_unpacked(wheel_sha).has_value());
    EXPECT_EQ(files_under(cache_.temp_dir()), 0u);
    EXPECT_THROW(cache_.ensure_unpacked(wheel_sha, [](const fs::path&) {}), aitk::util::Error);
}

TEST_F(CacheTest, ThreadsAskingForOneTreeUnpackItOnce) {
    std::atomic<int> calls{0};
    std::vector<std::thread> threads;
    std::vector<fs::path> results(8);
    for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&, i] {
            results[i] =
                cache_
                    .ensure_unpacked(wheel_sha,
                                     [&](const fs::path& tree) {
                                         ++calls;
                                         fs::create_directories(tree);
                                         std::this_thread::sleep_for(std::chrono::milliseconds(50));
                                         aitk::fs::write_file_atomic(tree / "done", "1");
                                     })
                    .path();
        });
    }
    for (auto& t : threads)
        t.join();
    EXPECT_EQ(calls.load(), 1);
    for (const auto& r : results)
        EXPECT_TRUE(fs::exists(r / "done"));
}

TEST_F(CacheTest, MetadataIsStoredByArtifactDigest) {
    EXPECT_FALSE(cache_.find_metadata(wheel_sha).has_value());
    cache_.put_metadata(wheel_sha, "Metadata-Version: 2.1\nName: torch\n");
    EXPECT_EQ(cache_.find_metadata(wheel_sha).value_or(""), "Metadata-Version: 2.1\nName: torch\n");
    cache_.put_metadata(wheel_sha, "Name: torch\n");  // replaced atomically
    EXPECT_EQ(cache_.find_metadata(wheel_sha).value_or(""), "Name: torch\n");
    EXPECT_EQ(files_under(cache_.temp_dir()), 0u);
}

TEST_F(CacheTest, HttpResponsesKeepValidatorsButNeverCredentials) {
    aitk::cache::HttpEntry e;
    e.url = "https://alice:s3cr3t@index.example/simple/numpy/";
    e.etag = "\"v1\"";
    e.last_modified = "Wed, 02 Jul 2025 00:00:00 GMT";
    e.content_type = "text/html";
    e.body = "<a href='numpy-2.1.0.tar.gz'>numpy</a>";
    cache_.put_http(e);
    auto back = cache_.find_http("https://index.example/simple/numpy/");
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->url, "https://index.example/simple/numpy/");
    EXPECT_EQ(back->etag, "\"v1\"");
    EXPECT_EQ(back->body, e.body);
    EXPECT_GT(back->stored_at, 1700000000);
    EXPECT_TRUE(cache_.find_http(e.url).has_value());  // asking with credentials finds it too
    EXPECT_FALSE(cache_.find_http("https://index.example/simple/other/").has_value());
    for (const auto& entry : fs::recursive_directory_iterator(cache_.root())) {
        if (!entry.is_regular_file()) continue;
        EXPECT_EQ(aitk::fs::read_file(entry.path()).find("s3cr3t"), std::string::npos)
            << entry.path();
    }
    // A damaged file is a miss, not an error.
    aitk::fs::write_file_atomic(cache_.http_file(e.url), "garbage");
    EXPECT_FALSE(cache_.find_http(e.url).has_value());
}

}  // namespace AITK_FILE_LOCAL
