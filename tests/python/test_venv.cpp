// The venv layout: compared file by file with what `python -m venv --without-pip` makes for the
// same interpreter, run for real (sys.prefix, sys.base_prefix, sys.path), refreshed and refused
// where it must be, and the Windows layout as data.
#include "aitk/python/venv.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <map>

#include "aitk/util/subprocess.hpp"
#include "python_test_support.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::python;
using namespace aitk::python::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

Interpreter real_interpreter(const std::string& version) {
    DiscoveryOptions o;
    o.environment = {{"PATH", "/usr/bin:/bin"}};
    o.timeout = 20s;
    auto found = probe_interpreter(pyenv_python(version), o);
    if (!found) throw std::runtime_error(found.error());
    return *found;
}

// Every entry under `root` except the activate scripts (the shim layer writes those):
// "d" for folders, "l -> target" for links, the content for files.
std::map<std::string, std::string> tree_of(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
         ++it) {
        std::string rel = it->path().lexically_relative(root).generic_string();
        if (it->path().filename().string().rfind("activate", 0) == 0 ||
            it->path().filename() == "Activate.ps1") {
            continue;
        }
        if (it->is_symlink()) {
            out[rel] = "l -> " + fs::read_symlink(it->path()).string();
            it.disable_recursion_pending();
        } else if (it->is_directory()) {
            out[rel] = "d";
        } else {
            out[rel] = read_file(it->path());
        }
    }
    return out;
}

aitk::util::ProcessResult run(std::vector<std::string> argv) {
    aitk::util::ProcessRequest req;
    req.argv = std::move(argv);
    req.environment = aitk::util::Environment{{"PATH", "/usr/bin:/bin"}};
    req.timeout = 60s;
    auto r = aitk::util::run_process(req);
    if (!r) throw std::runtime_error(r.error().message);
    return *r;
}

class MatchesPythonMVenv : public ::testing::TestWithParam<std::string> {};

TEST_P(MatchesPythonMVenv, SameTreeAndPyvenvCfg) {
    const std::string version = GetParam();
    if (!fs::exists(pyenv_python(version))) GTEST_SKIP() << "no pyenv " << version << " here";
    Interpreter interp = real_interpreter(version);
    TempDir t;
    for (std::string prompt : {"", "my env"}) {
        const fs::path prefix = t.path / "venv";
        std::vector<std::string> argv{interp.executable.string(), "-m", "venv", "--without-pip"};
        if (!prompt.empty()) argv.push_back("--prompt=" + prompt);
        argv.push_back(prefix.string());
        auto made = run(argv);
        ASSERT_TRUE(made.succeeded()) << made.err;
        auto expected = tree_of(prefix);
        fs::remove_all(prefix);

        create_venv({prefix, interp, false, prompt});
        EXPECT_EQ(tree_of(prefix), expected) << version << " prompt '" << prompt << "'";
        EXPECT_EQ(pyvenv_cfg_text({prefix, interp, false, prompt}), expected["pyvenv.cfg"]);
        fs::remove_all(prefix);
    }
}

INSTANTIATE_TEST_SUITE_P(Pyenv, MatchesPythonMVenv,
                         ::testing::Values("3.10.13", "3.11.7", "3.12.1", "3.13.0"));

TEST(Venv, ThePrefixRunsIsolatedFromTheBaseSitePackages) {
    if (!fs::exists(pyenv_python("3.12.1"))) GTEST_SKIP() << "no pyenv 3.12.1 here";
    Interpreter interp = real_interpreter("3.12.1");
    TempDir t;
    const fs::path prefix = t.path / "env";
    create_venv({prefix, interp, false, ""});
    VenvPaths paths = venv_paths({prefix, interp, false, ""});
    EXPECT_EQ(paths.python, prefix / "bin/python");
    EXPECT_EQ(paths.site_packages, prefix / "lib/python3.12/site-packages");
    auto r = run({paths.python.string(), "-c",
                  "import sys, json; print(json.dumps({'prefix': sys.prefix, "
                  "'base': sys.base_prefix, 'path': sys.path}))"});
    ASSERT_TRUE(r.succeeded()) << r.err;
    auto facts = nlohmann::json::parse(r.out);
    EXPECT_EQ(facts["prefix"], prefix.string());
    EXPECT_EQ(facts["base"], (pyenv_versions / "3.12.1").string());
    std::vector<std::string> path = facts["path"];
    EXPECT_NE(std::find(path.begin(), path.end(), paths.site_packages.string()), path.end());
    EXPECT_EQ(std::find(path.begin(), path.end(),
                        (pyenv_versions / "3.12.1/lib/python3.12/site-packages").string()),
              path.end());
}

TEST(Venv, RefreshesItsOwnVenvAndRefusesOthers) {
    TempDir t;
    Interpreter interp;
    interp.implementation = "CPython";
    interp.version = "3.12.1";
    interp.executable = "/opt/py312/bin/python3.12";
    const fs::path prefix = t.path / "env";
    create_venv({prefix, interp, false, ""});
    write_file(prefix / "lib/python3.12/site-packages/mine.py", "x = 1\n");
    // A patch upgrade of the same X.Y: the links and pyvenv.cfg follow, packages stay.
    interp.version = "3.12.3";
    interp.executable = "/opt/py3123/bin/python3.12";
    create_venv({prefix, interp, false, ""});
    EXPECT_EQ(fs::read_symlink(prefix / "bin/python3.12"), "/opt/py3123/bin/python3.12");
    EXPECT_NE(read_file(prefix / "pyvenv.cfg").find("version = 3.12.3\n"), std::string::npos);
    EXPECT_TRUE(fs::exists(prefix / "lib/python3.12/site-packages/mine.py"));

    Interpreter other = interp;
    other.version = "3.11.7";
    other.executable = "/opt/py311/bin/python3.11";
    try {
        create_venv({prefix, other, false, ""});
        FAIL() << "no error";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()), prefix.string() +
                                             " is a venv of Python 3.12, not of Python 3.11 "
                                             "(/opt/py311/bin/python3.11)");
        EXPECT_EQ(e.hint(),
                  "remove the prefix to recreate it with Python 3.11, or choose another prefix");
    }
    // uv and virtualenv write version_info instead of version.
    write_file(t.path / "uv/pyvenv.cfg", "home = /x\nversion_info = 3.11.7\n");
    EXPECT_THROW(create_venv({t.path / "uv", interp, false, ""}), aitk::util::InputError);
    write_file(t.path / "uv/pyvenv.cfg", "home = /x\nversion_info = 3.12.0.final.0\n");
    EXPECT_NO_THROW(create_venv({t.path / "uv", interp, false, ""}));

    write_file(t.path / "project/README", "hello");
    try {
        create_venv({t.path / "project", interp, false, ""});
        FAIL() << "no error";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()), (t.path / "project").string() +
                                             " exists and is not a venv (it has no pyvenv.cfg)");
    }
    write_file(t.path / "file", "x");
    try {
        create_venv({t.path / "file", interp, false, ""});
        FAIL() << "no error";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  (t.path / "file").string() + " exists and is not a folder");
    }
    try {
        create_venv({t.path / "a:b", interp, false, ""});
        FAIL() << "no error";
    } catch (const aitk::util::InputError& e) {
        EXPECT_EQ(std::string(e.what()), "cannot make a venv at " + (t.path / "a:b").string() +
                                             ": the path contains ':', the PATH separator");
    }
    fs::create_directories(t.path / "empty");
    EXPECT_NO_THROW(create_venv({t.path / "empty", interp, false, ""}));
    EXPECT_TRUE(fs::exists(t.path / "empty/pyvenv.cfg"));
}

TEST(Venv, PosixPlanAsData) {
    Interpreter interp;
    interp.version = "3.13.0";
    interp.executable = "/opt/py/bin/python3.13t";
    interp.free_threaded = true;
    interp.sys_platform = "darwin";
    using K = VenvStep::Kind;
    auto steps = venv_plan({"/env", interp, false, ""});
    std::vector<VenvStep> expected{
        {K::directory, "include/python3.13t", {}, {}, {}, false},
        {K::directory, "lib/python3.13t/site-packages", {}, {}, {}, false},
        {K::directory, "bin", {}, {}, {}, false},
        {K::file, "pyvenv.cfg", {}, {}, pyvenv_cfg_text({"/env", interp, false, ""}), false},
        {K::symlink, "bin/python3.13t", "/opt/py/bin/python3.13t", {}, {}, false},
        {K::symlink, "bin/python", "python3.13t", {}, {}, false},
        {K::symlink, "bin/python3", "python3.13t", {}, {}, false},
        {K::symlink, "bin/python3.13", "python3.13t", {}, {}, false},
        {K::file,
         ".gitignore",
         {},
         {},
         "# Created by venv; see https://docs.python.org/3/library/venv.html\n*\n",
         true},
    };
    EXPECT_EQ(steps, expected);  // macOS: no lib64
    EXPECT_EQ(pyvenv_cfg_text({"/env", interp, false, ""}),
              "home = /opt/py/bin\n"
              "include-system-site-packages = false\n"
              "version = 3.13.0\n"
              "executable = /opt/py/bin/python3.13t\n"
              "command = /opt/py/bin/python3.13t -m venv --without-pip /env\n");
    EXPECT_EQ(pyvenv_cfg_text({"/env", interp, false, "it's"}).find("prompt = \"it's\"\n"),
              std::string("home = /opt/py/bin\ninclude-system-site-packages = false\n"
                          "version = 3.13.0\n")
                  .size());
}

TEST(Venv, WindowsPlanAsData) {
    Interpreter interp;
    interp.version = "3.12.4";
    interp.executable = "/c/Python312/python.exe";
    interp.sys_platform = "win32";
    VenvRequest request{"/proj/.venv", interp, true, ""};
    VenvPaths paths = venv_paths(request);
    EXPECT_EQ(paths.bin, fs::path("/proj/.venv/Scripts"));
    EXPECT_EQ(paths.python, fs::path("/proj/.venv/Scripts/python.exe"));
    EXPECT_EQ(paths.site_packages, fs::path("/proj/.venv/Lib/site-packages"));
    EXPECT_EQ(paths.include, fs::path("/proj/.venv/Include"));
    using K = VenvStep::Kind;
    const fs::path nt = "/c/Python312/Lib/venv/scripts/nt";
    std::vector<VenvStep> expected{
        {K::directory, "Include", {}, {}, {}, false},
        {K::directory, "Lib/site-packages", {}, {}, {}, false},
        {K::directory, "Scripts", {}, {}, {}, false},
        {K::file, "pyvenv.cfg", {}, {}, pyvenv_cfg_text(request), false},
        {K::copy,
         "Scripts/python.exe",
         {},
         {nt / "venvlauncher.exe", nt / "python.exe", "/c/Python312/venvlauncher.exe",
          "/c/Python312/python.exe"},
         {},
         false},
        {K::copy,
         "Scripts/pythonw.exe",
         {},
         {nt / "venvwlauncher.exe", nt / "pythonw.exe", "/c/Python312/venvwlauncher.exe",
          "/c/Python312/pythonw.exe"},
         {},
         false},
    };
    EXPECT_EQ(venv_plan(request), expected);
}

TEST(Venv, WindowsCopiesTheLauncherElseTheInterpreterWithItsDlls) {
    TempDir t;
    const fs::path home = t.path / "Python312";
    write_file(home / "python.exe", "python");
    write_file(home / "pythonw.exe", "pythonw");
    write_file(home / "python312.dll", "dll");
    write_file(home / "vcruntime140.dll", "crt");
    write_file(home / "sqlite3.dll", "other");
    Interpreter interp;
    interp.version = "3.12.4";
    interp.executable = home / "python.exe";
    create_venv({t.path / "plain", interp, true, ""});
    EXPECT_EQ(read_file(t.path / "plain/Scripts/python.exe"), "python");
    EXPECT_EQ(read_file(t.path / "plain/Scripts/pythonw.exe"), "pythonw");
    EXPECT_EQ(read_file(t.path / "plain/Scripts/python312.dll"), "dll");
    EXPECT_EQ(read_file(t.path / "plain/Scripts/vcruntime140.dll"), "crt");
    EXPECT_FALSE(fs::exists(t.path / "plain/Scripts/sqlite3.dll"));
    EXPECT_TRUE(fs::is_directory(t.path / "plain/Lib/site-packages"));

    write_file(home / "Lib/venv/scripts/nt/python.exe", "launcher");
    write_file(home / "Lib/venv/scripts/nt/pythonw.exe", "wlauncher");
    create_venv({t.path / "launched", interp, true, ""});
    EXPECT_EQ(read_file(t.path / "launched/Scripts/python.exe"), "launcher");
    EXPECT_EQ(read_file(t.path / "launched/Scripts/pythonw.exe"), "wlauncher");
    EXPECT_FALSE(fs::exists(t.path / "launched/Scripts/python312.dll"));
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
