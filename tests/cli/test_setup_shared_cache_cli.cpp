// Two `aitk-env setup` processes at once, into two prefixes, with one AITK_ENV_CACHE_DIR: the
// way two terminals (or two CI jobs on one runner) share a cache. Both must end with a clean
// prefix, the cache must hold each wheel and each unpacked tree once, and a third setup must
// then work from the cache alone with the mirror gone.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "../index/index_test_support.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/lock/lockfile.hpp"
#include "aitk/util/subprocess.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

const std::string python_bin = "/root/.pyenv/versions/3.12.1/bin";

struct Outcome {
    int exit_code = -1;
    std::string out;
    std::string err;
};

class SetupSharedCache : public TorchMirrorTest {
  protected:
    void SetUp() override {
        if (!std::filesystem::exists(python_bin + "/python3.12")) GTEST_SKIP() << "no 3.12.1";
        TorchMirrorTest::SetUp();
        fs::write_file_atomic(work.path() / "requirements.txt", "torch==2.9.0\nrequests\n");
        // Locked with a cache of its own, so the shared cache starts empty and everything in it
        // was put there by the setups.
        auto locked = aitk({"--cache-dir", path("lock-cache"), "--index-url",
                            server.url("/simple/"), "--torch-index-url", server.url("/whl"), "lock",
                            "-r", path("requirements.txt"), "-o", path("env.lock.yml"), "--python",
                            "3.12.1", "--target", "linux-x86_64-cpu"});
        ASSERT_EQ(locked.exit_code, 0) << locked.err;
    }

    std::string path(const std::string& name) const { return (work.path() / name).string(); }

    // The built binary in an environment of our making: a machine without a GPU, CPython 3.12
    // on PATH and nothing else to find, no proxy.
    Outcome aitk(std::vector<std::string> args) const {
        util::ProcessRequest request;
        request.argv = {AITK_ENV_EXE, "--no-progress"};
        request.argv.insert(request.argv.end(), args.begin(), args.end());
        request.environment = util::Environment{
            {"PATH", python_bin + ":/usr/bin:/bin"},
            {"HOME", work.path().string()},
            {"PYENV_ROOT", "/nonexistent"},
            {"AITK_ENV_CACHE_DIR", path("cache")},
            {"AITK_ENV_NO_GPU", "1"},
            {"AITK_ENV_NVIDIA_SOURCES", "nvidia-smi"},
            {"AITK_ENV_NVIDIA_SMI", "/nonexistent"},
        };
        request.working_directory = work.path();
        request.timeout = std::chrono::minutes(5);
        auto result = util::run_process(request);
        if (!result) return {-1, "", result.error().message};
        return {
            result->succeeded() || result->end == util::ProcessEnd::exited ? result->exit_code : -1,
            result->out, result->err + "\n(" + result->describe() + ")"};
    }

    // One download at a time per process, so the server seeing two requests in flight means
    // the two processes were downloading at the same moment.
    Outcome setup(const std::string& prefix) const {
        return aitk({"--concurrency", "1", "setup", "-l", path("env.lock.yml"), "-p", path(prefix),
                     "--json"});
    }

    // sha256 → wheel file name of every wheel the lock's target installs.
    std::map<std::string, std::string> locked_wheels() const {
        auto parsed = lock::parse_lockfile(fs::read_file(path("env.lock.yml")), "env.lock.yml");
        EXPECT_TRUE(parsed);
        std::map<std::string, std::string> wheels;
        if (!parsed) return wheels;
        for (const auto& package : parsed->targets.at(0).packages) {
            if (package.wheel) wheels[package.wheel->sha256] = package.wheel->filename;
        }
        return wheels;
    }

    // The entries of a <root>/v1/<kind>/sha256/ab/<62 hex>/ store: full digest → what the
    // entry folder holds.
    std::map<std::string, std::vector<std::string>> store(const std::string& kind) const {
        std::map<std::string, std::vector<std::string>> entries;
        auto root = work.path() / "cache" / "v1" / kind / "sha256";
        for (const auto& shard : std::filesystem::directory_iterator(root)) {
            for (const auto& entry : std::filesystem::directory_iterator(shard.path())) {
                auto& names =
                    entries[shard.path().filename().string() + entry.path().filename().string()];
                if (!entry.is_directory()) {
                    names.push_back("(not a folder)");
                    continue;
                }
                for (const auto& inside : std::filesystem::directory_iterator(entry.path()))
                    names.push_back(inside.path().filename().string());
            }
        }
        return entries;
    }

    fs::TempDir work = fs::TempDir::create("aitk-shared-cache");
};

TEST_F(SetupSharedCache, TwoSetupsAtOnceShareOneCacheAndAThirdNeedsNoNetwork) {
    // Every request waits until two are in flight at once (each process has one at a time).
    server.set_in_flight_gate(2, std::chrono::seconds(60));
    Outcome first, second;
    std::thread other([&] { second = setup("p2"); });
    first = setup("p1");
    other.join();
    ASSERT_EQ(first.exit_code, 0) << first.err;
    ASSERT_EQ(second.exit_code, 0) << second.err;
    // At least two at once proves the processes overlapped; a third can be counted when one
    // process's next request arrives before the server has finished counting its last one out.
    EXPECT_GE(server.max_in_flight(), 2u);
    for (const auto* run : {&first, &second}) {
        auto json = nlohmann::json::parse(run->out);
        EXPECT_EQ(json["target"], "linux-x86_64-cpu");
        EXPECT_EQ(json["smoke"], "torch 2.9.0+cpu None None");
    }
    for (const char* prefix : {"p1", "p2"}) {
        auto verify = aitk({"verify", "-p", path(prefix)});
        EXPECT_EQ(verify.exit_code, 0) << prefix << ":\n" << verify.out << verify.err;
    }

    // Each wheel once, under its own name; each unpacked tree once; no staging debris.
    auto wheels = locked_wheels();
    ASSERT_GT(wheels.size(), 3u);
    auto artifacts = store("artifacts");
    std::map<std::string, std::vector<std::string>> expected;
    for (const auto& [sha, filename] : wheels)
        expected[sha] = {filename};
    EXPECT_EQ(artifacts, expected);
    auto unpacked = store("unpacked");
    std::set<std::string> unpacked_digests, wheel_digests;
    for (const auto& [sha, names] : unpacked) {
        unpacked_digests.insert(sha);
        bool has_dist_info = false;
        for (const auto& name : names)
            has_dist_info |= name.ends_with(".dist-info");
        EXPECT_TRUE(has_dist_info) << sha;
    }
    for (const auto& [sha, filename] : wheels)
        wheel_digests.insert(sha);
    EXPECT_EQ(unpacked_digests, wheel_digests);
    std::error_code ec;
    auto tmp = work.path() / "cache" / "v1" / "tmp";
    EXPECT_TRUE(!std::filesystem::exists(tmp) || std::filesystem::is_empty(tmp))
        << "left in " << tmp;

    // The mirror is gone: a third prefix comes from the cache alone.
    server.stop();
    auto third = setup("p3");
    ASSERT_EQ(third.exit_code, 0) << third.err;
    EXPECT_EQ(nlohmann::json::parse(third.out)["sync"]["downloaded"], 0);
    EXPECT_EQ(nlohmann::json::parse(third.out)["smoke"], "torch 2.9.0+cpu None None");
    auto verify = aitk({"verify", "-p", path("p3")});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    EXPECT_EQ(store("artifacts"), expected);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
