// A disk that fills up under a download or an install: the error says which one filled up —
// the cache's or the prefix's — where it is, how much room is left there and what to do, not
// only the system's "No space left on device". A full disk is a small tmpfs filled to the
// last byte; mounting one needs root (CAP_SYS_ADMIN), so the tests skip where that is refused.
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aitk/fs/file.hpp"
#include "aitk/util/subprocess.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

// A tmpfs of `size` at `where` while this lives; `skip` says why there is none.
class SmallDisk {
  public:
    SmallDisk(const stdfs::path& where, const std::string& size) : where_(where) {
        stdfs::create_directories(where);
        util::ProcessRequest mount;
        mount.argv = {"mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", where.string()};
        auto r = util::run_process(mount);
        if (!r || !r->succeeded()) {
            skip = "cannot mount a tmpfs (needs root with CAP_SYS_ADMIN): " +
                   (r ? r->err : r.error().message);
            return;
        }
        mounted_ = true;
    }
    ~SmallDisk() {
        if (!mounted_) return;
        util::ProcessRequest umount;
        umount.argv = {"umount", "-l", where_.string()};
        (void)util::run_process(umount);
    }
    SmallDisk(const SmallDisk&) = delete;
    SmallDisk& operator=(const SmallDisk&) = delete;

    // Writes a file into `folder` (on this disk) until the disk has no room left.
    void fill(const stdfs::path& folder) const {
        stdfs::create_directories(folder);
        std::ofstream out(folder / "filler", std::ios::binary);
        const std::string block(4096, 'x');
        while (out.write(block.data(), static_cast<std::streamsize>(block.size())) && out.flush()) {
        }
    }

    std::string skip;

  private:
    stdfs::path where_;
    bool mounted_ = false;
};

class HostileDiskFull : public VictimWorldTest {
  protected:
};

// The cache's disk is full when the wheel is downloaded: the error names the cache, its
// place and free space, and the way out (another cache folder).
TEST_F(HostileDiskFull, AFullCacheDiskIsNamedAsTheCache) {
    SmallDisk disk(world->path("small-cache"), "1m");
    if (!disk.skip.empty()) GTEST_SKIP() << disk.skip;
    const auto cache = world->path("small-cache") / "cache";
    // The cache exists (as after an earlier run); then its disk fills up.
    auto first = cli_with_cache(*world, cache, {"cache", "dir"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    disk.fill(world->path("small-cache") / "other");

    auto r = cli_with_cache(
        *world, cache,
        {"setup", "-l", world->path("env.lock.yml").string(), "-p",
         world->path("cache-full-prefix").string(), "--python", hostile_python, "--no-smoke-test"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    std::string missing;
    EXPECT_TRUE(mentions_all(
        r.err, {"the cache at " + cache.string(), "is full", "free", "--cache-dir"}, missing))
        << "missing " << missing << "in:\n"
        << r.err;
    EXPECT_EQ(r.err.find("the prefix at"), std::string::npos) << r.err;
}

// The prefix's disk is full when a wheel is installed into it: the error names the prefix.
TEST_F(HostileDiskFull, AFullPrefixDiskIsNamedAsThePrefix) {
    SmallDisk disk(world->path("small-prefix"), "4m");
    if (!disk.skip.empty()) GTEST_SKIP() << disk.skip;
    const auto prefix = world->path("small-prefix") / "env";
    auto made =
        world->cli_with_index({"setup", "-l", world->path("env.lock.yml").string(), "-p",
                               prefix.string(), "--python", hostile_python, "--no-smoke-test"},
                              "");
    ASSERT_EQ(made.exit_code, 0) << made.err;
    // The victim goes (as a user's `pip uninstall` would), then the disk fills up; the sync
    // that puts it back has no room for its files.
    for (const auto& entry :
         stdfs::directory_iterator(prefix / "lib" / "python3.11" / "site-packages")) {
        if (entry.path().filename().string().starts_with("victim")) stdfs::remove_all(entry);
    }
    disk.fill(world->path("small-prefix") / "other");

    auto r = world->cli_with_index(
        {"sync", "-l", world->path("env.lock.yml").string(), "-p", prefix.string()}, "");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    std::string missing;
    EXPECT_TRUE(
        mentions_all(r.err, {"the prefix at " + prefix.string(), "is full", "free"}, missing))
        << "missing " << missing << "in:\n"
        << r.err;
    EXPECT_EQ(r.err.find("the cache at"), std::string::npos) << r.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
