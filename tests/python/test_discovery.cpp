// Interpreter discovery: candidate order and dedupe on fake folders (PATH, pyenv, conda, system
// folders), the probe's output format, fake interpreters (including one that hangs) and the real
// interpreters of this machine.
#include "aitk/python/discovery.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "python_test_support.hpp"

namespace AITK_FILE_LOCAL {

namespace {

using namespace aitk::python;
using namespace aitk::python::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST(ProbeOutput, ParsesTheJsonAnswer) {
    auto i = parse_probe_output(
        "aitk-python-probe\n"
        R"({"implementation": "CPython", "version": "3.12.1", "executable": "/usr/bin/python3.12",)"
        R"( "prefix": "/usr", "base_prefix": "/usr", "sys_platform": "linux", "machine": "x86_64",)"
        R"( "libc": ["glibc", "2.36"], "free_threaded": false, "is_64bit": true,)"
        R"( "paths": {"purelib": "/usr/lib/python3.12/site-packages", "platlib": "/p",)"
        R"( "scripts": "/usr/bin", "include": "/usr/include/python3.12"},)"
        R"( "markers": {"python_version": "3.12", "sys_platform": "linux", "extra": "x",)"
        R"( "from_a_newer_probe": "y"}})"
        "\n");
    ASSERT_TRUE(i) << i.error().message;
    EXPECT_EQ(i->implementation, "CPython");
    EXPECT_EQ(i->version, "3.12.1");
    EXPECT_EQ(i->major_minor(), "3.12");
    EXPECT_EQ(i->executable, "/usr/bin/python3.12");
    EXPECT_EQ(i->prefix, "/usr");
    EXPECT_EQ(i->base_prefix, "/usr");
    EXPECT_EQ(i->sys_platform, "linux");
    EXPECT_EQ(i->machine, "x86_64");
    EXPECT_EQ(i->libc, "glibc");
    EXPECT_EQ(i->libc_version, "2.36");
    EXPECT_EQ(i->paths.purelib, "/usr/lib/python3.12/site-packages");
    EXPECT_EQ(i->paths.platlib, "/p");
    EXPECT_EQ(i->paths.scripts, "/usr/bin");
    EXPECT_EQ(i->paths.include, "/usr/include/python3.12");
    EXPECT_TRUE(i->is_64bit);
    EXPECT_FALSE(i->free_threaded);
    EXPECT_EQ(i->markers.get(aitk::pep::MarkerVariable::python_version), "3.12");
    EXPECT_EQ(i->markers.get(aitk::pep::MarkerVariable::sys_platform), "linux");
    EXPECT_EQ(i->markers.get(aitk::pep::MarkerVariable::extra), "");
}

TEST(ProbeOutput, SkipsWhatASitecustomizePrintedAndRejectsOtherText) {
    auto i = parse_probe_output(
        "hello from sitecustomize\r\naitk-python-probe\r\n"
        R"({"implementation": "PyPy", "version": "3.10.14", "executable": ""})"
        "\r\n");
    ASSERT_TRUE(i) << i.error().message;
    EXPECT_EQ(i->implementation, "PyPy");
    EXPECT_EQ(i->executable, "");

    auto e = parse_probe_output("Python 3.12.1\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "not the interpreter probe's output");
    e = parse_probe_output("aitk-python-probe\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "the probe printed no answer");
    e = parse_probe_output("aitk-python-probe\n{\"version\": \n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "the probe's answer is not a JSON object");
    e = parse_probe_output(
        "aitk-python-probe\n{\"implementation\": \"CPython\", \"version\": \"3.12\"}\n");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "the interpreter's version \"3.12\" is not X.Y.Z");
    e = parse_probe_output(
        "aitk-python-probe\n{\"implementation\": \"\", \"version\": \"3.12.1\"}");
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "the interpreter did not name its implementation");
    // Wrong types are absent facts, never a crash.
    auto odd = parse_probe_output(
        "aitk-python-probe\n{\"implementation\": \"CPython\", \"version\": \"3.12.1\", "
        "\"libc\": 5, \"paths\": [], \"markers\": {\"python_version\": 3}, \"is_64bit\": \"no\"}");
    ASSERT_TRUE(odd);
    EXPECT_EQ(odd->libc, "");
    EXPECT_TRUE(odd->is_64bit);
    EXPECT_EQ(odd->markers.get(aitk::pep::MarkerVariable::python_version), "");
}

TEST(Candidates, PathOrderNamesAndPyenvVersions) {
    TempDir t;
    auto bin = t.path / "bin";
    fake_python(bin / "python3.9", "3.9.18", "/x");
    fake_python(bin / "python3.12", "3.12.1", "/x");
    fake_python(bin / "python", "3.12.1", "/x");
    fake_python(bin / "python3-config", "", "");
    fake_python(bin / "python3.12-config", "", "");
    fs::create_symlink("python3.12", bin / "python3");  // same file as python3.12: deduplicated
    std::ofstream(bin / "python3.11") << "not executable";
    fake_python(t.path / "pyenv/versions/3.9.18/bin/python3", "3.9.18", "/p9");
    fake_python(t.path / "pyenv/versions/3.13.0/bin/python3", "3.13.0", "/p13");
    fake_python(t.path / "pyenv/versions/2.7.18/bin/python", "2.7.18", "/p2");
    fake_python(t.path / "pyenv/versions/99999999999999999999/bin/python3", "3.0.0", "/odd");

    DiscoveryOptions o;
    o.path_value = "/nonexistent:" + bin.string();
    o.pyenv_root = t.path / "pyenv";
    o.system_dirs = std::vector<fs::path>{};
    auto c = interpreter_candidates(o);
    std::vector<fs::path> expected{bin / "python3.12",
                                   bin / "python3.9",
                                   bin / "python",
                                   t.path / "pyenv/versions/99999999999999999999/bin/python3",
                                   t.path / "pyenv/versions/3.13.0/bin/python3",
                                   t.path / "pyenv/versions/3.9.18/bin/python3",
                                   t.path / "pyenv/versions/2.7.18/bin/python"};
    EXPECT_EQ(c, expected);

    o.pyenv_root.clear();
    o.home = t.path / "home";
    fake_python(t.path / "home/.pyenv/versions/3.11.7/bin/python3", "3.11.7", "/p11");
    c = interpreter_candidates(o);
    EXPECT_EQ(c.back(), t.path / "home/.pyenv/versions/3.11.7/bin/python3");

    o.max_candidates = 2;
    EXPECT_EQ(interpreter_candidates(o).size(), 2u);
}

TEST(Candidates, CondaEnvironmentsSystemFoldersAndExtras) {
    TempDir t;
    auto home = t.path / "home";
    fake_python(t.path / "active/bin/python3", "3.11.0", "/a");
    fake_python(home / "miniconda3/bin/python3", "3.12.0", "/m");
    fake_python(home / "miniconda3/envs/torch/bin/python3", "3.11.0", "/t");
    fake_python(home / "miniconda3/envs/old/bin/python", "2.7.18", "/o");
    fake_python(home / "anaconda3/envs/x/bin/python3", "3.10.0", "/x");
    fake_python(t.path / "brew/python3.13", "3.13.0", "/b");
    fake_python(t.path / "brew/python3", "3.13.0", "/b");
    fake_python(t.path / "usr/python3", "3.11.2", "/u");
    fake_python(t.path / "elsewhere/python.bin", "3.9.0", "/e");

    DiscoveryOptions o;
    o.home = home;
    o.environment = {{"CONDA_PREFIX", (t.path / "active").string()}};
    o.system_dirs = std::vector<fs::path>{t.path / "brew", t.path / "usr"};
    o.extra_candidates = {t.path / "elsewhere/python.bin", t.path / "brew/python3"};
    auto c = interpreter_candidates(o);
    std::vector<fs::path> expected{t.path / "active/bin/python3",
                                   home / "miniconda3/bin/python3",
                                   home / "miniconda3/envs/old/bin/python",
                                   home / "miniconda3/envs/torch/bin/python3",
                                   home / "anaconda3/envs/x/bin/python3",
                                   t.path / "brew/python3.13",
                                   t.path / "brew/python3",
                                   t.path / "usr/python3",
                                   t.path / "elsewhere/python.bin"};
    EXPECT_EQ(c, expected);
}

TEST(Candidates, DefaultSystemFolders) {
    EXPECT_EQ(default_system_dirs(false),
              (std::vector<fs::path>{"/opt/homebrew/bin", "/usr/local/bin", "/usr/bin"}));
    EXPECT_TRUE(default_system_dirs(true).empty());
}

TEST(Candidates, WindowsNamesAsData) {
    TempDir t;
    std::ofstream(t.path / "python.exe") << "MZ";
    std::ofstream(t.path / "python3.12.exe") << "MZ";
    std::ofstream(t.path / "pythonw.exe") << "MZ";
    fs::create_directories(t.path / "WindowsApps");
    std::ofstream(t.path / "WindowsApps" / "python.exe") << "MZ";
    fs::create_directories(t.path / "conda/envs/a");
    std::ofstream(t.path / "conda/envs/a/python.exe") << "MZ";
    DiscoveryOptions o;
    o.windows = true;
    o.path_value = (t.path / "WindowsApps").string() + ";" + t.path.string();
    o.extra_candidates = {t.path / "WindowsApps" / "python.exe"};
    o.environment = {{"CONDA_PREFIX", (t.path / "conda/envs/a").string()}};
    auto c = interpreter_candidates(o);
    EXPECT_EQ(c, (std::vector<fs::path>{t.path / "python3.12.exe", t.path / "python.exe",
                                        t.path / "conda/envs/a/python.exe"}));
}

TEST(Discover, RunsEachCandidateAndDedupesByRealExecutable) {
    TempDir t;
    auto bin = t.path / "bin";
    fake_python(bin / "python3.12", "3.12.1", "/opt/py/bin/python3.12");
    fake_python(bin / "python", "3.12.1", "/opt/py/bin/python3.12");  // the same interpreter again
    fake_python(bin / "python3.9", "3.9.18", "/opt/py9/bin/python3.9");
    fake_python(bin / "python3.8", "", "", "echo broken >&2; exit 1\n");
    fake_python(bin / "python3.7", "3.7.16", "/slow", "sleep 30\n");
    DiscoveryOptions o;
    o.path_value = bin.string();
    o.system_dirs = std::vector<fs::path>{};
    o.environment = {{"PATH", "/usr/bin:/bin"}};
    o.timeout = 500ms;
    auto begin = std::chrono::steady_clock::now();
    auto found = discover_interpreters(o);
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 5s);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].version, "3.12.1");
    EXPECT_EQ(found[0].path, bin / "python3.12");
    EXPECT_EQ(found[0].executable, "/opt/py/bin/python3.12");
    EXPECT_EQ(found[1].version, "3.9.18");
}

TEST(Probe, SaysWhyACandidateIsNotAnInterpreter) {
    TempDir t;
    fake_python(t.path / "broken", "", "", "echo 'it broke' >&2; exit 3\n");
    write_file(t.path / "chatty", "#!/bin/sh\necho hello\n");
    fs::permissions(t.path / "chatty", fs::perms::owner_all);
    DiscoveryOptions o;
    o.environment = {{"PATH", "/usr/bin:/bin"}};
    auto e = probe_interpreter(t.path / "missing", o);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error(), (t.path / "missing").string() + " does not exist");
    e = probe_interpreter(t.path / "broken", o);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error(), (t.path / "broken").string() + " exited with status 3: it broke");
    e = probe_interpreter(t.path / "chatty", o);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error(), (t.path / "chatty").string() +
                             " is not a Python interpreter (not the interpreter probe's output)");
}

TEST(Probe, RealCPythonReportsItsFacts) {
    if (!fs::exists(pyenv_python("3.12.1"))) GTEST_SKIP() << "no pyenv 3.12.1 here";
    DiscoveryOptions o;
    o.environment = {{"PATH", "/usr/bin:/bin"}};
    o.timeout = 20s;
    auto i = probe_interpreter(pyenv_python("3.12.1"), o);
    ASSERT_TRUE(i) << i.error();
    const fs::path root = pyenv_versions / "3.12.1";
    EXPECT_EQ(i->implementation, "CPython");
    EXPECT_EQ(i->version, "3.12.1");
    EXPECT_EQ(i->path, pyenv_python("3.12.1"));
    EXPECT_EQ(i->executable, root / "bin/python3.12");
    EXPECT_EQ(i->prefix, root);
    EXPECT_EQ(i->base_prefix, root);
    EXPECT_EQ(i->sys_platform, "linux");
    EXPECT_EQ(i->libc, "glibc");
    EXPECT_FALSE(i->libc_version.empty());
    EXPECT_EQ(i->paths.purelib, root / "lib/python3.12/site-packages");
    EXPECT_EQ(i->paths.scripts, root / "bin");
    EXPECT_EQ(i->paths.include, root / "include/python3.12");
    EXPECT_FALSE(i->free_threaded);
    using aitk::pep::MarkerVariable;
    EXPECT_EQ(i->markers.get(MarkerVariable::python_version), "3.12");
    EXPECT_EQ(i->markers.get(MarkerVariable::python_full_version), "3.12.1");
    EXPECT_EQ(i->markers.get(MarkerVariable::implementation_name), "cpython");
    EXPECT_EQ(i->markers.get(MarkerVariable::implementation_version), "3.12.1");
    EXPECT_EQ(i->markers.get(MarkerVariable::os_name), "posix");
    EXPECT_EQ(i->markers.get(MarkerVariable::platform_system), "Linux");
    EXPECT_EQ(i->markers.get(MarkerVariable::platform_python_implementation), "CPython");
    EXPECT_EQ(i->markers.get(MarkerVariable::sys_platform), "linux");
    EXPECT_EQ(i->markers.get(MarkerVariable::platform_machine), i->machine);
}

TEST(Probe, AVenvLinkReportsTheInterpreterBehindIt) {
    if (!fs::exists(pyenv_python("3.11.7"))) GTEST_SKIP() << "no pyenv 3.11.7 here";
    TempDir t;
    auto venv = t.path / "venv";
    fs::create_directories(venv / "bin");
    write_file(venv / "pyvenv.cfg", "home = " + (pyenv_versions / "3.11.7/bin").string() + "\n");
    fs::create_symlink(pyenv_versions / "3.11.7/bin/python3.11", venv / "bin/python");
    DiscoveryOptions o;
    o.environment = {{"PATH", "/usr/bin:/bin"}};
    o.timeout = 20s;
    auto i = probe_interpreter(venv / "bin/python", o);
    ASSERT_TRUE(i) << i.error();
    EXPECT_EQ(i->path, venv / "bin/python");
    EXPECT_EQ(i->executable, pyenv_versions / "3.11.7/bin/python3.11");
    EXPECT_EQ(i->prefix, pyenv_versions / "3.11.7");
}

TEST(Discover, FindsThisMachinesPython) {
    DiscoveryOptions o;
    auto env = aitk::util::current_environment();
    o.path_value = env.count("PATH") ? env["PATH"] : "/usr/bin:/bin";
    o.home = env.count("HOME") ? env["HOME"] : "/";
    o.environment = env;
    o.timeout = 10s;
    auto found = discover_interpreters(o);
    ASSERT_FALSE(found.empty());
    for (const auto& i : found) {
        EXPECT_FALSE(i.version.empty());
        EXPECT_TRUE(i.executable.is_absolute()) << i.executable;
    }
    for (std::size_t a = 0; a < found.size(); ++a) {
        for (std::size_t b = a + 1; b < found.size(); ++b)
            EXPECT_NE(found[a].executable, found[b].executable);
    }
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
