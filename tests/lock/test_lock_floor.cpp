// A target's glibc (Linux) / macOS floor: computed from its wheels' platform tags, written under
// `x-aitk-env` beside the target's other fields with the cap it was locked under, read back,
// and checked against the wheels; locks older than the fields read as before.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "aitk/lock/lock_floor.hpp"
#include "aitk/lock/lockfile.hpp"
#include "lock_fixtures.hpp"
#include "yaml_readers.hpp"

namespace aitk::lock {
namespace AITK_FILE_LOCAL {

using test::hex64;
using test::small_lockfile;
using test::wheel_package;

// small_lockfile() with a compiled wheel that needs glibc 2.31 and one that needs 2.17.
Lockfile glibc_lockfile() {
    Lockfile lock = small_lockfile();
    auto& target = lock.targets[0];
    target.packages.push_back(wheel_package(
        "vllm", "0.19.1", "primary",
        "https://files.example/vllm-0.19.1-cp38-abi3-manylinux_2_31_x86_64.whl", 'c', 30));
    target.packages.push_back(
        wheel_package("numpy", "2.1.0", "primary",
                      "https://files.example/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64."
                      "manylinux2014_x86_64.whl",
                      'd', 40));
    std::sort(target.packages.begin(), target.packages.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    return lock;
}

TEST(LockFloor, TheHighestGlibcAnyWheelNeedsAndWhoNeedsIt) {
    const Lockfile lock = glibc_lockfile();
    const auto needs = wheel_needs(lock.targets[0]);
    ASSERT_EQ(needs.size(), 2u);
    EXPECT_EQ(needs[0].package, "vllm");
    EXPECT_EQ(needs[0].version, "0.19.1");
    EXPECT_EQ(needs[0].need.platform, "manylinux_2_31_x86_64");
    EXPECT_EQ(needs[1].package, "numpy");
    EXPECT_EQ(pep::to_string(needs[1].need.version), "2.17");

    const auto floor = floor_of(lock.targets[0]);
    ASSERT_TRUE(floor);
    EXPECT_EQ(floor->version, "2.31");
    EXPECT_EQ(floor->packages, std::vector<std::string>{"vllm"});

    // Pure wheels only: no floor. Windows wheels name no version.
    EXPECT_FALSE(floor_of(small_lockfile().targets[0]));
    LockedTarget windows = lock.targets[0];
    windows.os = "windows";
    EXPECT_FALSE(floor_of(windows));
    EXPECT_EQ(floor_key("linux"), "glibc");
    EXPECT_EQ(floor_key("macos"), "macos");
    EXPECT_EQ(floor_key("windows"), "");
}

TEST(LockFloor, MacosTargetsHaveAMacosFloor) {
    LockedTarget mac = small_lockfile().targets[0];
    mac.id = "macos-arm64-mps";
    mac.os = "macos";
    mac.arch = "arm64";
    mac.packages.push_back(wheel_package(
        "torch", "2.9.0", "primary",
        "https://files.example/torch-2.9.0-cp312-none-macosx_11_0_arm64.whl", 'e', 50));
    mac.packages.push_back(
        wheel_package("tokenizers", "0.21.0", "primary",
                      "https://files.example/tokenizers-0.21.0-cp39-abi3-macosx_10_12_x86_64."
                      "macosx_11_0_arm64.whl",
                      'f', 60));
    const auto floor = floor_of(mac);
    ASSERT_TRUE(floor);
    EXPECT_EQ(floor->version, "11.0");
    EXPECT_EQ(floor->packages, (std::vector<std::string>{"tokenizers", "torch"}));
}

TEST(LockFloor, WrittenUnderTheTargetAndReadBack) {
    Lockfile lock = glibc_lockfile();
    lock.targets[0].os_cap = "2.35";
    lock.targets[0].os_floor = floor_of(lock.targets[0]);
    const std::string text = write_lockfile(lock);
    EXPECT_NE(text.find("      python: 3.12.3\n"
                        "      glibc:\n"
                        "        cap: \"2.35\"\n"
                        "        floor: \"2.31\"\n"
                        "        set-by: [vllm]\n"
                        "      marker-environment:\n"),
              std::string::npos)
        << text;
    const auto parsed = parse_lockfile(text, "env.lock.yml");
    ASSERT_TRUE(parsed) << parsed.error().describe() << "\n" << text;
    EXPECT_EQ(*parsed, lock);
    EXPECT_EQ(write_lockfile(*parsed), text);
    // conda and micromamba read the fields as strings (they ignore x-aitk-env anyway).
    const auto doc = test::read_with_yaml_cpp(text);
    EXPECT_EQ(doc["x-aitk-env"]["targets"][0]["glibc"]["floor"], "2.31");

    // No cap: the floor alone.
    lock.targets[0].os_cap.clear();
    const std::string uncapped = write_lockfile(lock);
    EXPECT_EQ(uncapped.find("cap:"), std::string::npos);
    const auto again = parse_lockfile(uncapped, "env.lock.yml");
    ASSERT_TRUE(again) << again.error().describe();
    EXPECT_EQ(*again, lock);
}

// A lock written before the fields existed reads as before: no cap, no floor.
TEST(LockFloor, OldLocksWithoutTheFieldsReadAsBefore) {
    Lockfile lock = glibc_lockfile();
    const std::string text = write_lockfile(lock);
    EXPECT_EQ(text.find("glibc:"), std::string::npos);
    const auto parsed = parse_lockfile(text, "env.lock.yml");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_TRUE(parsed->targets[0].os_cap.empty());
    EXPECT_FALSE(parsed->targets[0].os_floor);
    EXPECT_EQ(*parsed, lock);
}

// The problem and its hint.
std::string problem_of(const std::string& text) {
    auto parsed = parse_lockfile(text, "env.lock.yml");
    EXPECT_FALSE(parsed) << text;
    return parsed ? std::string() : parsed.error().describe() + " / " + parsed.error().hint;
}

TEST(LockFloor, AFloorTheWheelsDoNotSetIsAProblem) {
    Lockfile lock = glibc_lockfile();
    lock.targets[0].os_floor = floor_of(lock.targets[0]);
    const std::string text = write_lockfile(lock);
    auto edited = [&](const std::string& from, const std::string& to) {
        std::string t = text;
        const auto at = t.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return t.replace(at, from.size(), to);
    };
    auto lowered = problem_of(edited("floor: \"2.31\"", "floor: \"2.28\""));
    EXPECT_NE(lowered.find("env.lock.yml:"), std::string::npos) << lowered;
    EXPECT_NE(lowered.find("says 2.28 (set by vllm), but the target's wheels need 2.31 (set by "
                           "vllm)"),
              std::string::npos)
        << lowered;
    EXPECT_NE(lowered.find("aitk-env lock"), std::string::npos) << lowered;

    EXPECT_NE(problem_of(edited("set-by: [vllm]", "set-by: [numpy]")).find("set by numpy"),
              std::string::npos);
    EXPECT_NE(problem_of(edited("floor: \"2.31\"", "floor: two")).find("MAJOR.MINOR"),
              std::string::npos);
    EXPECT_NE(problem_of(edited("        set-by: [vllm]\n", "")).find("both `floor` and `set-by`"),
              std::string::npos);
    EXPECT_NE(problem_of(edited("      glibc:\n", "      glibc:\n        cap: \"2.28\"\n"))
                  .find("above the cap 2.28"),
              std::string::npos);
    EXPECT_NE(problem_of(edited("      glibc:\n", "      macos:\n")).find("macOS targets"),
              std::string::npos);
    EXPECT_NE(problem_of(edited("        floor:", "        flor:")).find("unknown key `flor`"),
              std::string::npos);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::lock
