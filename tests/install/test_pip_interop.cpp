// What aitk-env installs works for a real interpreter and for pip: a venv made by CPython 3.12,
// fixture wheels and the real pip / setuptools / wheel wheels installed by install_wheel, then
// imports, console scripts, `pip list/show/check/uninstall`; and the other way round, what pip
// installs is read, verified and removed by this layer.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "aitk/install/installed.hpp"
#include "aitk/install/wheel_install.hpp"
#include "aitk/pep/name.hpp"
#include "aitk/util/subprocess.hpp"
#include "wheel_builder.hpp"

namespace AITK_FILE_LOCAL {

namespace stdfs = std::filesystem;
using namespace aitk::install;
using aitk::test::WheelSpec;

namespace {

const stdfs::path python312 = "/root/.pyenv/versions/3.12.1/bin/python";
// setuptools 65/66 (the wheels CPython and Debian ship) predate Python 3.12.
const stdfs::path python311 = "/root/.pyenv/versions/3.11.7/bin/python";

// The first `<stem>-*.whl` in the folders that ship real wheels with CPython and Debian.
std::optional<stdfs::path> real_wheel(const std::string& stem) {
    for (const char* folder :
         {"/root/.pyenv/versions/3.12.1/lib/python3.12/ensurepip/_bundled",
          "/root/.pyenv/versions/3.11.7/lib/python3.11/ensurepip/_bundled",
          "/root/.pyenv/versions/3.12.1/lib/python3.12/test", "/usr/share/python-wheels"}) {
        std::error_code ec;
        for (const auto& e : stdfs::directory_iterator(folder, ec)) {
            const std::string name = e.path().filename().string();
            if (name.starts_with(stem + "-") && name.ends_with("-py3-none-any.whl")) {
                return e.path();
            }
        }
    }
    return std::nullopt;
}

WheelSpec datapkg() {
    WheelSpec w;
    w.name = "datapkg";
    w.version = "1.0.0";
    w.requires_dist = {"pip>=20"};
    w.files = {{"datapkg/__init__.py", "def main():\n    print('datapkg')\n"}};
    w.data["scripts"] = {{"datapkg-tool", "#!python\nimport datapkg\ndatapkg.main()\n", true}};
    w.data["purelib"] = {{"datapkg_extra/__init__.py", "EXTRA = True\n"}};
    w.data["platlib"] = {{"datapkg_native/__init__.py", "NATIVE = True\n"}};
    w.data["data"] = {{"share/datapkg/config.toml", "answer = 42\n"}};
    w.data["headers"] = {{"datapkg.h", "#define DATAPKG 1\n"}};
    w.console_scripts = {"datapkg = datapkg:main"};
    w.gui_scripts = {"datapkg-gui = datapkg:main"};
    return w;
}

class PipInterop : public ::testing::Test {
  protected:
    // A venv of `interpreter` (as `python -m venv --without-pip` makes it); false when that
    // interpreter is not installed.
    bool make_venv(const stdfs::path& interpreter) {
        if (!stdfs::exists(interpreter)) return false;
        auto made = run({interpreter.string(), "-m", "venv", "--without-pip", venv.string()});
        EXPECT_TRUE(made.succeeded()) << made.err;
        auto read = PrefixLayout::read(venv, false);
        EXPECT_TRUE(read.has_value());
        if (read) layout = *read;
        return read.has_value();
    }

    aitk::util::ProcessResult run(std::vector<std::string> argv) {
        aitk::util::ProcessRequest request;
        request.argv = std::move(argv);
        request.timeout = std::chrono::seconds(120);
        request.environment_changes = {{"PYTHONPATH", std::nullopt},
                                       {"PYTHONHOME", std::nullopt},
                                       {"PIP_REQUIRE_VIRTUALENV", std::nullopt},
                                       {"PIP_DISABLE_PIP_VERSION_CHECK", "1"},
                                       {"PIP_NO_INDEX", "1"},
                                       {"PIP_NO_INPUT", "1"}};
        auto result = aitk::util::run_process(request);
        EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
        return result ? *result : aitk::util::ProcessResult{};
    }

    aitk::util::ProcessResult python(std::vector<std::string> args) {
        args.insert(args.begin(), (venv / "bin/python").string());
        return run(std::move(args));
    }

    WheelInstallResult install_file(const stdfs::path& wheel, const std::string& name,
                                    const std::string& version, bool requested = true) {
        const stdfs::path tree = dir.path() / "cache" / wheel.filename();
        if (!stdfs::exists(tree)) unpack_wheel(wheel, tree);
        WheelInstallRequest r;
        r.unpacked = tree;
        r.name = aitk::pep::canonicalize_name(name);
        r.version = version;
        r.requested = requested;
        r.label = wheel.filename().string();
        return install_wheel(layout, r);
    }

    WheelInstallResult install(const WheelSpec& spec) {
        auto built = aitk::test::build_wheel(spec, dir.path() / "wheels");
        return install_file(built.path, spec.name, spec.version);
    }

    // "pip-23.2.1-py3-none-any.whl" -> installs it under its own name and version.
    void install_real(const stdfs::path& wheel) {
        const std::string file = wheel.filename().string();
        const std::size_t first = file.find('-');
        const std::size_t second = file.find('-', first + 1);
        install_file(wheel, file.substr(0, first), file.substr(first + 1, second - first - 1));
    }

    nlohmann::json pip_list() {
        auto listed = python({"-m", "pip", "list", "--format=json"});
        EXPECT_TRUE(listed.succeeded()) << listed.err;
        return nlohmann::json::parse(listed.out, nullptr, false);
    }

    static std::optional<std::string> listed_version(const nlohmann::json& list,
                                                     const std::string& name) {
        if (!list.is_array()) return std::nullopt;
        for (const auto& item : list) {
            if (item.value("name", "") == name) return item.value("version", "");
        }
        return std::nullopt;
    }

    aitk::fs::TempDir dir = aitk::fs::TempDir::create("pip-interop-test");
    stdfs::path venv = dir.path() / "venv";
    PrefixLayout layout = PrefixLayout::for_venv(venv, "3.12", false);
};

}  // namespace

TEST_F(PipInterop, InstalledFixtureImportsRunsItsScriptsAndPipManagesIt) {
    if (!make_venv(python312)) GTEST_SKIP() << python312 << " is not installed";
    auto pip_wheel = real_wheel("pip");
    if (!pip_wheel) GTEST_SKIP() << "no pip wheel on this machine";
    install_real(*pip_wheel);
    install(datapkg());
    const stdfs::path site = layout.purelib;

    auto imported = python({"-c",
                            "import datapkg, datapkg_extra, datapkg_native\n"
                            "print(datapkg_extra.EXTRA, datapkg_native.NATIVE)"});
    ASSERT_TRUE(imported.succeeded()) << imported.err;
    EXPECT_EQ(imported.out, "True True\n");
    for (const char* script : {"bin/datapkg", "bin/datapkg-tool", "bin/datapkg-gui"}) {
        auto ran = run({(venv / script).string()});
        EXPECT_TRUE(ran.succeeded()) << script << ": " << ran.err;
        EXPECT_EQ(ran.out, "datapkg\n") << script;
    }

    // pip runs from the copy install_wheel put into the venv, by module and by its wrapper.
    const std::string pip_version = pip_wheel->filename().string().substr(4, 6);
    auto version = python({"-m", "pip", "--version"});
    ASSERT_TRUE(version.succeeded()) << version.err;
    EXPECT_TRUE(version.out.starts_with("pip " + pip_version + " from " + (site / "pip").string()))
        << version.out;
    auto wrapper = run({(venv / "bin/pip").string(), "--version"});
    ASSERT_TRUE(wrapper.succeeded()) << wrapper.err;
    EXPECT_EQ(wrapper.out, version.out);
    EXPECT_TRUE(stdfs::exists(venv / "bin/pip3.12"));

    auto list = pip_list();
    EXPECT_EQ(listed_version(list, "datapkg"), "1.0.0") << list.dump();
    EXPECT_EQ(listed_version(list, "pip"), pip_version);

    auto show = python({"-m", "pip", "show", "-f", "datapkg"});
    ASSERT_TRUE(show.succeeded()) << show.err;
    for (const std::string& line : std::vector<std::string>{
             "Name: datapkg\n", "Version: 1.0.0\n", "Location: " + site.string() + "\n",
             "Requires: pip\n", "  ../../../bin/datapkg\n",
             "  ../../../share/datapkg/config.toml\n", "  datapkg/__init__.py\n"}) {
        EXPECT_NE(show.out.find(line), std::string::npos) << line << " not in\n" << show.out;
    }

    auto check = python({"-m", "pip", "check"});
    EXPECT_TRUE(check.succeeded()) << check.out << check.err;
    EXPECT_EQ(check.out, "No broken requirements found.\n");

    auto uninstall = python({"-m", "pip", "uninstall", "-y", "datapkg"});
    ASSERT_TRUE(uninstall.succeeded()) << uninstall.err;
    EXPECT_NE(uninstall.out.find("Successfully uninstalled datapkg-1.0.0"), std::string::npos)
        << uninstall.out;
    for (const char* gone :
         {"datapkg", "datapkg_extra", "datapkg_native", "datapkg-1.0.0.dist-info"}) {
        EXPECT_FALSE(stdfs::exists(site / gone)) << gone;
    }
    for (const char* gone :
         {"bin/datapkg", "bin/datapkg-tool", "bin/datapkg-gui", "share/datapkg/config.toml",
          "include/site/python3.12/datapkg/datapkg.h"}) {
        EXPECT_FALSE(stdfs::exists(venv / gone)) << gone;
    }
    EXPECT_FALSE(listed_version(pip_list(), "datapkg").has_value());
}

TEST_F(PipInterop, RealSetuptoolsAndWheelInstallAndWork) {
    if (!make_venv(python311)) GTEST_SKIP() << python311 << " is not installed";
    auto pip_wheel = real_wheel("pip");
    auto setuptools_wheel = real_wheel("setuptools");
    auto wheel_wheel = real_wheel("wheel");
    if (!pip_wheel || !setuptools_wheel || !wheel_wheel) {
        GTEST_SKIP() << "needs the pip, setuptools and wheel wheels (python3-*-whl)";
    }
    install_real(*pip_wheel);
    install_real(*setuptools_wheel);
    install_real(*wheel_wheel);

    auto imported = python({"-c", "import setuptools, wheel, pkg_resources; print('ok')"});
    ASSERT_TRUE(imported.succeeded()) << imported.err;
    EXPECT_EQ(imported.out, "ok\n");
    auto wheel_cli = run({(venv / "bin/wheel").string(), "version"});
    ASSERT_TRUE(wheel_cli.succeeded()) << wheel_cli.err;
    EXPECT_TRUE(wheel_cli.out.starts_with("wheel ")) << wheel_cli.out;

    auto check = python({"-m", "pip", "check"});
    EXPECT_TRUE(check.succeeded()) << check.out << check.err;
    auto dists = installed_distributions(layout);
    ASSERT_EQ(dists.size(), 3u);
    EXPECT_EQ(dists[0].name, "pip");
    EXPECT_EQ(dists[1].name, "setuptools");
    EXPECT_EQ(dists[2].name, "wheel");
    EXPECT_TRUE(verify_records(layout, dists).empty());
    // Importing wrote __pycache__ folders: bytecode of listed modules is not "unowned".
    EXPECT_EQ(unowned_files(layout, dists), std::vector<std::string>{});
}

TEST_F(PipInterop, WhatPipInstallsIsReadVerifiedAndRemoved) {
    if (!make_venv(python312)) GTEST_SKIP() << python312 << " is not installed";
    auto pip_wheel = real_wheel("pip");
    if (!pip_wheel) GTEST_SKIP() << "no pip wheel on this machine";
    install_real(*pip_wheel);
    WheelSpec piped;
    piped.name = "Piped_Pkg";
    piped.version = "3.1";
    piped.files = {{"piped_pkg/__init__.py", "P = 1\n"}, {"piped_pkg/util.py", "U = 1\n"}};
    piped.console_scripts = {"piped = piped_pkg:main"};
    auto built = aitk::test::build_wheel(piped, dir.path() / "wheels");
    auto pipped = python({"-m", "pip", "install", "--no-deps", built.path.string()});
    ASSERT_TRUE(pipped.succeeded()) << pipped.err;

    auto dists = installed_distributions(layout);
    ASSERT_EQ(dists.size(), 2u);
    EXPECT_EQ(dists[0].name, "pip");
    const InstalledDistribution& dist = dists[1];
    EXPECT_EQ(dist.name, "piped-pkg");
    EXPECT_EQ(dist.version, "3.1");
    EXPECT_EQ(dist.installer, "pip");
    EXPECT_TRUE(dist.requested);
    EXPECT_FALSE(dist.record.empty());
    EXPECT_TRUE(verify_records(layout, dists).empty());  // pip's CRLF RECORD with .pyc rows
    EXPECT_TRUE(unowned_files(layout, dists).empty());

    remove_distribution(layout, dist);
    EXPECT_FALSE(stdfs::exists(layout.purelib / "piped_pkg"));
    EXPECT_FALSE(stdfs::exists(venv / "bin/piped"));
    EXPECT_FALSE(listed_version(pip_list(), "Piped_Pkg").has_value());
    EXPECT_FALSE(listed_version(pip_list(), "piped-pkg").has_value());
    auto imported = python({"-c", "import piped_pkg"});
    EXPECT_FALSE(imported.succeeded());
    auto left = installed_distributions(layout);
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].name, "pip");
    EXPECT_TRUE(unowned_files(layout, left).empty());
}

}  // namespace AITK_FILE_LOCAL
