// A macOS target's macOS, as a Linux target's glibc (test_glibc_cli.cpp): a lock takes wheels
// up to macOS 14.0 unless `--macos X.Y` says otherwise, records the floor its wheels set and
// the cap, and counts the cap in its input hash; a value that is not a macOS is exit 2 before
// any work, and a lock that exists already cannot be capped afterwards.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "os_cap_cli_fixture.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

// macpkg: 2.0 ships a macOS 15 wheel only, 1.0 a macOS 11 one. oldmac: one version whose
// wheels need macOS 10.13 and 12.0.
class MacosCapCli : public OsCapCliTest<MacosCapCli> {
  public:
    static constexpr const char* mirror_json = R"({
            "indexes": {"simple": {}},
            "wheels": [
              {"index": "simple", "name": "macpkg", "version": "2.0",
               "tags": ["cp312-cp312-macosx_15_0_arm64"]},
              {"index": "simple", "name": "macpkg", "version": "1.0",
               "tags": ["cp312-cp312-macosx_11_0_arm64"]},
              {"index": "simple", "name": "oldmac", "version": "1.0",
               "tags": ["cp312-cp312-macosx_10_13_universal2", "cp312-cp312-macosx_12_0_arm64"]}
            ]})";

  protected:
    // `lock` of requirements.txt for macos-arm64-mps, Python 3.12.1, into env.lock.yml.
    CliResult lock(std::vector<std::string> extra = {}) {
        return lock_for("macos-arm64-mps", std::move(extra));
    }
};

TEST_F(MacosCapCli, ByDefaultWheelsUpToMacos14AreTakenAndTheFloorIsRecorded) {
    write("requirements.txt", "macpkg\noldmac\n");
    auto locked = lock();
    ASSERT_EQ(locked.exit_code, 0) << locked.err;
    const std::string text = read("env.lock.yml");
    EXPECT_NE(text.find("filename: macpkg-1.0-cp312-cp312-macosx_11_0_arm64.whl"),
              std::string::npos)
        << text;
    // Of oldmac's two wheels, the one that runs on the older macOS.
    EXPECT_NE(text.find("filename: oldmac-1.0-cp312-cp312-macosx_10_13_universal2.whl"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("      macos:\n"
                        "        floor: \"11.0\"\n"
                        "        set-by: [macpkg]\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("cap:"), std::string::npos) << text;
}

TEST_F(MacosCapCli, ANewerCapTakesTheNewerVersionRecordsItAndMakesTheOldLockStale) {
    write("requirements.txt", "macpkg\n");
    ASSERT_EQ(lock().exit_code, 0);
    const std::string uncapped = read("env.lock.yml");

    // --upgrade: a lock keeps the versions of the lock it replaces.
    auto capped = lock({"--macos", "15.0", "--upgrade"});
    ASSERT_EQ(capped.exit_code, 0) << capped.err;
    const std::string text = read("env.lock.yml");
    EXPECT_NE(text.find("filename: macpkg-2.0-cp312-cp312-macosx_15_0_arm64.whl"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("      macos:\n"
                        "        cap: \"15.0\"\n"
                        "        floor: \"15.0\"\n"
                        "        set-by: [macpkg]\n"),
              std::string::npos)
        << text;
    EXPECT_NE(capped.err.find("macOS ≥ 15.0 for macpkg"), std::string::npos) << capped.err;

    // The cap counts in the input hash: the lock made without it is stale under it and back.
    EXPECT_EQ(lock({"--check", "--macos", "15.0"}).exit_code, 0);
    auto stale = lock({"--check"});
    EXPECT_EQ(stale.exit_code, 1) << stale.err;
    EXPECT_NE(stale.err.find("glibc or macOS cap changed"), std::string::npos) << stale.err;
    ASSERT_EQ(lock().exit_code, 0);
    EXPECT_EQ(read("env.lock.yml"), uncapped);
}

TEST_F(MacosCapCli, AnOlderCapThanANeedIsUnsatisfiableAndSaysWhy) {
    write("requirements.txt", "macpkg\n");
    auto refused = lock({"--macos", "10.15"});
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
    EXPECT_NE(refused.err.find("macpkg 2.0 needs macOS ≥ 15.0 (macosx_15_0_arm64); this target: "
                               "≤ 10.15 (--macos 10.15)"),
              std::string::npos)
        << refused.err;
}

TEST_F(MacosCapCli, ABadMacosValueIsABadInput) {
    write("requirements.txt", "macpkg\n");
    for (const char* bad : {"14", "abc", "10.8", "10.16", "9.0"}) {
        auto refused = lock({"--macos", bad});
        EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.err;
        EXPECT_NE(
            refused.err.find(std::string("error: --macos ") + bad + ": macOS \"" + bad + "\": "),
            std::string::npos)
            << refused.err;
        EXPECT_NE(refused.err.find("hint: give the oldest macOS the target's machines have"),
                  std::string::npos)
            << refused.err;
    }
    EXPECT_FALSE(stdfs::exists(work.path() / "env.lock.yml"));
    ASSERT_EQ(lock().exit_code, 0);
    auto with_lock = run({"setup", "-l", path("env.lock.yml"), "-p", path("p"), "--macos", "13.0"});
    EXPECT_EQ(with_lock.exit_code, 2) << with_lock.err;
    EXPECT_NE(with_lock.err.find("--macos 13.0 caps the lock setup makes"), std::string::npos)
        << with_lock.err;
    // A bundle holds its lock: neither cap applies (refused before the bundle is read).
    for (const char* flag : {"--macos", "--glibc"}) {
        auto bundled = run({"setup", "--bundle", path("none.tar.zst"), "-p", path("p"), flag,
                            std::string(flag) == "--macos" ? "13.0" : "2.28"});
        EXPECT_EQ(bundled.exit_code, 2) << bundled.err;
        EXPECT_NE(bundled.err.find(std::string(flag) +
                                   " caps the lock setup makes; a bundle holds its lock"),
                  std::string::npos)
            << bundled.err;
    }
    auto from =
        run({"lock", "--from", path("env.lock.yml"), "-o", path("x.lock.yml"), "--macos", "13.0"});
    EXPECT_EQ(from.exit_code, 2) << from.err;
    EXPECT_NE(from.err.find("--macos 13.0 would need a resolution"), std::string::npos) << from.err;
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
