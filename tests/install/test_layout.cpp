#include "aitk/install/layout.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/util/error.hpp"

namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using aitk::install::PrefixLayout;

TEST(Layout, PosixVenvUsesLibPythonXYSitePackagesAndBin) {
    auto layout = PrefixLayout::for_venv("/envs/a", "3.12.1", false);
    EXPECT_EQ(layout.prefix.generic_string(), "/envs/a");
    EXPECT_EQ(layout.purelib.generic_string(), "/envs/a/lib/python3.12/site-packages");
    EXPECT_EQ(layout.platlib, layout.purelib);
    EXPECT_EQ(layout.scripts.generic_string(), "/envs/a/bin");
    EXPECT_EQ(layout.headers.generic_string(), "/envs/a/include/site/python3.12");
    EXPECT_EQ(layout.data.generic_string(), "/envs/a");
    EXPECT_EQ(layout.python.generic_string(), "/envs/a/bin/python");
    EXPECT_EQ(layout.state.generic_string(), "/envs/a/.aitk-env");
    EXPECT_EQ(layout.python_version, "3.12");
    EXPECT_FALSE(layout.windows);
}

TEST(Layout, WindowsVenvUsesLibSitePackagesAndScripts) {
    auto layout = PrefixLayout::for_venv("C:/envs/a", "3.11", true);
    EXPECT_EQ(layout.purelib.generic_string(), "C:/envs/a/Lib/site-packages");
    EXPECT_EQ(layout.platlib, layout.purelib);
    EXPECT_EQ(layout.scripts.generic_string(), "C:/envs/a/Scripts");
    EXPECT_EQ(layout.python.generic_string(), "C:/envs/a/Scripts/python.exe");
    EXPECT_EQ(layout.headers.generic_string(), "C:/envs/a/Include/site/python3.11");
    EXPECT_EQ(layout.data.generic_string(), "C:/envs/a");
    EXPECT_EQ(layout.python_version, "3.11");
    EXPECT_TRUE(layout.windows);
    // RECORD paths of scripts are relative to site-packages: two levels up on Windows.
    EXPECT_EQ(layout.scripts.lexically_relative(layout.purelib).generic_string(), "../../Scripts");
}

TEST(Layout, RejectsSomethingThatIsNotAPythonVersion) {
    EXPECT_THROW(PrefixLayout::for_venv("/envs/a", "twelve", false), aitk::util::InputError);
    EXPECT_THROW(PrefixLayout::for_venv("/envs/a", "3", false), aitk::util::InputError);
}

TEST(Layout, ReadsTheVersionFromPyvenvCfg) {
    auto dir = aitk::fs::TempDir::create("layout-test");
    const stdfs::path venv = dir.path() / "venv";
    stdfs::create_directories(venv);
    EXPECT_FALSE(PrefixLayout::read(venv, false).has_value());  // no pyvenv.cfg: not a venv

    aitk::fs::write_file_atomic(venv / "pyvenv.cfg",
                                "home = /usr/bin\ninclude-system-site-packages = false\n"
                                "version = 3.11.7\n");
    auto layout = PrefixLayout::read(venv, false);
    ASSERT_TRUE(layout.has_value());
    EXPECT_EQ(layout->python_version, "3.11");
    EXPECT_EQ(layout->purelib, venv / "lib" / "python3.11" / "site-packages");

    // virtualenv writes version_info instead.
    aitk::fs::write_file_atomic(venv / "pyvenv.cfg",
                                "home = /usr/bin\nversion_info = 3.10.13.final.0\n");
    EXPECT_EQ(PrefixLayout::read(venv, false)->python_version, "3.10");

    // Neither: the one lib/python3.X/site-packages decides.
    aitk::fs::write_file_atomic(venv / "pyvenv.cfg", "home = /usr/bin\n");
    EXPECT_FALSE(PrefixLayout::read(venv, false).has_value());
    stdfs::create_directories(venv / "lib" / "python3.9" / "site-packages");
    EXPECT_EQ(PrefixLayout::read(venv, false)->python_version, "3.9");
    EXPECT_TRUE(PrefixLayout::read(venv, true).has_value() == false);
}

}  // namespace AITK_FILE_LOCAL
