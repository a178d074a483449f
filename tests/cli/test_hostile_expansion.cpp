// Wheels that expand far beyond what they are, through the real binary: a release of the victim
// whose member inflates past the size its RECORD gives (stopped there, not after it has filled
// the disk), and one whose RECORD is right but whose zeros expand past the limit no real wheel
// reaches (the larger of 64 MiB and 50 times the wheel's size). `sync` exits 1 naming the wheel,
// the member, the sizes and the rule, and leaves nothing in the cache but the verified download:
// no unpacked tree, whole or partial.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "hostile_support.hpp"

namespace aitk::test {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

class HostileExpansion : public VictimWorldTest {
  protected:
    static void expect_refused(const BuiltArtifact& wheel, const std::vector<std::string>& parts) {
        const auto lock = victim_lock_for(*world, wheel, "2.0");
        ASSERT_FALSE(lock.empty()) << "the lock no longer has the expected shape";
        const auto before = world->state();
        auto r = world->cli_with_index(
            {"sync", "-l", lock.string(), "-p", world->path("prefix").string()}, "");
        EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
        std::string missing;
        EXPECT_TRUE(mentions_all(r.err, parts, missing)) << "missing " << missing << "in:\n"
                                                         << r.err;
        EXPECT_EQ(VictimWorld::changes(before, world->state(), wheel.sha256), "");
        stdfs::remove(lock);
    }
};

TEST_F(HostileExpansion, AMemberLargerThanItsRecordSizeIsStoppedThere) {
    // The zip's headers are honest (8 MiB); RECORD says 1000 bytes.
    auto wheel = victim_release(*world, "past-record", WheelSpec{}, [](auto& entries) {
        entries.insert(entries.begin(),
                       archive::WriteEntry::file("victim/big.bin", std::string(1000, '\0')));
        set_record(entries);
        entries.front().content = std::string(8u << 20, '\0');
    });
    expect_refused(wheel, {"wheel victim-2.0-py3-none-any.whl", "member 'victim/big.bin'",
                           "expands past 1000 bytes, the size RECORD gives for it"});
}

TEST_F(HostileExpansion, ZerosPastTheExpansionLimitAreRefusedBeforeAnyIsWritten) {
    // 80 MiB of zeros deflate to ~80 KiB: RECORD and the headers are right, the ratio is not.
    auto wheel = victim_release(*world, "zeros", WheelSpec{}, [](auto& entries) {
        entries.insert(entries.begin(),
                       archive::WriteEntry::file("victim/zeros.bin", std::string(80u << 20, '\0')));
        set_record(entries);
    });
    ASSERT_LT(wheel.size, 1u << 20);
    expect_refused(
        wheel,
        {"wheel victim-2.0-py3-none-any.whl", "member 'victim/zeros.bin'", "past 67108864 bytes",
         "the larger of 64 MiB and 50 times the wheel's " + std::to_string(wheel.size) + " bytes"});
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::test
