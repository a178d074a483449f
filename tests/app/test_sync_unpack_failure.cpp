// Wheels are unpacked while others still download; a wheel that cannot be unpacked must still
// fail the whole setup and leave the new prefix without any package.
#include <gtest/gtest.h>

#include <fstream>

#include "../index/index_test_support.hpp"
#include "aitk/app/prefix.hpp"
#include "aitk/app/setup.hpp"
#include "aitk/cache/cache.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/lock/lockfile.hpp"
#include "app_calls.hpp"
#include "test_machine.hpp"

namespace aitk::app {
namespace {

const std::filesystem::path python312 = "/root/.pyenv/versions/3.12.1/bin/python3.12";

class SyncUnpackFailureTest : public test::TorchMirrorTest {
  protected:
    void SetUp() override {
        if (!std::filesystem::exists(python312)) GTEST_SKIP() << "no " << python312;
        TorchMirrorTest::SetUp();
        work = std::make_unique<fs::TempDir>(fs::TempDir::create("aitk-unpack-failure"));
        fs::write_file_atomic(work->path() / "requirements.txt", "requests\n");
        test::LockCall lock;
        lock.input.requirements = "requirements.txt";
        lock.targets = {"linux-x86_64-cpu"};
        lock.python = "3.12.1";
        lock.indexes.index_url = server.url("/simple/");
        lock.indexes.torch_index_url = server.url("/whl");
        lock.cache_root = work->path() / "cache";
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
};

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

}  // namespace
}  // namespace aitk::app
