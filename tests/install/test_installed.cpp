// Reading a prefix back: installed distributions, RECORD verification, unowned files, and
// removal by RECORD (including refusing RECORD lines that point outside the prefix).
#include "aitk/install/installed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/record.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/error.hpp"
#include "wheel_builder.hpp"

namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using namespace aitk::install;
using aitk::test::WheelSpec;

namespace {

class Installed : public ::testing::Test {
  protected:
    aitk::fs::TempDir dir = aitk::fs::TempDir::create("installed-test");
    stdfs::path prefix = dir.path() / "venv";
    PrefixLayout layout = PrefixLayout::for_venv(prefix, "3.12", false);
    stdfs::path site = prefix / "lib/python3.12/site-packages";

    WheelInstallResult install(const WheelSpec& spec, bool requested = false) {
        auto built = aitk::test::build_wheel(spec, dir.path() / "wheels");
        stdfs::path tree = dir.path() / "cache" / built.filename;
        unpack_wheel(built.path, tree);
        WheelInstallRequest r;
        r.unpacked = tree;
        r.name = aitk::pep::canonicalize_name(spec.name);
        r.version = spec.version;
        r.requested = requested;
        r.link_mode = LinkMode::copy;  // these tests edit installed files
        return install_wheel(layout, r);
    }

    void SetUp() override {
        WheelSpec alpha;
        alpha.name = "Alpha.Pkg";
        alpha.version = "2.0";
        alpha.files = {{"alpha_pkg/__init__.py", "A = 1\n"},
                       {"alpha_pkg/core.py", "def f():\n    return 1\n"},
                       {"alpha_pkg/sub/deep.py", "D = 1\n"}};
        alpha.console_scripts = {"alpha = alpha_pkg:main"};
        alpha.data["data"] = {{"share/alpha/x.txt", "x\n"}};
        alpha.data["headers"] = {{"alpha.h", "#define A\n"}};
        install(alpha, true);
        WheelSpec beta;
        beta.name = "beta";
        beta.version = "0.1";
        beta.files = {{"beta.py", "B = 1\n"}};
        install(beta);
    }
};

}  // namespace

TEST_F(Installed, ListsDistributionsFromTheirDistInfo) {
    auto dists = installed_distributions(layout);
    ASSERT_EQ(dists.size(), 2u);
    EXPECT_EQ(dists[0].name, "alpha-pkg");
    EXPECT_EQ(dists[0].version, "2.0");
    EXPECT_EQ(dists[0].dist_info, site / "alpha_pkg-2.0.dist-info");
    EXPECT_EQ(dists[0].installer, "aitk-env");
    EXPECT_TRUE(dists[0].requested);
    EXPECT_EQ(dists[0].record.size(), 12u);  // 3 modules, 2 data, 1 script, 6 dist-info files
    EXPECT_EQ(dists[1].name, "beta");
    EXPECT_FALSE(dists[1].requested);
    EXPECT_EQ(dists[1].record.back().path, "beta-0.1.dist-info/RECORD");
}

TEST_F(Installed, VerifyFindsModifiedAndMissingFiles) {
    auto dists = installed_distributions(layout);
    EXPECT_TRUE(verify_records(layout, dists).empty());

    aitk::fs::write_file_atomic(site / "alpha_pkg/core.py",
                                "def f():\n    return 2\n");  // same size
    aitk::fs::write_file_atomic(site / "beta.py", "B = 100\n");
    stdfs::remove(site / "alpha_pkg/sub/deep.py");
    stdfs::remove(prefix / "share/alpha/x.txt");
    auto drift = verify_records(layout, dists);
    ASSERT_EQ(drift.size(), 4u);
    EXPECT_EQ(drift[0].distribution, "alpha-pkg");
    EXPECT_EQ(drift[0].path, "../../../share/alpha/x.txt");
    EXPECT_EQ(drift[0].problem, FileProblem::missing);
    EXPECT_EQ(drift[0].detail, "not found");
    EXPECT_EQ(drift[1].path, "alpha_pkg/core.py");
    EXPECT_EQ(drift[1].problem, FileProblem::modified);
    EXPECT_EQ(drift[1].detail, "sha256 differs");
    EXPECT_EQ(drift[2].path, "alpha_pkg/sub/deep.py");
    EXPECT_EQ(drift[2].problem, FileProblem::missing);
    EXPECT_EQ(drift[3].distribution, "beta");
    EXPECT_EQ(drift[3].path, "beta.py");
    EXPECT_EQ(drift[3].detail, "size 8, RECORD says 6");
}

TEST_F(Installed, VerifyReportsAnUnreadableRecord) {
    aitk::fs::write_file_atomic(site / "beta-0.1.dist-info/RECORD", "\"broken\n");
    auto dists = installed_distributions(layout);
    ASSERT_EQ(dists.size(), 2u);
    EXPECT_TRUE(dists[1].record.empty());
    auto drift = verify_records(layout, dists);
    ASSERT_EQ(drift.size(), 1u);
    EXPECT_EQ(drift[0].distribution, "beta");
    EXPECT_EQ(drift[0].path, "beta-0.1.dist-info/RECORD");
    EXPECT_EQ(drift[0].detail, "RECORD is missing or unreadable");
    // Without a RECORD nothing says which files are beta's: removal is refused, as pip does.
    try {
        remove_distribution(layout, dists[1]);
        ADD_FAILURE() << "removed a distribution without RECORD";
    } catch (const aitk::util::Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot remove beta 0.1: its RECORD (" +
                      (site / "beta-0.1.dist-info/RECORD").make_preferred().string() +
                      ") is missing or unreadable, so its files are unknown");
        EXPECT_EQ(e.hint(), "reinstall it (which writes a new RECORD), then remove it");
    }
    EXPECT_TRUE(stdfs::exists(site / "beta.py"));
    EXPECT_TRUE(stdfs::exists(site / "beta-0.1.dist-info/METADATA"));
}

TEST_F(Installed, UnownedFilesIgnoreBytecodeOfListedModules) {
    auto dists = installed_distributions(layout);
    EXPECT_TRUE(unowned_files(layout, dists).empty());
    stdfs::create_directories(site / "alpha_pkg/__pycache__");
    stdfs::create_directories(site / "__pycache__");
    aitk::fs::write_file_atomic(site / "alpha_pkg/__pycache__/core.cpython-312.pyc", "pyc");
    aitk::fs::write_file_atomic(site / "__pycache__/beta.cpython-312.pyc", "pyc");
    aitk::fs::write_file_atomic(site / "alpha_pkg/__pycache__/gone.cpython-312.pyc", "pyc");
    aitk::fs::write_file_atomic(site / "stray.py", "S = 1\n");
    aitk::fs::write_file_atomic(site / "alpha_pkg/notes.txt", "n\n");
    EXPECT_EQ(unowned_files(layout, dists),
              (std::vector<std::string>{"alpha_pkg/__pycache__/gone.cpython-312.pyc",
                                        "alpha_pkg/notes.txt", "stray.py"}));
}

TEST_F(Installed, RemoveDeletesRecordFilesBytecodeAndEmptyFolders) {
    stdfs::create_directories(site / "alpha_pkg/__pycache__");
    aitk::fs::write_file_atomic(site / "alpha_pkg/__pycache__/core.cpython-312.pyc", "pyc");
    auto dists = installed_distributions(layout);
    auto removed = remove_distribution(layout, dists[0]);

    EXPECT_NE(std::find(removed.begin(), removed.end(),
                        site / "alpha_pkg/__pycache__/core.cpython-312.pyc"),
              removed.end());
    EXPECT_NE(std::find(removed.begin(), removed.end(), prefix / "bin/alpha"), removed.end());
    EXPECT_EQ(removed.size(), 13u);  // 12 RECORD entries and the .pyc
    for (const char* gone : {"alpha_pkg", "alpha_pkg-2.0.dist-info"}) {
        EXPECT_FALSE(stdfs::exists(site / gone)) << gone;
    }
    EXPECT_FALSE(stdfs::exists(prefix / "share"));
    EXPECT_FALSE(stdfs::exists(prefix / "include/site/python3.12/alpha-pkg"));
    EXPECT_FALSE(stdfs::exists(prefix / "bin/alpha"));
    // The prefix's own folders stay, and so does the other distribution.
    EXPECT_TRUE(stdfs::is_directory(site));
    EXPECT_TRUE(stdfs::is_directory(prefix / "bin"));
    EXPECT_TRUE(stdfs::is_directory(prefix / "include/site/python3.12"));
    EXPECT_TRUE(stdfs::exists(site / "beta.py"));
    auto left = installed_distributions(layout);
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].name, "beta");
    EXPECT_TRUE(verify_records(layout, left).empty());
}

TEST_F(Installed, RemoveRefusesRecordLinesOutsideThePrefixAndDeletesNothing) {
    const stdfs::path outside = dir.path() / "outside.txt";
    aitk::fs::write_file_atomic(outside, "keep me\n");
    auto dists = installed_distributions(layout);
    InstalledDistribution beta = dists[1];
    beta.record.insert(beta.record.begin() + 1, InstalledFile{"../../../../outside.txt", "", 0});
    try {
        remove_distribution(layout, beta);
        ADD_FAILURE() << "removed a file outside the prefix";
    } catch (const aitk::util::Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "refusing to remove beta 0.1: its RECORD (" +
                      (site / "beta-0.1.dist-info/RECORD").make_preferred().string() +
                      ") lists '../../../../outside.txt', which is outside the prefix " +
                      prefix.string());
    }
    EXPECT_TRUE(stdfs::exists(outside));
    EXPECT_TRUE(stdfs::exists(site / "beta.py")) << "nothing is removed when one line is refused";

    beta = dists[1];
    beta.record.push_back(InstalledFile{outside.string(), "", 0});
    EXPECT_THROW(remove_distribution(layout, beta), aitk::util::Error);
    EXPECT_TRUE(stdfs::exists(outside));
}

TEST_F(Installed, RemoveRefusesAFolderThatIsASymlinkOutOfThePrefix) {
    const stdfs::path elsewhere = dir.path() / "elsewhere";
    stdfs::create_directories(elsewhere);
    aitk::fs::write_file_atomic(elsewhere / "victim.txt", "keep me\n");
    stdfs::create_directory_symlink(elsewhere, site / "escape");
    auto dists = installed_distributions(layout);
    InstalledDistribution beta = dists[1];
    beta.record.push_back(InstalledFile{"escape/victim.txt", "", 0});
    try {
        remove_distribution(layout, beta);
        ADD_FAILURE() << "removed a file through a symlink";
    } catch (const aitk::util::Error& e) {
        EXPECT_NE(std::string(e.what()).find("lists 'escape/victim.txt', whose folder leads "
                                             "outside the prefix"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(stdfs::exists(elsewhere / "victim.txt"));
}

}  // namespace AITK_FILE_LOCAL
