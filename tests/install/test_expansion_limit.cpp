// The expansion rule of unpack_wheel (UnpackLimits): the limit itself, its edges on RECORD's
// sizes (exactly at the limit installs, one byte past it is refused before anything is
// extracted, naming the member that crosses it), a member stopped at its RECORD size, and a
// refusal that leaves neither the destination nor a staging folder behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "aitk/archive/writer.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/record.hpp"
#include "aitk/install/wheel_install.hpp"

namespace aitk::install {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using archive::WriteEntry;

constexpr std::uint64_t MiB = 1u << 20;

TEST(ExpansionLimit, IsTheLargerOfTheFloorAndTheRatioCappedByTheTotal) {
    const UnpackLimits limits;  // 64 MiB, 50x, 16 GiB
    EXPECT_EQ(wheel_expansion_limit(0, limits), 64 * MiB);
    EXPECT_EQ(wheel_expansion_limit(1 * MiB, limits), 64 * MiB);
    EXPECT_EQ(wheel_expansion_limit(64 * MiB / 50, limits), 64 * MiB);
    EXPECT_EQ(wheel_expansion_limit(64 * MiB / 50 + 1, limits), (64 * MiB / 50 + 1) * 50);
    EXPECT_EQ(wheel_expansion_limit(100 * MiB, limits), 5000 * MiB);
    // A 2.5 GB torch wheel (the largest known) may reach 16 GiB: the total cap, not 125 GB.
    EXPECT_EQ(wheel_expansion_limit(2500 * MiB, limits), 16ull << 30);
    EXPECT_EQ(wheel_expansion_limit(UINT64_MAX, limits), 16ull << 30);  // no overflow
    UnpackLimits uncapped;
    uncapped.max_total_bytes = UINT64_MAX;
    EXPECT_EQ(wheel_expansion_limit(UINT64_MAX / 2, uncapped), UINT64_MAX);
    uncapped.expansion_ratio = 0;
    EXPECT_EQ(wheel_expansion_limit(UINT64_MAX / 2, uncapped), 64 * MiB);
}

class Expansion : public ::testing::Test {
  protected:
    fs::TempDir dir = fs::TempDir::create("expansion-test");
    stdfs::path cache = dir.path() / "cache";
    stdfs::path destination = cache / "tree";

    // evil 1.0 with `members` (path, content) and a RECORD that lists them; `record_sizes`
    // replaces the size RECORD gives for a path.
    stdfs::path wheel(const std::vector<std::pair<std::string, std::string>>& members,
                      const std::map<std::string, std::uint64_t>& record_sizes = {}) {
        std::vector<std::pair<std::string, std::string>> all = members;
        all.push_back(
            {"evil-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n"});
        all.push_back({"evil-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n"});
        std::vector<WriteEntry> entries;
        record_text.clear();
        for (const auto& [path, content] : all) {
            entries.push_back(WriteEntry::file(path, content));
            auto size = record_sizes.count(path) ? record_sizes.at(path) : content.size();
            append_record_row(record_text, path, record_hash_of(content), size);
            record_total += size;
        }
        append_record_row(record_text, "evil-1.0.dist-info/RECORD", "", std::nullopt);
        record_total += record_text.size();
        entries.push_back(WriteEntry::file("evil-1.0.dist-info/RECORD", record_text));
        const stdfs::path out = dir.path() / "evil-1.0-py3-none-any.whl";
        archive::WriteOptions options;
        options.sort = false;
        archive::write_archive(out, archive::Format::zip, std::move(entries), options);
        return out;
    }

    // unpack_wheel's refusal; nothing may be left in the cache folder (no tree, no staging).
    std::string refusal(const stdfs::path& whl, const UnpackLimits& limits) {
        stdfs::create_directories(cache);
        try {
            unpack_wheel(whl, destination, limits);
        } catch (const WheelError& e) {
            EXPECT_TRUE(stdfs::is_empty(cache)) << "a refused wheel left something in " << cache;
            return e.what();
        }
        ADD_FAILURE() << "unpack_wheel accepted " << whl;
        return {};
    }

    std::string record_text;
    std::uint64_t record_total = 0;  // RECORD's sizes and RECORD itself
};

TEST_F(Expansion, RecordsSizesExactlyAtTheLimitInstallAndOneBytePastIsRefused) {
    const auto whl =
        wheel({{"evil/__init__.py", "X = 1\n"}, {"evil/zeros.bin", std::string(4096, '\0')}});
    UnpackLimits limits;
    limits.expansion_ratio = 0;
    limits.expansion_floor = record_total - 1;
    EXPECT_EQ(refusal(whl, limits),
              "wheel evil-1.0-py3-none-any.whl, member 'evil-1.0.dist-info/WHEEL': takes the "
              "wheel past " +
                  std::to_string(record_total - 1) + " bytes expanded (RECORD's sizes add up to " +
                  std::to_string(record_total) + "), the most it may expand to: the larger of " +
                  std::to_string(record_total - 1) + " bytes and 0 times the wheel's " +
                  std::to_string(stdfs::file_size(whl)) +
                  " bytes; no real wheel expands that much (zip bomb?)");
    limits.expansion_floor = record_total;
    unpack_wheel(whl, destination, limits);
    EXPECT_EQ(stdfs::file_size(destination / "evil/zeros.bin"), 4096u);
}

TEST_F(Expansion, TheRatioTakesOverFromTheFloorForLargerWheels) {
    const auto whl = wheel({{"evil/zeros.bin", std::string(256 * 1024, '\0')}});  // ~300 bytes
    const std::uint64_t size = stdfs::file_size(whl);
    UnpackLimits limits;
    limits.expansion_floor = 1024;
    limits.expansion_ratio = record_total / size;  // just short of what RECORD adds up to
    ASSERT_LT(limits.expansion_ratio * size, record_total);
    EXPECT_NE(refusal(whl, limits)
                  .find("takes the wheel past " + std::to_string(limits.expansion_ratio * size) +
                        " bytes expanded"),
              std::string::npos);
    limits.expansion_ratio += 1;
    unpack_wheel(whl, destination, limits);
}

TEST_F(Expansion, AMemberIsStoppedAtItsRecordSize) {
    // RECORD says 4096; the member holds (and its zip header declares) 4097.
    const auto whl = wheel({{"evil/data.bin", std::string(4097, 'x')}}, {{"evil/data.bin", 4096}});
    EXPECT_EQ(refusal(whl, UnpackLimits{}),
              "wheel evil-1.0-py3-none-any.whl, member 'evil/data.bin': expands past 4096 bytes, "
              "the size RECORD gives for it");
}

TEST_F(Expansion, AMemberRecordDoesNotListIsRefusedByNameWithoutItsData) {
    std::vector<WriteEntry> entries;
    entries.push_back(WriteEntry::file("evil/__init__.py", "X = 1\n"));
    entries.push_back(WriteEntry::file("evil/unlisted.bin", std::string(1 << 20, '\0')));
    std::string record;
    append_record_row(record, "evil/__init__.py", record_hash_of("X = 1\n"), 6);
    for (const char* f : {"METADATA", "WHEEL"}) {
        const std::string content = std::string(f) == "METADATA"
                                        ? "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n"
                                        : "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n";
        entries.push_back(WriteEntry::file(std::string("evil-1.0.dist-info/") + f, content));
        append_record_row(record, std::string("evil-1.0.dist-info/") + f, record_hash_of(content),
                          content.size());
    }
    entries.push_back(WriteEntry::file("evil-1.0.dist-info/RECORD", record));
    const stdfs::path whl = dir.path() / "evil-1.0-py3-none-any.whl";
    archive::write_archive(whl, archive::Format::zip, std::move(entries));
    EXPECT_EQ(
        refusal(whl, UnpackLimits{}),
        "wheel evil-1.0-py3-none-any.whl, member 'evil/unlisted.bin': is not listed in RECORD");
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::install
