// The cold sync as one pipeline: downloads start with the largest wheels, each wheel unpacks
// as it arrives and links as its tree is ready, and the timeline (`-v`) says where the time
// went. A wheel that cannot be unpacked while others still download must still fail the whole
// setup and leave the new prefix without any package.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "../index/index_test_support.hpp"
#include "aitk/app/prefix.hpp"
#include "aitk/app/setup.hpp"
#include "aitk/app/timeline.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/lock/lockfile.hpp"
#include "app_calls.hpp"
#include "test_machine.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

const std::filesystem::path python312 = "/root/.pyenv/versions/3.12.1/bin/python3.12";

// A lock of `requirements` against the torch-like mirror, and setups of it into new prefixes.
class SyncMirrorTest : public test::TorchMirrorTest {
  protected:
    explicit SyncMirrorTest(std::string requirements) : requirements_(std::move(requirements)) {}

    void SetUp() override {
        if (!std::filesystem::exists(python312)) GTEST_SKIP() << "no " << python312;
        TorchMirrorTest::SetUp();
        work = std::make_unique<fs::TempDir>(fs::TempDir::create("aitk-sync-pipeline"));
        fs::write_file_atomic(work->path() / "requirements.txt", requirements_);
        test::LockCall lock;
        lock.input.requirements = "requirements.txt";
        lock.targets = {"linux-x86_64-cpu"};
        lock.python = "3.12.1";
        lock.indexes.index_url = server.url("/simple/");
        lock.indexes.torch_index_url = server.url("/whl");
        lock.cache_root = work->path() / "lock-cache";  // setups start from an empty cache
        lock.cwd = work->path();
        lockfile = run_lock(lock).path;
    }

    test::SetupCall request(const std::string& prefix) {
        test::SetupCall r;
        r.lockfile = lockfile;
        r.prefix = work->path() / prefix;
        r.cache_root = work->path() / "cache";
        r.cwd = work->path();
        r.environment = {{"PATH", python312.parent_path().string() + ":/usr/bin:/bin"},
                         {"HOME", work->path().string()},
                         {"PYENV_ROOT", "/nonexistent"}};
        r.machine = test::cpu_machine();
        return r;
    }

    test::ClearProxyEnvironment no_proxy;
    std::unique_ptr<fs::TempDir> work;
    std::filesystem::path lockfile;

  private:
    std::string requirements_;
};

class SyncPipelineTest : public SyncMirrorTest {
  protected:
    SyncPipelineTest() : SyncMirrorTest("torch\nrequests\n") {}
};

class SyncUnpackFailureTest : public SyncMirrorTest {
  protected:
    SyncUnpackFailureTest() : SyncMirrorTest("requests\n") {}
};

// One transfer at a time shows the order the downloads start in: wheels whose size the lock
// does not know first (PyTorch's index lists none, and its wheels are the largest), then the
// rest from the largest down; the lock's order among equals.
TEST_F(SyncPipelineTest, TheLargestWheelsStartDownloadingFirst) {
    auto parsed = lock::parse_lockfile(fs::read_file(lockfile), lockfile.string());
    ASSERT_TRUE(parsed);
    std::vector<const lock::LockedFile*> wheels;
    for (const auto& p : parsed->targets.front().packages)
        if (p.wheel) wheels.push_back(&*p.wheel);
    ASSERT_GE(wheels.size(), 3u);
    auto rank = [](const lock::LockedFile* w) { return w->size ? *w->size : UINT64_MAX; };
    std::stable_sort(wheels.begin(), wheels.end(),
                     [&](const auto* a, const auto* b) { return rank(a) > rank(b); });
    ASSERT_TRUE(std::any_of(wheels.begin(), wheels.end(), [](auto* w) { return w->size; }))
        << "the mirror lists no sizes: the test shows nothing";

    server.clear_log();
    auto call = request("venv");
    call.network.concurrency = 1;
    call.smoke_test = false;
    run_setup(call);

    std::vector<std::string> fetched;
    for (const auto& r : server.requests())
        if (r.path.ends_with(".whl")) fetched.push_back(r.path.substr(r.path.rfind('/') + 1));
    std::vector<std::string> expected;
    for (const auto* w : wheels)
        expected.push_back(w->filename);
    EXPECT_EQ(fetched, expected);
}

TEST_F(SyncPipelineTest, TheTimelineHasEveryWheelFetchedUnpackedAndLinked) {
    auto cold = request("venv");
    cold.smoke_test = false;
    const auto outcome = run_setup(cold);
    const auto& timeline = outcome.sync.timeline;
    ASSERT_EQ(timeline.wheels.size(), outcome.sync.plan.install.size());
    double last_link = 0;
    for (const auto& wheel : timeline.wheels) {
        EXPECT_GE(wheel.fetched, 0) << wheel.label;
        EXPECT_TRUE(wheel.unpack.ran()) << wheel.label;  // an empty cache: every wheel unpacks
        EXPECT_GE(wheel.unpack.start, wheel.fetched) << wheel.label;
        EXPECT_TRUE(wheel.link.ran()) << wheel.label;
        EXPECT_GE(wheel.link.start, wheel.unpack.end) << wheel.label;
        last_link = std::max(last_link, wheel.link.end);
    }
    ASSERT_NE(timeline.critical(), nullptr);
    EXPECT_EQ(timeline.critical()->link.end, last_link);
    EXPECT_TRUE(timeline.fetch.ran());
    EXPECT_TRUE(timeline.commit.ran());
    EXPECT_GE(timeline.commit.start, last_link);
    EXPECT_NE(outcome.stages.find("sync "), std::string::npos) << outcome.stages;

    // Warm: nothing unpacks, every wheel still links.
    auto again = request("warm");
    again.smoke_test = false;
    const auto warm = run_setup(again);
    for (const auto& wheel : warm.sync.timeline.wheels) {
        EXPECT_FALSE(wheel.unpack.ran()) << wheel.label;
        EXPECT_TRUE(wheel.link.ran()) << wheel.label;
    }
}

TEST(SyncTimeline, DescribesTheStagesAndTheCriticalWheel) {
    SyncTimeline t;
    t.plan = {0, 0.01};
    t.fetch = {0.02, 3.5};
    t.unpack = {0.1, 5.25};
    t.link = {0.2, 5.5};
    t.commit = {5.5, 5.75};
    t.wheels = {{"small.whl", 0.1, {0.1, 0.2}, {0.2, 0.3}},
                {"torch.whl", 3.5, {3.5, 5.25}, {5.25, 5.5}},
                {"cached.whl", 0.05, {}, {0.06, 0.07}}};
    EXPECT_EQ(t.describe(),
              "time     plan 0.00-0.01 s, fetch 0.02-3.50 s, unpack 0.10-5.25 s, link 0.20-5.50 s, "
              "commit 5.50-5.75 s\n"
              "critical torch.whl: in the cache at 3.50 s, unpacked 3.50-5.25 s (1.75 s), linked "
              "5.25-5.50 s (0.25 s)\n");
    EXPECT_EQ(SyncTimeline{}.describe(), "");
}

TEST_F(SyncUnpackFailureTest, AWheelThatCannotBeUnpackedFailsTheSetupAndInstallsNothing) {
    auto first = run_setup(request("first"));
    ASSERT_FALSE(first.sync.plan.install.empty());

    // The cached wheel of requests turns to garbage (same name, so the cache still hands it
    // out) and its unpacked tree goes: the next setup must unpack it again, and fail.
    auto parsed = lock::parse_lockfile(fs::read_file(lockfile), lockfile.string());
    ASSERT_TRUE(parsed);
    const auto* package = parsed->targets.front().find("requests");
    ASSERT_NE(package, nullptr);
    ASSERT_TRUE(package->wheel);
    cache::Cache cache(work->path() / "cache");
    auto stored = cache.find_artifact(package->wheel->sha256, package->wheel->filename);
    ASSERT_TRUE(stored);
    auto tree = cache.find_unpacked(package->wheel->sha256);
    ASSERT_TRUE(tree);
    std::filesystem::remove_all(*tree);
    std::filesystem::permissions(*stored, std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
    std::ofstream(*stored, std::ios::trunc) << "not a zip";

    try {
        run_setup(request("second"));
        FAIL() << "setup succeeded with a broken wheel";
    } catch (const util::Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "wheel " + package->wheel->filename + ": Unrecognized archive format");
    }
    EXPECT_FALSE(cache.find_unpacked(package->wheel->sha256));
    auto layout = install::PrefixLayout::read(work->path() / "second", false);
    if (layout) {
        EXPECT_TRUE(install::installed_distributions(*layout).empty());
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
