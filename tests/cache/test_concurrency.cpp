// Several processes fill one cache at once (the situation of two `aitk-env setup` runs sharing
// a cache, plus a `cache prune`): no entry is ever visible half-written, shared trees are
// unpacked once, and everything inserted is there and intact at the end.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "aitk/cache/cache.hpp"
#include "aitk/cache/maintenance.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"

namespace fs = std::filesystem;
using aitk::cache::Cache;

namespace {

constexpr int shared_artifacts = 6;
constexpr int own_artifacts = 4;
constexpr int writers = 3;

std::string content_of(const std::string& id) {
    std::mt19937_64 rng(std::hash<std::string>{}(id));
    std::string s(200'000 + (rng() % 300'000), '\0');
    for (char& c : s)
        c = static_cast<char>(rng());
    return s;
}

void append_byte(const fs::path& counter) {
    int fd = ::open(counter.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        (void)::write(fd, "x", 1);
        ::close(fd);
    }
}

// One writer process: its own artifacts and the shared ones, each unpacked after insertion.
int writer(const fs::path& root, int index, const fs::path& fill_counter) {
    Cache cache(root);
    std::vector<std::string> ids;
    for (int i = 0; i < shared_artifacts; ++i)
        ids.push_back("shared-" + std::to_string(i));
    for (int i = 0; i < own_artifacts; ++i) {
        ids.push_back("own-" + std::to_string(index) + "-" + std::to_string(i));
    }
    std::rotate(ids.begin(), ids.begin() + index, ids.end());  // different orders per process
    for (const auto& id : ids) {
        std::string content = content_of(id);
        std::string sha = aitk::fs::sha256_hex(content);
        auto usage = cache.hold();
        fs::path part = cache.staging_path(id + ".whl");
        {
            // Written in pieces, like a download.
            int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
            if (fd < 0) {
                std::fprintf(stderr, "cannot create %s: %s\n", part.c_str(), std::strerror(errno));
                return 10;
            }
            for (std::size_t at = 0; at < content.size(); at += 65536) {
                std::size_t n = std::min<std::size_t>(65536, content.size() - at);
                if (::write(fd, content.data() + at, n) != static_cast<ssize_t>(n)) return 11;
            }
            ::close(fd);
        }
        cache.insert_artifact(part, sha, id + ".whl");
        cache.ensure_unpacked(sha, [&](const fs::path& tree) {
            append_byte(fill_counter);
            fs::create_directories(tree);
            aitk::fs::write_file_atomic(tree / "payload", content);
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            aitk::fs::write_file_atomic(tree / "complete", sha);
        });
    }
    return 0;
}

int pruner(const fs::path& root) {
    Cache cache(root);
    for (int i = 0; i < 5; ++i) {
        aitk::cache::PruneOptions options;
        options.lock_timeout = std::chrono::seconds(60);
        aitk::cache::prune(cache, options);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return 0;
}

// Everything visible must be whole: artifacts hash to their folder's name, trees are complete.
void check_visible(Cache& cache, std::size_t& artifacts_seen, std::size_t& trees_seen) {
    std::error_code ec;
    fs::path art = cache.base() / "artifacts" / "sha256";
    for (auto it = fs::recursive_directory_iterator(art, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file()) continue;
        fs::path dir = it->path().parent_path();
        std::string digest = dir.parent_path().filename().string() + dir.filename().string();
        ASSERT_EQ(aitk::fs::sha256_file_hex(it->path()), digest)
            << "partial artifact visible: " << it->path();
        ++artifacts_seen;
    }
    fs::path unpacked = cache.base() / "unpacked" / "sha256";
    for (auto shard = fs::directory_iterator(unpacked, ec);
         !ec && shard != fs::directory_iterator(); shard.increment(ec)) {
        for (const auto& tree : fs::directory_iterator(shard->path())) {
            ASSERT_TRUE(fs::exists(tree.path() / "complete"))
                << "partial tree visible: " << tree.path();
            std::string digest =
                shard->path().filename().string() + tree.path().filename().string();
            ASSERT_EQ(aitk::fs::read_file(tree.path() / "complete"), digest);
            ++trees_seen;
        }
    }
}

}  // namespace

TEST(CacheConcurrency, ProcessesFillingOneCacheNeverExposeHalfEntries) {
    auto dir = aitk::fs::TempDir::create("cache-concurrency");
    const fs::path root = dir.path() / "root";
    const fs::path fill_counter = dir.path() / "fills";
    int go[2];
    ASSERT_EQ(::pipe(go), 0);

    std::vector<pid_t> children;
    for (int i = 0; i <= writers; ++i) {
        pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::close(go[1]);
            char c;
            (void)::read(go[0], &c, 1);  // start together
            int rc = 1;
            try {
                rc = i < writers ? writer(root, i, fill_counter) : pruner(root);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "child %d: %s\n", i, e.what());
                rc = 2;
            }
            ::_exit(rc);
        }
        children.push_back(pid);
    }
    ::close(go[0]);
    ::close(go[1]);  // EOF releases every child at once

    Cache cache(root);
    std::size_t scans = 0, artifacts_seen = 0, trees_seen = 0;
    std::vector<bool> done(children.size(), false);
    std::size_t finished = 0;
    while (finished < children.size()) {
        check_visible(cache, artifacts_seen, trees_seen);
        if (HasFatalFailure()) break;
        ++scans;
        for (std::size_t i = 0; i < children.size(); ++i) {
            if (done[i]) continue;
            int status = 0;
            if (::waitpid(children[i], &status, WNOHANG) == children[i]) {
                done[i] = true;
                ++finished;
                EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
                    << "child " << i << " status " << status;
            }
        }
    }
    for (std::size_t i = 0; i < children.size(); ++i) {
        if (!done[i]) ::waitpid(children[i], nullptr, 0);
    }
    EXPECT_GT(scans, 1u);

    // At the end: every artifact present and intact, every tree unpacked exactly once.
    std::vector<std::string> all;
    for (int i = 0; i < shared_artifacts; ++i)
        all.push_back("shared-" + std::to_string(i));
    for (int w = 0; w < writers; ++w) {
        for (int i = 0; i < own_artifacts; ++i) {
            all.push_back("own-" + std::to_string(w) + "-" + std::to_string(i));
        }
    }
    for (const auto& id : all) {
        std::string sha = aitk::fs::sha256_hex(content_of(id));
        EXPECT_TRUE(cache.verify_artifact(sha)) << id;
        auto tree = cache.find_unpacked(sha);
        ASSERT_TRUE(tree.has_value()) << id;
        EXPECT_EQ(aitk::fs::read_file(*tree / "complete"), sha);
    }
    EXPECT_EQ(fs::file_size(fill_counter), all.size()) << "a tree was unpacked more than once";
    auto usage = aitk::cache::info(cache);
    EXPECT_EQ(usage.artifacts.entries, all.size());
    EXPECT_EQ(usage.temp.entries, 0u);
}
