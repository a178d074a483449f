// Several processes fill one cache at once (the situation of two `aitk-env setup` runs sharing
// a cache, plus a `cache prune`): no entry is ever visible half-written, shared trees are
// unpacked once, and everything inserted is there and intact at the end. The other processes
// are this test program run again as a writer or a pruner (support/child_role.hpp), on POSIX
// and on Windows alike.
#include <gtest/gtest.h>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "aitk/cache/cache.hpp"
#include "aitk/cache/maintenance.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/hash.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/utf8.hpp"
#include "child_role.hpp"

namespace AITK_FILE_LOCAL {

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

// One byte appended, atomically with respect to the other processes (O_APPEND; on Windows
// FILE_APPEND_DATA, since the C runtime's append mode seeks and then writes).
void append_byte(const fs::path& counter) {
#ifdef _WIN32
    HANDLE h = ::CreateFileW(counter.c_str(), FILE_APPEND_DATA,
                             FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                             OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h != INVALID_HANDLE_VALUE) {
        DWORD wrote = 0;
        ::WriteFile(h, "x", 1, &wrote, nullptr);
        ::CloseHandle(h);
    }
#else
    int fd = ::open(counter.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        (void)::write(fd, "x", 1);
        ::close(fd);
    }
#endif
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
            std::ofstream out(part, std::ios::binary);
            for (std::size_t at = 0; out && at < content.size(); at += 65536) {
                out.write(content.data() + at, static_cast<std::streamsize>(std::min<std::size_t>(
                                                   65536, content.size() - at)));
            }
            if (!out.flush()) {
                std::fprintf(stderr, "cannot write %s\n", aitk::util::utf8_of(part).c_str());
                return 10;
            }
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

// "<index> <root> <fill counter> <go file>": writer <index> (or the pruner, index == writers),
// started once the go file exists, so that all of them start together.
const bool cache_role =
    aitk::test::register_child_role("AITK_TEST_CACHE_ROLE", [](const std::string& role) {
        auto parts = std::vector<std::string>{};
        std::size_t at = 0;
        for (int k = 0; k < 3; ++k) {
            const auto space = role.find(' ', at);
            parts.push_back(role.substr(at, space - at));
            at = space + 1;
        }
        parts.push_back(role.substr(at));
        const int index = std::stoi(parts[0]);
        const fs::path root = aitk::util::path_from_utf8(parts[1]);
        const fs::path counter = aitk::util::path_from_utf8(parts[2]);
        const fs::path go = aitk::util::path_from_utf8(parts[3]);
        while (!fs::exists(go))
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return index < writers ? writer(root, index, counter) : pruner(root);
    });

TEST(CacheConcurrency, ProcessesFillingOneCacheNeverExposeHalfEntries) {
    ASSERT_TRUE(cache_role);
    auto dir = aitk::fs::TempDir::create("cache-concurrency");
    const fs::path root = dir.path() / "root";
    const fs::path fill_counter = dir.path() / "fills";
    const fs::path go = dir.path() / "go";

    std::vector<std::future<std::optional<aitk::util::ProcessResult>>> children;
    for (int i = 0; i <= writers; ++i) {
        auto request = aitk::test::child_role_request(
            "AITK_TEST_CACHE_ROLE", std::to_string(i) + " " + aitk::util::utf8_of(root) + " " +
                                        aitk::util::utf8_of(fill_counter) + " " +
                                        aitk::util::utf8_of(go));
        request.timeout = std::chrono::minutes(5);
        children.push_back(std::async(std::launch::async, [request] {
            auto r = aitk::util::run_process(request);
            return r ? std::optional<aitk::util::ProcessResult>(*r) : std::nullopt;
        }));
    }
    aitk::fs::write_file_atomic(go, "go");  // every child starts now

    Cache cache(root);
    std::size_t scans = 0, artifacts_seen = 0, trees_seen = 0;
    auto running = [&] {
        for (auto& c : children) {
            if (c.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return true;
        }
        return false;
    };
    while (running()) {
        check_visible(cache, artifacts_seen, trees_seen);
        if (HasFatalFailure()) break;
        ++scans;
    }
    for (std::size_t i = 0; i < children.size(); ++i) {
        auto ended = children[i].get();
        ASSERT_TRUE(ended) << "child " << i << " did not start";
        EXPECT_TRUE(ended->succeeded())
            << "child " << i << " " << ended->describe() << ": " << ended->err;
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

}  // namespace AITK_FILE_LOCAL
