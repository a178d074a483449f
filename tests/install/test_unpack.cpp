// unpack_wheel on real fixture wheels and on hostile ones: each hostile wheel is refused with an
// error naming the wheel and the member, and leaves nothing at the destination.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "aitk/archive/writer.hpp"
#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/record.hpp"
#include "aitk/install/wheel_install.hpp"
#include "wheel_builder.hpp"

namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using aitk::archive::WriteEntry;
using namespace aitk::install;

namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

const std::string wheel_name = "evil-1.0-py3-none-any.whl";
const std::string record_name = "evil-1.0.dist-info/RECORD";

Files base_files() {
    return {{"evil/__init__.py", "X = 1\n"},
            {"evil-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n"},
            {"evil-1.0.dist-info/WHEEL",
             "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}};
}

std::string record_of(const Files& files) {
    std::string text;
    for (const auto& [path, content] : files) {
        append_record_row(text, path, record_hash_of(content), content.size());
    }
    append_record_row(text, record_name, "", std::nullopt);
    return text;
}

class Unpack : public ::testing::Test {
  protected:
    aitk::fs::TempDir dir = aitk::fs::TempDir::create("unpack-test");
    stdfs::path destination = dir.path() / "cache" / "tree";

    // A wheel of `files` and `record` (a RECORD computed from `files` when empty), plus `extra`
    // entries that RECORD does not know about.
    stdfs::path wheel(const Files& files, std::string record = {},
                      std::vector<WriteEntry> extra = {}, const std::string& name = wheel_name) {
        std::vector<WriteEntry> entries;
        for (const auto& [path, content] : files)
            entries.push_back(WriteEntry::file(path, content));
        for (auto& e : extra)
            entries.push_back(std::move(e));
        entries.push_back(
            WriteEntry::file(record_name, record.empty() ? record_of(files) : record));
        const stdfs::path out = dir.path() / name;
        aitk::archive::WriteOptions options;
        options.sort = false;
        aitk::archive::write_archive(out, aitk::archive::Format::zip, std::move(entries), options);
        return out;
    }

    // unpack_wheel's error text; the destination must be left absent.
    std::string refusal(const stdfs::path& whl, const UnpackLimits& limits = {}) {
        try {
            unpack_wheel(whl, destination, limits);
        } catch (const WheelError& e) {
            EXPECT_FALSE(stdfs::exists(destination)) << "a refused wheel left " << destination;
            return e.what();
        }
        ADD_FAILURE() << "unpack_wheel accepted " << whl;
        return {};
    }
};

}  // namespace

TEST_F(Unpack, UnpacksAFixtureWheelWithDataFoldersScriptsAndNativeLibraries) {
    aitk::test::WheelSpec spec;
    spec.name = "datapkg";
    spec.version = "1.0.0";
    spec.files = {{"datapkg/__init__.py", "def main():\n    print('datapkg')\n"}};
    spec.data["scripts"] = {{"datapkg-tool", "#!python\nimport datapkg\n", true}};
    spec.data["data"] = {{"share/datapkg/config.toml", "answer = 42\n"}};
    spec.console_scripts = {"datapkg = datapkg:main"};
    spec.native_libraries = {"datapkg/_native.so"};
    auto built = aitk::test::build_wheel(spec, dir.path() / "wheels");

    unpack_wheel(built.path, destination);
    EXPECT_EQ(aitk::fs::read_file(destination / "datapkg/__init__.py"),
              "def main():\n    print('datapkg')\n");
    EXPECT_EQ(aitk::fs::read_file(destination / "datapkg-1.0.0.data/scripts/datapkg-tool"),
              "#!python\nimport datapkg\n");
#ifndef _WIN32  // execute bits: POSIX only
    struct stat st {};
    ASSERT_EQ(::stat((destination / "datapkg-1.0.0.data/scripts/datapkg-tool").c_str(), &st), 0);
    EXPECT_NE(st.st_mode & 0100, 0u) << "the executable bit survives unpacking";
#endif
    EXPECT_TRUE(stdfs::exists(destination / "datapkg-1.0.0.dist-info/RECORD"));
    EXPECT_TRUE(stdfs::exists(destination / "datapkg-1.0.0.dist-info/entry_points.txt"));
}

TEST_F(Unpack, AcceptsSignatureFilesThatRecordCannotList) {
    Files files = base_files();
    auto whl = wheel(files, {}, [] {
        std::vector<WriteEntry> e;
        e.push_back(WriteEntry::file("evil-1.0.dist-info/RECORD.jws", "{}"));
        return e;
    }());
    unpack_wheel(whl, destination);
    EXPECT_TRUE(stdfs::exists(destination / "evil-1.0.dist-info/RECORD.jws"));
}

TEST_F(Unpack, RefusesAMemberThatClimbsOut) {
    Files files = base_files();
    files.push_back({"../evil.py", "import os\n"});
    EXPECT_EQ(refusal(wheel(files)),
              "wheel " + wheel_name +
                  ", member '../evil.py': has a '..' component (it would leave the destination)");
    EXPECT_FALSE(stdfs::exists(dir.path() / "cache" / "evil.py"));
}

TEST_F(Unpack, RefusesAnAbsoluteMember) {
    Files files = base_files();
    files.push_back({"/tmp/aitk-evil.py", "import os\n"});
    EXPECT_EQ(refusal(wheel(files)),
              "wheel " + wheel_name + ", member '/tmp/aitk-evil.py': is an absolute path");
}

TEST_F(Unpack, RefusesASymlinkMember) {
    std::vector<WriteEntry> extra;
    extra.push_back(WriteEntry::symlink("evil/passwd", "/etc/passwd"));
    EXPECT_EQ(refusal(wheel(base_files(), {}, std::move(extra))),
              "wheel " + wheel_name +
                  ", member 'evil/passwd': is a symlink (to '/etc/passwd'); links are not allowed "
                  "here");
}

TEST_F(Unpack, RefusesAZipBombOverTheCap) {
    Files files = base_files();
    files.push_back({"evil/bomb.bin", std::string(64 * 1024, '\0')});  // compresses to ~100 bytes
    UnpackLimits limits;
    limits.max_total_bytes = 16 * 1024;
    // Refused from RECORD's sizes, before a byte is extracted (test_expansion_limit.cpp).
    EXPECT_EQ(
        refusal(wheel(files), limits),
        "wheel " + wheel_name +
            ", member 'evil/bomb.bin': takes the wheel past 16384 bytes expanded (RECORD's "
            "sizes add up to " +
            std::to_string(record_of(files).size() + 64 * 1024 + 6 + files[1].second.size() +
                           files[2].second.size()) +
            "), the most it may expand to: the extraction limit of 16384 bytes; no real wheel "
            "expands that much (zip bomb?)");
}

TEST_F(Unpack, RefusesAHashThatDisagreesWithRecord) {
    Files files = base_files();
    std::string record = record_of(files);
    auto whl = wheel({{"evil/__init__.py", "X = 2\n"}, files[1], files[2]}, record);
    EXPECT_EQ(refusal(whl), "wheel " + wheel_name + ", member 'evil/__init__.py': has " +
                                record_hash_of("X = 2\n") + ", RECORD says " +
                                record_hash_of("X = 1\n"));
}

TEST_F(Unpack, RefusesASizeThatDisagreesWithRecord) {
    Files files = base_files();
    std::string record = record_of(files);
    const std::string good = "evil/__init__.py," + record_hash_of("X = 1\n") + ",6\n";
    record.replace(record.find(good), good.size(),
                   "evil/__init__.py," + record_hash_of("X = 1\n") + ",7\n");
    EXPECT_EQ(refusal(wheel(files, record)),
              "wheel " + wheel_name + ", member 'evil/__init__.py': is 6 bytes, RECORD says 7");
}

TEST_F(Unpack, RefusesAMemberMissingFromRecord) {
    std::vector<WriteEntry> extra;
    extra.push_back(WriteEntry::file("evil/extra.py", "import os\n"));
    EXPECT_EQ(refusal(wheel(base_files(), {}, std::move(extra))),
              "wheel " + wheel_name + ", member 'evil/extra.py': is not listed in RECORD");
}

TEST_F(Unpack, RefusesARecordLineForAFileTheWheelLacks) {
    Files files = base_files();
    std::string record = record_of(files) + "evil/ghost.py," + record_hash_of("") + ",0\n";
    EXPECT_EQ(refusal(wheel(files, record)),
              "wheel " + wheel_name +
                  ", member 'evil/ghost.py': is listed in RECORD but not in the "
                  "wheel");
}

TEST_F(Unpack, RefusesUnsafeRecordPaths) {
    Files files = base_files();
    std::string record = "../../outside.py," + record_hash_of("") + ",0\n" + record_of(files);
    EXPECT_EQ(refusal(wheel(files, record)),
              "wheel " + wheel_name +
                  ", member '../../outside.py': RECORD lists an unsafe path: it has a '..' "
                  "component (it would leave the destination)");
    record = "/etc/passwd," + record_hash_of("") + ",0\n" + record_of(files);
    EXPECT_EQ(refusal(wheel(files, record)),
              "wheel " + wheel_name +
                  ", member '/etc/passwd': RECORD lists an unsafe path: it is an absolute path");
}

TEST_F(Unpack, RefusesFilesWithoutAHashAndListedTwice) {
    Files files = base_files();
    std::string record = record_of(files);
    std::string line = "evil/__init__.py," + record_hash_of("X = 1\n") + ",6\n";
    EXPECT_EQ(refusal(wheel(files, record + line)),
              "wheel " + wheel_name + ", member 'evil/__init__.py': is listed twice in RECORD");
    record.replace(record.find(line), line.size(), "evil/__init__.py,,\n");
    EXPECT_EQ(refusal(wheel(files, record)),
              "wheel " + wheel_name + ", member 'evil/__init__.py': has no hash in RECORD");
}

TEST_F(Unpack, RefusesAMalformedRecord) {
    EXPECT_EQ(refusal(wheel(base_files(), "evil/__init__.py,sha256=x\n")),
              "wheel " + wheel_name + ", member '" + record_name +
                  "': line 1: has 2 fields, expected 3 (path,hash,size)");
}

TEST_F(Unpack, RefusesADistInfoThatNamesAnotherProject) {
    EXPECT_EQ(refusal(wheel(base_files(), {}, {}, "other-1.0-py3-none-any.whl")),
              "wheel other-1.0-py3-none-any.whl: its folder 'evil-1.0.dist-info' does not match "
              "the wheel's name and version (other 1.0)");
    EXPECT_EQ(refusal(wheel(base_files(), {}, {}, "evil-2.0-py3-none-any.whl")),
              "wheel evil-2.0-py3-none-any.whl: its folder 'evil-1.0.dist-info' does not match the "
              "wheel's name and version (evil 2.0)");
}

TEST_F(Unpack, RefusesWheelsWithoutOrWithSeveralDistInfoFolders) {
    Files files = base_files();
    std::vector<WriteEntry> extra;
    extra.push_back(WriteEntry::file("other-1.0.dist-info/METADATA", "Name: other\n"));
    EXPECT_EQ(refusal(wheel(files, {}, std::move(extra))),
              "wheel " + wheel_name +
                  ": has several .dist-info folders (evil-1.0.dist-info, other-1.0.dist-info)");

    std::vector<WriteEntry> entries;
    entries.push_back(WriteEntry::file("evil/__init__.py", "X = 1\n"));
    const stdfs::path bare = dir.path() / wheel_name;
    aitk::archive::write_archive(bare, aitk::archive::Format::zip, std::move(entries));
    EXPECT_EQ(refusal(bare), "wheel " + wheel_name + ": has no .dist-info folder");
}

TEST_F(Unpack, RefusesAWheelWithoutRecord) {
    std::vector<WriteEntry> entries;
    for (const auto& [path, content] : base_files())
        entries.push_back(WriteEntry::file(path, content));
    const stdfs::path whl = dir.path() / wheel_name;
    aitk::archive::write_archive(whl, aitk::archive::Format::zip, std::move(entries));
    EXPECT_EQ(refusal(whl), "wheel " + wheel_name + ": has no " + record_name);
}

TEST_F(Unpack, NeverMergesIntoAnExistingFolder) {
    stdfs::create_directories(destination);
    try {
        unpack_wheel(wheel(base_files()), destination);
        ADD_FAILURE() << "unpacked into an existing folder";
    } catch (const WheelError& e) {
        EXPECT_NE(std::string(e.what()).find("wheel " + wheel_name + ": "), std::string::npos)
            << e.what();
    }
}

}  // namespace AITK_FILE_LOCAL
