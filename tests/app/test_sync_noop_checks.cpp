// The checks a no-op sync makes without parsing or hashing: plan_sync's stat of every RECORD
// file (relative to an opened site-packages) and the text comparison of the prefix's lock copy.
#include <gtest/gtest.h>

#include <filesystem>

#include "aitk/app/prefix.hpp"
#include "aitk/app/sync.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"

namespace aitk::app {
namespace AITK_FILE_LOCAL {

class NoopChecksTest : public ::testing::Test {
  protected:
    void SetUp() override {
        layout = install::PrefixLayout::for_venv(dir.path() / "prefix", "3.12", false);
        std::filesystem::create_directories(layout.purelib / "pkg");
        std::filesystem::create_directories(layout.scripts);
        fs::write_file_atomic(layout.purelib / "pkg" / "__init__.py", "x = 1\n");
        fs::write_file_atomic(layout.scripts / "pkg-tool", "#!/bin/sh\n");
        package.name = "pkg";
        package.version = "1.0";
        package.wheel = lock::LockedFile{"pkg-1.0-py3-none-any.whl", "", "ab", 10};
        target.id = "linux-x86_64-cpu";
        target.packages = {package};
        dist.name = "pkg";
        dist.version = "1.0";
        // A script outside site-packages, reached with "..", as RECORD writes it.
        auto up = std::filesystem::relative(layout.scripts, layout.purelib).generic_string();
        dist.record = {{"pkg/__init__.py", "sha256=a", 6},
                       {up + "/pkg-tool", "sha256=b", 10},
                       {"pkg-1.0.dist-info/RECORD", "", 0}};
    }

    SyncPlan plan() const { return plan_sync(target, {dist}, std::nullopt, true, &layout); }

    fs::TempDir dir = fs::TempDir::create("aitk-noop-checks");
    install::PrefixLayout layout;
    lock::LockedPackage package;
    lock::LockedTarget target;
    install::InstalledDistribution dist;
};

TEST_F(NoopChecksTest, IntactFilesKeepThePackage) {
    auto p = plan();
    EXPECT_EQ(p.keep, std::vector<std::string>{"pkg"});
    EXPECT_TRUE(p.reinstall.empty());
}

TEST_F(NoopChecksTest, AMissingFileOutsideSitePackagesReinstalls) {
    std::filesystem::remove(layout.scripts / "pkg-tool");
    auto p = plan();
    ASSERT_EQ(p.reinstall.size(), 1u);
    EXPECT_EQ(p.reinstall[0].name, "pkg");
}

TEST_F(NoopChecksTest, AResizedFileReinstalls) {
    fs::write_file_atomic(layout.purelib / "pkg" / "__init__.py", "x = 12\n");
    EXPECT_EQ(plan().reinstall.size(), 1u);
}

TEST_F(NoopChecksTest, AFolderWhereAFileWasReinstalls) {
    std::filesystem::remove(layout.purelib / "pkg" / "__init__.py");
    std::filesystem::create_directory(layout.purelib / "pkg" / "__init__.py");
    EXPECT_EQ(plan().reinstall.size(), 1u);
}

TEST_F(NoopChecksTest, WithoutSitePackagesEverythingIsReinstalled) {
    std::filesystem::remove_all(layout.purelib);
    EXPECT_EQ(plan().reinstall.size(), 1u);
}

TEST_F(NoopChecksTest, TheLockCopyMatchesOnlyTheSameLockAndTarget) {
    lock::Lockfile lock;
    lock.name = "env";
    lock.default_target = target.id;
    lock.targets = {target};
    EXPECT_FALSE(prefix_lock_matches(layout, lock, target.id));  // no copy yet
    write_prefix_lock(layout, lock, target.id);
    EXPECT_TRUE(prefix_lock_matches(layout, lock, target.id));
    EXPECT_FALSE(prefix_lock_matches(layout, lock, "linux-x86_64-cu130"));
    lock::Lockfile other = lock;
    other.targets[0].packages[0].version = "1.1";
    EXPECT_FALSE(prefix_lock_matches(layout, other, target.id));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::app
