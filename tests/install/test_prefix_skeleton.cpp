// The prefix's skeleton (skeleton.hpp) as data for both layouts, and the three places that
// consult it: install_wheel refuses a wheel that would write one of its files (members and
// script names alike) before anything is written, remove_distribution never deletes one, and
// verify_records reports a RECORD that lists one.
#include "aitk/install/skeleton.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/install/record.hpp"
#include "aitk/install/wheel_install.hpp"
#include "wheel_builder.hpp"

namespace aitk::install {
namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;

std::optional<std::string> posix(std::string_view rel) {
    return PrefixSkeleton(PrefixLayout::for_venv("/envs/p", "3.11", false)).describe(rel);
}
std::optional<std::string> windows(std::string_view rel) {
    return PrefixSkeleton(PrefixLayout::for_venv("/envs/p", "3.12", true)).describe(rel);
}

TEST(PrefixSkeleton, NamesThePosixSkeleton) {
    EXPECT_EQ(posix("pyvenv.cfg"), "pyvenv.cfg");
    EXPECT_EQ(posix("lib64"), "lib64 link");
    EXPECT_EQ(posix(".gitignore"), ".gitignore");
    for (const char* interpreter :
         {"bin/python", "bin/python3", "bin/python3.11", "bin/python3.13t", "bin/python3.11.exe",
          "bin/pypy3.10", "bin/python_d"}) {
        EXPECT_EQ(posix(interpreter), "interpreter " + std::string(interpreter));
    }
    for (const char* script : {"bin/activate", "bin/activate.fish", "bin/activate.csh",
                               "bin/Activate.ps1", "bin/activate_this.py"}) {
        EXPECT_EQ(posix(script), "activation script " + std::string(script));
    }
    EXPECT_EQ(posix("bin/aitk-run"), "launcher bin/aitk-run");
    EXPECT_EQ(posix(".aitk-env"), "state file .aitk-env");
    EXPECT_EQ(posix(".aitk-env/receipt.json"), "state file .aitk-env/receipt.json");
    EXPECT_EQ(posix(".aitk-env/txn/staging/x"), "state file .aitk-env/txn/staging/x");
}

TEST(PrefixSkeleton, ComparesNamesAsACaseInsensitiveFilesystemResolvesThem) {
    EXPECT_EQ(posix("bin/Python3"), "interpreter bin/Python3");
    EXPECT_EQ(posix("BIN/ACTIVATE"), "activation script BIN/ACTIVATE");
    EXPECT_EQ(posix("PyVenv.CFG"), "pyvenv.cfg");
    EXPECT_EQ(posix(".AITK-ENV/lock.yml"), "state file .AITK-ENV/lock.yml");
    EXPECT_EQ(posix("./bin//python"), "interpreter ./bin//python");
    EXPECT_EQ(windows("Scripts/python.exe."), "interpreter Scripts/python.exe.");
    EXPECT_EQ(windows("Scripts/python.exe::$DATA"), "interpreter Scripts/python.exe::$DATA");
    EXPECT_EQ(windows("pyvenv.cfg "), "pyvenv.cfg");
}

TEST(PrefixSkeleton, NamesTheWindowsSkeleton) {
    for (const char* interpreter :
         {"Scripts/python.exe", "Scripts/pythonw.exe", "Scripts/python3.exe",
          "Scripts/python3.12.exe", "scripts/PYTHON.EXE"}) {
        EXPECT_EQ(windows(interpreter), "interpreter " + std::string(interpreter));
    }
    EXPECT_EQ(windows("Scripts/aitk-run.cmd"), "launcher Scripts/aitk-run.cmd");
    EXPECT_EQ(windows("Scripts/Activate.ps1"), "activation script Scripts/Activate.ps1");
    EXPECT_EQ(windows("Scripts/activate.bat"), "activation script Scripts/activate.bat");
    EXPECT_EQ(windows("Scripts/deactivate.bat"), "activation script Scripts/deactivate.bat");
    EXPECT_EQ(windows("Lib/site-packages/aitk_env_dll_paths.pth"),
              "DLL search path file Lib/site-packages/aitk_env_dll_paths.pth");
    EXPECT_EQ(windows("Lib/site-packages/_aitk_env_dll_paths.py"),
              "DLL search path file Lib/site-packages/_aitk_env_dll_paths.py");
    EXPECT_EQ(windows(".aitk-env/lock.yml"), "state file .aitk-env/lock.yml");
    // bin/ is no scripts folder on Windows.
    EXPECT_EQ(windows("bin/python.exe"), std::nullopt);
}

TEST(PrefixSkeleton, LeavesEverythingElseToThePackages) {
    for (const char* rel :
         {"bin/pip", "bin/pip3", "bin/pip3.11", "bin/python-argcomplete-check-easy-install-script",
          "bin/pythonista", "bin/activate2", "bin/aitk-runner", "share/victim/pyvenv.cfg",
          "lib/python3.11/site-packages/pyvenv.cfg", "lib/python3.11/site-packages/python3",
          "lib/python3.11/site-packages/aitk_env_dll_paths.pth2", "include/site/python3.11/x/x.h",
          "etc/jupyter/activate", ".aitk-environment", "lib64x", "python3", "share/.aitk-env/x"}) {
        EXPECT_EQ(posix(rel), std::nullopt) << rel;
    }
    EXPECT_EQ(windows("Scripts/pip.exe"), std::nullopt);
    EXPECT_EQ(windows("Scripts/pythonista.exe"), std::nullopt);
}

TEST(PrefixSkeleton, DescribesPathsInsideThePrefixOnly) {
    PrefixSkeleton skeleton(PrefixLayout::for_venv("/envs/p", "3.11", false));
    EXPECT_EQ(skeleton.describe_path("/envs/p/bin/python3"), "interpreter bin/python3");
    EXPECT_EQ(skeleton.describe_path("/envs/p/lib/python3.11/site-packages/../../../pyvenv.cfg"),
              "pyvenv.cfg");
    EXPECT_EQ(skeleton.describe_path("/envs/other/pyvenv.cfg"), std::nullopt);
    EXPECT_EQ(skeleton.describe_path("/envs/p"), std::nullopt);
}

class SkeletonInstall : public ::testing::Test {
  protected:
    fs::TempDir dir = fs::TempDir::create("skeleton-test");
    stdfs::path prefix = dir.path() / "venv";
    PrefixLayout layout = PrefixLayout::for_venv(prefix, "3.12", false);
    stdfs::path site = prefix / "lib/python3.12/site-packages";

    WheelInstallRequest request(const test::WheelSpec& spec) {
        auto built = test::build_wheel(spec, dir.path() / "wheels" / spec.version);
        const stdfs::path tree = dir.path() / "cache" / built.filename;
        if (!stdfs::exists(tree)) unpack_wheel(built.path, tree);
        WheelInstallRequest r;
        r.unpacked = tree;
        r.name = "victim";
        r.version = spec.version;
        r.label = built.filename;
        return r;
    }

    static test::WheelSpec victim(const std::string& version) {
        test::WheelSpec spec;
        spec.name = "victim";
        spec.version = version;
        return spec;
    }

    // install_wheel refuses with `parts` in the message and the hint, and writes nothing.
    void expect_refused(const test::WheelSpec& spec, const PrefixLayout& where,
                        const std::vector<std::string>& parts) {
        try {
            install_wheel(where, request(spec));
            ADD_FAILURE() << "installed";
        } catch (const WheelError& e) {
            for (const auto& part : parts)
                EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
            EXPECT_EQ(e.hint(), PrefixSkeleton::hint());
        }
        EXPECT_FALSE(stdfs::exists(where.prefix)) << "something was written";
    }
};

TEST_F(SkeletonInstall, AWheelOverTheSkeletonIsRefusedBeforeAnythingIsWritten) {
    auto cfg = victim("2.0");
    cfg.data["data"] = {{"pyvenv.cfg", "include-system-site-packages = true\n"}};
    expect_refused(cfg, layout,
                   {"wheel victim-2.0-py3-none-any.whl, member 'victim-2.0.data/data/pyvenv.cfg': "
                    "would replace the prefix's pyvenv.cfg; aitk-env owns it"});
    auto script = victim("2.1");
    script.data["scripts"] = {{"python3", "#!python\n", true}};
    expect_refused(script, layout,
                   {"member 'victim-2.1.data/scripts/python3': would replace the prefix's "
                    "interpreter bin/python3"});
    auto console = victim("2.3");
    console.console_scripts = {"python3 = victim:main"};
    expect_refused(console, layout,
                   {"member 'victim-2.3.dist-info/entry_points.txt': console_scripts 'python3' "
                    "would replace the prefix's interpreter bin/python3; aitk-env owns it"});
}

TEST_F(SkeletonInstall, OnWindowsTheLauncherNamesAreChecked) {
    const PrefixLayout win = PrefixLayout::for_venv(dir.path() / "win", "3.12", true);
    auto gui = victim("3.0");
    gui.gui_scripts = {"pythonw = victim:main"};
    expect_refused(gui, win,
                   {"gui_scripts 'pythonw' would replace the prefix's interpreter "
                    "Scripts/pythonw.exe"});
    auto shim = victim("3.1");
    shim.data["scripts"] = {{"aitk-run.cmd", "@echo pwned\r\n"}};
    expect_refused(
        shim, win,
        {"member 'victim-3.1.data/scripts/aitk-run.cmd'", "launcher Scripts/aitk-run.cmd"});
}

TEST_F(SkeletonInstall, ARecordThatClaimsTheSkeletonIsReportedAndNeverRemovesIt) {
    install_wheel(layout, request(victim("1.0")));
    fs::write_file_atomic(prefix / "pyvenv.cfg", "home = /usr/bin\n");
    stdfs::create_directories(prefix / ".aitk-env");
    fs::write_file_atomic(prefix / ".aitk-env/receipt.json", "{}\n");
    const stdfs::path record = site / "victim-1.0.dist-info/RECORD";
    fs::write_file_atomic(record,
                          fs::read_file(record) +
                              test::record_line("../../../pyvenv.cfg", "home = /usr/bin\n") +
                              test::record_line("../../../.aitk-env/receipt.json", "{}\n"));
    auto dists = installed_distributions(layout);
    ASSERT_EQ(dists.size(), 1u);

    auto drift = verify_records(layout, dists);
    ASSERT_EQ(drift.size(), 2u);
    EXPECT_EQ(drift[0].path, "../../../.aitk-env/receipt.json");
    EXPECT_EQ(drift[0].problem, FileProblem::skeleton);
    EXPECT_EQ(drift[1].path, "../../../pyvenv.cfg");
    EXPECT_EQ(drift[1].problem, FileProblem::skeleton);
    EXPECT_EQ(drift[1].detail, "the prefix's pyvenv.cfg; aitk-env owns it, no distribution may");
    EXPECT_EQ(to_string(FileProblem::skeleton), "skeleton");

    remove_distribution(layout, dists.front());
    EXPECT_FALSE(stdfs::exists(site / "victim"));
    EXPECT_FALSE(stdfs::exists(site / "victim-1.0.dist-info"));
    EXPECT_EQ(fs::read_file(prefix / "pyvenv.cfg"), "home = /usr/bin\n");
    EXPECT_TRUE(stdfs::exists(prefix / ".aitk-env/receipt.json"));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::install
