// install::plan_install on a neutral wanted list (no lockfile): what is installed, reinstalled
// (another version, another key, damaged files), kept, skipped and removed; the receipt's round
// trip; and the groups of wheels that must not install side by side.
#include <gtest/gtest.h>

#include <filesystem>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/plan.hpp"

namespace aitk::install {
namespace AITK_FILE_LOCAL {

WantedDistribution wheel(std::string name, std::string version, std::string key) {
    return {std::move(name), std::move(version), std::move(key), true, true};
}

InstalledDistribution dist(std::string name, std::string version) {
    InstalledDistribution d;
    d.name = std::move(name);
    d.version = std::move(version);
    return d;
}

Receipt receipt_of(std::map<std::string, std::string> keys) {
    Receipt r;
    r.target = "linux-x86_64-cpu";
    r.wheel_sha256 = std::move(keys);
    return r;
}

using Indexes = std::vector<std::size_t>;

TEST(PlanInstall, SortsEachWantedDistributionIntoOneAction) {
    const std::vector<WantedDistribution> wanted = {
        wheel("new", "1.0", "n"),                   // 0: not installed
        wheel("same", "2.0", "s"),                  // 1: installed, same version and key
        wheel("upgraded", "3.0", "u"),              // 2: another version installed
        wheel("rebuilt", "4.0", "r2"),              // 3: same version, another key
        {"source", "", "git+x@abc", false, false},  // 4: a source this run does not build
    };
    const std::vector<InstalledDistribution> installed = {
        dist("same", "2.0"), dist("upgraded", "2.9"), dist("rebuilt", "4.0"), dist("source", "0.1"),
        dist("stray", "1.0")};
    const auto receipt = receipt_of({{"same", "s"}, {"upgraded", "u0"}, {"rebuilt", "r1"}});

    const auto plan = plan_install(wanted, installed, receipt, true);

    EXPECT_EQ(plan.install, Indexes{0});
    EXPECT_EQ(plan.keep, Indexes{1});
    EXPECT_EQ(plan.reinstall, (Indexes{2, 3}));
    EXPECT_EQ(plan.skipped, Indexes{4});
    ASSERT_EQ(plan.remove.size(), 1u);  // "source" stays: it may be a build of the wanted one
    EXPECT_EQ(plan.remove[0].name, "stray");
}

TEST(PlanInstall, WithoutAReceiptTheVersionDecidesAndNothingExtraIsRemovedUnlessAsked) {
    const std::vector<WantedDistribution> wanted = {wheel("a", "1.0", "k")};
    const std::vector<InstalledDistribution> installed = {dist("a", "1.0"), dist("b", "1.0")};

    const auto plan = plan_install(wanted, installed, std::nullopt, false);

    EXPECT_EQ(plan.keep, Indexes{0});
    EXPECT_TRUE(plan.reinstall.empty());
    EXPECT_TRUE(plan.remove.empty());
}

TEST(PlanInstall, ASourceOfUnknownVersionIsDecidedByItsKey) {
    const std::vector<WantedDistribution> wanted = {{"tool", "", "git+u@c1", false, true}};
    const std::vector<InstalledDistribution> installed = {dist("tool", "0.3.dev1")};

    EXPECT_EQ(plan_install(wanted, installed, receipt_of({{"tool", "git+u@c1"}}), true).keep,
              Indexes{0});
    EXPECT_EQ(plan_install(wanted, installed, receipt_of({{"tool", "git+u@c0"}}), true).reinstall,
              Indexes{0});
}

TEST(PlanInstall, AFileOfAnotherSizeThanItsRecordReinstallsWhenTheLayoutIsGiven) {
    auto dir = fs::TempDir::create("aitk-plan");
    const auto layout = PrefixLayout::for_venv(dir.path() / "prefix", "3.12", false);
    std::filesystem::create_directories(layout.purelib / "a");
    fs::write_file_atomic(layout.purelib / "a" / "__init__.py", "x = 1\n");
    auto installed = dist("a", "1.0");
    installed.record = {{"a/__init__.py", "sha256=x", 6}, {"a-1.0.dist-info/RECORD", "", 0}};
    const std::vector<WantedDistribution> wanted = {wheel("a", "1.0", "k")};

    EXPECT_EQ(plan_install(wanted, {installed}, std::nullopt, true, &layout).keep, Indexes{0});
    fs::write_file_atomic(layout.purelib / "a" / "__init__.py", "x = 10\n");
    EXPECT_EQ(plan_install(wanted, {installed}, std::nullopt, true, &layout).reinstall, Indexes{0});
    // Without the layout the files are not looked at.
    EXPECT_EQ(plan_install(wanted, {installed}, std::nullopt, true).keep, Indexes{0});
}

TEST(Receipt, RoundTripsAndAnUnreadableOneIsNone) {
    auto dir = fs::TempDir::create("aitk-receipt");
    const auto state = dir.path() / ".aitk-env";
    EXPECT_FALSE(Receipt::read(state));

    auto receipt = receipt_of({{"a", "sha-a"}, {"b", "git+u@c"}});
    receipt.input_hash = "h";
    receipt.write(state);
    EXPECT_EQ(Receipt::read(state), receipt);
    EXPECT_EQ(receipt_path(state), state / "receipt.json");

    fs::write_file_atomic(receipt_path(state), "{ not json");
    EXPECT_FALSE(Receipt::read(state));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::install
