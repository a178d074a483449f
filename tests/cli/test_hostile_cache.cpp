// A cache entry cannot be changed through a prefix (issue 33, item 6), through the real binary.
// With hardlinks (the default where the cache and the prefix share a filesystem) a file of a
// prefix is the cache's unpacked copy: an edit of one edits the other. Each test damages the
// shared file through prefix A and shows that the next prefix gets the wheel's bytes (the tree
// is checked against what it was when it was unpacked, and rebuilt from the wheel, saying so),
// that `sync` repairs A, and that `cache verify` reports the damage before and nothing after.
// Each test has a cache of its own, so that one test's damage never reaches another.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "aitk/cache/tree_stamp.hpp"
#include "aitk/fs/file.hpp"
#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

const std::string victim_module = "victim/__init__.py";

class HostileCache : public VictimWorldTest {
  protected:
    void SetUp() override {
        VictimWorldTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        home = world->path("cache-tests") / name;
        stdfs::create_directories(home);
    }

    // The binary with this test's own cache, asking the world's index.
    CliResult cli(std::vector<std::string> args) const {
        std::vector<std::string> global = {"--no-progress", "--cache-dir",
                                           (home / "cache").string(), "--index-url",
                                           world->server.url("/simple/")};
        args.insert(args.begin(), global.begin(), global.end());
        return run_cli(args, "", isolated_environment(world->work.path(), hostile_python_bin));
    }

    CliResult setup(const std::string& prefix, const std::string& link_mode = "hardlink") const {
        return cli({"setup", "-l", world->path("env.lock.yml").string(), "-p",
                    (home / prefix).string(), "--python", hostile_python, "--no-smoke-test",
                    "--link-mode", link_mode});
    }
    CliResult sync(const std::string& prefix) const {
        return cli(
            {"sync", "-l", world->path("env.lock.yml").string(), "-p", (home / prefix).string()});
    }

    // victim's module in a prefix (lib/python3.X/site-packages or Lib/site-packages).
    stdfs::path module_in(const std::string& prefix) const {
        std::error_code ec;
        for (auto it = stdfs::recursive_directory_iterator(home / prefix, ec);
             !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
            if (it->path().filename() == "__init__.py" &&
                it->path().parent_path().filename() == "victim") {
                return it->path();
            }
        }
        return {};
    }
    stdfs::path entry() const {
        const std::string& sha = world->victim.sha256;
        return home / "cache" / "v1" / "unpacked" / "sha256" / sha.substr(0, 2) / sha.substr(2);
    }
    stdfs::path artifact() const {
        const std::string& sha = world->victim.sha256;
        return home / "cache" / "v1" / "artifacts" / "sha256" / sha.substr(0, 2) / sha.substr(2) /
               world->victim.filename;
    }

    // Prefix A, set up with hardlinks; its module's bytes are the wheel's. False (the test is
    // skipped) where this filesystem cannot hardlink.
    bool setup_hardlinked_prefix(std::string& original) {
        auto made = setup("a");
        EXPECT_EQ(made.exit_code, 0) << made.err;
        const auto module = module_in("a");
        EXPECT_FALSE(module.empty());
        if (made.exit_code != 0 || module.empty()) return false;
        original = fs::read_file(module);
        std::error_code ec;
        return stdfs::hard_link_count(module, ec) > 1;
    }

    static void append(const stdfs::path& file, const std::string& text) {
        std::ofstream out(file, std::ios::binary | std::ios::app);
        out << text;
    }

    // Rewrites the file in place (the same inode), with bytes of the same size.
    static void rewrite_same_size(const stdfs::path& file) {
        std::string bytes = fs::read_file(file);
        for (char& c : bytes)
            c = c == 'x' ? 'y' : 'x';
        std::fstream out(file, std::ios::binary | std::ios::in | std::ios::out);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }

    static std::size_t count(const std::string& text, const std::string& part) {
        std::size_t n = 0;
        for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
            ++n;
        return n;
    }

    stdfs::path home;
};

TEST_F(HostileCache, AnAppendThroughOnePrefixReachesNoOtherAndSyncRepairsIt) {
    std::string original;
    if (!setup_hardlinked_prefix(original)) GTEST_SKIP() << "no hardlinks here";
    append(module_in("a"), "import os; os.system('echo pwned')\n");
    ASSERT_NE(fs::read_file(entry() / victim_module), original) << "the cache was not shared";

    auto damaged = cli({"cache", "verify"});
    EXPECT_EQ(damaged.exit_code, 4) << damaged.out << damaged.err;
    std::string missing;
    EXPECT_TRUE(mentions_all(damaged.out, {world->victim.filename, victim_module, "size"}, missing))
        << "missing " << missing << "in:\n"
        << damaged.out << damaged.err;

    auto b = setup("b");
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(fs::read_file(module_in("b")), original);
    EXPECT_TRUE(mentions_all(b.err,
                             {"cache: the unpacked tree of " + world->victim.filename +
                                  " was changed (file " + victim_module + ": size ",
                              "); rebuilt from the wheel"},
                             missing))
        << "missing " << missing << "in:\n"
        << b.err;
    EXPECT_EQ(count(b.err, "was changed"), 1u) << b.err;
    EXPECT_EQ(cli({"verify", "-p", (home / "b").string()}).exit_code, 0);

    auto clean = cli({"cache", "verify"});
    EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;

    auto repaired = sync("a");
    EXPECT_EQ(repaired.exit_code, 0) << repaired.err;
    EXPECT_EQ(fs::read_file(module_in("a")), original);
    EXPECT_EQ(cli({"verify", "-p", (home / "a").string()}).exit_code, 0);
    EXPECT_EQ(fs::read_file(module_in("b")), original);
}

TEST_F(HostileCache, AnInPlaceRewriteOfTheSameSizeIsFoundAndSyncRepairsItFirst) {
    std::string original;
    if (!setup_hardlinked_prefix(original)) GTEST_SKIP() << "no hardlinks here";
    const auto module = module_in("a");
    rewrite_same_size(module);
    // An edit made a moment after the install (set, not waited for: file times are coarse).
    const auto record = module.parent_path().parent_path() / "victim-1.0.dist-info" / "RECORD";
    stdfs::last_write_time(module, stdfs::last_write_time(record) + std::chrono::seconds(2));
    ASSERT_EQ(fs::read_file(module).size(), original.size());
    ASSERT_NE(fs::read_file(entry() / victim_module), original) << "the cache was not shared";

    auto damaged = cli({"--json", "cache", "verify"});
    EXPECT_EQ(damaged.exit_code, 4) << damaged.out << damaged.err;
    auto json = nlohmann::json::parse(damaged.out, nullptr, false);
    ASSERT_TRUE(json.is_object()) << damaged.out;
    EXPECT_EQ(json.value("clean", true), false);
    ASSERT_EQ(json["damaged"].size(), 1u) << damaged.out;
    EXPECT_EQ(json["damaged"][0].value("kind", ""), "unpacked");
    EXPECT_EQ(json["damaged"][0].value("sha256", ""), world->victim.sha256);
    EXPECT_EQ(json["damaged"][0].value("name", ""), world->victim.filename);
    EXPECT_EQ(json["damaged"][0].value("path", ""), victim_module);
    EXPECT_EQ(json["damaged"][0].value("problem", ""), "sha256 differs");

    // The prefix first, while the cache is still damaged: sync finds the edit and reinstalls
    // from a rebuilt tree.
    auto repaired = sync("a");
    EXPECT_EQ(repaired.exit_code, 0) << repaired.err;
    EXPECT_EQ(fs::read_file(module_in("a")), original);
    std::string missing;
    EXPECT_TRUE(mentions_all(repaired.err,
                             {"cache: the unpacked tree of " + world->victim.filename +
                                  " was changed (file " + victim_module,
                              "rebuilt from the wheel"},
                             missing))
        << "missing " << missing << "in:\n"
        << repaired.err;
    EXPECT_EQ(cli({"verify", "-p", (home / "a").string()}).exit_code, 0);
    EXPECT_EQ(cli({"cache", "verify"}).exit_code, 0);

    auto b = setup("b");
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(fs::read_file(module_in("b")), original);
    EXPECT_EQ(b.err.find("was changed"), std::string::npos) << b.err;
}

TEST_F(HostileCache, AnEntryWithoutARecordIsRebuiltFromTheWheel) {
    std::string original;
    if (!setup_hardlinked_prefix(original)) GTEST_SKIP() << "no hardlinks here";
    // What an earlier aitk-env left: a tree without a record, here damaged through prefix A.
    stdfs::remove(entry() / std::string(cache::tree_stamp_name));
    append(module_in("a"), "# changed\n");

    auto b = setup("b");
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(fs::read_file(module_in("b")), original);
    EXPECT_TRUE(stdfs::exists(entry() / std::string(cache::tree_stamp_name)));
    EXPECT_EQ(fs::read_file(entry() / victim_module), original);
    EXPECT_EQ(cli({"verify", "-p", (home / "b").string()}).exit_code, 0);
}

TEST_F(HostileCache, CacheVerifyRepairRemovesDamagedEntriesAndTheNextSetupMakesThemAgain) {
    std::string original;
    if (!setup_hardlinked_prefix(original)) GTEST_SKIP() << "no hardlinks here";
    append(module_in("a"), "# changed\n");
    append(artifact(), "x");

    auto damaged = cli({"cache", "verify"});
    EXPECT_EQ(damaged.exit_code, 4) << damaged.out << damaged.err;
    std::string missing;
    EXPECT_TRUE(
        mentions_all(damaged.out, {"artifact", "unpacked", world->victim.filename}, missing))
        << "missing " << missing << "in:\n"
        << damaged.out;

    auto repair = cli({"--json", "cache", "verify", "--repair"});
    EXPECT_EQ(repair.exit_code, 0) << repair.out << repair.err;
    auto json = nlohmann::json::parse(repair.out, nullptr, false);
    ASSERT_TRUE(json.is_object()) << repair.out;
    ASSERT_EQ(json["damaged"].size(), 2u) << repair.out;
    for (const auto& d : json["damaged"])
        EXPECT_EQ(d.value("removed", false), true) << repair.out;
    EXPECT_FALSE(stdfs::exists(entry()));
    EXPECT_FALSE(stdfs::exists(artifact()));
    EXPECT_EQ(cli({"cache", "verify"}).exit_code, 0);

    auto b = setup("b");
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(fs::read_file(module_in("b")), original);
    EXPECT_EQ(cli({"cache", "verify"}).exit_code, 0);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
